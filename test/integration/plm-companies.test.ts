/**
 * The PLM import's supplier, vendor and main-supplier cells hold what a PLM export holds: the brand's own supplier
 * codes and names, or platform company ids. Each resolves to the company id the API stores. The real workflow runs
 * on a Temporal dev server against the sandbox over HTTP (plm-rules-stack.ts), with a network of more than one page.
 */
import { buildDemoSeed } from '../../sandbox/seed/demo';
import { family, plmRulesStack, toCsvWith, type Row } from './plm-rules-stack';

const BRAND = 'cmp_brand_nordic_threads';
const COMPANY_COLUMNS = ['suppliers', 'vendors', 'mainSupplier'] as const;
type CompanyCells = Partial<Record<(typeof COMPANY_COLUMNS)[number], string>>;

/** The demo network plus two companies of one name and enough others for two pages of 100. */
function seedWithTwins(): unknown {
  const seed = buildDemoSeed(Date.now());
  const extra = [
    { id: 'cmp_twin_north', name: 'Twin Knits', internalCompanyCode: 'TW-1' },
    { id: 'cmp_twin_south', name: 'Twin Knits', internalCompanyCode: 'TW-2' },
    ...Array.from({ length: 100 }, (_, n) => ({
      id: `cmp_fill_${n}`,
      name: `Filler ${n}`,
      internalCompanyCode: `FILL-${n}`,
    })),
  ].map((company) => ({ ...company, officialName: null, city: null, country: null, network: [BRAND] }));
  const companies = seed.companies.map((company) =>
    company.id === BRAND ? { ...company, network: [...company.network, ...extra.map((e) => e.id)] } : company,
  );
  return { ...seed, companies: [...companies, ...extra] };
}

describe('PLM import: suppliers, vendors and main supplier by code, name or id', () => {
  const { file, nativeMappingWith, run, api, rejectsOf, snapshot, writesSince, stack } = plmRulesStack({
    seed: seedWithTwins(),
  });
  const companyReads = () => stack().apiClient.stats().byEndpoint['GET /companies'] ?? 0;

  const companyMapping = () =>
    nativeMappingWith('native-with-companies', {
      vendors: { column: 'vendors', split: ';' },
      mainSupplier: 'mainSupplier',
    });
  const companySheet = (name: string, rows: readonly Row[], cells: Record<string, CompanyCells>) =>
    file(name, toCsvWith(rows, COMPANY_COLUMNS, cells));

  // Spec 01: `suppliers, vendors` are "array of string (company ids) or null" and `mainSupplier` "string (company id)
  // or null". Spec 03, GET /companies: "It maps an external company code to the platform company id." DESIGN:
  // "Reference values (style types, properties, facility processes, companies) are ids; the connectors map human
  // names to ids and say which name did not match and what is close."
  it('a supplier code, a vendor name and a main supplier id are stored as company ids; an unknown name and one two companies share refuse their rows; a rerun writes nothing', async () => {
    const mapping = await companyMapping();
    const rows = [...family('CMP1'), ...family('CMP2'), ...family('CMP3')];
    const sheet = await companySheet('companies.csv', rows, {
      CMP1: {
        suppliers: 'SUP-1002; sup-1003',
        vendors: 'dhaka knitwear',
        mainSupplier: 'cmp_sup_anatolia_garments',
      },
      CMP2: { suppliers: 'Gujarat Mils' },
      CMP3: { vendors: 'Twin Knits' },
    });

    const readsBefore = companyReads();
    const before = snapshot();
    const result = await run({ file: sheet, mappingFile: mapping });
    const rejects = rejectsOf(result);
    expect(rejects.map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
      'CMP2 unknown_reference',
      'CMP2-BLK invalid_parent',
      'CMP2-BLK-M invalid_parent',
      'CMP3 ambiguous_reference',
      'CMP3-BLK invalid_parent',
      'CMP3-BLK-M invalid_parent',
    ]);
    expect(rejects[0]?.message).toMatch(
      /row 5, column 'suppliers': .*'Gujarat Mils'.*did you mean .*'Gujarat Mills'/,
    );
    expect(rejects[3]?.message).toMatch(
      /row 8, column 'vendors': .*'Twin Knits'.*cmp_twin_north.*cmp_twin_south/,
    );

    expect(await api<unknown>('/styles/CMP1')).toMatchObject({
      suppliers: ['cmp_sup_gujarat_mills', 'cmp_sup_porto_trims'],
      vendors: ['cmp_sup_dhaka_knitwear'],
      mainSupplier: 'cmp_sup_anatolia_garments',
    });
    expect(await api<unknown>('/styles/CMP2')).toBeUndefined();
    expect(await api<unknown>('/styles/CMP3')).toBeUndefined();
    expect(writesSince(before)).toBe(3); // the CMP1 family's creates
    // The key's 112 companies, read once in pages of 100.
    expect(companyReads() - readsBefore).toBe(2);

    // The product reads back ids; the sheet's codes and names resolve to the same ids, so nothing is written again.
    const again = snapshot();
    const rerun = await run({ file: sheet, mappingFile: mapping });
    expect(rerun.plan).toMatchObject({ create: 0, update: 0 });
    expect(writesSince(again)).toBe(0);
  });

  it('a sheet with no supplier or vendor cell reads no company', async () => {
    const mapping = await companyMapping();
    const sheet = await companySheet('no-companies.csv', family('CMP4'), {});
    const readsBefore = companyReads();
    const result = await run({ file: sheet, mappingFile: mapping });
    expect(rejectsOf(result)).toEqual([]);
    expect(companyReads() - readsBefore).toBe(0);
  });
});
