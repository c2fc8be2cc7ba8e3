import { join } from 'node:path';
import {
  parseExistingProducts,
  CatalogueIndex,
  type ExistingProduct,
} from '../../../connectors/plm-import/catalogue';
import { planImport, type ImportPlan } from '../../../connectors/plm-import/plan';
import { desiredCodes, updateBody } from '../../../connectors/plm-import/product-bodies';
import { builtinProfile } from '../../../connectors/plm-import/profiles/builtin';
import { parseProductSheet } from '../../../connectors/plm-import/profiles/parse-sheet';
import type {
  MappingProfile,
  MappingProfileInput,
  ProductLevel,
} from '../../../connectors/plm-import/profiles/schema';
import {
  validateDrafts,
  type ValidatedSheet,
  type ValidDraft,
} from '../../../connectors/plm-import/validate';
import {
  classicTeeBlackInCatalogue,
  classicTeeBlackSku,
  fixtures,
  flat,
  mapAndValidate,
  native,
  nativeHeaders,
  profile,
  references,
} from './helpers';

/** What the API would hold after applying the plan's creates (ids made up, parents linked by platform id). */
function catalogueAfter(plan: ImportPlan): ExistingProduct[] {
  const ids = new Map<string, { id: string; level: string; parent: string | null }>();
  const products: unknown[] = [];
  for (const step of plan.writes) {
    if (step.action !== 'create') continue;
    const id = `${step.level}_${step.externalId}`;
    const parent = step.parentExternalId ? (ids.get(step.parentExternalId) ?? null) : null;
    ids.set(step.externalId, { id, level: step.level, parent: parent?.id ?? null });
    const links =
      step.level === 'variant'
        ? { styleId: parent?.id }
        : step.level === 'sku'
          ? { variantId: parent?.id, styleId: parent?.parent }
          : {};
    const { parentId: _parentId, ...body } = step.body;
    // The API returns codes in its own order: comparison must not depend on it.
    products.push({ ...body, id, ...links, codes: [...body.codes].reverse(), isArchived: false });
  }
  return parseExistingProducts(products);
}

async function planFile(
  file: string,
  profile: MappingProfile,
  existing: ExistingProduct[] = [],
): Promise<ImportPlan> {
  const parsed = await parseProductSheet(join(fixtures, file), { profile, references });
  return planImport(validateDrafts(parsed, { existing: new CatalogueIndex(existing).levels() }), existing);
}

describe('planImport', () => {
  it.each([
    ['native.csv', native()],
    ['flat.xlsx', flat()],
  ])(
    'creates everything from %s parents first, then plans an unchanged re-import as all unchanged',
    async (file, profile) => {
      const fresh = await planFile(file, profile);
      expect(fresh.counts).toEqual({ create: 10, update: 0, unchanged: 0, invalid: 0, archived: 0 });
      const levels = fresh.writes.map((step) => step.level);
      expect(levels).toEqual(
        [...levels].sort(
          (a, b) => ['style', 'variant', 'sku'].indexOf(a) - ['style', 'variant', 'sku'].indexOf(b),
        ),
      );
      const again = await planFile(file, profile, catalogueAfter(fresh));
      expect(again.counts).toEqual({ create: 0, update: 0, unchanged: 10, invalid: 0, archived: 0 });
    },
  );

  it('builds create bodies with the parent externalId and no composition (it goes to the material API)', async () => {
    const plan = await planFile(
      'native.csv',
      profile({
        ...builtinProfile('native'),
        rawMaterials: { Cotton: 'rm_cotton', Elastane: 'rm_elastane' },
      } as MappingProfileInput),
    );
    const style = plan.writes.find((step) => step.externalId === 'ST-100');
    expect(style).toMatchObject({ action: 'create' });
    expect(plan.compositions.find((check) => check.externalId === 'ST-100')).toMatchObject({
      id: null,
      desired: [
        {
          name: 'Composition',
          lines: [
            { material: 'Cotton', rawMaterialId: 'rm_cotton', percentage: 95 },
            { material: 'Elastane', rawMaterialId: 'rm_elastane', percentage: 5 },
          ],
        },
      ],
    });
    expect(style?.body).toEqual({
      externalId: 'ST-100',
      name: 'Classic Tee',
      codes: [{ codeId: 'PLM_ID', codeValue: 'PLM-100' }],
      description: 'Organic cotton tee',
      gender: 'Unisex',
      styleTypeId: 'st_tshirt',
      isComponent: false,
      brands: ['br_north', 'br_aurora'],
      seasons: ['se_ss25'],
    });
    const sku = plan.writes.find((step) => step.externalId === 'ST-100-BLK-M');
    expect(sku?.body).toMatchObject({
      parentId: 'ST-100-BLK',
      dimension: 'M',
      weight: { unit: 'GRAM', value: 180 },
    });
  });

  it('sends only the changed fields, full codes when they differ, and keeps codes of types the sheet does not give', async () => {
    const existing = parseExistingProducts([
      {
        id: 's1',
        externalId: 'S',
        name: 'Old name',
        codes: [
          { codeId: 'ERP_ID', codeValue: 'E1' },
          { codeId: 'PLM_ID', codeValue: 'S-old' },
        ],
        styleTypeId: 'st_jeans',
        isComponent: 0,
        description: ' Same ',
      },
      {
        id: 'v1',
        externalId: 'V',
        styleId: 's1',
        name: 'Variant',
        codes: [{ codeId: 'PLM_ID', codeValue: 'V' }],
        color: 'Red',
        description: 'Inherited from style',
      },
    ]);
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'description'],
      [
        ['S', null, null, 'New name', 'Jeans', 'no', null, null, 'S', 'Same'],
        ['V', 'S', null, 'Variant', null, null, 'Red', null, 'V', null],
      ],
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(result, existing);
    expect(plan.writes).toEqual([
      expect.objectContaining({
        action: 'update',
        id: 's1',
        changedFields: ['name', 'codes'],
        body: {
          name: 'New name',
          codes: [
            { codeId: 'ERP_ID', codeValue: 'E1' },
            { codeId: 'PLM_ID', codeValue: 'S' },
          ],
        },
      }),
    ]);
    // The variant leaves description blank: it keeps inheriting, nothing is sent.
    expect(plan.unchanged.map((step) => step.externalId)).toEqual(['V']);
  });

  // Spec 01: "`codes` is replaced wholesale"; an earlier version wrote a 12-digit barcode as EAN_GTIN_13.
  it('"`codes` is replaced wholesale": an EAN_GTIN_13 holding the value the sheet gives as UPC_GTIN_12 is dropped; other kept codes stay', () => {
    const upc = { codeId: 'UPC_GTIN_12', codeValue: '012345678905' };
    expect(
      desiredCodes(
        [upc],
        [
          { codeId: 'EAN_GTIN_13', codeValue: '012345678905' },
          { codeId: 'ERP_ID', codeValue: '012345678905' },
          upc,
        ],
      ),
    ).toEqual([{ codeId: 'ERP_ID', codeValue: '012345678905' }, upc]);
    // A real EAN-13 of another value is kept beside the UPC.
    expect(desiredCodes([upc], [{ codeId: 'EAN_GTIN_13', codeValue: '7351234100998' }])).toEqual([
      { codeId: 'EAN_GTIN_13', codeValue: '7351234100998' },
      upc,
    ]);
  });

  // Spec 01, PUT rule 1: "`codes` is replaced wholesale". A `byDigits` column gives a barcode whose type follows its
  // length: the cell is the product's barcode, so a new one of the other length replaces the old, not joins it.
  it('"`codes` is replaced wholesale": a byDigits barcode changed from a 13-digit EAN to a 12-digit UPC (or back) replaces the old one; a blank cell keeps it; other types stay', async () => {
    const barcode = profile({
      name: 'barcode',
      layout: 'native',
      parentExternalId: 'parent',
      mapping: {
        externalId: 'id',
        fields: {},
        codes: [{ byDigits: { '12': 'UPC_GTIN_12', '13': 'EAN_GTIN_13' }, source: 'Barcode' }],
      },
    });
    const skuHolding = (codes: Array<{ codeId: string; codeValue: string }>) =>
      parseExistingProducts([
        { id: 's1', externalId: 'S1', name: 'S', codes: [], styleTypeId: 'st_tshirt', isComponent: false },
        { id: 'v1', externalId: 'V1', styleId: 's1', name: 'V', color: 'Red', codes: [] },
        { id: 'k1', externalId: 'K1', variantId: 'v1', styleId: 's1', name: 'K', dimension: 'M', codes },
      ]);
    const planWith = async (cell: string | null, existing: ExistingProduct[]) =>
      planImport(
        await mapAndValidate(
          barcode,
          ['id', 'parent', 'Barcode'],
          [['K1', 'V1', cell]],
          new CatalogueIndex(existing).levels(),
        ),
        existing,
      );
    const erp = { codeId: 'ERP_ID', codeValue: 'E1' };
    const ean = { codeId: 'EAN_GTIN_13', codeValue: '4006381333931' };
    const upc = { codeId: 'UPC_GTIN_12', codeValue: '036000291452' };

    const toUpc = await planWith(upc.codeValue, skuHolding([erp, ean]));
    expect(toUpc.writes).toEqual([
      expect.objectContaining({ externalId: 'K1', body: { codes: [erp, upc] } }),
    ]);
    const toEan = await planWith(ean.codeValue, skuHolding([upc, erp]));
    expect(toEan.writes).toEqual([
      expect.objectContaining({ externalId: 'K1', body: { codes: [erp, ean] } }),
    ]);
    // Blank cells never clear anything.
    const blank = await planWith(null, skuHolding([erp, ean]));
    expect(blank.writes).toEqual([]);
    expect(blank.unchanged.map((step) => step.externalId)).toEqual(['K1']);
    // Unchanged: nothing sent.
    expect((await planWith(ean.codeValue, skuHolding([ean, erp]))).writes).toEqual([]);
  });

  it('refuses changes the API cannot make and rejects the children too', async () => {
    const existing = parseExistingProducts([
      {
        id: 's1',
        externalId: 'S',
        name: 'S',
        codes: [{ codeId: 'PLM_ID', codeValue: 'S' }],
        styleTypeId: 'st_jeans',
        isComponent: true,
      },
      {
        id: 's2',
        externalId: 'S2',
        name: 'S2',
        codes: [{ codeId: 'PLM_ID', codeValue: 'S2' }],
        styleTypeId: 'st_jeans',
        isComponent: false,
      },
      {
        id: 'v9',
        externalId: 'MOVED',
        styleId: 's2',
        name: 'M',
        codes: [{ codeId: 'PLM_ID', codeValue: 'MOVED' }],
        color: 'Red',
      },
      {
        id: 'x1',
        externalId: 'OTHER',
        name: 'O',
        codes: [{ codeId: 'PLM_ID', codeValue: 'TAKEN' }],
        styleTypeId: 'st_jeans',
      },
    ]);
    const result = await mapAndValidate(
      native(),
      nativeHeaders,
      [
        ['S', null, null, 'S', 'Jeans', 'no', null, null, 'S'],
        ['S-V', 'S', null, 'Child', null, null, 'Red', null, 'S-V'],
        ['S3', null, null, 'S3', 'Jeans', 'no', null, null, 'S3'],
        ['MOVED', 'S3', null, 'M', null, null, 'Red', null, 'MOVED'],
        ['NEW', null, null, 'New', 'Jeans', 'no', null, null, 'TAKEN'],
      ],
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(result, existing);
    expect(plan.issues.map((issue) => `${issue.rowNumber} ${issue.code}`)).toEqual([
      '2 immutable_field_changed',
      '3 invalid_parent',
      '5 immutable_field_changed',
      '6 duplicate_code_value',
    ]);
    expect(plan.issues[0]?.message).toBe(
      "row 2, column 'externalId': 'S' is a component in the catalogue and the sheet says it is not; whether a product is a component is fixed once it is created",
    );
    expect(plan.issues[2]?.message).toContain("sits under 'S2' in the catalogue, not 'S3'");
    expect(plan.writes.map((step) => `${step.action} ${step.externalId}`)).toEqual(['create S3']);
  });

  // Spec 01: isComponent is "Fixed after creation"; PUT rule 3: "`parentId` and `isComponent` cannot be changed after
  // creation". The native profile's default (a blank cell = false) is for creating; it is never held against an
  // existing product, and a create carrying it says so (a product the create meets is not refused for it either).
  // Spec 01, PUT rule 3: "`parentId` ... cannot be changed after creation". A small sheet is read by GET only, so the
  // SKU's real parent (not on the sheet) is not in the catalogue read: the move must still be refused, not reported
  // as an update while the SKU stays where it is.
  it('"`parentId` ... cannot be changed after creation": a SKU moved to another variant is refused even when its real parent was not read', async () => {
    const existing = parseExistingProducts([
      { id: 's1', externalId: 'S1', name: 'S', codes: [], styleTypeId: 'st_tshirt', isComponent: false },
      { id: 'v_new', externalId: 'VNEW', styleId: 's1', name: 'V', color: 'Blue', codes: [] },
      // As GET /styles/K1 shows it: under a variant the catalogue read never fetched.
      { id: 'k1', externalId: 'K1', variantId: 'v_old', styleId: 's1', name: 'K', dimension: 'M', codes: [] },
    ]);
    const plan = async (rows: Array<Array<string | null>>) =>
      planImport(
        await mapAndValidate(
          native(),
          ['externalId', 'parentExternalId', 'name', 'color', 'dimension', 'PLM_ID'],
          rows,
          new CatalogueIndex(existing).levels(),
        ),
        existing,
      );
    const toKnown = await plan([['K1', 'VNEW', 'K renamed', null, 'M', null]]);
    expect(toKnown.writes).toEqual([]);
    expect(toKnown.issues.map((issue) => [issue.rowNumber, issue.code])).toEqual([
      [2, 'immutable_field_changed'],
    ]);
    expect(toKnown.issues[0]?.message).toMatch(
      /'K1' sits under another parent in the catalogue \(id v_old\), not 'VNEW'; a product cannot move/,
    );
    // A parent the sheet creates is not the one it sits under either.
    const toNew = await plan([
      ['VNEXT', 'S1', 'V next', 'Green', null, 'VNEXT'],
      ['K1', 'VNEXT', 'K renamed', null, 'M', null],
    ]);
    expect(toNew.writes.map((step) => `${step.action} ${step.externalId}`)).toEqual(['create VNEXT']);
    expect(toNew.issues.map((issue) => [issue.rowNumber, issue.code])).toEqual([
      [3, 'immutable_field_changed'],
    ]);
    // Under its own parent, not read either: an update.
    const stays = parseExistingProducts([
      ...existing.filter((product) => product.id !== 'k1'),
      { id: 'k1', externalId: 'K1', variantId: 'v_new', styleId: 's1', name: 'K', dimension: 'M', codes: [] },
    ]);
    const renamed = planImport(
      await mapAndValidate(
        native(),
        ['externalId', 'parentExternalId', 'name', 'dimension'],
        [['K1', 'VNEW', 'K renamed', 'M']],
        new CatalogueIndex(stays).levels(),
      ),
      stays,
    );
    expect(renamed.writes).toEqual([
      expect.objectContaining({ externalId: 'K1', body: { name: 'K renamed' } }),
    ]);
  });

  it('"`isComponent` cannot be changed after creation": a blank isComponent cell leaves an existing component alone', async () => {
    const existing = parseExistingProducts([
      {
        id: 's1',
        externalId: 'BTN',
        name: 'Button',
        codes: [{ codeId: 'PLM_ID', codeValue: 'BTN' }],
        styleTypeId: 'st_jeans',
        isComponent: true,
      },
    ]);
    const result = await mapAndValidate(
      native(),
      nativeHeaders,
      [
        ['BTN', null, null, 'Corozo button', null, null, null, null, null],
        ['BTN-BRN', 'BTN', null, 'Brown', null, null, 'Brown', null, 'BTN-BRN'],
        ['NEW', null, null, 'New', 'Jeans', null, null, null, 'NEW'],
        ['STATED', null, null, 'Stated', 'Jeans', 'no', null, null, 'STATED'],
      ],
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(result, existing);
    expect(plan.issues).toEqual([]);
    expect(
      plan.writes.map((step) =>
        step.action === 'create'
          ? `create ${step.externalId} ${String(step.body.isComponent)} ${step.isComponentFromMapping ?? '-'}`
          : `update ${step.externalId} ${step.changedFields.join(',')}`,
      ),
    ).toEqual([
      'update BTN name',
      'create NEW false true',
      'create STATED false -',
      'create BTN-BRN undefined -',
    ]);
  });

  it('compares semantically: code order, spacing, list order and number formats do not count as changes', async () => {
    const existing = parseExistingProducts([
      {
        id: 's1',
        externalId: 'S',
        name: 'Tee ',
        codes: [
          { codeId: 'OTHER_ID1', codeValue: 'X' },
          { codeId: 'PLM_ID', codeValue: 'S' },
        ],
        styleTypeId: 'st_tshirt',
        isComponent: false,
        brands: ['br_south', 'br_north'],
        weight: { unit: 'GRAM', value: 1250.5 },
      },
    ]);
    const result = await mapAndValidate(
      native(),
      [...nativeHeaders, 'OTHER_ID1', 'brands', 'weight', 'weightUnit'],
      [
        [
          'S',
          null,
          null,
          'Tee',
          'T-Shirt',
          'false',
          null,
          null,
          'S',
          'X',
          'Northwind;Southwind',
          '1,250.5',
          'gram',
        ],
      ],
      new CatalogueIndex(existing).levels(),
    );
    expect(planImport(result, existing).counts).toEqual({
      create: 0,
      update: 0,
      unchanged: 1,
      invalid: 0,
      archived: 0,
    });
  });

  // Spec 01: archiving "Always cascades to all variants and SKUs"; unarchiving a variant with shouldUnarchiveChildren
  // false leaves its style archived. A new SKU under it would be live in an archived family.
  it('rejects a new SKU whose style (not on the sheet) is archived with archived_product naming it, and with unarchive unarchives the style first', async () => {
    const existing = parseExistingProducts(
      classicTeeBlackInCatalogue().map((item) => (item.id === 's1' ? { ...item, isArchived: true } : item)),
    );
    const validated = await mapAndValidate(
      native(),
      nativeHeaders,
      [['1001-BLK-S', '1001-BLK', null, 'Classic Tee Black S', null, null, null, 'S', '1001-BLK-S']],
      new CatalogueIndex(existing).levels(),
    );
    const refused = planImport(validated, existing);
    expect(refused.writes).toEqual([]);
    expect(refused.issues.map((issue) => [issue.rowNumber, issue.column, issue.code])).toEqual([
      [2, 'parentExternalId', 'archived_product'],
    ]);
    expect(refused.issues[0]?.message).toContain("'1001-BLK-S' would be created under '1001', archived");

    const unarchived = planImport(validated, existing, { unarchive: true });
    expect(unarchived.issues).toEqual([]);
    expect(unarchived.writes.map((step) => [step.action, step.externalId, step.rowNumbers])).toEqual([
      ['update', '1001', [2]],
      ['create', '1001-BLK-S', [2]],
    ]);
    expect(unarchived.writes[0]).toMatchObject({ id: 's1', unarchive: true, body: {} });

    // A SKU refused for another reason unarchives nothing.
    const clash = parseExistingProducts([
      ...classicTeeBlackInCatalogue().map((item) =>
        item.id === 's1' ? { ...item, isArchived: true } : item,
      ),
      { id: 's2', externalId: '2002', name: 'Other', codes: [{ codeId: 'PLM_ID', codeValue: '1001-BLK-S' }] },
    ]);
    const refusedAnyway = planImport(validated, clash, { unarchive: true });
    expect(refusedAnyway.writes).toEqual([]);
    expect(refusedAnyway.issues.map((issue) => issue.code)).toEqual(['duplicate_code_value']);
  });

  // A sheet may hold 1,000,000 rows. Each row of an archived product gets its issue (a spread of them into one push
  // overflowed the stack), and the rows of new SKUs under one archived variant gather on its unarchive step in time
  // linear in their number (rebuilt per SKU, 20,000 took 17 s).
  it('plans an archived style over 200,000 rows, and 20,000 new SKUs under one archived variant, row by row', () => {
    const draft = (
      externalId: string,
      level: ProductLevel,
      parentExternalId: string | null,
      rowNumbers: number[],
    ): ValidDraft => ({
      externalId,
      level,
      parentExternalId,
      rowNumbers,
      fields: { name: externalId },
      origins: {},
      externalIdColumn: 'externalId',
      parentColumn: parentExternalId === null ? null : 'parentExternalId',
      referenceOnly: false,
    });
    const sheet = (valid: ValidDraft[]): ValidatedSheet => ({
      valid,
      invalid: [],
      issues: [],
      rowCount: valid.reduce((sum, item) => sum + item.rowNumbers.length, 0),
      warnings: [],
    });
    const rows = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 2);
    const catalogue = parseExistingProducts([
      { id: 's1', externalId: 'S1', level: 'style', name: 'Knit', isArchived: true },
      { id: 'v1', externalId: 'V1', level: 'variant', styleId: 's1', name: 'Knit grey', isArchived: true },
    ]);

    const refused = planImport(sheet([draft('S1', 'style', null, rows(200_000))]), catalogue);
    expect(refused.counts.archived).toBe(1);
    expect(refused.issues).toHaveLength(200_000);
    expect(refused.issues[199_999]).toMatchObject({ rowNumber: 200_001, code: 'archived_product' });

    const skus = rows(20_000).map((rowNumber) => draft(`K${rowNumber}`, 'sku', 'V1', [rowNumber]));
    const unarchived = planImport(sheet(skus), catalogue, { unarchive: true });
    expect(unarchived.counts).toMatchObject({ create: 20_000, update: 2, invalid: 0 });
    const unarchiveSteps = unarchived.writes.filter((step) => step.action === 'update');
    expect(unarchiveSteps.map((step) => [step.externalId, step.rowNumbers.length])).toEqual([
      ['S1', 20_000],
      ['V1', 20_000],
    ]);
    expect(unarchiveSteps[1]?.rowNumbers).toEqual(rows(20_000));
  });

  // Spec 01: archiving "Always cascades to all variants and SKUs"; unarchiving with shouldUnarchiveChildren false leaves
  // the parents as they are, so an archived SKU unarchived alone would be live under an archived variant and style.
  it('with unarchive, an archived SKU the sheet names is unarchived after its archived variant and style (not on the sheet)', async () => {
    const existing = parseExistingProducts(
      [
        ...classicTeeBlackInCatalogue(),
        {
          id: 'k1',
          externalId: '1001-BLK-M',
          variantId: 'v1',
          styleId: 's1',
          name: 'Classic Tee Black M',
          dimension: 'M',
          codes: [{ codeId: 'PLM_ID', codeValue: '1001-BLK-M' }],
        },
      ].map((item) => ({ ...item, isArchived: true })),
    );
    const validated = await mapAndValidate(
      native(),
      nativeHeaders,
      [['1001-BLK-M', '1001-BLK', null, 'Classic Tee Black M v2', null, null, null, 'M', '1001-BLK-M']],
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(validated, existing, { unarchive: true });
    expect(plan.issues).toEqual([]);
    expect(plan.writes.map((step) => [step.action, step.externalId, step.rowNumbers])).toEqual([
      ['update', '1001', [2]],
      ['update', '1001-BLK', [2]],
      ['update', '1001-BLK-M', [2]],
    ]);
    expect(plan.writes.every((step) => step.action === 'update' && step.unarchive === true)).toBe(true);
  });

  // A flat row's variant exists for its SKU: when the SKU is refused, the variant the row names is still created (a
  // product of its own), with no SKU from this row. The reject says so, so the operator knows what the run left.
  it('a flat SKU refused immutable_field_changed says that its new colour variant is still created without it', async () => {
    const existing = parseExistingProducts([
      ...classicTeeBlackInCatalogue(),
      {
        id: 'k1',
        externalId: '1001-BLK-S',
        variantId: 'v1',
        styleId: 's1',
        name: 'Classic Tee Black S',
        dimension: 'S',
        codes: [{ codeId: 'PLM_ID', codeValue: '1001-BLK-S' }],
      },
    ]);
    const headers = ['Style Number', 'Style Name', 'Style Type', 'Colour Code', 'Colour', 'Size', 'SKU'];
    const plan = planImport(
      await mapAndValidate(
        flat(),
        headers,
        [['1001', 'Classic Tee', 'T-Shirt', 'RED', 'Red', 'S', '1001-BLK-S']],
        new CatalogueIndex(existing).levels(),
      ),
      existing,
    );
    expect(plan.writes.map((step) => `${step.action} ${step.externalId}`)).toEqual(['create 1001-RED']);
    expect(plan.issues.map((issue) => [issue.rowNumber, issue.code])).toEqual([
      [2, 'immutable_field_changed'],
    ]);
    expect(plan.issues[0]?.message).toMatch(
      /'1001-BLK-S' sits under '1001-BLK' in the catalogue, not '1001-RED'; .*; its new parent '1001-RED' is still created, without '1001-BLK-S'$/,
    );
  });

  // Spec 01: code values are unique per type, checked on every write. A barcode one sheet row gives up (its codes are
  // replaced wholesale) and another takes is free once the first PUT lands: the taker is written in a later batch. A
  // swap is broken by writing one product first without the code it takes, when it keeps another code meanwhile.
  it('a barcode moved from one sheet product to another is written giver first, taker in a later batch; a swap first writes one product without the code it takes, then the other, then the first in full', async () => {
    const planWith = (products: unknown[]) => {
      const existing = parseExistingProducts([...classicTeeBlackInCatalogue(), ...products]);
      return async (rows: Array<[string, string]>) =>
        planImport(
          await mapAndValidate(
            native(),
            ['externalId', 'parentExternalId', 'EAN_GTIN_13'],
            rows.map(([id, ean]) => [id, '1001-BLK', ean]),
            new CatalogueIndex(existing).levels(),
          ),
          existing,
        );
    };
    const plan = planWith([
      classicTeeBlackSku('K1', '4006381333931', 'P-K1'),
      classicTeeBlackSku('K2', '4006381333948'),
    ]);
    const moved = await plan([
      ['K2', '4006381333931'], // takes K1's
      ['K1', '5012345678900'], // gives it up
    ]);
    expect(moved.issues).toEqual([]);
    expect(moved.writes.map((step) => [step.externalId, step.wave ?? 0])).toEqual([
      ['K1', 0],
      ['K2', 1],
    ]);

    const swapped = await plan([
      ['K2', '4006381333931'],
      ['K1', '4006381333948'],
    ]);
    expect(swapped.issues).toEqual([]);
    expect(swapped.counts).toMatchObject({ update: 2, invalid: 0 });
    const ean = (value: string) => ({ codeId: 'EAN_GTIN_13', codeValue: value });
    const plmId = { codeId: 'PLM_ID', codeValue: 'P-K1' };
    // K2 comes first in the sheet but keeps no other code: K1 (its PLM_ID kept) goes first.
    expect(
      swapped.writes.map((step) => [
        step.externalId,
        step.wave ?? 0,
        step.action === 'update' && step.release === true,
        step.body.codes,
      ]),
    ).toEqual([
      ['K1', 0, true, [plmId]],
      ['K2', 1, false, [ean('4006381333931')]],
      ['K1', 2, false, [plmId, ean('4006381333948')]],
    ]);

    // Neither keeps another code: a product takes no write without one, so no order frees either first.
    const bare = await planWith([
      classicTeeBlackSku('K1', '4006381333931'),
      classicTeeBlackSku('K2', '4006381333948'),
    ])([
      ['K1', '4006381333948'],
      ['K2', '4006381333931'],
    ]);
    expect(bare.writes).toEqual([]);
    expect(bare.issues.map((issue) => [issue.rowNumber, issue.code])).toEqual([
      [2, 'duplicate_code_value'],
      [3, 'duplicate_code_value'],
    ]);
    expect(bare.issues[0]?.message).toMatch(
      /EAN_GTIN_13 '4006381333948' belongs to catalogue product 'K2', which gives it up in this run but takes one of this product's \(a swap\).*none keeps another code.*add one \(a PLM_ID, say\) to one of the rows/,
    );
  });

  // An archived giver the run does not unarchive is never written (its row rejected archived_product), so it keeps
  // the code: its taker is rejected code_giver_rejected naming the giver's row, as for any giver the plan rejects.
  it('a taker of a code from an archived giver (no --unarchive) is rejected code_giver_rejected naming the giver row; with unarchive both are written, giver first', async () => {
    const existing = parseExistingProducts([
      ...classicTeeBlackInCatalogue(),
      {
        id: 'k_K1',
        externalId: 'K1',
        variantId: 'v1',
        styleId: 's1',
        name: 'K1',
        dimension: 'M',
        isArchived: true,
        codes: [{ codeId: 'EAN_GTIN_13', codeValue: '4006381333931' }],
      },
      {
        id: 'k_K2',
        externalId: 'K2',
        variantId: 'v1',
        styleId: 's1',
        name: 'K2',
        dimension: 'L',
        codes: [{ codeId: 'EAN_GTIN_13', codeValue: '4006381333948' }],
      },
    ]);
    const validated = await mapAndValidate(
      native(),
      ['externalId', 'parentExternalId', 'EAN_GTIN_13'],
      [
        ['K1', '1001-BLK', '5012345678900'], // gives its EAN up
        ['K2', '1001-BLK', '4006381333931'], // takes it
      ],
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(validated, existing);
    expect(plan.writes).toEqual([]);
    expect(plan.issues.map((issue) => `${issue.rowNumber} ${issue.externalId ?? ''} ${issue.code}`)).toEqual([
      '2 K1 archived_product',
      '3 K2 code_giver_rejected',
    ]);
    expect(plan.issues[1]?.message).toBe(
      "row 3, column 'EAN_GTIN_13': 'K2' takes EAN_GTIN_13 '4006381333931' from row 2 ('K1'), which the plan rejects (archived_product); fix row 2 first, then import both again: 'K2' is not written and keeps its codes",
    );

    const unarchived = planImport(validated, existing, { unarchive: true });
    expect(unarchived.issues).toEqual([]);
    expect(unarchived.writes.map((step) => [step.action, step.externalId, step.wave ?? 0])).toEqual([
      ['update', 'K1', 0],
      ['update', 'K2', 1],
    ]);
  });

  it('treats a flat parent named only by its key as a reference that must exist', async () => {
    const existing = parseExistingProducts(classicTeeBlackInCatalogue());
    const builtin = flat();
    if (builtin.layout !== 'flat') throw new Error('flat profile expected');
    const named: MappingProfile = {
      ...builtin,
      sku: { ...builtin.sku, fields: { ...builtin.sku.fields, name: { column: 'Product Name' } } },
    };
    const headers = [
      'Style Number',
      'Style Name',
      'Style Type',
      'Colour Code',
      'Colour',
      'Size',
      'SKU',
      'EAN',
      'Product Name',
    ];
    const rows = [
      ['1001', null, null, 'BLK', null, 'XL', '1001-BLK-XL', '4006381334999', 'Classic Tee Black XL'],
    ];
    const known = await mapAndValidate(named, headers, rows, new CatalogueIndex(existing).levels());
    const plan = planImport(known, existing);
    expect(plan.writes.map((step) => `${step.action} ${step.externalId}`)).toEqual(['create 1001-BLK-XL']);
    expect(plan.unchanged.map((step) => step.externalId)).toEqual(['1001', '1001-BLK']);
    const unknown = await mapAndValidate(named, headers, rows);
    expect(unknown.issues.map((issue) => `${issue.rowNumber} ${issue.column} ${issue.code}`)).toContain(
      '2 Style Name missing_required',
    );
  });

  // Spec 01: externalId is "unique per company across all three levels", compared as given: 'ss26-tee-01' beside the
  // catalogue's 'SS26-TEE-01' would be a second style, which a re-cased PLM export never means.
  it('refuses a new product whose key differs only in case from a catalogue product of its level, naming it (archived too); another level is another product', async () => {
    const existing = parseExistingProducts([
      { id: 's1', externalId: 'SS26-TEE-01', name: 'Tee', codes: [{ codeId: 'PLM_ID', codeValue: 'S1' }] },
      {
        id: 's2',
        externalId: 'SS26-OLD',
        name: 'Old',
        codes: [{ codeId: 'PLM_ID', codeValue: 'S2' }],
        isArchived: true,
      },
      {
        id: 'v1',
        externalId: 'SS26-TEE-01-BLK',
        styleId: 's1',
        name: 'Black',
        codes: [{ codeId: 'PLM_ID', codeValue: 'V1' }],
        color: 'Black',
      },
    ]);
    const result = await mapAndValidate(
      native(),
      nativeHeaders,
      [
        ['ss26-tee-01', null, null, 'Tee', 'Jeans', 'no', null, null, 'N1'],
        ['ss26-tee-01-RED', 'ss26-tee-01', null, 'Red', null, null, 'Red', null, 'N2'],
        ['Ss26-Old', null, null, 'Old', 'Jeans', 'no', null, null, 'N3'],
        ['ss26-tee-01-blk', null, null, 'A style', 'Jeans', 'no', null, null, 'N4'],
      ],
      new CatalogueIndex(existing).levels(),
    );
    const plan = planImport(result, existing);
    expect(plan.issues.map((issue) => `${issue.rowNumber} ${issue.code} ${issue.meantKey ?? '-'}`)).toEqual([
      '2 duplicate_external_id SS26-TEE-01',
      '3 invalid_parent -',
      '4 duplicate_external_id SS26-OLD',
    ]);
    expect(plan.issues[0]?.message).toBe(
      "row 2, column 'externalId': style key 'ss26-tee-01' differs only in case from the catalogue's style 'SS26-TEE-01' (id s1); the API tells keys apart by case, so this would create another style: write it as 'SS26-TEE-01'",
    );
    expect(plan.issues[2]?.message).toContain("the catalogue's style 'SS26-OLD' (id s2, archived)");
    expect(plan.writes.map((step) => `${step.action} ${step.externalId}`)).toEqual([
      'create ss26-tee-01-blk',
    ]);
  });

  it('validates existing products at the boundary', () => {
    expect(() => parseExistingProducts([{ id: 'x', name: 'n', codes: 'nope' }])).toThrow(
      /existing product #0: codes/,
    );
  });
});

describe('a child whose overriddenFlag is null', () => {
  // Spec 01: "overriddenFlag | array of string or null | Variant and SKU: names of fields the child overrides", and
  // inheritable fields "take the parent's value whenever the child's own value is null": null names no field, so a
  // resolved description is the parent's, and the sheet's value (even equal to it) is the child's own to write.
  it.each([[[]], [null]])(
    "overriddenFlag %j: the parent's resolved description is not the child's own, so the sheet's is written",
    (overriddenFlag) => {
      const [current] = parseExistingProducts([
        {
          id: 'variant_1',
          externalId: 'V1',
          styleId: 'style_1',
          name: 'V',
          codes: [{ codeId: 'PLM_ID', codeValue: 'V1' }],
          color: 'Red',
          description: 'Parent text (inherited)',
          overriddenFlag,
        },
      ]);
      if (!current) throw new Error('parsed');
      expect(current.description).toBeNull();
      const { changed } = updateBody(
        { description: 'Parent text (inherited)', codes: [{ codeId: 'PLM_ID', codeValue: 'V1' }] },
        current,
      );
      expect(changed).toEqual(['description']);
    },
  );
});
