/**
 * The PLM import reads the values of real exports as their authors meant them: locale numbers, codes Excel turned
 * into scientific notation, style levels, single-variant Shopify products and `overriddenFlag: null`. Every test runs
 * the real workflow on a Temporal dev server against the sandbox over HTTP; the shared setup is plm-rules-stack.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { builtinProfile } from '../../connectors/plm-import/profiles/builtin';
import { repoRoot } from '../../worker/paths';
import { family, HEADER, plmRulesStack, toCsv, toCsvWith, type Row } from './plm-rules-stack';

interface WeightedProduct {
  weight: { unit: string; value: number } | null;
}

/** The sheet as Excel saves csv in a comma-decimal locale: `;` between columns, decimal commas. */
const toSemicolonCsv = (rows: readonly Row[]): string =>
  [HEADER.join(';'), ...rows.map((row) => HEADER.map((column) => row[column] ?? '').join(';'))].join('\r\n') +
  '\r\n';

describe('PLM import: values as the export meant them', () => {
  const { file, nativeMappingWith, run, api, rejectsOf, snapshot, writesSince } = plmRulesStack();

  describe('locale numbers', () => {
    // README: "1.234,5" is handled; a `;`-delimited csv is Excel's export in a comma-decimal locale (German, French).
    it('a ;-delimited export reads "0,250" as 0.25 and "1.250" as 1250, never a thousand times off', async () => {
      const rows = [
        ...family('DEW1', { sku: { weight: '0,250', weightUnit: 'KILOGRAM' } }),
        ...family('DEW2', { sku: { weight: '1,150', weightUnit: 'KILOGRAM' } }),
        ...family('DEW3', { sku: { weight: '1.250', weightUnit: 'GRAM' } }),
      ];
      const result = await run({ file: await file('german.csv', toSemicolonCsv(rows)), profile: 'native' });
      expect(rejectsOf(result)).toEqual([]);
      const weight = async (externalId: string) =>
        (await api<WeightedProduct>(`/styles/${externalId}`)).weight;
      expect(await weight('DEW1-BLK-M')).toEqual({ unit: 'KILOGRAM', value: 0.25 });
      expect(await weight('DEW2-BLK-M')).toEqual({ unit: 'KILOGRAM', value: 1.15 });
      expect(await weight('DEW3-BLK-M')).toEqual({ unit: 'GRAM', value: 1250 });
    });

    it('a ,-delimited export reads "0,250" as 0.25, "1,250" as 1250 and "1.250" as 1.25: its numbers use the decimal point', async () => {
      const rows = [
        ...family('ENW1', { sku: { weight: '0,250', weightUnit: 'KILOGRAM' } }),
        ...family('ENW2', { sku: { weight: '1,250', weightUnit: 'GRAM' } }),
        ...family('ENW3', { sku: { weight: '1.250', weightUnit: 'KILOGRAM' } }),
      ];
      const result = await run({ file: await file('comma.csv', toCsv(rows)), profile: 'native' });
      expect(rejectsOf(result)).toEqual([]);
      const weight = async (externalId: string) =>
        (await api<WeightedProduct>(`/styles/${externalId}`)).weight;
      expect(await weight('ENW1-BLK-M')).toEqual({ unit: 'KILOGRAM', value: 0.25 });
      expect(await weight('ENW2-BLK-M')).toEqual({ unit: 'GRAM', value: 1250 });
      expect(await weight('ENW3-BLK-M')).toEqual({ unit: 'KILOGRAM', value: 1.25 });
    });
  });

  describe('style levels', () => {
    const levelMapping = () => nativeMappingWith('native-with-level', { styleLevelId: 'styleLevel' });
    const levelSheet = (name: string, rows: readonly Row[], levels: Record<string, string>) =>
      file(
        name,
        toCsvWith(
          rows,
          ['styleLevel'],
          Object.fromEntries(Object.entries(levels).map(([id, level]) => [id, { styleLevel: level }])),
        ),
      );

    // Spec 01, styleLevelId: "the valid set is the set of `parentId` values returned by the style-types list";
    // "An unrecognised value is rejected with 400". Checked before any write, so a bad one creates nothing.
    it('"the valid set is the set of parentId values returned by the style-types list": an unknown styleLevelId is a row error before any write, its children are not imported, a valid one is set', async () => {
      const mapping = await levelMapping();
      const rows = [
        ...family('LVL1', { style: { styleType: 'T-shirts' } }),
        ...family('LVL2', { style: { styleType: 'T-shirts' } }),
      ];
      const sheet = await levelSheet('levels.csv', rows, { LVL1: 'FABRICS', LVL2: 'GARMENTS' });

      const dry = await run({ file: sheet, mappingFile: mapping, dryRun: true });
      expect(dry.plan).toMatchObject({ create: 3 });
      const before = snapshot();
      const result = await run({ file: sheet, mappingFile: mapping });
      const rejects = rejectsOf(result);
      expect(rejects.map((reject) => `${reject.externalId} ${reject.code}`)).toEqual([
        'LVL2 unknown_reference',
        'LVL2-BLK invalid_parent',
        'LVL2-BLK-M invalid_parent',
      ]);
      expect(rejects[0]?.message).toMatch(
        /row 5, column 'styleLevel': unknown style level 'GARMENTS' .*; valid names: .*'APPAREL_END_CONSUMER_FINISHED_GOODS'/,
      );
      expect(await api<{ styleLevelId: string }>('/styles/LVL1')).toMatchObject({ styleLevelId: 'FABRICS' });
      expect(await api<unknown>('/styles/LVL2')).toBeUndefined();
      expect(writesSince(before)).toBe(3 + 1); // the LVL1 family's creates and the PUT of its level
    });

    // Spec 01: styleLevelId is a "string" (never null) that is "Settable on update", and POST lists no styleLevelId,
    // so the create answer shows the level the style got. DESIGN: "an unchanged record is not written"; a PUT of the
    // same value would still move updatedAt, and every incremental reader would read the style again.
    it("a style created already at the sheet's style level gets no PUT of it", async () => {
      const mapping = await levelMapping();
      const sheet = await levelSheet('same-level.csv', family('LVL3', { style: { styleType: 'T-shirts' } }), {
        LVL3: 'APPAREL_END_CONSUMER_FINISHED_GOODS',
      });
      const before = snapshot();
      const result = await run({ file: sheet, mappingFile: mapping });
      expect(rejectsOf(result)).toEqual([]);
      expect(await api<{ styleLevelId: string }>('/styles/LVL3')).toMatchObject({
        styleLevelId: 'APPAREL_END_CONSUMER_FINISHED_GOODS',
      });
      expect(writesSince(before)).toBe(3); // the creates only
    });
  });

  describe('dates of a 1904-date-system workbook', () => {
    // Excel for Mac's old default counts date serials from 1904-01-01: serial 44269 there is 2025-03-15 (45731 in the
    // 1900 system). A date column's plain number (no date format) is a serial of the workbook's own system.
    it("a plain number in a date column reads in the workbook's 1904 date system, as a date-formatted cell does", async () => {
      const native = builtinProfile('native');
      if (native.layout !== 'native') throw new Error('the native profile is native');
      const mapping = await file(
        'native-with-launch.json',
        JSON.stringify({
          ...native,
          name: 'native-with-launch',
          mapping: {
            ...native.mapping,
            customProperties: { launch: { source: 'launchDate', type: 'date' } },
          },
        }),
      );
      const rows: Row[] = [
        ...family('D1904A'),
        ...family('D1904B'),
        { externalId: 'D1904C', level: 'style', name: 'No type', isComponent: 'no', PLM_ID: 'D1904C' },
      ];
      const header = [...HEADER, 'launchDate'];
      const sheet = XLSX.utils.aoa_to_sheet([
        header,
        ...rows.map((row) => HEADER.map((column) => row[column] ?? '')),
      ]);
      sheet[XLSX.utils.encode_cell({ r: 1, c: HEADER.length })] = { t: 'n', v: 44269 }; // General format
      sheet[XLSX.utils.encode_cell({ r: 4, c: HEADER.length })] = { t: 'n', v: 44269, z: 'yyyy-mm-dd' };
      sheet[XLSX.utils.encode_cell({ r: 7, c: HEADER.length })] = { t: 'n', v: 44269 };
      sheet['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: rows.length, c: HEADER.length } });
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, sheet, 'Products');
      book.Workbook = { ...(book.Workbook ?? {}), WBProps: { date1904: true } };
      const result = await run({
        file: await file('dates-1904.xlsx', XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer),
        mappingFile: mapping,
      });
      // The rejects workbook keeps the date system, so its serial still means 2025-03-15 when fed back.
      const rejects = XLSX.read(readFileSync(result.rejectsFile as string), { type: 'buffer' });
      expect(rejects.Workbook?.WBProps?.date1904).toBe(true);
      const rejected = XLSX.utils.sheet_to_json<Record<string, unknown>>(
        rejects.Sheets['Products'] as XLSX.WorkSheet,
      );
      expect(rejected.map((row) => [row['externalId'], row['error_code'], row['launchDate']])).toEqual([
        ['D1904C', 'missing_required', 44269],
      ]);
      const launch = async (externalId: string) =>
        JSON.parse(
          (await api<{ customProperties: string }>(`/styles/${externalId}`)).customProperties,
        ) as unknown;
      expect(await launch('D1904A')).toEqual({ launch: '2025-03-15' });
      expect(await launch('D1904B')).toEqual({ launch: '2025-03-15' });
    });
  });

  describe('codes Excel turned into scientific notation', () => {
    // Spec 01, codes: "codeValue a non-empty string"; an EAN saved in Excel's General format comes out as 7.35123E+12,
    // its last digits gone: writing that would give the product a code that is not its EAN.
    it('an EAN written as 7.35123E+12 is a bad_code row error saying Excel lost the digits and the column must be text; nothing of the style is written', async () => {
      const csv =
        'externalId,parentExternalId,name,styleType,PLM_ID,EAN_GTIN_13\r\n' +
        'SCI-1,,Tee,T-shirts,SCI-1,7.35123E+12\r\n' +
        'SCI-2,,Tee 2,T-shirts,SCI-2,7351234100103\r\n';
      const before = snapshot();
      const result = await run({ file: await file('excel-sci.csv', csv), profile: 'native' });
      const rejects = rejectsOf(result);
      expect(rejects.map((reject) => `${reject.externalId} ${reject.code}`)).toEqual(['SCI-1 bad_code']);
      expect(rejects[0]?.message).toMatch(
        /row 2, column 'EAN_GTIN_13': .*'7\.35123E\+12'.*scientific notation.*digits.*as text/,
      );
      expect(await api<unknown>('/styles/SCI-1')).toBeUndefined();
      expect(await api<{ codes: unknown[] }>('/styles/SCI-2')).toMatchObject({
        codes: expect.arrayContaining([{ codeId: 'EAN_GTIN_13', codeValue: '7351234100103' }]) as unknown,
      });
      expect(writesSince(before)).toBe(1);
    });
  });

  describe('barcodes Excel stored as numbers', () => {
    // Spec 01, Code types: `UPC_GTIN_12` and `EAN_GTIN_13` are barcodes of 12 and 13 digits. A General-format cell
    // holding 0012345678905 is saved as the number 12345678905: written as it reads, the product would get an
    // EAN_GTIN_13 that is no EAN at all. A GTIN-13 starting with one zero is the UPC-A of its other 12 digits, so 12
    // digits in an EAN column are that UPC_GTIN_12 whether the cell lost its zero or held a UPC.
    it('an EAN_GTIN_13 read as 12345678905 (leading zeros lost) or with other characters is a bad_code row error asking for a text column and is never written; 12 digits are written as the UPC_GTIN_12 they are, 13 as the EAN', async () => {
      const sheet = XLSX.utils.aoa_to_sheet([
        ['externalId', 'level', 'name', 'styleType', 'isComponent', 'PLM_ID', 'EAN_GTIN_13'],
        ['GZ-1', 'style', 'Lost zeros', 'T-shirts', 'no', 'GZ-1', 12345678905],
        ['GZ-2', 'style', 'Twelve digits', 'T-shirts', 'no', 'GZ-2', 614141000036],
        ['GZ-3', 'style', 'Thirteen digits', 'T-shirts', 'no', 'GZ-3', 7351234100127],
        ['GZ-4', 'style', 'Not a barcode', 'T-shirts', 'no', 'GZ-4', '7351234-100134'],
      ]);
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, sheet, 'Products');
      const before = snapshot();
      const result = await run({
        file: await file(
          'general-barcodes.xlsx',
          XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer,
        ),
        profile: 'native',
      });
      expect(result.rejectsFile).not.toBeNull();
      const rejectsBook = XLSX.read(readFileSync(result.rejectsFile as string), { type: 'buffer' });
      const rejects = XLSX.utils.sheet_to_json<Record<string, string>>(
        rejectsBook.Sheets['Products'] as XLSX.WorkSheet,
      );
      expect(rejects.map((reject) => `${reject['externalId']} ${reject['error_code']}`)).toEqual([
        'GZ-1 bad_code',
        'GZ-4 bad_code',
      ]);
      expect(rejects[0]?.['error_message']).toMatch(
        /row 2, column 'EAN_GTIN_13': EAN_GTIN_13 '12345678905' has 11 digits; an EAN_GTIN_13 has 13.*leading zeros were lost, format the column as text/,
      );
      expect(rejects[1]?.['error_message']).toMatch(/'7351234-100134' is not only digits/);
      expect(await api<unknown>('/styles/GZ-1')).toBeUndefined();
      expect(await api<unknown>('/styles/GZ-4')).toBeUndefined();
      const codes = async (externalId: string) =>
        (await api<{ codes: Array<{ codeId: string; codeValue: string }> }>(`/styles/${externalId}`)).codes;
      expect(await codes('GZ-2')).toEqual([
        { codeId: 'PLM_ID', codeValue: 'GZ-2' },
        { codeId: 'UPC_GTIN_12', codeValue: '614141000036' },
      ]);
      expect(await codes('GZ-3')).toEqual([
        { codeId: 'PLM_ID', codeValue: 'GZ-3' },
        { codeId: 'EAN_GTIN_13', codeValue: '7351234100127' },
      ]);
      expect(writesSince(before)).toBe(2);

      // The EAN column now gives GZ-3 a 12-digit barcode: that UPC replaces its EAN (spec 01: "`codes` is replaced
      // wholesale"), as a byDigits column's would, rather than leave the old barcode beside it.
      const next = XLSX.utils.aoa_to_sheet([
        ['externalId', 'level', 'name', 'styleType', 'isComponent', 'PLM_ID', 'EAN_GTIN_13'],
        ['GZ-3', 'style', 'Thirteen digits', 'T-shirts', 'no', 'GZ-3', 614141000043],
      ]);
      const nextBook = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(nextBook, next, 'Products');
      const again = await run({
        file: await file(
          'general-barcodes-2.xlsx',
          XLSX.write(nextBook, { type: 'buffer', bookType: 'xlsx' }) as Buffer,
        ),
        profile: 'native',
      });
      expect(again.products).toMatchObject({ updated: 1, rejected: 0 });
      expect(await codes('GZ-3')).toEqual([
        { codeId: 'PLM_ID', codeValue: 'GZ-3' },
        { codeId: 'UPC_GTIN_12', codeValue: '614141000043' },
      ]);
    });
  });

  describe('list cells', () => {
    const LIST_HEADER = [
      'externalId',
      'parentExternalId',
      'level',
      'name',
      'styleType',
      'isComponent',
      'color',
    ];
    const listCsv = (brands: { style: string; variant: string }, prefix: string): string =>
      [
        [...LIST_HEADER, 'dimension', 'PLM_ID', 'brands'],
        [prefix, '', 'style', `${prefix} tee`, 'T-shirts', 'no', '', '', prefix, brands.style],
        [
          `${prefix}-BLK`,
          prefix,
          'variant',
          `${prefix} black`,
          '',
          '',
          'Black',
          '',
          `${prefix}-BLK`,
          brands.variant,
        ],
        [
          `${prefix}-BLK-M`,
          `${prefix}-BLK`,
          'sku',
          `${prefix} black M`,
          '',
          '',
          '',
          'M',
          `${prefix}-BLK-M`,
          '',
        ],
      ]
        .map((cells) => cells.map((cell) => (/[",;]/.test(cell) ? `"${cell}"` : cell)).join(','))
        .join('\r\n') + '\r\n';
    const brandsOf = (externalId: string) =>
      api<{ brands: string[] | null; overriddenFlag?: string[] }>(`/styles/${externalId}`);

    // README: "Blank cells never clear anything: a blank field is not sent (on a child it keeps inheriting)". Spec 01,
    // Inheritance: a child takes "the parent's value whenever the child's own value is null".
    it('a brands cell of separators only (";") is a blank cell: the style keeps its brands, the variant keeps inheriting them, and a re-run writes nothing', async () => {
      const seeded = await run({
        file: await file('list-seed.csv', listCsv({ style: 'Nordic Threads', variant: ' ; ' }, 'LSEP')),
        profile: 'native',
      });
      expect(rejectsOf(seeded)).toEqual([]);
      expect(await brandsOf('LSEP-BLK')).toMatchObject({ brands: ['prop_brand_nordic'] });
      expect((await brandsOf('LSEP-BLK')).overriddenFlag).not.toContain('brands');

      const before = snapshot();
      const again = await run({
        file: await file('list-separators.csv', listCsv({ style: ';', variant: ';;' }, 'LSEP')),
        profile: 'native',
      });
      expect(rejectsOf(again)).toEqual([]);
      expect(again.products).toMatchObject({ unchanged: 3 });
      expect(writesSince(before)).toBe(0);
      expect(await brandsOf('LSEP')).toMatchObject({ brands: ['prop_brand_nordic'] });
      expect(await brandsOf('LSEP-BLK')).toMatchObject({ brands: ['prop_brand_nordic'] });
    });

    // Spec 01: brands is an "array of string (property ids)"; two names of one brand are that one id.
    it('two names of one brand ("Nordic Threads; nordic threads") send its id once, and a re-run writes nothing', async () => {
      const sheet = await file(
        'list-twice.csv',
        listCsv({ style: 'Nordic Threads; nordic threads', variant: '' }, 'LDUP'),
      );
      const first = await run({ file: sheet, profile: 'native' });
      expect(rejectsOf(first)).toEqual([]);
      expect(await brandsOf('LDUP')).toMatchObject({ brands: ['prop_brand_nordic'] });
      const before = snapshot();
      const again = await run({ file: sheet, profile: 'native' });
      expect(again.products).toMatchObject({ unchanged: 3 });
      expect(writesSince(before)).toBe(0);
    });
  });

  describe('a Shopify product without options', () => {
    // Spec 01, POST /styles: a variant requires "name, codes, color", a SKU "name, codes, dimension". Shopify writes a
    // product without options as Option1 Name "Title", Option1 Value "Default Title": that is not a colour.
    it('imports with the shipped mapping as a style, one variant and one SKU whose values make sense, never a colour "Default Title"; a re-run writes nothing', async () => {
      const example = (name: string) => path.join(repoRoot(), 'examples', 'plm', name);
      const header = readFileSync(example('shopify-products.csv'), 'utf8').split(/\r?\n/)[0] ?? '';
      const single =
        'canvas-tote,Canvas Tote,<p>A sturdy tote.</p>,Nordic Threads,Apparel & Accessories > Handbags,Tee,bags,TRUE,' +
        'Title,Default Title,,,,,NT-TOTE,400,shopify,20,25.00,7351234100110,https://cdn.example.com/tote.jpg,1,Tote,,100% Cotton,active';
      const sheet = await file('shopify-single.csv', `${header}\r\n${single}\r\n`);
      const mappingFile = example('shopify-products.mapping.json');
      const result = await run({ file: sheet, mappingFile });
      expect(rejectsOf(result)).toEqual([]);
      expect(result.products).toMatchObject({ created: 3, rejected: 0 });
      expect(await api<unknown>('/styles/canvas-tote')).toMatchObject({ name: 'Canvas Tote' });
      expect(await api<unknown>('/styles/canvas-tote-default')).toMatchObject({
        name: 'Canvas Tote',
        color: 'One colour',
      });
      expect(await api<unknown>('/styles/NT-TOTE')).toMatchObject({
        name: 'Canvas Tote',
        dimension: 'One size',
        weight: { unit: 'GRAM', value: 400 },
        codes: expect.arrayContaining([{ codeId: 'EAN_GTIN_13', codeValue: '7351234100110' }]) as unknown,
      });
      const before = snapshot();
      const again = await run({ file: sheet, mappingFile });
      expect(again.products).toMatchObject({ unchanged: 3 });
      expect(writesSince(before)).toBe(0);
    });
  });
});
