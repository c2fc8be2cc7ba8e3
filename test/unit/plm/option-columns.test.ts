import { mapRows } from '../../../connectors/plm-import/profiles/map-rows';
import { profile, sheetOf } from './helpers';

// Shopify names each product's options (Option1 Name ...) on its first row, in the merchant's order and language;
// spec 01: "`parentId` and `isComponent` cannot be changed after creation", so the colour must never be a size.
const options = () =>
  profile({
    name: 'options',
    layout: 'flat',
    fillDown: ['Handle'],
    optionColumns: {
      pairs: [
        { name: 'Option1 Name', value: 'Option1 Value' },
        { name: 'Option2 Name', value: 'Option2 Value' },
      ],
      columns: { Colour: ['Color', 'Farbe'], Size: ['Size', 'Größe'] },
    },
    style: { externalId: 'Handle', fields: { name: 'Title' } },
    variant: {
      externalId: { template: '{Handle}-{Colour}', fallback: { template: '{Handle}-default' } },
      fields: { color: { column: 'Colour', default: 'One colour' } },
    },
    sku: {
      externalId: 'Variant SKU',
      fields: { dimension: { column: 'Size', default: 'One size' } },
    },
  });
const HEADERS = [
  'Handle',
  'Title',
  'Option1 Name',
  'Option1 Value',
  'Option2 Name',
  'Option2 Value',
  'Variant SKU',
];

describe("optionColumns: a column chosen by another column's value", () => {
  it('reads the colour and the size from the options named so, in either order, names carried down the product', async () => {
    const mapped = await mapRows(
      sheetOf(HEADERS, [
        ['chino', 'Chino', 'Größe', '32', 'farbe', 'Navy', 'CH-32-NVY'],
        ['chino', null, null, '34', null, 'Sand', 'CH-34-SND'],
        ['tee', 'Tee', 'Size', 'S', null, null, 'T-S'],
        ['tee', null, null, 'M', null, null, 'T-M'],
      ]),
      options(),
    );
    expect(mapped.issues).toEqual([]);
    const byId = new Map(mapped.drafts.map((draft) => [draft.externalId, draft]));
    expect(byId.get('chino-Sand')?.fields.color).toBe('Sand');
    expect(byId.get('CH-34-SND')).toMatchObject({
      parentExternalId: 'chino-Sand',
      fields: { dimension: '34' },
    });
    expect(byId.get('tee-default')?.fields.color).toBe('One colour');
    expect(byId.get('T-M')).toMatchObject({ parentExternalId: 'tee-default', fields: { dimension: 'M' } });
    expect(mapped.warnings.join(' ')).not.toMatch(/Colour|Size'/);
  });

  it('an unknown option name, a value without a name and two colours are row errors naming the option and the product', async () => {
    const mapped = await mapRows(
      sheetOf(HEADERS, [
        ['belt', 'Belt', 'Color', 'Brown', 'Material', 'Leather', 'B-1'],
        ['cap', 'Cap', null, 'Red', null, null, 'C-1'],
        ['scarf', 'Scarf', 'Color', 'Red', 'Farbe', 'Blue', 'S-1'],
      ]),
      options(),
    );
    expect(mapped.issues.map((issue) => [issue.rowNumber, issue.column, issue.code])).toEqual([
      [2, 'Option2 Name', 'unknown_option'],
      [3, 'Option1 Name', 'missing_required'],
      [4, 'Option2 Name', 'conflicting_values'],
    ]);
    expect(mapped.issues[0]?.message).toMatch(
      /option 'Material' of product 'belt' is neither a colour \(Color, Farbe\)/,
    );
    expect(mapped.issues[1]?.message).toMatch(
      /option value 'Red' \('Option1 Value'\) of product 'cap' has no option name/,
    );
    expect(mapped.issues[2]?.message).toMatch(
      /options 'Color' and 'Farbe' of product 'scarf' both give the colour/,
    );
  });

  it('refuses a sheet that has a column of the name the mapping makes, and a name listed under two columns', async () => {
    await expect(
      mapRows(
        sheetOf([...HEADERS, 'Colour'], [['a', 'A', 'Color', 'Red', null, null, 'A-1', 'x']]),
        options(),
      ),
    ).rejects.toThrow(/makes option column\(s\) 'Colour' that the sheet also has/);
    expect(() =>
      profile({
        name: 'twice',
        layout: 'flat',
        optionColumns: { pairs: [{ name: 'N', value: 'V' }], columns: { Colour: ['Tone'], Size: ['tone'] } },
        style: { externalId: 'a' },
        variant: { externalId: 'b' },
        sku: { externalId: 'c' },
      }),
    ).toThrow(/one column only/);
  });
});
