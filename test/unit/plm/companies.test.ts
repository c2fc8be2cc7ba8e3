import type { ProductDraft } from '../../../connectors/plm-import/draft';
import type { CompanyEntry } from '../../../connectors/companies';
import { CompanyResolver, resolveCompanyCells } from '../../../connectors/plm-import/profiles/companies';

const companies: CompanyEntry[] = [
  { id: 'cmp_acme', internalCompanyCode: 'ACME-001', name: 'Acme', officialName: 'Acme Textiles Ltd' },
  { id: 'cmp_acme_lower', internalCompanyCode: 'acme-001', name: 'Acme Lower', officialName: null },
  { id: 'cmp_beta', internalCompanyCode: 'BETA-1', name: 'Beta Mills', officialName: null },
  { id: 'cmp_twin_a', internalCompanyCode: 'TW-1', name: 'Twin Knits', officialName: null },
  { id: 'cmp_twin_b', internalCompanyCode: 'TW-2', name: 'Twin Knits', officialName: null },
];

const draft = (fields: ProductDraft['fields']): ProductDraft => ({
  externalId: 'S1',
  level: 'style',
  parentExternalId: null,
  rowNumbers: [2],
  fields,
  origins: Object.fromEntries(Object.keys(fields).map((field) => [field, { column: field, rowNumber: 2 }])),
  externalIdColumn: 'externalId',
  parentColumn: null,
  referenceOnly: false,
});

describe('CompanyResolver', () => {
  const resolver = new CompanyResolver(companies);

  it('keeps an id, then an exact code, then a code with case set aside, then a name or official name', () => {
    expect(resolver.resolve('cmp_beta')).toEqual({ ok: true, id: 'cmp_beta' });
    expect(resolver.resolve('ACME-001')).toEqual({ ok: true, id: 'cmp_acme' });
    expect(resolver.resolve('acme-001')).toEqual({ ok: true, id: 'cmp_acme_lower' });
    expect(resolver.resolve('beta-1')).toEqual({ ok: true, id: 'cmp_beta' });
    expect(resolver.resolve('beta mills')).toEqual({ ok: true, id: 'cmp_beta' });
    expect(resolver.resolve('ACME TEXTILES LTD')).toEqual({ ok: true, id: 'cmp_acme' });
  });

  it('refuses a value two companies share, naming both, and an unknown one with what is close', () => {
    expect(resolver.resolve('Acme-001')).toMatchObject({
      ok: false,
      code: 'ambiguous_reference',
      reason: expect.stringMatching(/'cmp_acme'.*'cmp_acme_lower'/) as unknown,
    });
    expect(resolver.resolve('twin knits')).toMatchObject({ ok: false, code: 'ambiguous_reference' });
    expect(resolver.resolve('Beta Mils')).toMatchObject({
      ok: false,
      code: 'unknown_reference',
      reason: expect.stringContaining("did you mean 'Beta Mills'?") as unknown,
    });
  });
});

describe('resolveCompanyCells', () => {
  it('reads no company when no cell gives one', async () => {
    const load = jest.fn(() => Promise.resolve(companies));
    expect(await resolveCompanyCells([draft({ name: 'Tee' })], load)).toEqual([]);
    expect(load).not.toHaveBeenCalled();
  });

  it('reads the companies once, resolves every cell in place and drops one that does not resolve', async () => {
    const load = jest.fn(() => Promise.resolve(companies));
    const good = draft({
      suppliers: ['ACME-001', 'Acme'],
      vendors: ['beta mills'],
      mainSupplier: 'cmp_beta',
    });
    const bad = draft({ vendors: ['Nobody'] });
    const issues = await resolveCompanyCells([good, bad], load);
    expect(load).toHaveBeenCalledTimes(1);
    expect(good.fields).toEqual({ suppliers: ['cmp_acme'], vendors: ['cmp_beta'], mainSupplier: 'cmp_beta' });
    expect(bad.fields).toEqual({});
    expect(issues).toEqual([
      expect.objectContaining({
        rowNumber: 2,
        column: 'vendors',
        code: 'unknown_reference',
        externalId: 'S1',
      }),
    ]);
    expect(issues[0]?.message).toMatch(/^row 2, column 'vendors': unknown company 'Nobody'/);
  });
});
