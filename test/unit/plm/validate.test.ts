import { join } from 'node:path';
import type { RowIssue } from '../../../connectors/plm-import/issues';
import { parseProductSheet } from '../../../connectors/plm-import/profiles/parse-sheet';
import { CatalogueIndex, parseExistingProducts } from '../../../connectors/plm-import/catalogue';
import { mapRows } from '../../../connectors/plm-import/profiles/map-rows';
import { validateDrafts } from '../../../connectors/plm-import/validate';
import {
  badInput,
  flat,
  mapAndValidate,
  native,
  nativeHeaders,
  profile,
  references,
  sheetOf,
} from './helpers';

const summary = (issues: RowIssue[]) =>
  issues.map((issue) => `${issue.rowNumber} ${issue.column ?? '-'} ${issue.code}`);

describe('validateDrafts', () => {
  it('finds every planted problem in bad-rows.csv and keeps the good rows', async () => {
    const result = validateDrafts(
      await parseProductSheet(join(badInput, 'bad-rows.csv'), { profile: native(), references }),
    );
    expect(summary(result.issues)).toEqual([
      '3 name missing_required',
      '4 name too_long',
      '5 brands unknown_reference',
      '6 composition bad_composition',
      '8 externalId duplicate_external_id',
      '9 externalId duplicate_external_id',
      '10 parentExternalId missing_parent',
      '11 parentExternalId parent_level_mismatch',
      '12 EAN_GTIN_13 duplicate_code_value',
      '13 EAN_GTIN_13 duplicate_code_value',
      '14 weight bad_number',
      '15 parentExternalId invalid_parent',
      '16 parentExternalId cyclic_parent',
      '17 parentExternalId cyclic_parent',
    ]);
    expect(result.valid.map((draft) => draft.externalId)).toEqual(['OK-1', 'OK-1-V']);
    expect(result.invalid.filter((entry) => entry.issues.length === 0)).toEqual([]);
    for (const issue of result.issues)
      expect(issue.message).toMatch(new RegExp(`^row ${issue.rowNumber}, column '${issue.column}': .+`));
  });

  it('requires the fields of each level and names the column that feeds them', async () => {
    const result = await mapAndValidate(native(), nativeHeaders, [
      ['S', null, null, null, null, 'no', null, null, null],
      ['V', 'S2', null, 'Variant', null, null, null, null, 'V'],
      ['S2', null, null, 'Style', 'Jeans', 'no', null, null, 'S2'],
      ['K', 'V', null, 'Sku', null, null, 'Red', null, 'K'],
    ]);
    expect(summary(result.issues)).toEqual([
      '2 name missing_required',
      '2 PLM_ID missing_required',
      '2 styleType missing_required',
      '3 color missing_required',
      '5 dimension missing_required',
    ]);
    // In the sheet's words: the API's field names (styleTypeId, codes) are nothing the operator wrote.
    expect(result.issues.map((issue) => issue.message)).toEqual([
      "row 2, column 'name': a name is required to create a style ('S')",
      "row 2, column 'PLM_ID': a code is required to create a style ('S')",
      "row 2, column 'styleType': a style type is required to create a style ('S')",
      "row 3, column 'color': a colour is required to create a variant ('V')",
      "row 5, column 'dimension': a dimension (size) is required to create a sku ('K')",
    ]);
  });

  it('a flat sheet without its style type column is told of a style type, not of styleTypeId', async () => {
    const result = await mapAndValidate(
      flat(),
      ['Style Number', 'Style Name', 'Colour Code', 'Colour', 'SKU', 'Size'],
      [['ST-1', 'Tee', 'BLK', 'Black', 'ST-1-M', 'M']],
    );
    const styleIssue = result.issues.find((issue) => issue.externalId === 'ST-1');
    expect(styleIssue?.message).toBe(
      "row 2, column 'Style Type': a style type is required to create a style ('ST-1')",
    );
  });

  it("a mapping's key column blank or repeated is told as the key, not as externalId", async () => {
    const handles = profile({
      name: 'handles',
      layout: 'native',
      parentExternalId: 'Parent',
      mapping: {
        externalId: 'Handle',
        fields: { name: 'Title' },
        codes: [{ codeId: 'PLM_ID', source: 'Handle' }],
      },
    });
    const result = await mapAndValidate(
      handles,
      ['Handle', 'Parent', 'Title'],
      [
        ['tee', null, 'Tee'],
        [null, null, 'No handle'],
        ['tee', null, 'Tee again'],
      ],
    );
    expect(result.issues.map((issue) => issue.message)).toEqual([
      "row 2, column 'Handle': the key 'tee' is also on row 4; each product needs its own",
      // A field the mapping feeds from no column is named as the mapping file names it.
      "row 2: a style type is required to create a style ('tee'); the mapping reads it from no column (fields.styleTypeId)",
      "row 2: a component flag (yes or no) is required to create a style ('tee'); the mapping reads it from no column (fields.isComponent)",
      "row 3, column 'Handle': the key is blank; every row needs one to name its product",
      "row 4, column 'Handle': the key 'tee' is also on row 2; each product needs its own",
    ]);
  });

  it('enforces text limits per field', async () => {
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'description', 'gender'],
      [
        ['S', null, null, 'Style', 'Jeans', 'no', null, null, 'S', 'd'.repeat(4001), 'g'.repeat(51)],
        ['V', 'S', null, 'Variant', null, null, 'c'.repeat(256), null, 'V', 'd'.repeat(4000), 'g'.repeat(50)],
      ],
    );
    expect(summary(result.issues)).toEqual([
      '2 description too_long',
      '2 gender too_long',
      '3 color too_long',
    ]);
    expect(result.issues.map((issue) => issue.message)).toEqual([
      "row 2, column 'description': the description has 4001 characters, over the limit of 4000",
      "row 2, column 'gender': the gender has 51 characters, over the limit of 50",
      "row 3, column 'color': the colour has 256 characters, over the limit of 255",
    ]);
  });

  // Spec 01, Limits: "name | up to 255 characters" (and gender 50, description 4000): characters, not UTF-16 code
  // units. An emoji or a CJK extension character is one character and two code units in JavaScript.
  it('counts the text limits in characters: an emoji is one character, not two', async () => {
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'description', 'gender'],
      [
        [
          'S',
          null,
          null,
          '🧵'.repeat(255),
          'Jeans',
          'no',
          null,
          null,
          'S',
          '𠀋'.repeat(4000),
          '👕'.repeat(50),
        ],
        ['V', 'S', null, 'Variant', null, null, '🟥'.repeat(256), null, 'V', null, null],
      ],
    );
    expect(result.issues.map((issue) => issue.message)).toEqual([
      "row 3, column 'color': the colour has 256 characters, over the limit of 255",
    ]);
  });

  it('applies the code rules: known types, numeric suffix, single use, unique values', async () => {
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'OTHER_ID', 'OTHER_ID7'],
      [
        ['A', null, null, 'A', 'Jeans', 'no', null, null, 'A', 'x', 'same'],
        ['B', null, null, 'B', 'Jeans', 'no', null, null, 'B', null, null],
        ['C', null, null, 'C', 'Jeans', 'no', null, null, 'C', null, 'same'],
      ],
    );
    expect(summary(result.issues)).toEqual([
      '2 OTHER_ID invalid_code_type',
      '2 OTHER_ID7 duplicate_code_value',
      '4 OTHER_ID7 duplicate_code_value',
    ]);
    expect(result.issues[0]?.message).toContain('OTHER_ID needs a numeric suffix, e.g. OTHER_ID1');
    expect(result.issues[1]?.message).toContain("OTHER_ID7 'same' is also used by 'C' (row 4)");
    expect(result.valid.map((draft) => draft.externalId)).toEqual(['B']);
  });

  // Spec 01: "Code values must be unique per code type within the caller's catalogue." A real export gives
  // every product without a barcode one placeholder EAN: each row is told once, naming a few other holders.
  // Its time (linear in the rows) is a figure of bench/large-input.ts (plm-shared-ean).
  it('reports 20,000 products sharing one placeholder EAN once each, naming at most 3 others', async () => {
    const count = 20_000;
    const rows = Array.from({ length: count }, (_, i) => [
      `ST-${i}`,
      null,
      null,
      `Style ${i}`,
      'Jeans',
      'no',
      null,
      null,
      `ST-${i}`,
      '0000000000000',
    ]);
    const result = await mapAndValidate(native(), [...nativeHeaders, 'EAN_GTIN_13'], rows);
    expect(result.valid).toEqual([]);
    expect(result.issues).toHaveLength(count);
    expect(result.issues.every((issue) => issue.code === 'duplicate_code_value')).toBe(true);
    expect(result.issues[0]?.message).toBe(
      "row 2, column 'EAN_GTIN_13': EAN_GTIN_13 '0000000000000' is also used by 'ST-1' (row 3), 'ST-2' (row 4), " +
        "'ST-3' (row 5) and 19996 more; code values must be unique",
    );
    expect(result.issues[1]?.message).toContain(
      "is also used by 'ST-0' (row 2), 'ST-2' (row 4), 'ST-3' (row 5) and",
    );
    expect(Math.max(...result.issues.map((issue) => issue.message.length))).toBeLessThan(300);
  });

  it('refuses a single-use code type given twice and an unknown code type from a profile', async () => {
    const twice = profile({
      name: 'twice',
      layout: 'native',
      parentExternalId: 'parent',
      mapping: {
        externalId: 'id',
        fields: { name: 'name', styleTypeId: 'type', isComponent: { constant: false } },
        codes: [
          { codeId: 'PLM_ID', source: 'id' },
          { codeId: 'PLM_ID', source: 'legacy' },
          { codeId: 'SAP_ID', source: 'sap' },
        ],
      },
    });
    const result = await mapAndValidate(
      twice,
      ['id', 'parent', 'name', 'type', 'legacy', 'sap'],
      [['A', null, 'Tee', 'Jeans', 'L-1', 'S-1']],
    );
    expect(summary(result.issues)).toEqual(['2 legacy duplicate_code_type', '2 sap invalid_code_type']);
    expect(result.issues[1]?.message).toContain("unknown code type 'SAP_ID'");
  });

  it('lets a parent outside the sheet be one the catalogue holds, and updates need no required fields', async () => {
    const existing = new Map([
      ['OLD-STYLE', 'style' as const],
      ['OLD-VAR', 'variant' as const],
    ]);
    const result = await mapAndValidate(
      native(),
      nativeHeaders,
      [
        ['NEW-VAR', 'OLD-STYLE', null, 'New variant', null, null, 'Red', null, 'NEW-VAR'],
        ['OLD-VAR', 'OLD-STYLE', null, 'Renamed only', null, null, null, null, null],
        ['BAD', 'OLD-VAR', 'variant', 'Wrong level', null, null, 'Red', null, 'BAD'],
      ],
      existing,
    );
    expect(summary(result.issues)).toEqual(['4 parentExternalId parent_level_mismatch']);
    expect(result.valid.map((draft) => [draft.externalId, draft.level])).toEqual([
      ['NEW-VAR', 'variant'],
      ['OLD-VAR', 'variant'],
    ]);
  });

  it("a parent missing in one case is told of the catalogue's product in another case, at the parent's level, when the sheet states no level too", async () => {
    const catalogue = new CatalogueIndex(
      parseExistingProducts([
        { id: 's1', externalId: 'OLD-STYLE', name: 'Style', codes: [] },
        { id: 'v1', externalId: 'OLD-VAR', styleId: 's1', name: 'Variant', codes: [] },
      ]),
    );
    const result = validateDrafts(
      await mapRows(
        sheetOf(nativeHeaders, [
          ['NEW-VAR', 'old-style', null, 'New variant', null, null, 'Red', null, 'NEW-VAR'],
          ['NEW-SKU', 'Old-Var', 'sku', 'New SKU', null, null, null, 'M', 'NEW-SKU'],
          ['NEW-SKU2', 'old-style', 'sku', 'New SKU', null, null, null, 'M', 'NEW-SKU2'],
        ]),
        native(),
        references,
      ),
      { existing: catalogue.levels(), caseTwin: (key, level) => catalogue.caseTwin(key, level) },
    );
    expect(result.issues.map((issue) => issue.message)).toEqual([
      "row 2, column 'parentExternalId': parent 'old-style' is neither on this sheet nor in the catalogue; the catalogue's style 'OLD-STYLE' (id s1) differs from it only in case: write it as 'OLD-STYLE'",
      "row 3, column 'parentExternalId': parent 'Old-Var' is neither on this sheet nor in the catalogue; the catalogue's variant 'OLD-VAR' (id v1) differs from it only in case: write it as 'OLD-VAR'",
      // A SKU's parent is a variant: a style in another case is no hint.
      "row 4, column 'parentExternalId': parent 'old-style' is neither on this sheet nor in the catalogue",
    ]);
  });

  it('refuses children of a SKU and a style that names a parent', async () => {
    const result = await mapAndValidate(native(), nativeHeaders, [
      ['S', null, null, 'S', 'Jeans', 'no', null, null, 'S'],
      ['V', 'S', null, 'V', null, null, 'Red', null, 'V'],
      ['K', 'V', null, 'K', null, null, null, 'M', 'K'],
      ['X', 'K', null, 'X', null, null, null, 'L', 'X'],
      ['Y', 'S', 'style', 'Y', 'Jeans', 'no', null, null, 'Y'],
      ['Z', null, 'weird', 'Z', 'Jeans', 'no', null, null, 'Z'],
    ]);
    expect(summary(result.issues)).toEqual([
      '5 parentExternalId parent_level_mismatch',
      '6 parentExternalId parent_level_mismatch',
      '7 level invalid_level',
    ]);
    expect(result.issues[0]?.message).toContain("parent 'K' is a SKU");
  });

  // plan.json lists each rejected product with its issues' codes: a product listed as rejected must say why.
  const reasons = (result: Awaited<ReturnType<typeof mapAndValidate>>) =>
    result.invalid.map(({ draft, issues }) => [draft.externalId, issues.map((issue) => issue.message)]);

  it("a flat row told of its style's issue still lists its colour and SKU as rejected because of that style, with one reason per row for the rejects file", async () => {
    const headers = ['Style Number', 'Style Name', 'Style Type', 'Colour Code', 'Colour', 'Size', 'SKU'];
    const result = await mapAndValidate(flat(), headers, [
      ['A', 'Tee', 'Tshirt', 'RED', 'Red', 'M', 'A-RED-M'],
      ['A', 'Tee', 'Tshirt', 'RED', 'Red', 'L', 'A-RED-L'],
      ['B', 'Jeans', 'Jeans', 'IND', 'Indigo', '32', 'B-IND-32'],
    ]);
    const unknownType = (row: number) =>
      `row ${row}, column 'Style Type': unknown style type 'Tshirt'; did you mean 'T-Shirt'?`;
    expect(reasons(result)).toEqual([
      ['A', [unknownType(2), unknownType(3)]],
      [
        'A-RED',
        [
          "row 2, column 'Style Number': parent 'A' is rejected (row 2: unknown_reference), so 'A-RED' is not imported either",
        ],
      ],
      [
        'A-RED-M',
        [
          "row 2, column 'Style Number': parent 'A-RED' is rejected (row 2: invalid_parent), so 'A-RED-M' is not imported either",
        ],
      ],
      [
        'A-RED-L',
        [
          "row 3, column 'Style Number': parent 'A-RED' is rejected (row 2: invalid_parent), so 'A-RED-L' is not imported either",
        ],
      ],
    ]);
    expect(result.issues.map((issue) => issue.message)).toEqual([unknownType(2), unknownType(3)]);
    expect(result.valid.map((draft) => draft.externalId)).toEqual(['B', 'B-IND', 'B-IND-32']);
  });

  it('a SKU with an issue of its own under a rejected variant lists both reasons; its row is told once', async () => {
    const result = await mapAndValidate(native(), nativeHeaders, [
      ['A', null, null, 'Tee', 'T-Shirt', 'no', null, null, 'A'],
      ['A-RED', 'A', null, 'Red', null, null, null, null, 'A-RED'],
      ['A-RED-M', 'A-RED', null, 'x'.repeat(300), null, null, 'Red', 'M', 'A-RED-M'],
      ['A-RED-L', 'A-RED', null, 'L', null, null, 'Red', 'L', 'A-RED-L'],
    ]);
    const notImported = (row: number, id: string) =>
      `row ${row}, column 'parentExternalId': parent 'A-RED' is rejected (row 3: missing_required), so '${id}' is not imported either`;
    expect(reasons(result)).toEqual([
      ['A-RED', ["row 3, column 'color': a colour is required to create a variant ('A-RED')"]],
      [
        'A-RED-M',
        [
          "row 4, column 'name': the name has 300 characters, over the limit of 255",
          notImported(4, 'A-RED-M'),
        ],
      ],
      ['A-RED-L', [notImported(5, 'A-RED-L')]],
    ]);
    expect(summary(result.issues)).toEqual([
      '3 color missing_required',
      '4 name too_long',
      '5 parentExternalId invalid_parent',
    ]);
  });

  // Audit (session 45), finding 6: a parent chain of 4,000 products overflowed the stack of the recursive walk.
  const chainRows = (count: number, loop: boolean) =>
    Array.from({ length: count }, (_, row) => {
      const i = count - 1 - row; // child first: each row names the product on the row below as its parent
      const parent = i > 0 ? `P${i - 1}` : loop ? `P${count - 1}` : null;
      return [`P${i}`, parent, null, `Name ${i}`, 'Jeans', 'no', 'Red', 'M', `P${i}`];
    });

  it('a parent chain of 5,000 products: a SKU cannot have children, and every row below it is told', async () => {
    const result = await mapAndValidate(native(), nativeHeaders, chainRows(5_000, false));
    expect(result.valid.map((draft) => [draft.externalId, draft.level])).toEqual([
      ['P0', 'style'],
      ['P1', 'variant'],
      ['P2', 'sku'],
    ]);
    expect(result.issues).toHaveLength(4_997);
    expect(
      result.issues.filter((issue) => issue.code !== 'invalid_parent').map((issue) => issue.message),
    ).toEqual(["row 4998, column 'parentExternalId': parent 'P2' is a SKU, and a SKU cannot have children"]);
    expect(result.issues[0]?.message).toBe(
      "row 2, column 'parentExternalId': parent 'P4998' is rejected (row 3: invalid_parent), so 'P4999' is not imported either",
    );
  });

  it('a loop of parents is named in full when short, and by its first five products and its length when long', async () => {
    const short = await mapAndValidate(native(), nativeHeaders, chainRows(3, true));
    expect(short.issues.map((issue) => issue.message)).toEqual([
      "row 2, column 'parentExternalId': parents form a loop: 'P2' -> 'P1' -> 'P0' -> 'P2'",
      "row 3, column 'parentExternalId': parents form a loop: 'P2' -> 'P1' -> 'P0' -> 'P2'",
      "row 4, column 'parentExternalId': parents form a loop: 'P2' -> 'P1' -> 'P0' -> 'P2'",
    ]);
    const long = await mapAndValidate(native(), nativeHeaders, chainRows(5_000, true));
    expect(long.valid).toEqual([]);
    expect(long.issues).toHaveLength(5_000);
    expect(long.issues.every((issue) => issue.code === 'cyclic_parent')).toBe(true);
    expect(long.issues[4_999]?.message).toBe(
      "row 5001, column 'parentExternalId': parents form a loop: 'P4999' -> 'P4998' -> 'P4997' -> 'P4996' -> 'P4995' -> ... (4995 more) -> 'P4999'",
    );
  });

  it('turns a formula error cell into a cell_error naming the error', async () => {
    const parsed = await parseProductSheet(join(badInput, 'formulas-and-errors.xlsx'), {
      profile: native(),
      references,
    });
    const result = validateDrafts(parsed);
    expect(summary(result.issues)).toEqual(['3 name cell_error', '3 styleType cell_error']);
    expect(result.issues[0]?.message).toContain('#N/A');
    expect(result.issues[1]?.message).toContain('#REF!');
    expect(result.valid.map((draft) => [draft.externalId, draft.fields.name])).toEqual([
      ['F-1', 'Tee (from formula)'],
      ['F-3', 'Plain'],
    ]);
  });

  // Spec 02, tree rule 1: sibling sums "must sum to at most 100 (not exactly 100; completeness is never checked)".
  it('refuses a composition whose two names resolve to one raw material, naming both and the id', async () => {
    const withAliases = profile({
      ...native(),
      rawMaterials: { Polyester: 'rm_polyester', 'Recycled polyester': 'rm_polyester', Cotton: 'rm_cotton' },
    });
    const result = await mapAndValidate(
      withAliases,
      [...nativeHeaders, 'composition'],
      [
        [
          'S1',
          null,
          'style',
          'Tee',
          'T-Shirt',
          'no',
          null,
          null,
          'S1',
          '50% Cotton, 30% Polyester, 20% Recycled polyester',
        ],
      ],
    );
    expect(result.valid).toEqual([]);
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'bad_composition',
        column: 'composition',
        message: expect.stringContaining(
          "'Polyester' and 'Recycled polyester' both resolve to raw material 'rm_polyester'",
        ),
      }),
    ]);
  });
});
