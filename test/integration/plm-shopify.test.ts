/**
 * The shipped Shopify products mapping (examples/plm/shopify-products.mapping.json) reads real Shopify exports: option
 * names per product, variants without a Variant SKU, optional columns and barcodes of any GTIN length. Every test runs
 * the real workflow on a Temporal dev server against the sandbox over HTTP; the shared setup is plm-rules-stack.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../worker/paths';
import { plmRulesStack } from './plm-rules-stack';

const example = (name: string) => path.join(repoRoot(), 'examples', 'plm', name);
const mappingFile = example('shopify-products.mapping.json');
const HEADER = (readFileSync(example('shopify-products.csv'), 'utf8').split(/\r?\n/)[0] ?? '').split(',');

type ShopifyRow = Partial<Record<string, string>>;
const quote = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
/** A Shopify export with the given columns (default: every column of the shipped sample). */
const shopifyCsv = (rows: readonly ShopifyRow[], header: readonly string[] = HEADER): string =>
  [header.join(','), ...rows.map((row) => header.map((column) => quote(row[column] ?? '')).join(','))].join(
    '\r\n',
  ) + '\r\n';

/** A product's first row: the product's own columns and its option names. */
const first = (handle: string, title: string, type: string, options: ShopifyRow): ShopifyRow => ({
  Handle: handle,
  Title: title,
  'Body (HTML)': `<p>${title}</p>`,
  Vendor: 'Nordic Threads',
  Type: type,
  'Variant Price': '20.00',
  Status: 'active',
  ...options,
});
/** A continuation row: Title and option names blank, as Shopify writes them. */
const next = (handle: string, options: ShopifyRow): ShopifyRow => ({
  Handle: handle,
  'Variant Price': '20.00',
  ...options,
});

interface Placed {
  id: string;
  description?: string | null;
  styleId?: string;
  variantId?: string;
  color?: string | null;
  dimension?: string | null;
  codes: Array<{ codeId: string; codeValue: string }>;
}

describe('PLM import: Shopify product exports with the shipped mapping', () => {
  const { file, run, api, rejectsOf } = plmRulesStack();
  const placed = (externalId: string) => api<Placed>(`/styles/${encodeURIComponent(externalId)}`);

  // Spec 01: "`parentId` and `isComponent` cannot be changed after creation": a size read as a colour makes a variant
  // per size, a tree no later import can fix. Shopify names each product's options (Option1 Name) as the merchant
  // created them, so the colour and the size are the options whose names say so, in any order and language.
  it('the colour and the size come from the options whose names say so (spec 01: "parentId ... cannot be changed after creation"): size-first, colour-first and German names', async () => {
    const rows: ShopifyRow[] = [
      first('sf-tee', 'SF Tee', 'Tee', {
        'Option1 Name': 'Size',
        'Option1 Value': 'S',
        'Variant SKU': 'SF-S',
      }),
      next('sf-tee', { 'Option1 Value': 'M', 'Variant SKU': 'SF-M' }),
      first('sf-chino', 'SF Chino', 'Trousers', {
        'Option1 Name': 'Size',
        'Option1 Value': '32',
        'Option2 Name': 'Color',
        'Option2 Value': 'Navy',
        'Variant SKU': 'SF-32-NVY',
      }),
      next('sf-chino', { 'Option1 Value': '32', 'Option2 Value': 'Sand', 'Variant SKU': 'SF-32-SND' }),
      next('sf-chino', { 'Option1 Value': '34', 'Option2 Value': 'Navy', 'Variant SKU': 'SF-34-NVY' }),
      first('sf-jumper', 'SF Jumper', 'Tee', {
        'Option1 Name': 'Farbe',
        'Option1 Value': 'Rot',
        'Option2 Name': 'Größe',
        'Option2 Value': 'L',
        'Variant SKU': 'SF-ROT-L',
      }),
    ];
    const result = await run({ file: await file('shopify-options.csv', shopifyCsv(rows)), mappingFile });
    expect(rejectsOf(result)).toEqual([]);
    expect(result.products).toMatchObject({ created: 3 + (1 + 2 + 1) + 6, rejected: 0 });

    const tee = await placed('sf-tee-default');
    expect(tee).toMatchObject({ styleId: (await placed('sf-tee')).id, color: 'One colour' });
    expect(await placed('SF-S')).toMatchObject({ variantId: tee.id, dimension: 'S' });
    expect(await placed('SF-M')).toMatchObject({ variantId: tee.id, dimension: 'M' });

    const navy = await placed('sf-chino-Navy');
    const sand = await placed('sf-chino-Sand');
    expect(navy).toMatchObject({ styleId: (await placed('sf-chino')).id, color: 'Navy' });
    expect(sand).toMatchObject({ color: 'Sand' });
    expect(await placed('SF-32-NVY')).toMatchObject({ variantId: navy.id, dimension: '32' });
    expect(await placed('SF-32-SND')).toMatchObject({ variantId: sand.id, dimension: '32' });
    expect(await placed('SF-34-NVY')).toMatchObject({ variantId: navy.id, dimension: '34' });

    const red = await placed('sf-jumper-Rot');
    expect(red).toMatchObject({ color: 'Rot' });
    expect(await placed('SF-ROT-L')).toMatchObject({ variantId: red.id, dimension: 'L' });
  });

  it('an option whose name is neither a colour nor a size is a row error naming the option and the product, on every row of it', async () => {
    const rows: ShopifyRow[] = [
      first('sf-belt', 'SF Belt', 'Tee', {
        'Option1 Name': 'Color',
        'Option1 Value': 'Brown',
        'Option2 Name': 'Material',
        'Option2 Value': 'Leather',
        'Variant SKU': 'SF-BELT-BRN-LEA',
      }),
      next('sf-belt', {
        'Option1 Value': 'Brown',
        'Option2 Value': 'Canvas',
        'Variant SKU': 'SF-BELT-BRN-CAN',
      }),
    ];
    const result = await run({ file: await file('shopify-material.csv', shopifyCsv(rows)), mappingFile });
    const rejects = rejectsOf(result);
    expect(rejects).toHaveLength(2);
    for (const reject of rejects)
      expect(reject.message).toMatch(/column 'Option2 Name'.*option 'Material' of product 'sf-belt'/);
    expect(result.products).toMatchObject({ created: 0 });
  });
  // Shopify's Variant SKU is optional. The mapping's description promises a product without options "one SKU sized
  // 'One size'"; spec 01, POST /styles: a SKU requires "name, codes, dimension". The key falls back to the values the
  // row ends with, defaults included, so it is never blank while the Handle is there.
  it('variants without a Variant SKU import under a key built from the values the row ends with ("one SKU sized \'One size\'"); a re-run writes nothing', async () => {
    const rows: ShopifyRow[] = [
      first('ns-tote', 'NS Tote', 'Tee', { 'Option1 Name': 'Title', 'Option1 Value': 'Default Title' }),
      first('ns-scarf', 'NS Scarf', 'Tee', { 'Option1 Name': 'Color', 'Option1 Value': 'Red' }),
      next('ns-scarf', { 'Option1 Value': 'Blue' }),
      first('ns-cap', 'NS Cap', 'Tee', { 'Option1 Name': 'Size', 'Option1 Value': 'M' }),
    ];
    const sheet = await file('shopify-no-sku.csv', shopifyCsv(rows));
    const result = await run({ file: sheet, mappingFile });
    expect(rejectsOf(result)).toEqual([]);
    expect(result.products).toMatchObject({ created: 3 + 4 + 4, rejected: 0 });
    expect(await placed('ns-tote-One colour-One size')).toMatchObject({
      variantId: (await placed('ns-tote-default')).id,
      color: 'One colour',
      dimension: 'One size',
      codes: expect.arrayContaining([
        { codeId: 'PIM_ID', codeValue: 'ns-tote-One colour-One size' },
      ]) as unknown,
    });
    expect(await placed('ns-scarf-Blue-One size')).toMatchObject({
      variantId: (await placed('ns-scarf-Blue')).id,
      dimension: 'One size',
    });
    expect(await placed('ns-cap-One colour-M')).toMatchObject({
      variantId: (await placed('ns-cap-default')).id,
      dimension: 'M',
    });
    const again = await run({ file: sheet, mappingFile });
    expect(again.products).toMatchObject({ unchanged: 11, created: 0, rejected: 0 });
  });
  it('an export without the optional "SEO Description" and composition metafield columns imports (the description from Body (HTML)); one without a required column is still refused, naming it', async () => {
    const optional = ['SEO Description', 'Composition (product.metafields.custom.composition)'];
    const header = HEADER.filter((column) => !optional.includes(column));
    const rows: ShopifyRow[] = [
      first('oc-tee', 'OC Tee', 'Tee', {
        'Option1 Name': 'Color',
        'Option1 Value': 'Sand',
        'Option2 Name': 'Size',
        'Option2 Value': 'M',
        'Variant SKU': 'OC-SND-M',
      }),
    ];
    const result = await run({ file: await file('shopify-lean.csv', shopifyCsv(rows, header)), mappingFile });
    expect(rejectsOf(result)).toEqual([]);
    expect(result.products).toMatchObject({ created: 3, rejected: 0 });
    expect(await placed('oc-tee')).toMatchObject({ description: '<p>OC Tee</p>' });

    const withoutGrams = header.filter((column) => column !== 'Variant Grams');
    await expect(
      run({ file: await file('shopify-no-grams.csv', shopifyCsv(rows, withoutGrams)), mappingFile }),
    ).rejects.toMatchObject({
      cause: {
        message: expect.stringMatching(/names column\(s\) the sheet lacks: 'Variant Grams'/) as unknown,
      },
    });
  });
  // Spec 01, Code types: "`UPC_GTIN_12`, `EAN_GTIN_13`" are the barcode types; there is no 8-digit one.
  it('"Variant Barcode" is a UPC_GTIN_12 with 12 digits (leading zero kept) and an EAN_GTIN_13 with 13; another length is a bad_code row error naming the row, column and reason', async () => {
    const options = { 'Option1 Name': 'Size', 'Option1 Value': 'S' };
    const rows: ShopifyRow[] = [
      first('bc-upc', 'BC UPC', 'Tee', {
        ...options,
        'Variant SKU': 'BC-UPC',
        'Variant Barcode': '012345678905',
      }),
      first('bc-ean', 'BC EAN', 'Tee', {
        ...options,
        'Variant SKU': 'BC-EAN',
        'Variant Barcode': '7351234100998',
      }),
      first('bc-ean8', 'BC EAN8', 'Tee', {
        ...options,
        'Variant SKU': 'BC-EAN8',
        'Variant Barcode': '96385074',
      }),
    ];
    const result = await run({ file: await file('shopify-barcodes.csv', shopifyCsv(rows)), mappingFile });
    expect(rejectsOf(result)).toEqual([
      {
        externalId: 'bc-ean8',
        code: 'bad_code',
        message: expect.stringMatching(
          /row 4, column 'Variant Barcode': '96385074' has 8 digits; a barcode has 12 \(UPC_GTIN_12\) or 13 \(EAN_GTIN_13\)/,
        ) as unknown,
      },
    ]);
    expect((await placed('BC-UPC')).codes).toEqual(
      expect.arrayContaining([{ codeId: 'UPC_GTIN_12', codeValue: '012345678905' }]),
    );
    expect((await placed('BC-UPC')).codes.map((code) => code.codeId)).not.toContain('EAN_GTIN_13');
    expect((await placed('BC-EAN')).codes).toEqual(
      expect.arrayContaining([{ codeId: 'EAN_GTIN_13', codeValue: '7351234100998' }]),
    );
  });

  // Spec 01: "`codes` is replaced wholesale: the array sent becomes the complete code set", and `UPC_GTIN_12` and
  // `EAN_GTIN_13` are each "at most once per product". An earlier version wrote a 12-digit barcode as EAN_GTIN_13; the
  // import keeps code types the sheet does not give, which kept that wrong entry (alone, or beside the UPC_GTIN_12).
  it('"`codes` is replaced wholesale": a 12-digit barcode stored as EAN_GTIN_13 is replaced by the UPC_GTIN_12 the sheet gives, not kept beside it; other kept codes stay; a re-run writes nothing', async () => {
    const options = { 'Option1 Name': 'Size', 'Option1 Value': 'S' };
    const rows: ShopifyRow[] = [
      first('fix-upc', 'FIX UPC', 'Tee', {
        ...options,
        'Variant SKU': 'FIX-UPC',
        'Variant Barcode': '012345678929',
      }),
      first('fix-both', 'FIX BOTH', 'Tee', {
        ...options,
        'Variant SKU': 'FIX-BOTH',
        'Variant Barcode': '012345678936',
      }),
    ];
    const sheet = await file('shopify-barcode-repair.csv', shopifyCsv(rows));
    await run({ file: sheet, mappingFile });
    const sheetCodes = (sku: string, handle: string) => [
      { codeId: 'PIM_ID', codeValue: `${handle}-One colour-S` },
      { codeId: 'OTHER_ID1', codeValue: sku },
    ];
    // What the earlier version left: the value as EAN_GTIN_13 only, or as both types; an ERP_ID set by another system.
    await api('/styles/FIX-UPC', {
      method: 'PUT',
      body: JSON.stringify({
        codes: [
          ...sheetCodes('FIX-UPC', 'fix-upc'),
          { codeId: 'EAN_GTIN_13', codeValue: '012345678929' },
          { codeId: 'ERP_ID', codeValue: 'ERP-FIX-1' },
        ],
      }),
    });
    await api('/styles/FIX-BOTH', {
      method: 'PUT',
      body: JSON.stringify({
        codes: [
          ...sheetCodes('FIX-BOTH', 'fix-both'),
          { codeId: 'EAN_GTIN_13', codeValue: '012345678936' },
          { codeId: 'UPC_GTIN_12', codeValue: '012345678936' },
        ],
      }),
    });
    expect((await placed('FIX-UPC')).codes.map((code) => code.codeId)).not.toContain('UPC_GTIN_12');

    const repaired = await run({ file: sheet, mappingFile });
    expect(repaired.products).toMatchObject({ updated: 2, rejected: 0 });
    const sorted = (codes: Placed['codes']) =>
      [...codes].sort((a, b) => a.codeId.localeCompare(b.codeId) || a.codeValue.localeCompare(b.codeValue));
    expect(sorted((await placed('FIX-UPC')).codes)).toEqual(
      sorted([
        ...sheetCodes('FIX-UPC', 'fix-upc'),
        { codeId: 'UPC_GTIN_12', codeValue: '012345678929' },
        { codeId: 'ERP_ID', codeValue: 'ERP-FIX-1' },
      ]),
    );
    expect(sorted((await placed('FIX-BOTH')).codes)).toEqual(
      sorted([...sheetCodes('FIX-BOTH', 'fix-both'), { codeId: 'UPC_GTIN_12', codeValue: '012345678936' }]),
    );
    expect((await run({ file: sheet, mappingFile })).products).toMatchObject({ updated: 0, unchanged: 6 });
  });

  // Spec 01, PUT rule 1: "`codes` is replaced wholesale: the array sent becomes the complete code set"; code values are
  // unique per type. "Variant Barcode" maps by digits: the cell is the variant's one barcode, so a new barcode of the
  // other length replaces the old one. Kept beside it, the old value would stay blocked for every other product.
  it('"`codes` is replaced wholesale": a barcode changed from a 13-digit EAN to a 12-digit UPC (and back) leaves only the new one, and the old value is free for another product', async () => {
    const options = { 'Option1 Name': 'Size', 'Option1 Value': 'S' };
    const sheetWith = (name: string, barcodes: Record<string, string>) =>
      file(
        name,
        shopifyCsv(
          Object.entries(barcodes).map(([sku, barcode]) =>
            first(sku.toLowerCase(), sku, 'Tee', {
              ...options,
              'Variant SKU': sku,
              'Variant Barcode': barcode,
            }),
          ),
        ),
      );
    const barcodesOf = async (sku: string) =>
      (await placed(sku)).codes.filter(
        (code) => code.codeId === 'EAN_GTIN_13' || code.codeId === 'UPC_GTIN_12',
      );

    await run({ file: await sheetWith('bc-move-1.csv', { 'BC-MOVE': '7351234100011' }), mappingFile });
    const toUpc = await run({
      file: await sheetWith('bc-move-2.csv', { 'BC-MOVE': '012345678943' }),
      mappingFile,
    });
    expect(toUpc.products).toMatchObject({ updated: 1, rejected: 0 });
    expect(await barcodesOf('BC-MOVE')).toEqual([{ codeId: 'UPC_GTIN_12', codeValue: '012345678943' }]);
    // The EAN it gave up goes to another product.
    const taken = await run({
      file: await sheetWith('bc-move-3.csv', { 'BC-TAKER': '7351234100011' }),
      mappingFile,
    });
    expect(taken.products).toMatchObject({ rejected: 0 });
    expect(await barcodesOf('BC-TAKER')).toEqual([{ codeId: 'EAN_GTIN_13', codeValue: '7351234100011' }]);

    const back = await run({
      file: await sheetWith('bc-move-4.csv', { 'BC-MOVE': '7351234100028' }),
      mappingFile,
    });
    expect(back.products).toMatchObject({ updated: 1, rejected: 0 });
    expect(await barcodesOf('BC-MOVE')).toEqual([{ codeId: 'EAN_GTIN_13', codeValue: '7351234100028' }]);
  });
});
