import type { CompanyEntry } from '../../../connectors/companies';
import { CompanyResolver } from '../../../connectors/plm-import/profiles/companies';
import { mapRows } from '../../../connectors/plm-import/profiles/map-rows';
import { profile, sheetOf } from './helpers';

const companies: CompanyEntry[] = [
  { id: 'cmp_acme', internalCompanyCode: 'ACME-001', name: 'Acme', officialName: 'Acme Textiles Ltd' },
  { id: 'cmp_acme_lower', internalCompanyCode: 'acme-001', name: 'Acme Lower', officialName: null },
  { id: 'cmp_beta', internalCompanyCode: 'BETA-1', name: 'Beta Mills', officialName: null },
  { id: 'cmp_twin_a', internalCompanyCode: 'TW-1', name: 'Twin Knits', officialName: null },
  { id: 'cmp_twin_b', internalCompanyCode: 'TW-2', name: 'Twin Knits', officialName: null },
];

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

describe('company cells of a native sheet', () => {
  const nativeWithCompanies = () =>
    profile({
      name: 'native-companies',
      layout: 'native',
      parentExternalId: 'parent',
      mapping: {
        externalId: 'externalId',
        fields: {
          name: 'name',
          suppliers: { column: 'suppliers', split: ';' },
          vendors: { column: 'vendors', split: ';' },
          mainSupplier: 'mainSupplier',
        },
      },
    });
  const HEADERS = ['externalId', 'parent', 'name', 'suppliers', 'vendors', 'mainSupplier'];

  it('reads no company when no cell gives one', async () => {
    const load = jest.fn(() => Promise.resolve(companies));
    const mapped = await mapRows(
      sheetOf(HEADERS, [['S1', null, 'Tee', null, null, null]]),
      nativeWithCompanies(),
      {},
      load,
    );
    expect(mapped.issues).toEqual([]);
    expect(load).not.toHaveBeenCalled();
  });

  it('reads the companies once, resolves every cell and drops one that does not resolve', async () => {
    const load = jest.fn(() => Promise.resolve(companies));
    const mapped = await mapRows(
      sheetOf(HEADERS, [
        ['S1', null, 'Tee', 'ACME-001; Acme', 'beta mills', 'cmp_beta'],
        ['S2', null, 'Top', null, 'Nobody', null],
      ]),
      nativeWithCompanies(),
      {},
      load,
    );
    expect(load).toHaveBeenCalledTimes(1);
    const [good, bad] = mapped.drafts;
    expect(good?.fields).toEqual({
      name: 'Tee',
      suppliers: ['cmp_acme'],
      vendors: ['cmp_beta'],
      mainSupplier: 'cmp_beta',
    });
    expect(bad?.fields).toEqual({ name: 'Top' });
    expect(mapped.issues).toEqual([
      expect.objectContaining({
        rowNumber: 3,
        column: 'vendors',
        code: 'unknown_reference',
        externalId: 'S2',
      }),
    ]);
    expect(mapped.issues[0]?.message).toMatch(/^row 3, column 'vendors': unknown company 'Nobody'/);
  });
});

describe('company cells of a flat style over several rows', () => {
  const acme: CompanyEntry[] = [
    { id: 'cmp_acme', internalCompanyCode: 'ACM01', name: 'Acme Ltd', officialName: null },
    { id: 'cmp_beta', internalCompanyCode: 'BET01', name: 'Beta Mills', officialName: null },
  ];
  const flatWithCompanies = () =>
    profile({
      name: 'flat-companies',
      layout: 'flat',
      style: {
        externalId: 'style',
        fields: { mainSupplier: 'supplier', suppliers: { column: 'suppliers', split: ';' } },
      },
      variant: { externalId: 'variant', fields: {} },
      sku: { externalId: 'sku', fields: {} },
    });
  const HEADERS = ['style', 'variant', 'sku', 'supplier', 'suppliers'];

  it('takes one company named by its code on one row and by its name or another case on the next as that company', async () => {
    const load = jest.fn(() => Promise.resolve(acme));
    const mapped = await mapRows(
      sheetOf(HEADERS, [
        ['S1', 'S1-RED', 'S1-RED-M', 'ACM01', 'ACM01; Beta Mills'],
        ['S1', 'S1-RED', 'S1-RED-L', 'Acme Ltd', 'bet01; acme ltd'],
        ['S1', 'S1-BLU', 'S1-BLU-M', 'acm01', 'cmp_beta; cmp_acme'],
      ]),
      flatWithCompanies(),
      {},
      load,
    );
    expect(mapped.issues).toEqual([]);
    expect(load).toHaveBeenCalledTimes(1);
    const style = mapped.drafts.find((draft) => draft.externalId === 'S1');
    expect(style?.fields).toMatchObject({ mainSupplier: 'cmp_acme', suppliers: ['cmp_acme', 'cmp_beta'] });
  });

  it('still refuses two different companies on two rows of one style, quoting the cells as written', async () => {
    const mapped = await mapRows(
      sheetOf(HEADERS, [
        ['S1', 'S1-RED', 'S1-RED-M', 'ACM01', null],
        ['S1', 'S1-RED', 'S1-RED-L', 'Beta Mills', null],
      ]),
      flatWithCompanies(),
      {},
      () => Promise.resolve(acme),
    );
    expect(mapped.issues.map((issue) => `${issue.code} ${issue.message}`)).toEqual([
      expect.stringMatching(
        /^conflicting_values row 3, column 'supplier': .*'Beta Mills' here but 'ACM01' on row 2/,
      ),
    ]);
  });

  it('reads no company when no row gives a company cell', async () => {
    const load = jest.fn(() => Promise.resolve(acme));
    const mapped = await mapRows(
      sheetOf(HEADERS, [['S1', 'S1-RED', 'S1-RED-M', null, ' ; ']]),
      flatWithCompanies(),
      {},
      load,
    );
    expect(mapped.issues).toEqual([]);
    expect(load).not.toHaveBeenCalled();
  });
});

describe('a text naming different companies at different steps', () => {
  const crossed: CompanyEntry[] = [
    { id: 'cmp_a', internalCompanyCode: 'NORD', name: 'Alpha', officialName: null },
    { id: 'cmp_b', internalCompanyCode: 'B-1', name: 'nord', officialName: null },
    { id: 'cmp_c', internalCompanyCode: 'Kent', name: 'Kent Mills', officialName: 'cmp_a' },
  ];
  const resolver = new CompanyResolver(crossed);

  it("is refused when it is one company's code with case set aside and another's name, naming both", () => {
    const resolved = resolver.resolve('Nord');
    expect(resolved).toMatchObject({ ok: false, code: 'ambiguous_reference' });
    expect(!resolved.ok && resolved.reason).toBe(
      "company 'Nord' is ambiguous: it is the code of 'cmp_a' (Alpha, NORD) and the name of 'cmp_b' (nord, B-1); give the id of the one you mean instead",
    );
  });

  it("keeps a company id, and an exact code of one company, decisive over another's name", () => {
    expect(resolver.resolve('NORD')).toEqual({ ok: true, id: 'cmp_a' });
    expect(resolver.resolve('cmp_a')).toEqual({ ok: true, id: 'cmp_a' });
    expect(resolver.resolve('kent')).toEqual({ ok: true, id: 'cmp_c' });
  });
});

describe('CompanyResolver: a text many companies share', () => {
  it('names a few of them and how many more, in one bounded reason', () => {
    const namesakes: CompanyEntry[] = Array.from({ length: 60 }, (_, i) => ({
      id: `cmp_${i}`,
      internalCompanyCode: `DYE-${i}`,
      name: `Dye House ${'x'.repeat(200)}`,
      officialName: null,
    }));
    const resolved = new CompanyResolver(namesakes).resolve(`dye house ${'X'.repeat(200)}`);
    expect(resolved).toMatchObject({ ok: false, code: 'ambiguous_reference' });
    const reason = !resolved.ok ? resolved.reason : '';
    expect(reason).toContain('the name of 60 companies the key sees');
    expect(reason).toContain("'cmp_0'");
    expect(reason).toMatch(/and 5\d more\)/);
    expect(reason).not.toContain("'cmp_59'");
    expect(reason.length).toBeLessThan(2_000);
  });

  it('joins matches at different steps as a list, not "and ... and ..."', () => {
    const three: CompanyEntry[] = [
      { id: 'cmp_a', internalCompanyCode: 'NORD', name: 'Alpha', officialName: null },
      { id: 'cmp_b', internalCompanyCode: 'B-1', name: 'nord', officialName: null },
      { id: 'cmp_c', internalCompanyCode: 'C-1', name: 'Gamma', officialName: 'Nord' },
    ];
    const resolved = new CompanyResolver(three).resolve('Nord');
    expect(!resolved.ok && resolved.reason).toBe(
      "company 'Nord' is ambiguous: it is the code of 'cmp_a' (Alpha, NORD), the name of 'cmp_b' (nord, B-1) and the name of 'cmp_c' (Gamma, C-1); give the id of the one you mean instead",
    );
  });
});
