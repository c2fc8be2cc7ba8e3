import { sandboxClient, type SandboxClient, type SandboxResponse } from '../../sandbox/core/http-client';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import { OTHER_BRAND_COMPANY_ID, SUPPLIER_COMPANY_ID } from '../../sandbox/seed/demo-network';

type Product = Record<string, unknown> & { id: string };

let sandbox: RunningSandbox;
let brand: SandboxClient;
let supplier: SandboxClient;
let other: SandboxClient;
let serial = 0;

const unique = (prefix: string): string => `${prefix}-${process.pid}-${++serial}`;
const data = (response: SandboxResponse): Product => response.body.data as Product;
const items = (response: SandboxResponse): Product[] => response.body.data as Product[];

function styleBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: unique('Style'),
    codes: [{ codeId: 'PLM_ID', codeValue: unique('PLM') }],
    styleTypeId: 'st_tshirts',
    isComponent: false,
    ...overrides,
  };
}

async function create(body: Record<string, unknown>, client = brand): Promise<Product> {
  const response = await client.post('/styles', body);
  if (response.status !== 201)
    throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return data(response);
}

/** A style with one variant and one SKU, each with its own externalId. */
async function family(styleOverrides: Record<string, unknown> = {}) {
  const style = await create(styleBody({ externalId: unique('ext-style'), ...styleOverrides }));
  const variant = await create({
    parentId: style['externalId'],
    name: unique('Variant'),
    color: 'Red',
    externalId: unique('ext-variant'),
    codes: [{ codeId: 'PLM_ID', codeValue: unique('PLM') }],
  });
  const sku = await create({
    parentId: variant.id,
    name: unique('Sku'),
    dimension: 'M',
    externalId: unique('ext-sku'),
    codes: [{ codeId: 'EAN_GTIN_13', codeValue: unique('EAN') }],
  });
  return { style, variant, sku };
}

function expectError(response: SandboxResponse, statusCode: number, code: string): void {
  expect({ status: response.status, statusCode: response.body.statusCode, code: response.body.code }).toEqual(
    {
      status: statusCode,
      statusCode,
      code,
    },
  );
  expect(response.body.metadata.success).toBe(false);
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100_000, qrDelayMs: 150, childLinkDelayMs: 0 });
  brand = sandboxClient(sandbox.baseUrl, 'sandbox-key-brand');
  supplier = sandboxClient(sandbox.baseUrl, 'sandbox-key-supplier');
  other = sandboxClient(sandbox.baseUrl, 'sandbox-key-other-brand');
});

afterAll(async () => {
  await sandbox.close();
});

describe('level detection and required fields (POST /styles)', () => {
  it('rule: no parentId creates a style with a style_ id', async () => {
    const response = await brand.post('/styles', styleBody());
    expect(response.status).toBe(201);
    expect(data(response).id).toMatch(/^style_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(data(response).styleId).toBeNull();
  });

  it("rule: a style's externalId as parentId creates a variant; a variant id creates a SKU", async () => {
    const { style, variant, sku } = await family();
    expect(variant.id).toMatch(/^variant_/);
    expect(variant.styleId).toBe(style.id);
    expect(sku.id).toMatch(/^sku_/);
    expect(sku.variantId).toBe(variant.id);
    expect(sku.styleId).toBe(style.id);
  });

  it('rule: a SKU as parentId is 400 invalid_parent_level', async () => {
    const { sku } = await family();
    const response = await brand.post('/styles', {
      parentId: sku.id,
      name: 'x',
      dimension: 'S',
      codes: [{ codeId: 'PLM_ID', codeValue: unique('c') }],
    });
    expectError(response, 400, 'invalid_parent_level');
  });

  it('rule: an unknown parentId is 404 parent_not_found', async () => {
    const response = await brand.post('/styles', {
      parentId: 'style_nope',
      name: 'x',
      color: 'Red',
      codes: [{ codeId: 'PLM_ID', codeValue: unique('c') }],
    });
    expectError(response, 404, 'parent_not_found');
  });

  it('rule: a style without styleTypeId is 400 missing_style_type_id', async () => {
    const { styleTypeId: _omit, ...body } = styleBody();
    expectError(await brand.post('/styles', body), 400, 'missing_style_type_id');
  });

  it('rule: a style without isComponent is 400 missing_is_component', async () => {
    const { isComponent: _omit, ...body } = styleBody();
    expectError(await brand.post('/styles', body), 400, 'missing_is_component');
  });

  it('rule: a variant needs color and a SKU needs dimension (400)', async () => {
    const { style, variant } = await family();
    for (const [parentId, missing] of [
      [style.id, 'color'],
      [variant.id, 'dimension'],
    ]) {
      const codes = [{ codeId: 'PLM_ID', codeValue: unique('c') }];
      const response = await brand.post('/styles', { parentId, name: 'child', codes });
      expectError(response, 400, 'validation_error');
      expect(response.body.message).toContain(missing);
    }
  });

  it('rule: name, codes and field limits are validated with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [styleBody({ name: 'n'.repeat(256) }), 'name'],
      [styleBody({ name: '' }), 'name'],
      [styleBody({ codes: [] }), 'codes'],
      [styleBody({ description: 'd'.repeat(4001) }), 'description'],
      [styleBody({ gender: 'g'.repeat(51) }), 'gender'],
      [styleBody({ codes: [{ codeId: 'PLM_ID', codeValue: '' }] }), 'codes.0.codeValue'],
      [styleBody({ unexpected: true }), 'unexpected'],
      [styleBody({ weight: { unit: 'BANANA', value: 3 } }), 'weight.unit'],
      [styleBody({ customProperties: '{not json' }), 'customProperties'],
    ];
    for (const [body, field] of cases) {
      const response = await brand.post('/styles', body);
      expectError(response, 400, 'validation_error');
      expect(response.body.message).toContain(field);
    }
    expect(
      (
        await brand.post(
          '/styles',
          styleBody({ description: 'd'.repeat(4000), gender: 'g'.repeat(50), name: 'n'.repeat(255) }),
        )
      ).status,
    ).toBe(201);
  });

  // Spec 01, Limits: "name | up to 255 characters": characters (code points), not UTF-16 code units.
  it('rule: the text limits count characters, so an emoji counts once', async () => {
    const style = await create(
      styleBody({ name: '🧵'.repeat(255), description: '𠀋'.repeat(4000), gender: '👕'.repeat(50) }),
    );
    expect([...String(style['name'])].length).toBe(255);
    const variant = await create({
      parentId: style.id,
      name: 'v',
      color: '🟥'.repeat(255),
      codes: [{ codeId: 'PLM_ID', codeValue: unique('c') }],
    });
    await create({
      parentId: variant.id,
      name: 's',
      dimension: '🟦'.repeat(255),
      codes: [{ codeId: 'PLM_ID', codeValue: unique('c') }],
    });
    const over = await brand.post('/styles', styleBody({ name: '🧵'.repeat(256) }));
    expectError(over, 400, 'validation_error');
    expect(over.body.message).toContain('name');
    expectError(await brand.put(`/styles/${style.id}`, { gender: '👕'.repeat(51) }), 400, 'validation_error');
  });

  it('rule: a color or dimension over 255 characters is 400', async () => {
    const { style, variant } = await family();
    const code = () => [{ codeId: 'PLM_ID', codeValue: unique('c') }];
    expectError(
      await brand.post('/styles', { parentId: style.id, name: 'v', color: 'c'.repeat(256), codes: code() }),
      400,
      'validation_error',
    );
    expectError(
      await brand.post('/styles', {
        parentId: variant.id,
        name: 's',
        dimension: 'd'.repeat(256),
        codes: code(),
      }),
      400,
      'validation_error',
    );
  });

  it('rule: unknown styleTypeId, property ids and company ids are 400', async () => {
    expectError(
      await brand.post('/styles', styleBody({ styleTypeId: 'st_unknown' })),
      400,
      'validation_error',
    );
    expectError(await brand.post('/styles', styleBody({ brands: ['prop_nope'] })), 400, 'validation_error');
    // A season id sent as a brand: right id, wrong kind.
    expectError(
      await brand.post('/styles', styleBody({ brands: ['prop_season_ss25'] })),
      400,
      'validation_error',
    );
    expectError(
      await brand.post('/styles', styleBody({ suppliers: ['cmp_unknown'] })),
      400,
      'validation_error',
    );
    expectError(
      await brand.post('/styles', styleBody({ mainSupplier: OTHER_BRAND_COMPANY_ID })),
      400,
      'validation_error',
    );
    // Another account's style type is not the caller's.
    expectError(
      await brand.post('/styles', styleBody({ styleTypeId: 'st_other_bags' })),
      400,
      'validation_error',
    );
  });

  it('rule: forCompanyId creates on behalf of a company in the network, and no other', async () => {
    const created = await create(styleBody({ forCompanyId: SUPPLIER_COMPANY_ID }));
    expect(created.forCompanyId).toBe(SUPPLIER_COMPANY_ID);
    expect((await supplier.get(`/styles/${created.id}`)).status).toBe(200);
    const forMe = items(await supplier.get('/styles?createdForMe=true&limit=100'));
    expect(forMe.map((product) => product.id)).toContain(created.id);
    expectError(
      await brand.post('/styles', styleBody({ forCompanyId: OTHER_BRAND_COMPANY_ID })),
      400,
      'validation_error',
    );
  });

  it('rule: audit fields and timestamps are set by the server from the key', async () => {
    const before = Date.now();
    const created = await create(styleBody());
    expect(created).toMatchObject({
      createdByApiKeyId: 'apikey_brand',
      createdByCompanyId: 'cmp_brand_nordic_threads',
      createdByApiKeyLabel: 'Nordic Threads integration',
      createdByUserId: null,
    });
    expect(Date.parse(created['createdAt'] as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(created['updatedAt']).toBe(created['createdAt']);
  });

  it('rule: every create emits productCreated for the other domains', async () => {
    const seen: Array<{ productId: string; parentId: string | null }> = [];
    const listener = (event: { productId: string; parentId: string | null }) => seen.push(event);
    sandbox.ctx.events.on('productCreated', listener);
    const { style, variant } = await family();
    sandbox.ctx.events.off('productCreated', listener);
    expect(seen).toContainEqual(expect.objectContaining({ productId: variant.id, parentId: style.id }));
  });
});

describe('codes', () => {
  it('rule: a bare OTHER_ID code is 400 invalid_code_ids', async () => {
    expectError(
      await brand.post('/styles', styleBody({ codes: [{ codeId: 'OTHER_ID', codeValue: unique('o') }] })),
      400,
      'invalid_code_ids',
    );
    expectError(
      await brand.post(
        '/styles',
        styleBody({ codes: [{ codeId: 'ALTERNATIVE_SUPPLIERS_ID', codeValue: unique('o') }] }),
      ),
      400,
      'invalid_code_ids',
    );
  });

  it('rule: an unknown code type is 400 invalid_code_ids', async () => {
    expectError(
      await brand.post('/styles', styleBody({ codes: [{ codeId: 'SAP_ID', codeValue: unique('o') }] })),
      400,
      'invalid_code_ids',
    );
  });

  it('rule: suffixed multi-use types may repeat with different suffixes; single-use types appear once', async () => {
    const ok = await brand.post(
      '/styles',
      styleBody({
        codes: [
          { codeId: 'OTHER_ID1', codeValue: unique('a') },
          { codeId: 'OTHER_ID2', codeValue: unique('b') },
          { codeId: 'ALTERNATIVE_SUPPLIERS_ID1', codeValue: unique('c') },
        ],
      }),
    );
    expect(ok.status).toBe(201);
    const twice = await brand.post(
      '/styles',
      styleBody({
        codes: [
          { codeId: 'ERP_ID', codeValue: unique('a') },
          { codeId: 'ERP_ID', codeValue: unique('b') },
        ],
      }),
    );
    expectError(twice, 400, 'invalid_code_ids');
  });

  it('rule: a code value already used under the same type in the catalogue is 400 codes_not_unique', async () => {
    const value = unique('shared');
    await create(styleBody({ codes: [{ codeId: 'ERP_ID', codeValue: value }] }));
    expectError(
      await brand.post('/styles', styleBody({ codes: [{ codeId: 'ERP_ID', codeValue: value }] })),
      400,
      'codes_not_unique',
    );
    // The same value under another type, or in another company's catalogue, is fine.
    expect(
      (await brand.post('/styles', styleBody({ codes: [{ codeId: 'PIM_ID', codeValue: value }] }))).status,
    ).toBe(201);
    expect(
      (
        await other.post(
          '/styles',
          styleBody({ styleTypeId: 'st_other_bags', codes: [{ codeId: 'ERP_ID', codeValue: value }] }),
        )
      ).status,
    ).toBe(201);
  });
});

describe('externalId', () => {
  it('rule: externalId is unique per company across all levels (409 external_id_already_exists)', async () => {
    const { variant } = await family();
    const response = await brand.post('/styles', styleBody({ externalId: variant['externalId'] }));
    expectError(response, 409, 'external_id_already_exists');
    // Another company may use the same value.
    expect(
      (
        await other.post(
          '/styles',
          styleBody({ styleTypeId: 'st_other_bags', externalId: variant['externalId'] }),
        )
      ).status,
    ).toBe(201);
  });

  it('rule: externalId works wherever a product id does and responses carry platform ids', async () => {
    const { style, variant, sku } = await family();
    const read = await brand.get(`/styles/${encodeURIComponent(sku['externalId'] as string)}`);
    expect(data(read).id).toBe(sku.id);
    const variants = items(
      await brand.get(`/styles?level=variant&styleId=${encodeURIComponent(style['externalId'] as string)}`),
    );
    expect(variants.map((product) => product.id)).toEqual([variant.id]);
    const skus = items(
      await brand.get(`/styles?level=sku&variantId=${encodeURIComponent(variant['externalId'] as string)}`),
    );
    expect(skus.map((product) => product.id)).toEqual([sku.id]);
  });

  it("rule: externalIds resolve only in the caller's own catalogue", async () => {
    // Both brands hold a product with externalId PLM-TEE-001.
    expect(data(await brand.get('/styles/PLM-TEE-001')).id).toBe(DEMO_IDS.teeStyle);
    expect(data(await other.get('/styles/PLM-TEE-001')).id).toBe(DEMO_IDS.otherTote);
  });

  it('rule: a PUT that omits externalId keeps it; null clears it; a taken value is 409', async () => {
    const { style, variant } = await family();
    const kept = await brand.put(`/styles/${style.id}`, { name: 'renamed' });
    expect(data(kept).externalId).toBe(style['externalId']);
    const taken = await brand.put(`/styles/${style.id}`, { externalId: variant['externalId'] });
    expectError(taken, 409, 'external_id_already_exists');
    const cleared = await brand.put(`/styles/${style.id}`, { externalId: null });
    expect(data(cleared).externalId).toBeNull();
    expect((await brand.get(`/styles/${encodeURIComponent(style['externalId'] as string)}`)).status).toBe(
      404,
    );
  });
});

describe('inheritance', () => {
  it('rule: a child with no own value shows its parent value, resolved at read time', async () => {
    const onStyle = {
      description: 'from style',
      gender: 'Women',
      brands: ['prop_brand_nordic'],
      weight: { unit: 'GRAM', value: 200 },
      suppliers: [SUPPLIER_COMPANY_ID],
      mainSupplier: SUPPLIER_COMPANY_ID,
      claimIntentions: ['RECYCLED'],
    };
    const { style, variant, sku } = await family(onStyle);
    const shown = data(await brand.get(`/styles/${sku.id}`));
    expect(shown).toMatchObject({ ...onStyle, isWeightAvailable: true, overriddenFlag: [] });
    await brand.put(`/styles/${style.id}`, { description: 'edited on style' });
    expect(data(await brand.get(`/styles/${variant.id}`)).description).toBe('edited on style');
  });

  it('rule: an own value overrides and is named in overriddenFlag; PUT null re-enables inheritance', async () => {
    const { variant, sku } = await family({ gender: 'Women', departments: ['prop_dept_women'] });
    const overridden = data(
      await brand.put(`/styles/${variant.id}`, { gender: 'Men', departments: ['prop_dept_men'] }),
    );
    expect(overridden).toMatchObject({ gender: 'Men', departments: ['prop_dept_men'] });
    expect(overridden['overriddenFlag']).toEqual(expect.arrayContaining(['gender', 'departments']));
    expect(data(await brand.get(`/styles/${sku.id}`)).gender).toBe('Men');
    const reset = data(await brand.put(`/styles/${variant.id}`, { gender: null }));
    expect(reset.gender).toBe('Women');
    expect(reset['departments']).toEqual(['prop_dept_men']);
    expect(reset['overriddenFlag']).toEqual(['departments']);
  });

  it('rule: sending either weight part as null stores no weight, and the child inherits again', async () => {
    const { variant } = await family({ weight: { unit: 'KILOGRAM', value: 1 } });
    const own = data(await brand.put(`/styles/${variant.id}`, { weight: { unit: 'GRAM', value: 5 } }));
    expect(own.weight).toEqual({ unit: 'GRAM', value: 5 });
    const cleared = data(await brand.put(`/styles/${variant.id}`, { weight: { unit: 'GRAM', value: null } }));
    expect(cleared.weight).toEqual({ unit: 'KILOGRAM', value: 1 });
  });
});

describe('PUT /styles/{id}', () => {
  it('rule: codes are replaced wholesale', async () => {
    const style = await create(
      styleBody({
        codes: [
          { codeId: 'PLM_ID', codeValue: unique('a') },
          { codeId: 'ERP_ID', codeValue: unique('b') },
        ],
      }),
    );
    const codes = [{ codeId: 'PIM_ID', codeValue: unique('c') }];
    expect(data(await brand.put(`/styles/${style.id}`, { codes })).codes).toEqual(codes);
    // The dropped values are free again.
    const freed = (style['codes'] as Array<{ codeId: string; codeValue: string }>)[1];
    expect((await brand.post('/styles', styleBody({ codes: [freed] }))).status).toBe(201);
  });

  it('rule: omitted fields are left unchanged; updatedAt and updatedBy move', async () => {
    const style = await create(styleBody({ description: 'keep me', gender: 'Unisex' }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = data(await brand.put(`/styles/${style.id}`, { name: 'new name' }));
    expect(updated).toMatchObject({
      name: 'new name',
      description: 'keep me',
      gender: 'Unisex',
      updatedByApiKeyId: 'apikey_brand',
    });
    expect(Date.parse(updated['updatedAt'] as string)).toBeGreaterThan(
      Date.parse(style['updatedAt'] as string),
    );
  });

  it('rule: parentId and isComponent cannot change (400); sending the current value is accepted', async () => {
    const { style, variant } = await family();
    const other = await create(styleBody());
    expectError(await brand.put(`/styles/${variant.id}`, { parentId: other.id }), 400, 'validation_error');
    expectError(await brand.put(`/styles/${style.id}`, { isComponent: true }), 400, 'validation_error');
    expect(
      (await brand.put(`/styles/${variant.id}`, { parentId: style.id, isComponent: false })).status,
    ).toBe(200);
  });

  it('rule: styleLevelId can be set, to a parentId of the style types only', async () => {
    const style = await create(styleBody());
    expect(style['styleLevelId']).toBe('APPAREL_END_CONSUMER_FINISHED_GOODS');
    expect(
      data(await brand.put(`/styles/${style.id}`, { styleLevelId: 'TRIM_AND_ACCESSORIES' })).styleLevelId,
    ).toBe('TRIM_AND_ACCESSORIES');
    expectError(
      await brand.put(`/styles/${style.id}`, { styleLevelId: 'NOT_A_LEVEL' }),
      400,
      'validation_error',
    );
  });

  it('rule: PUT gives 404 not_found for an unknown id, and invalid_code_ids / codes_not_unique as on create', async () => {
    expectError(await brand.put('/styles/style_missing', { name: 'x' }), 404, 'not_found');
    const first = await create(styleBody());
    const second = await create(styleBody());
    expectError(await brand.put(`/styles/${second.id}`, { codes: first['codes'] }), 400, 'codes_not_unique');
    expectError(
      await brand.put(`/styles/${second.id}`, { codes: [{ codeId: 'OTHER_ID', codeValue: 'x' }] }),
      400,
      'invalid_code_ids',
    );
  });

  it('rule: isStoryActive can only be switched on when tracing data is attached', async () => {
    const plain = await create(styleBody());
    expectError(
      await brand.put(`/styles/${plain.id}`, { isStoryActive: true }),
      400,
      'tracing_data_required',
    );
    // The demo tee has a supply chain attached.
    expect(
      data(await brand.put(`/styles/${DEMO_IDS.teeStyle}`, { isStoryActive: false })).isStoryActive,
    ).toBe(false);
    const reactivated = data(await brand.put(`/styles/${DEMO_IDS.teeStyle}`, { isStoryActive: true }));
    expect(reactivated.isStoryActive).toBe(true);
  });
});

describe('archive and unarchive', () => {
  it('rule: archiving a style cascades to its variants and SKUs; 204 with no body', async () => {
    const { style, variant, sku } = await family();
    const response = await brand.post('/styles/archive', { ids: [style['externalId']] });
    expect(response.status).toBe(204);
    for (const product of [style, variant, sku])
      expect(data(await brand.get(`/styles/${product.id}`)).isArchived).toBe(true);
  });

  it('rule: archiving a variant archives its SKUs but not its style', async () => {
    const { style, variant, sku } = await family();
    await brand.post('/styles/archive', { ids: [variant.id] });
    expect(data(await brand.get(`/styles/${sku.id}`)).isArchived).toBe(true);
    expect(data(await brand.get(`/styles/${style.id}`)).isArchived).toBe(false);
  });

  it('rule: unarchive restores children by default and leaves them archived with shouldUnarchiveChildren false', async () => {
    const one = await family();
    const two = await family();
    await brand.post('/styles/archive', { ids: [one.style.id, two.style.id] });
    await brand.post('/styles/unarchive', { ids: [one.style.id] });
    expect(data(await brand.get(`/styles/${one.sku.id}`)).isArchived).toBe(false);
    expect(
      (await brand.post('/styles/unarchive', { ids: [two.style.id], shouldUnarchiveChildren: false })).status,
    ).toBe(204);
    expect(data(await brand.get(`/styles/${two.style.id}`)).isArchived).toBe(false);
    expect(data(await brand.get(`/styles/${two.variant.id}`)).isArchived).toBe(true);
  });

  it('rule: ids of different levels are 400 mixed_levels', async () => {
    const { style, variant } = await family();
    expectError(await brand.post('/styles/archive', { ids: [style.id, variant.id] }), 400, 'mixed_levels');
    expectError(await brand.post('/styles/unarchive', { ids: [style.id, variant.id] }), 400, 'mixed_levels');
  });

  it('rule: 404 not_found when none of the ids exist; unknown ids next to known ones are skipped', async () => {
    expectError(await brand.post('/styles/archive', { ids: ['style_nope', 'nope-2'] }), 404, 'not_found');
    const { style } = await family();
    expect((await brand.post('/styles/archive', { ids: ['style_nope', style.id] })).status).toBe(204);
  });

  it('rule: at most 100 ids per call', async () => {
    const ids = Array.from({ length: 101 }, (_, index) => `style_${index}`);
    expectError(await brand.post('/styles/archive', { ids }), 400, 'validation_error');
  });

  it('rule: archived products leave the default list; isArchived=true lists only archived ones', async () => {
    const { style } = await family();
    await brand.post('/styles/archive', { ids: [style.id] });
    const byName = `name=${encodeURIComponent(style['name'] as string)}`;
    expect(items(await brand.get(`/styles?${byName}`))).toHaveLength(0);
    const archived = items(await brand.get(`/styles?isArchived=true&limit=100`));
    expect(archived.map((product) => product.id)).toContain(style.id);
    expect(archived.every((product) => product['isArchived'] === true)).toBe(true);
  });
});

describe('GET /styles filters, sort and include', () => {
  it('rule: level selects the list (default style); an unknown level is 400', async () => {
    const { variant } = await family();
    expect(
      items(await brand.get('/styles?limit=100')).every(
        (product) => (product.id as string).startsWith('style_') || !product['styleId'],
      ),
    ).toBe(true);
    expect(items(await brand.get('/styles?level=variant&limit=100')).map((product) => product.id)).toContain(
      variant.id,
    );
    expectError(await brand.get('/styles?level=colour'), 400, 'validation_error');
  });

  it('rule: name is a substring match and nameOrCode a case-insensitive match over name or any code', async () => {
    const marker = unique('Zebra');
    const style = await create(
      styleBody({ name: `The ${marker} Tee`, codes: [{ codeId: 'ERP_ID', codeValue: `ERP-${marker}` }] }),
    );
    expect(items(await brand.get(`/styles?name=${marker}`)).map((product) => product.id)).toEqual([style.id]);
    expect(items(await brand.get(`/styles?name=${marker.toLowerCase()}`))).toHaveLength(0);
    expect(
      items(await brand.get(`/styles?nameOrCode=${`erp-${marker}`.toLowerCase()}`)).map(
        (product) => product.id,
      ),
    ).toEqual([style.id]);
  });

  it('rule: codeId and codeValue filter alone or combined', async () => {
    const value = unique('CV');
    const style = await create(styleBody({ codes: [{ codeId: 'PIM_ID', codeValue: value }] }));
    expect(items(await brand.get(`/styles?codeValue=${value}`)).map((product) => product.id)).toEqual([
      style.id,
    ]);
    expect(
      items(await brand.get(`/styles?codeId=PIM_ID&codeValue=${value}`)).map((product) => product.id),
    ).toEqual([style.id]);
    expect(items(await brand.get(`/styles?codeId=ERP_ID&codeValue=${value}`))).toHaveLength(0);
  });

  it('rule: exact and list filters (styleTypeId, isComponent, brands, gender, mainSupplier, suppliers, styleLevelId, companyId)', async () => {
    const components = items(await brand.get('/styles?isComponent=true&limit=100'));
    expect(components.map((product) => product.id)).toEqual(
      expect.arrayContaining([DEMO_IDS.button, DEMO_IDS.zipper, DEMO_IDS.poplin]),
    );
    expect(components.every((product) => product['isComponent'] === true)).toBe(true);
    expect(items(await brand.get('/styles?styleTypeId=st_buttons')).map((product) => product.id)).toEqual([
      DEMO_IDS.button,
    ]);
    expect(items(await brand.get('/styles?styleLevelId=FABRICS')).map((product) => product.id)).toEqual([
      DEMO_IDS.poplin,
    ]);
    const kids = await create(styleBody({ brands: ['prop_brand_nordic_kids'], gender: unique('G') }));
    expect(
      items(await brand.get('/styles?brands=prop_brand_nordic_kids,prop_unused')).map(
        (product) => product.id,
      ),
    ).toEqual([kids.id]);
    expect(
      items(await brand.get(`/styles?gender=${kids['gender'] as string}`)).map((product) => product.id),
    ).toEqual([kids.id]);
    expect(
      items(await brand.get('/styles?mainSupplier=cmp_sup_gujarat_mills')).map((product) => product.id),
    ).toEqual([DEMO_IDS.poplin]);
    expect(
      items(await brand.get('/styles?suppliers=cmp_sup_porto_trims&limit=100'))
        .map((product) => product.id)
        .sort(),
    ).toEqual([DEMO_IDS.button, DEMO_IDS.zipper].sort());
    expect(items(await brand.get(`/styles?companyId=${OTHER_BRAND_COMPANY_ID}`))).toHaveLength(0);
  });

  it('rule: color filters variants and dimension filters SKUs', async () => {
    const { variant, sku } = await family();
    const colour = unique('Teal');
    await brand.put(`/styles/${variant.id}`, { color: colour });
    expect(
      items(await brand.get(`/styles?level=variant&color=${colour}`)).map((product) => product.id),
    ).toEqual([variant.id]);
    const size = unique('XXL');
    await brand.put(`/styles/${sku.id}`, { dimension: size });
    expect(
      items(await brand.get(`/styles?level=sku&dimension=${size}`)).map((product) => product.id),
    ).toEqual([sku.id]);
  });

  // Spec 01, GET /styles: `styleId` "Parent filter when level=variant", `color` "When level=variant", `variantId`
  // "Parent filter when level=sku", `dimension` "When level=sku"; spec 03: "unknown query parameters are ignored".
  // Nothing says they filter at another level, so the sandbox does not: a client cannot lean on it.
  it('rule: styleId and color filter only variants, variantId and dimension only SKUs; at other levels they are ignored', async () => {
    const { style, variant, sku } = await family();
    const total = async (query: string) =>
      (await brand.get(`/styles?${query}`)).body.metadata.pagination?.total as number;
    const skus = await total('level=sku');
    const variants = await total('level=variant');
    expect(await total(`level=variant&styleId=${style.id}`)).toBe(1);
    expect(await total(`level=sku&styleId=${style.id}`)).toBe(skus);
    expect(await total(`level=sku&color=${variant['color'] as string}`)).toBe(skus);
    expect(await total(`level=sku&variantId=${variant.id}`)).toBe(1);
    expect(await total(`level=variant&variantId=${variant.id}`)).toBe(variants);
    expect(await total(`level=variant&dimension=${sku['dimension'] as string}`)).toBe(variants);
    expect(skus).toBeGreaterThan(1);
  });

  it('rule: description is a substring match over the resolved value', async () => {
    const marker = unique('woolly');
    const { style, variant } = await family({ description: `A ${marker} thing` });
    expect(items(await brand.get(`/styles?description=${marker}`)).map((product) => product.id)).toEqual([
      style.id,
    ]);
    expect(
      items(await brand.get(`/styles?level=variant&description=${marker}`)).map((product) => product.id),
    ).toEqual([variant.id]);
  });

  it('rule: sort takes the listed columns with order asc/desc; others are 400', async () => {
    const asc = items(await brand.get('/styles?sort=name&order=asc&limit=100')).map(
      (product) => product['name'] as string,
    );
    expect(asc).toEqual([...asc].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const desc = items(await brand.get('/styles?sort=name&order=desc&limit=100')).map(
      (product) => product['name'] as string,
    );
    expect(desc).toEqual([...asc].reverse());
    for (const column of ['updatedAt', 'gender', 'typeName', 'color', 'styleId', 'dimension', 'variantId']) {
      expect((await brand.get(`/styles?sort=${column}`)).status).toBe(200);
    }
    expectError(await brand.get('/styles?sort=price'), 400, 'validation_error');
  });

  it('rule: include=type, styleProperties and tracingStory add resolved objects; bom and material arrays', async () => {
    const shown = data(
      await brand.get(`/styles/${DEMO_IDS.teeStyle}?include=type,styleProperties,tracingStory,bom,material`),
    );
    expect(shown['type']).toMatchObject({
      id: 'st_tshirts',
      quantityUnits: ['PIECES'],
      weightUnits: ['GRAM', 'KILOGRAM'],
    });
    expect(shown['styleProperties']).toMatchObject({
      brands: [{ id: 'prop_brand_nordic', value: 'Nordic Threads', category: 'brands' }],
    });
    expect(shown['tracingStory']).toMatchObject({ tracingType: 'SUPPLY_CHAINS', isActive: true });
    expect(Array.isArray(shown['bom'])).toBe(true);
    expect(Array.isArray(shown['material'])).toBe(true);
    expect(data(await brand.get(`/styles/${DEMO_IDS.teeStyle}`)).tracingStory).toBeNull();
    expectError(await brand.get('/styles?include=prices'), 400, 'validation_error');
  });

  it('rule: include=style on variants, variant and skuCount on SKUs; images ignored on style lists', async () => {
    const variants = items(
      await brand.get(`/styles?level=variant&styleId=${DEMO_IDS.teeStyle}&include=style,images`),
    );
    expect(variants[0]?.['style']).toMatchObject({ id: DEMO_IDS.teeStyle });
    expect(variants[0]?.['images']).toEqual([]);
    const skus = items(
      await brand.get(`/styles?level=sku&variantId=${DEMO_IDS.teeBlack}&include=variant,skuCount`),
    );
    expect(skus).toHaveLength(3);
    expect(skus[0]).toMatchObject({ variant: { id: DEMO_IDS.teeBlack }, skuCount: 3 });
    const styles = items(await brand.get(`/styles?name=Merino&include=images`));
    expect(styles[0]).not.toHaveProperty('images');
  });

  it('rule: skuCount on variants, featureImageUrl on every list result, full images on single reads', async () => {
    expect(data(await brand.get(`/styles/${DEMO_IDS.teeBlack}`)).skuCount).toBe(3);
    const tee = items(await brand.get('/styles?name=Merino'))[0];
    expect(tee?.['featureImageUrl']).toMatch(new RegExp(`/__storage/${DEMO_IDS.teeImage}$`));
    const single = data(await brand.get(`/styles/${DEMO_IDS.teeStyle}`));
    expect(single['images']).toEqual([
      expect.objectContaining({
        id: DEMO_IDS.teeImage,
        fileType: 'image/jpeg',
        name: 'merino-crew-tee-front.jpg',
      }),
    ]);
  });

  it('rule: a legacy unprefixed id is a product id like any other', async () => {
    expect(data(await brand.get(`/styles/${DEMO_IDS.legacyChino}`))).toMatchObject({
      id: DEMO_IDS.legacyChino,
      name: 'Classic Chino',
    });
  });
});

describe('QR code and scoping', () => {
  it('rule: qrCodeUrl is null at creation, set asynchronously, and never regenerated', async () => {
    const style = await create(styleBody());
    expect(style['qrCodeUrl']).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const generated = data(await brand.get(`/styles/${style.id}`)).qrCodeUrl;
    expect(generated).toMatch(/^https:\/\/.+\.svg$/);
    const afterEdit = data(
      await brand.put(`/styles/${style.id}`, { name: 'changed', description: 'changed' }),
    );
    expect(afterEdit['qrCodeUrl']).toBe(generated);
  });

  it("rule: another company's products are 404 to you, on read, update, archive and lists", async () => {
    expectError(await other.get(`/styles/${DEMO_IDS.teeStyle}`), 404, 'not_found');
    expectError(await other.put(`/styles/${DEMO_IDS.teeStyle}`, { name: 'stolen' }), 404, 'not_found');
    expectError(await other.post('/styles/archive', { ids: [DEMO_IDS.teeStyle] }), 404, 'not_found');
    expectError(
      await other.post('/styles', {
        parentId: DEMO_IDS.teeStyle,
        name: 'v',
        color: 'x',
        codes: [{ codeId: 'PLM_ID', codeValue: 'x' }],
      }),
      404,
      'parent_not_found',
    );
    const visible = items(await other.get('/styles?limit=100')).map((product) => product.id);
    expect(visible).toContain(DEMO_IDS.otherTote);
    expect(visible).not.toContain(DEMO_IDS.teeStyle);
  });
});

describe('reference lists', () => {
  it("rule: GET /style-types is paginated and holds the caller's types with units, level parentId and count", async () => {
    const page = await brand.get('/style-types?limit=5');
    expect(page.body.metadata.pagination).toMatchObject({ page: 1, limit: 5 });
    const all = items(await brand.get('/style-types?limit=100'));
    const ids = all.map((type) => type.id);
    expect(ids).toEqual(expect.arrayContaining(['st_tshirts', 'st_labels', 'st_nordic_outerwear']));
    expect(ids).not.toContain('st_other_bags');
    expect(all.find((type) => type.id === 'st_buttons')).toMatchObject({
      parentId: 'TRIM_AND_ACCESSORIES',
      quantityUnits: ['PIECES'],
      weightUnits: ['GRAM'],
      count: 1,
    });
    expect(all.find((type) => type.id === 'st_labels')).toMatchObject({
      quantityUnits: null,
      weightUnits: null,
    });
    expect(items(await other.get('/style-types?limit=100')).map((type) => type.id)).toContain(
      'st_other_bags',
    );
  });

  it('rule: GET /style-properties needs type brands, departments, seasons or collections (400 otherwise)', async () => {
    const seasons = items(await brand.get('/style-properties?type=seasons'));
    expect(seasons.map((property) => property['value'])).toEqual(['AW25', 'SS25', 'SS26']);
    expect(
      seasons.every(
        (property) => property['category'] === 'seasons' && typeof property['count'] === 'number',
      ),
    ).toBe(true);
    expectError(await brand.get('/style-properties'), 400, 'validation_error');
    expectError(await brand.get('/style-properties?type=colours'), 400, 'validation_error');
    expect(items(await other.get('/style-properties?type=brands')).map((property) => property.id)).toEqual([
      'prop_other_brand',
    ]);
    const paged = await brand.get('/style-properties?type=departments&limit=2&page=2');
    expect(paged.body.metadata.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
  });
});
