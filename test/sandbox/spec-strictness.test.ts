import { sandboxPerFile } from '../harness/sandbox-client';

/**
 * Places where the sandbox was more lenient than the spec (the audit of session sandbox-audit). Each rule quotes
 * the spec sentence it holds the sandbox to.
 */
const file = sandboxPerFile({ childLinkDelayMs: 0, rateLimitPerMinute: 100_000 });
const { api, product } = file;

async function styleWithComponent(): Promise<{ style: string; component: string }> {
  const style = await product({ name: 'Strict host', styleTypeId: 'st_tshirts', isComponent: false });
  const component = await product({ name: 'Strict button', styleTypeId: 'st_buttons', isComponent: true });
  return { style, component };
}

function expectUnknownField(response: { status: number; body: { code?: string; message?: string } }) {
  expect(response.status).toBe(400);
  expect(response.body.code).toBe('validation_error');
  expect(response.body.message).toMatch(/extraField/);
}

/** `POST /{path}` (a delete call) with one id and an unknown field: a 400 naming it. */
async function deleteWithExtraField(path: string, styleId: string, idsField: string, id: string) {
  expectUnknownField(await api('POST', path, { styleId, [idsField]: [id], extraField: 1 }));
}

// Spec 01 covers "the conventions shared by every endpoint (... errors ...)"; its error table:
// "400 | (validation) | Missing or unknown field, bad enum value, malformed date, ...".
describe('rule: an unknown body field is a 400 on material and BOM writes too (spec 01, Errors)', () => {
  it('material headers: create and update', async () => {
    const { style } = await styleWithComponent();
    const link = { styleId: style, isMainMaterial: true };
    expectUnknownField(await api('POST', '/material-headers', { name: 'M', link, extraField: 1 }));
    expectUnknownField(
      await api('POST', '/material-headers', { name: 'M', link: { ...link, extraField: 1 } }),
    );
    const created = await api<{ id: string }>('POST', '/material-headers', { name: 'M', link });
    expect(created.status).toBe(201);
    expectUnknownField(
      await api('PUT', `/material-headers/${created.body.data.id}`, { name: 'M', link, extraField: 1 }),
    );
  });

  it('material lines: create, update and delete; headers delete', async () => {
    const { style } = await styleWithComponent();
    const header = await api<{ id: string }>('POST', '/material-headers', {
      name: 'M',
      link: { styleId: style, isMainMaterial: true },
    });
    const line = {
      styleId: style,
      materialHeaderId: header.body.data.id,
      parentId: null,
      rawMaterialId: 'rawmat_cotton',
      percentage: 10,
    };
    expectUnknownField(await api('POST', '/material-lines', { ...line, extraField: 1 }));
    const created = await api<{ id: string }>('POST', '/material-lines', line);
    expect(created.status).toBe(201);
    expectUnknownField(
      await api('PUT', `/material-lines/${created.body.data.id}`, { ...line, extraField: 1 }),
    );
    await deleteWithExtraField('/material-lines/delete', style, 'materialLineIds', created.body.data.id);
    await deleteWithExtraField('/material-headers/delete', style, 'materialHeaderIds', header.body.data.id);
  });

  it('BOM headers and lines: create, update and delete', async () => {
    const { style, component } = await styleWithComponent();
    const link = { styleId: style, isMainBom: true };
    expectUnknownField(await api('POST', '/bom-headers', { name: 'B', link, extraField: 1 }));
    expectUnknownField(await api('POST', '/bom-headers', { name: 'B', link: { ...link, extraField: 1 } }));
    const header = await api<{ id: string }>('POST', '/bom-headers', { name: 'B', link });
    expect(header.status).toBe(201);
    const headerId = header.body.data.id;
    expectUnknownField(
      await api('PUT', `/bom-headers/${headerId}`, {
        styleId: style,
        name: 'B',
        isMainBom: true,
        extraField: 1,
      }),
    );
    const line = { bomHeaderId: headerId, entity: { styleId: style }, component: { styleId: component } };
    expectUnknownField(await api('POST', '/bom-lines', { ...line, extraField: 1 }));
    expectUnknownField(
      await api('POST', '/bom-lines', { ...line, component: { styleId: component, extraField: 1 } }),
    );
    const created = await api<{ id: string }>('POST', '/bom-lines', line);
    expect(created.status).toBe(201);
    expectUnknownField(await api('PUT', `/bom-lines/${created.body.data.id}`, { ...line, extraField: 1 }));
    await deleteWithExtraField('/bom-lines/delete', style, 'bomLineIds', created.body.data.id);
    await deleteWithExtraField('/bom-headers/delete', style, 'bomHeaderIds', headerId);
  });

  // Spec 02: "PUT /bom-lines/{id} body: `entity` and `component` required, the other fields as on create", and
  // create's body starts with `bomHeaderId`: a PUT that sends it is not sending an unknown field.
  it('a BOM line PUT may still carry bomHeaderId, a field of the create body', async () => {
    const { style, component } = await styleWithComponent();
    const header = await api<{ id: string }>('POST', '/bom-headers', {
      name: 'B',
      link: { styleId: style, isMainBom: true },
    });
    const line = {
      bomHeaderId: header.body.data.id,
      entity: { styleId: style },
      component: { styleId: component },
    };
    const created = await api<{ id: string }>('POST', '/bom-lines', line);
    expect((await api('PUT', `/bom-lines/${created.body.data.id}`, line)).status).toBe(200);
  });
});

// Spec 02 lists no unique sort column for GET /material-lines (`createdAt` default; `materialHeaderId`,
// `rawMaterialId`, `percentage`, `hierarchy`, `position`, `createdAt`, `updatedAt`) and a fork copies "all lines" at
// once; spec 03 promises "Paging order is stable for equal sort values" of GET /orders only.
describe('option: materialLineTies (material lines with equal sort values in no promised order)', () => {
  afterEach(async () => {
    await fetch(`${file.sandbox.url}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ materialLineTies: 'stable' }),
    });
  });

  async function forkedCopy(): Promise<string> {
    const style = await product({ name: 'Ties host', styleTypeId: 'st_tshirts', isComponent: false });
    const variant = await product({ parentId: style, name: 'Ties variant', color: 'Red' });
    const header = await api<{ id: string }>('POST', '/material-headers', {
      name: 'Ties',
      link: { styleId: style, isMainMaterial: true },
    });
    for (let i = 0; i < 30; i++) {
      const line = { styleId: style, materialHeaderId: header.body.data.id, parentId: null };
      await api('POST', '/material-lines', { ...line, rawMaterialId: `rawmat_${i}`, percentage: 3 });
    }
    // A write through the variant's inherited link: a full fork, every line copied in one go.
    const fork = await api<{ materialHeaderId: string }>('POST', '/material-lines', {
      styleId: variant,
      materialHeaderId: header.body.data.id,
      parentId: null,
      rawMaterialId: 'rawmat_new',
      percentage: 5,
    });
    expect(fork.body.data.materialHeaderId).not.toBe(header.body.data.id);
    return fork.body.data.materialHeaderId;
  }

  const order = async (headerId: string): Promise<string[]> =>
    (
      await api<Array<{ id: string }>>(
        'GET',
        `/material-lines?materialHeaderId=${headerId}&sort=createdAt&order=asc&limit=100`,
      )
    ).body.data.map((line) => line.id);

  it('stable (default): ties come back in one order; shuffled: in a fresh order on each query', async () => {
    const copy = await forkedCopy();
    const stable = await order(copy);
    expect(stable).toHaveLength(31);
    expect(await order(copy)).toEqual(stable);
    await fetch(`${file.sandbox.url}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ materialLineTies: 'shuffled' }),
    });
    const first = await order(copy);
    const second = await order(copy);
    expect(new Set(first)).toEqual(new Set(stable));
    expect(second).not.toEqual(first);
  });
});

// Spec 01, GET /styles: `sort` over `createdAt`, `updatedAt`, `name`, `gender`, ... with no order given among equal
// values; spec 03 promises "Paging order is stable for equal sort values" of GET /orders only.
describe('option: productTies (products with equal sort values in no promised order)', () => {
  const setTies = (productTies: 'stable' | 'shuffled') =>
    fetch(`${file.sandbox.url}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ productTies }),
    });
  afterEach(async () => {
    await setTies('stable');
  });

  // Most products have no gender: one long run of equal (null) sort values.
  const order = async (): Promise<string[]> =>
    (await api<Array<{ id: string }>>('GET', '/styles?level=sku&sort=gender&limit=100')).body.data.map(
      (item) => item.id,
    );

  it('stable (default): ties come back in one order; shuffled: in a fresh order on each query', async () => {
    const stable = await order();
    expect(stable.length).toBeGreaterThan(5);
    expect(await order()).toEqual(stable);
    await setTies('shuffled');
    const first = await order();
    expect(new Set(first)).toEqual(new Set(stable));
    expect(await order()).not.toEqual(first);
  });
});
