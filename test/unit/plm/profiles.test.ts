import { join } from 'node:path';
import { PlmFileError } from '../../../connectors/plm-import/issues';
import { mapRows } from '../../../connectors/plm-import/profiles/map-rows';
import { parseProductSheet } from '../../../connectors/plm-import/profiles/parse-sheet';
import { parseMappingProfile } from '../../../connectors/plm-import/profiles/schema';
import { validateDrafts } from '../../../connectors/plm-import/validate';
import { ReferenceResolver } from '../../../connectors/plm-import/profiles/references';
import {
  fixtures,
  flat,
  mapAndValidate,
  native,
  nativeHeaders,
  profile,
  references,
  sheetOf,
} from './helpers';

describe('mapping profiles', () => {
  it('refuses a profile that is not valid, naming the path', () => {
    expect(() =>
      parseMappingProfile({
        name: 'x',
        layout: 'native',
        parentExternalId: 'p',
        mapping: { externalId: { column: 'a', constant: 'b' } },
      }),
    ).toThrow(/mapping\.externalId: .*exactly one of column, template or constant|mapping\.externalId/);
    expect(() => parseMappingProfile({ name: 'x', layout: 'tree' })).toThrow(/invalid mapping profile/);
    expect(() =>
      parseMappingProfile({
        name: 'x',
        layout: 'native',
        parentExternalId: 'p',
        mapping: { externalId: 'id', fields: { colour: 'c' } },
      }),
    ).toThrow(/fields/);
  });

  it('says in one line what a mistyped mapping should read: the values allowed, the key most likely meant', () => {
    const problem = (input: unknown): string => {
      try {
        parseMappingProfile(input);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    const native = { name: 'x', layout: 'native', parentExternalId: 'p' };
    expect(problem({ name: 'x', mapping: {} })).toBe(
      'invalid mapping profile: layout: missing (one of native, flat)',
    );
    expect(problem({ ...native, mapping: { externalId: 'id', fields: { colour: 'c' } } })).toBe(
      'invalid mapping profile: mapping.fields: unknown key "colour" (did you mean "color"?)',
    );
    expect(
      problem({
        ...native,
        mapping: { externalId: 'id', customProperties: { k: { source: 'c', type: 'txt' } } },
      }),
    ).toBe(
      'invalid mapping profile: mapping.customProperties.k.type: "txt" is not one of text, number, date, boolean (did you mean "text"?)',
    );
    expect(problem({ ...native, mapping: { externalId: 'id' }, zzz: 1 })).toMatch(
      /^invalid mapping profile: \(top level\): unknown key "zzz" \(known keys: \$schema, name, [^)]* and \d+ more\)$/,
    );
  });

  it('maps the native sample to ten products with ids resolved, lists split and codes from code columns', async () => {
    const parsed = await parseProductSheet(join(fixtures, 'native.csv'), { profile: native(), references });
    const result = validateDrafts(parsed);
    expect(result.issues).toEqual([]);
    expect(result.valid.map((draft) => `${draft.level}:${draft.externalId}`)).toEqual([
      'style:ST-100',
      'style:ST-200',
      'variant:ST-100-BLK',
      'variant:ST-100-WHT',
      'variant:ST-200-IND',
      'sku:ST-100-BLK-M',
      'sku:ST-100-BLK-L',
      'sku:ST-100-WHT-M',
      'sku:ST-200-IND-32',
      'sku:ST-200-IND-34',
    ]);
    const style = result.valid[0];
    expect(style?.fields).toMatchObject({
      name: 'Classic Tee',
      styleTypeId: 'st_tshirt',
      isComponent: false,
      brands: ['br_north', 'br_aurora'],
      seasons: ['se_ss25'],
    });
    // The built-in profile has no rawMaterials table: the composition is checked but not written (one warning).
    expect(style?.fields.composition).toBeUndefined();
    expect(parsed.warnings.join('\n')).toMatch(/composition cell\(s\) were checked but not written/);
    const sku = result.valid.find((draft) => draft.externalId === 'ST-100-BLK-M');
    expect(sku?.fields.codes?.map(({ codeId, codeValue }) => [codeId, codeValue])).toEqual([
      ['PLM_ID', 'PLM-100-BLK-M'],
      ['EAN_GTIN_13', '4006381333001'],
      ['OTHER_ID1', 'X-1'],
    ]);
    expect(sku?.fields.weight).toEqual({ unit: 'GRAM', value: 180 });
    expect(sku?.parentExternalId).toBe('ST-100-BLK');
  });

  it('reads the same products from the csv and the xlsx sample', async () => {
    const fromCsv = validateDrafts(
      await parseProductSheet(join(fixtures, 'native.csv'), { profile: native(), references }),
    );
    const fromXlsx = validateDrafts(
      await parseProductSheet(join(fixtures, 'native.xlsx'), { profile: native(), references }),
    );
    const strip = (drafts: typeof fromCsv.valid) =>
      drafts.map((draft) => ({
        ...draft,
        fields: {
          ...draft.fields,
          codes: draft.fields.codes?.map(({ codeId, codeValue }) => ({ codeId, codeValue })),
        },
      }));
    expect(strip(fromXlsx.valid)).toEqual(strip(fromCsv.valid));
  });

  it('folds flat rows into styles, variants and SKUs, carrying blank continuation cells', async () => {
    for (const file of ['flat.csv', 'flat.xlsx', 'flat.xls']) {
      const result = validateDrafts(
        await parseProductSheet(join(fixtures, file), { profile: flat(), references }),
      );
      expect(result.issues).toEqual([]);
      expect(result.valid.map((draft) => draft.externalId)).toEqual([
        '1001',
        '1002',
        '1001-BLK',
        '1001-WHT',
        '1002-IND',
        '1001-BLK-M',
        '1001-BLK-L',
        '1001-WHT-M',
        '1002-IND-32',
        '1002-IND-34',
      ]);
      const variant = result.valid.find((draft) => draft.externalId === '1001-WHT');
      expect(variant).toMatchObject({
        level: 'variant',
        parentExternalId: '1001',
        fields: { name: 'Classic Tee White', color: 'White' },
      });
      const sku = result.valid.find((draft) => draft.externalId === '1002-IND-34');
      expect(sku?.fields).toMatchObject({
        name: 'Straight Jeans Indigo 34',
        dimension: '34',
        weight: { unit: 'GRAM', value: 670 },
      });
    }
  });

  // Audit (session 45), finding 5: each row searched the draft's row list, so one style over many rows was quadratic.
  it('folds one style and colour over 20,000 SKU rows, listing each row once per product', async () => {
    const headers = ['Style Number', 'Style Name', 'Style Type', 'Colour Code', 'Colour', 'Size', 'SKU'];
    const count = 20_000;
    const rows = Array.from({ length: count }, (_, i) => [
      '1001',
      'Classic Tee',
      'T-Shirt',
      'BLK',
      'Black',
      `${i}`,
      `S${i}`,
    ]);
    const mapped = await mapRows(sheetOf(headers, rows), flat(), references);
    expect(mapped.issues).toEqual([]);
    expect(mapped.drafts).toHaveLength(count + 2);
    const allRows = Array.from({ length: count }, (_, i) => i + 2);
    const style = mapped.drafts.find((draft) => draft.externalId === '1001');
    const variant = mapped.drafts.find((draft) => draft.externalId === '1001-BLK');
    expect(style?.rowNumbers).toEqual(allRows);
    expect(variant?.rowNumbers).toEqual(allRows);
    expect(mapped.drafts.find((draft) => draft.externalId === 'S19999')?.rowNumbers).toEqual([20_001]);
  });

  it('reports a flat style whose rows disagree, and rejects its variants and SKUs', async () => {
    const headers = ['Style Number', 'Style Name', 'Style Type', 'Colour Code', 'Colour', 'Size', 'SKU'];
    const result = await mapAndValidate(flat(), headers, [
      ['1001', 'Classic Tee', 'T-Shirt', 'BLK', 'Black', 'M', 'S1'],
      ['1001', 'Classic Tee V2', null, 'BLK', 'Black', 'L', 'S2'],
      ['2002', 'Other', 'Jeans', 'IND', 'Indigo', '32', 'S3'],
    ]);
    const conflict = result.issues.find((issue) => issue.code === 'conflicting_values');
    expect(conflict).toMatchObject({ rowNumber: 3, column: 'Style Name', externalId: '1001' });
    expect(conflict?.message).toContain("has the name 'Classic Tee V2' here but 'Classic Tee' on row 2");
    expect(
      result.issues.filter((issue) => issue.code === 'invalid_parent').map((issue) => issue.rowNumber),
    ).toEqual([2]);
    expect(result.valid.map((draft) => draft.externalId)).toEqual(['2002', '2002-IND', 'S3']);
  });

  it('a flat SKU key on three rows tells its first row once, naming the next row, and each later row naming the first', async () => {
    const headers = ['Style Number', 'Style Name', 'Style Type', 'Colour Code', 'Colour', 'Size', 'SKU'];
    const result = await mapAndValidate(flat(), headers, [
      ['1001', 'Classic Tee', 'T-Shirt', 'BLK', 'Black', 'M', 'S1'],
      ['1001', 'Classic Tee', 'T-Shirt', 'BLK', 'Black', 'L', 'S1'],
      ['1001', 'Classic Tee', 'T-Shirt', 'BLK', 'Black', 'XL', 'S1'],
    ]);
    expect(
      result.issues
        .filter((issue) => issue.code === 'duplicate_external_id')
        .map((issue) => [
          issue.rowNumber,
          issue.column,
          issue.message.replace(/^row \d+, column 'SKU': /, ''),
        ]),
    ).toEqual([
      [2, 'SKU', "sku key 'S1' is used again on row 3"],
      [3, 'SKU', "sku key 'S1' is already used on row 2"],
      [4, 'SKU', "sku key 'S1' is already used on row 2"],
    ]);
    expect(result.invalid.map((entry) => [entry.draft.externalId, entry.draft.rowNumbers])).toEqual([
      ['S1', [2, 3, 4]],
    ]);
  });

  // README: "Blank cells never clear anything: a blank field is not sent (on a child it keeps inheriting)".
  it('a list cell of separators only is a blank cell: no empty list, and no conflict with the value on another row of the style', async () => {
    const headers = [
      'Style Number',
      'Style Name',
      'Style Type',
      'Brand',
      'Season',
      'Colour Code',
      'Colour',
      'Size',
      'SKU',
    ];
    const result = await mapAndValidate(flat(), headers, [
      ['1001', 'Classic Tee', 'T-Shirt', 'Northwind', ' ; ', 'BLK', 'Black', 'M', 'S1'],
      ['1001', 'Classic Tee', 'T-Shirt', ';', ';;', 'BLK', 'Black', 'L', 'S2'],
    ]);
    expect(result.issues).toEqual([]);
    const style = result.valid.find((draft) => draft.externalId === '1001');
    expect(style?.fields.brands).toEqual(['br_north']);
    expect(style?.fields).not.toHaveProperty('seasons');
  });

  it('names close matches for an unknown style type, brand or season', async () => {
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'brands', 'seasons'],
      [['A', null, null, 'Tee', 'Tshirt', 'no', null, null, 'A', 'Aurora;Sothwind', 'SS 25']],
    );
    expect(result.issues.map((issue) => [issue.column, issue.message])).toEqual([
      ['styleType', "row 2, column 'styleType': unknown style type 'Tshirt'; did you mean 'T-Shirt'?"],
      [
        'brands',
        "row 2, column 'brands': unknown brand 'Sothwind'; did you mean 'Southwind' or 'Northwind'?",
      ],
      ['seasons', "row 2, column 'seasons': unknown season 'SS 25'; did you mean 'SS25'?"],
    ]);
  });

  // Audit (session 45), finding 7: one cell of thousands of unknown names made an issue each (2.2 MB of issues).
  it('tells five unknown names of a list cell one by one, then how many more, naming three', async () => {
    const long = 'y'.repeat(100);
    const names = [
      'Sothwind',
      'x0',
      'x1',
      'x2',
      'x3',
      long,
      ...Array.from({ length: 4_000 }, (_, i) => `z${i}`),
    ];
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'brands'],
      [['A', null, null, 'Tee', 'T-Shirt', 'no', null, null, 'A', ['Aurora', ...names].join(';')]],
    );
    expect(result.valid).toEqual([]);
    expect(result.issues.map((issue) => [issue.code, issue.column])).toEqual(
      Array.from({ length: 6 }, () => ['unknown_reference', 'brands']),
    );
    expect(result.issues[0]?.message).toBe(
      "row 2, column 'brands': unknown brand 'Sothwind'; did you mean 'Southwind' or 'Northwind'?",
    );
    expect(result.issues[4]?.message).toBe(
      "row 2, column 'brands': unknown brand 'x3'; valid names: 'Aurora', 'Northwind', 'Southwind'",
    );
    expect(result.issues[5]?.message).toBe(
      `row 2, column 'brands': 4001 more brand names in this cell are unknown or ambiguous: '${'y'.repeat(40)}...', 'z0', 'z1' and 3998 others`,
    );
    const two = await mapAndValidate(
      native(),
      [...nativeHeaders, 'brands'],
      [['A', null, null, 'Tee', 'T-Shirt', 'no', null, null, 'A', 'x0;x1;x2;x3;x4;x5;x6']],
    );
    expect(two.issues.map((issue) => issue.message).slice(5)).toEqual([
      "row 2, column 'brands': 2 more brand names in this cell are unknown or ambiguous: 'x5', 'x6'",
    ]);
  });

  it('matches reference names ignoring case and accents, and accepts ids', async () => {
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'brands'],
      [
        ['A', null, null, 'Tee', 't-shirt', 'no', null, null, 'A', 'NORTHWIND; br_south'],
        [
          'B',
          null,
          null,
          'Tee',
          't-shirt',
          'no',
          null,
          null,
          'B',
          'br_south; Northwind; northwind; br_north',
        ],
      ],
    );
    expect(result.valid[0]?.fields).toMatchObject({
      styleTypeId: 'st_tshirt',
      brands: ['br_north', 'br_south'],
    });
    // Names of one id are that id once, in the order first given.
    expect(result.valid[1]?.fields.brands).toEqual(['br_south', 'br_north']);
  });

  // Spec 01, convention 8: "Reference values (process identifiers, style type ids, property ids) are identifiers,
  // never display names." A name two style types share (the tree allows it under two parents) names no one id.
  it('"identifiers, never display names": refuses a style type name two ids share, naming the ids; the id resolves', async () => {
    const shirts = {
      ...references,
      styleTypes: [
        ...(references.styleTypes ?? []),
        { id: 'st_mens_shirts', name: 'Shirts' },
        { id: 'st_womens_shirts', name: 'shirts' },
      ],
    };
    const mapped = await mapRows(
      sheetOf(nativeHeaders, [
        ['A', null, null, 'Oxford', 'Shirts', 'no', null, null, 'A'],
        ['B', null, null, 'Blouse', 'st_womens_shirts', 'no', null, null, 'B'],
      ]),
      native(),
      shirts,
    );
    expect(mapped.issues.map((issue) => `${issue.code} ${issue.message}`)).toEqual([
      "ambiguous_reference row 2, column 'styleType': style type 'Shirts' is ambiguous: 2 style types are named so (ids 'st_mens_shirts' and 'st_womens_shirts'); give the id of the one you mean instead of the name",
    ]);
    expect(mapped.drafts.find((draft) => draft.externalId === 'B')?.fields.styleTypeId).toBe(
      'st_womens_shirts',
    );
  });

  // Spec 01, Unit enumeration: "Shared by order lines, BOM lines and weights. Exactly these values".
  it('"Exactly these values": refuses a weight unit outside UnitEnum, naming the column and what it could be', async () => {
    const mapped = await mapRows(
      sheetOf(
        [...nativeHeaders, 'weight', 'weightUnit'],
        [
          ['A', null, null, 'Tee', 'T-Shirt', 'no', null, null, 'A', 180, 'grams'],
          ['B', null, null, 'Tee', 'T-Shirt', 'no', null, null, 'B', 0.2, 'KG'],
          ['C', null, null, 'Tee', 'T-Shirt', 'no', null, null, 'C', 180, 'gram'],
        ],
      ),
      native(),
      references,
    );
    expect(mapped.issues.map((issue) => `${issue.code} ${issue.message}`)).toEqual([
      "bad_unit row 2, column 'weightUnit': weight unit 'GRAMS' is not one of the API's units; did you mean 'GRAM'?",
      "bad_unit row 3, column 'weightUnit': weight unit 'KG' is not one of the API's units; weights use GRAM, KILOGRAM, MILLIGRAM, OUNCE, POUNDS, METRIC_TON",
    ]);
    expect(mapped.drafts.find((draft) => draft.externalId === 'C')?.fields.weight).toEqual({
      unit: 'GRAM',
      value: 180,
    });
  });

  it('a template placeholder {Column|text} writes text for a blank cell; one without it leaves the template blank', async () => {
    const mapped = await mapRows(
      sheetOf(
        ['id', 'Colour', 'Size'],
        [
          ['a', 'Red', null],
          ['b', null, null],
        ],
      ),
      profile({
        name: 'blank-text',
        layout: 'native',
        parentExternalId: { constant: '' },
        mapping: {
          externalId: 'id',
          fields: {
            name: { template: '{id}-{Colour|One colour}-{Size|One size}' },
            description: { template: '{id}-{Size}' },
          },
        },
      }),
    );
    expect(mapped.drafts.map((draft) => [draft.fields.name, draft.fields.description])).toEqual([
      ['a-Red-One size', undefined],
      ['b-One colour-One size', undefined],
    ]);
  });

  it('an optional column the sheet lacks reads as blank (its fallback applies); another missing column, or an optional key, is refused', async () => {
    const mapping = (externalId: { column: string; optional?: boolean }) =>
      profile({
        name: 'optional',
        layout: 'native',
        parentExternalId: { constant: '' },
        mapping: {
          externalId,
          fields: {
            description: { column: 'SEO', optional: true, fallback: { column: 'Body' } },
            gender: { column: 'Gender', optional: true },
          },
        },
      });
    const mapped = await mapRows(sheetOf(['id', 'Body'], [['a', 'body text']]), mapping({ column: 'id' }));
    expect(mapped.drafts[0]?.fields).toEqual({ description: 'body text' });
    await expect(mapRows(sheetOf(['id'], [['a']]), mapping({ column: 'id' }))).rejects.toThrow(
      /names column\(s\) the sheet lacks: 'Body'/,
    );
    await expect(
      mapRows(sheetOf(['Body'], [['b']]), mapping({ column: 'id', optional: true })),
    ).rejects.toThrow(/lacks column\(s\) 'id'/);
  });

  it('byDigits: a 12-digit code is UPC_GTIN_12 (leading zero kept), a 13-digit one EAN_GTIN_13, another a bad_code row error', async () => {
    const barcodes = profile({
      name: 'barcodes',
      layout: 'native',
      parentExternalId: { constant: '' },
      mapping: {
        externalId: 'id',
        codes: [{ byDigits: { '12': 'UPC_GTIN_12', '13': 'EAN_GTIN_13' }, source: 'Barcode' }],
      },
    });
    const mapped = await mapRows(
      sheetOf(
        ['id', 'Barcode'],
        [
          ['a', '012345678905'],
          ['b', '7351234100998'],
          ['c', '96385074'],
          ['d', '73512341OO998'],
        ],
      ),
      barcodes,
    );
    expect(
      mapped.drafts
        .slice(0, 2)
        .map((draft) => draft.fields.codes?.map((code) => [code.codeId, code.codeValue])),
    ).toEqual([[['UPC_GTIN_12', '012345678905']], [['EAN_GTIN_13', '7351234100998']]]);
    expect(mapped.issues.map((issue) => [issue.rowNumber, issue.column, issue.code])).toEqual([
      [4, 'Barcode', 'bad_code'],
      [5, 'Barcode', 'bad_code'],
    ]);
    expect(mapped.issues[0]?.message).toMatch(
      /'96385074' has 8 digits; a barcode has 12 \(UPC_GTIN_12\) or 13 \(EAN_GTIN_13\); if leading zeros were lost/,
    );
    expect(mapped.issues[1]?.message).toMatch(/'73512341OO998' is not only digits/);
    expect(() =>
      profile({
        name: 'both',
        layout: 'native',
        parentExternalId: 'p',
        mapping: {
          externalId: 'id',
          codes: [{ codeId: 'EAN_GTIN_13', byDigits: { '13': 'EAN_GTIN_13' }, source: 'b' }],
        },
      }),
    ).toThrow(/exactly one of codeId or byDigits/);
  });

  // Spec 01, Code types: `UPC_GTIN_12`, `EAN_GTIN_13`. The flat profile's EAN column names its type outright.
  it('a barcode column of a fixed type holds 12 (UPC_GTIN_12) or 13 (EAN_GTIN_13) digits: 12 in an EAN column are the UPC_GTIN_12, another length or a non-digit a bad_code', async () => {
    const headers = [
      'Style Number',
      'Style Name',
      'Style Type',
      'Colour Code',
      'Colour',
      'Size',
      'SKU',
      'EAN',
    ];
    const row = (sku: string, ean: string | number): Array<string | number> => [
      '1001',
      'Classic Tee',
      'T-Shirt',
      'BLK',
      'Black',
      sku,
      sku,
      ean,
    ];
    const mapped = await mapRows(
      sheetOf(headers, [
        row('S1', '7351234100998'),
        row('S2', 614141000036),
        row('S3', 12345678905),
        row('S4', '7351234 100981'),
      ]),
      flat(),
      references,
    );
    const barcodes = (externalId: string) =>
      mapped.drafts
        .find((draft) => draft.externalId === externalId)
        ?.fields.codes?.filter((code) => code.codeId !== 'PLM_ID')
        .map((code) => `${code.codeId} ${code.codeValue}`);
    expect(barcodes('S1')).toEqual(['EAN_GTIN_13 7351234100998']);
    expect(barcodes('S2')).toEqual(['UPC_GTIN_12 614141000036']);
    // Read by its digits, the EAN column gives both barcode types: the product's old EAN_GTIN_13 is replaced.
    expect(mapped.drafts.find((draft) => draft.externalId === 'S2')?.fields.codes?.[1]?.givesTypes).toEqual([
      'UPC_GTIN_12',
      'EAN_GTIN_13',
    ]);
    expect(mapped.drafts.find((draft) => draft.externalId === 'S1')?.fields.codes?.[1]).not.toHaveProperty(
      'givesTypes',
    );
    expect(mapped.issues.map((issue) => [issue.rowNumber, issue.column, issue.code])).toEqual([
      [4, 'EAN', 'bad_code'],
      [5, 'EAN', 'bad_code'],
    ]);
    expect(mapped.issues[0]?.message).toMatch(
      /EAN_GTIN_13 '12345678905' has 11 digits; an EAN_GTIN_13 has 13 digits .*if leading zeros were lost, format the column as text/,
    );
    expect(mapped.issues[1]?.message).toMatch(/'7351234 100981' is not only digits/);

    const upcColumn = await mapRows(
      sheetOf(
        ['externalId', 'UPC_GTIN_12', 'EAN_GTIN_13'],
        [
          ['a', '036000291452', '36000291452'],
          ['b', '614141000036', '614141000036'],
          ['c', '0614141000036', null],
        ],
      ),
      native(),
      references,
    );
    expect(upcColumn.drafts.find((draft) => draft.externalId === 'b')?.fields.codes).toEqual([
      expect.objectContaining({
        codeId: 'UPC_GTIN_12',
        codeValue: '614141000036',
        column: 'UPC_GTIN_12',
        givesTypes: ['UPC_GTIN_12', 'EAN_GTIN_13'],
      }),
    ]);
    expect(upcColumn.issues.map((issue) => [issue.rowNumber, issue.column, issue.message])).toEqual([
      [2, 'EAN_GTIN_13', expect.stringMatching(/'36000291452' has 11 digits/) as unknown],
      [
        4,
        'UPC_GTIN_12',
        expect.stringMatching(/'0614141000036' has 13 digits; a UPC_GTIN_12 has 12 digits$/) as unknown,
      ],
    ]);
  });

  it('refuses a sheet that lacks the key columns, listing what it has', async () => {
    await expect(mapRows(sheetOf(['id', 'name'], [['A', 'Tee']]), native(), references)).rejects.toThrow(
      PlmFileError,
    );
    await expect(mapRows(sheetOf(['Style', 'Name'], []), flat(), references)).rejects.toThrow(
      /lacks column\(s\) 'Style Number', 'Colour Code', 'SKU'/,
    );
  });

  it('an unused column one slip from a column the profile reads and the sheet lacks says which one it meant', async () => {
    const headers = nativeHeaders.map((header) => (header === 'styleType' ? 'styelType' : header));
    const mapped = await mapRows(
      sheetOf([...headers, 'Notes'], [['A', null, 'style', 'Tee', 'T-shirts', 'no', null, null, 'P-1']]),
      native(),
      references,
    );
    // 'Notes' is near nothing the profile reads.
    expect(mapped.warnings).toContain(
      "columns not used by profile 'native': 'styelType' (did you mean 'styleType'? the sheet has no such column), 'Notes'",
    );
    // A column the sheet has is no guess for another: 'styleType' read, 'styleTyp' unused says nothing more.
    const both = await mapRows(sheetOf([...nativeHeaders, 'styleTyp'], []), native(), references);
    expect(both.warnings).toContain("columns not used by profile 'native': 'styleTyp'");
  });

  it('builds customProperties from typed columns, with dates from text or serials', async () => {
    const custom = profile({
      name: 'custom',
      layout: 'native',
      parentExternalId: 'parent',
      mapping: {
        externalId: 'id',
        fields: { name: 'name', styleTypeId: 'type', isComponent: { constant: false } },
        codes: [{ codeId: 'PLM_ID', source: 'id' }],
        customProperties: {
          launch: { source: 'launch', type: 'date' },
          price: { source: 'price', type: 'number' },
          note: 'note',
        },
      },
    });
    const result = await mapAndValidate(
      custom,
      ['id', 'parent', 'name', 'type', 'launch', 'price', 'note'],
      [
        ['A', null, 'Tee', 'T-Shirt', '15.03.2025', '1.299,00', 'hello'],
        ['B', null, 'Tee', 'T-Shirt', 45731, null, null],
        ['C', null, 'Tee', 'T-Shirt', 'soon', null, null],
      ],
    );
    expect(result.valid.map((draft) => draft.fields.customProperties)).toEqual([
      JSON.stringify({ launch: '2025-03-15', price: 1299, note: 'hello' }),
      JSON.stringify({ launch: '2025-03-15' }),
    ]);
    expect(result.issues).toEqual([
      expect.objectContaining({ rowNumber: 4, column: 'launch', code: 'bad_date' }),
    ]);
  });

  it('infers levels from the parent chain when the level column is blank or absent', async () => {
    const result = await mapAndValidate(
      native(),
      ['externalId', 'parentExternalId', 'name', 'styleType', 'isComponent', 'color', 'dimension', 'PLM_ID'],
      [
        ['K', 'V', 'Sku', null, null, null, 'M', 'K'],
        ['V', 'S', 'Variant', null, null, 'Red', null, 'V'],
        ['S', null, 'Style', 'Jeans', 'no', null, null, 'S'],
      ],
    );
    expect(result.issues).toEqual([]);
    expect(result.valid.map((draft) => [draft.externalId, draft.level])).toEqual([
      ['S', 'style'],
      ['V', 'variant'],
      ['K', 'sku'],
    ]);
  });
});

describe('ReferenceResolver.styleLevel', () => {
  // Spec 01: "the valid set is the set of `parentId` values returned by the style-types list".
  it('accepts a parentId of a style type, refuses another naming the valid ones, and takes any text without the list', () => {
    const resolver = new ReferenceResolver({
      styleTypes: [
        { id: 'st_tshirts', name: 'T-shirts', parentId: 'APPAREL_END_CONSUMER_FINISHED_GOODS' },
        { id: 'st_root', name: 'Root', parentId: null },
      ],
    });
    expect(resolver.styleLevel('APPAREL_END_CONSUMER_FINISHED_GOODS')).toEqual({
      ok: true,
      id: 'APPAREL_END_CONSUMER_FINISHED_GOODS',
    });
    expect(resolver.styleLevel('st_tshirts')).toMatchObject({
      ok: false,
      code: 'unknown_reference',
      reason: expect.stringContaining("'APPAREL_END_CONSUMER_FINISHED_GOODS'") as unknown,
    });
    expect(new ReferenceResolver({}).styleLevel('ANY')).toEqual({ ok: true, id: 'ANY' });
  });
});
