import type { CompanyEntry } from '../../../connectors/companies';
import { readVisibleCompanies } from '../../../connectors/plm-import/read-sheet';
import type { Page } from '../../../connectors/traceability';

/**
 * Spec 03 gives GET /companies no order, so two companies of one name may come in another order on each page: a read
 * by page number then meets one twice and misses the other, which would be "unknown" to the rows naming it.
 */
describe('the PLM read of the companies the key sees', () => {
  const others = Array.from({ length: 99 }, (_, n) => ({ id: `cmp_${n}`, name: `Company ${n}` }));
  const twinA = { id: 'cmp_twin_a', name: 'Twin Knits', internalCompanyCode: 'TW-1' };
  const twinB = { id: 'cmp_twin_b', name: 'Twin Knits', internalCompanyCode: 'TW-2' };
  const page = (items: CompanyEntry[], number: number): Page<CompanyEntry> => ({
    items,
    pagination: { page: number, limit: 100, total: 101, totalPages: 2 },
  });
  /** Each page sorts the tie its own way on the reads `shuffled` names (1-based). */
  const pages = (shuffled: (read: number) => boolean) => {
    let calls = 0;
    const fetchPage = jest.fn((number: number) => {
      const read = Math.floor(calls++ / 2) + 1;
      const tie = shuffled(read) && number === 2 ? [twinB, twinA] : [twinA, twinB];
      const all = [...others, ...tie];
      return Promise.resolve(page(all.slice((number - 1) * 100, number * 100), number));
    });
    return fetchPage;
  };

  it('reads the list again when a page missed a company, and gives each company once', async () => {
    const fetchPage = pages((read) => read === 1);
    const companies = await readVisibleCompanies(fetchPage);
    expect(companies.map((company) => company.id).sort()).toEqual(
      [...others.map((company) => company.id), twinA.id, twinB.id].sort(),
    );
    expect(fetchPage).toHaveBeenCalledTimes(4);
  });

  it('fails, to be retried, when every read misses some company', async () => {
    await expect(readVisibleCompanies(pages(() => true))).rejects.toThrow(
      /GET \/companies .*101 listed, 100 read since that count/,
    );
  });
});
