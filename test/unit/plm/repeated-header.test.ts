import { mapRows } from '../../../connectors/plm-import/profiles/map-rows';
import { nativeHeaders, native, profile, references, sheetOf } from './helpers';

// Two PLM exports pasted one under the other, or a report's page header, repeat the header row in the data. Read as
// data, such a row is a product named after the columns: refused with a puzzling reason (native: "level 'level'"),
// or, in a mapping that reads no reference column, planned as a new style 'Style Number' the import would create.
describe('a row that repeats the header row', () => {
  const flatHeaders = ['Style Number', 'Style Name', 'Colour', 'SKU', 'Size'];
  const flatProfile = profile({
    name: 'pasted',
    layout: 'flat',
    fillDown: ['Style Number', 'Style Name'],
    style: { externalId: 'Style Number', fields: { name: 'Style Name' } },
    variant: { externalId: { template: '{Style Number}-{Colour}' }, fields: { color: 'Colour' } },
    sku: { externalId: 'SKU', fields: { dimension: 'Size' } },
  });

  it('is skipped with a warning naming it, not planned as a product named after the columns (flat mapping)', async () => {
    const mapped = await mapRows(
      sheetOf(flatHeaders, [
        ['FW26-01', 'Rib Knit', 'Grey', 'FW26-01-GRY-S', 'S'],
        flatHeaders,
        ['FW26-09', 'Cable Knit', 'Navy', 'FW26-09-NVY-M', 'M'],
        [null, null, 'Navy', 'FW26-09-NVY-L', 'L'],
      ]),
      flatProfile,
      references,
    );
    expect(mapped.drafts.map((draft) => draft.externalId).sort()).toEqual(
      [
        'FW26-01',
        'FW26-01-Grey',
        'FW26-01-GRY-S',
        'FW26-09',
        'FW26-09-Navy',
        'FW26-09-NVY-M',
        'FW26-09-NVY-L',
      ].sort(),
    );
    expect(mapped.issues).toEqual([]);
    expect(mapped.skippedRows).toBe(1);
    expect(mapped.warnings).toContain(
      'row 3 repeats the header row (exports pasted one under the other, or a page header): not a product, skipped',
    );
  });

  it('is skipped in the native profile too, a header with some columns left blank included', async () => {
    const header = nativeHeaders.map((name) =>
      name === 'color' || name === 'dimension' ? null : name.toUpperCase(),
    );
    const mapped = await mapRows(
      sheetOf(nativeHeaders, [
        ['A', null, 'style', 'Tee', 'T-Shirt', 'no', null, null, 'P-1'],
        header,
        header,
      ]),
      native(),
      references,
    );
    expect(mapped.drafts.map((draft) => draft.externalId)).toEqual(['A']);
    expect(mapped.issues).toEqual([]);
    expect(mapped.skippedRows).toBe(2);
    expect(mapped.warnings).toContain(
      'row 3 and row 4 repeat the header row (exports pasted one under the other, or a page header): not products, skipped',
    );
  });

  it('stays a row when one cell only holds its column name, or any cell holds something else', async () => {
    const mapped = await mapRows(
      sheetOf(flatHeaders, [
        ['Style Number', 'Rib Knit', 'Grey', 'S-1', 'S'],
        [null, null, null, 'SKU', null],
      ]),
      flatProfile,
      references,
    );
    expect(mapped.skippedRows).toBe(0);
    expect(mapped.drafts.map((draft) => draft.externalId)).toContain('S-1');
  });
});
