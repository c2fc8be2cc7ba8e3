import { catalogueDomain, type ProductRecord } from '../../sandbox/domains/catalogue';
import { sandboxPerFile, type ProductTree } from '../harness/sandbox-client';

interface Header {
  id: string;
  name: string;
  description: string | null;
  version: number;
  isMainBom?: boolean;
  link?: { styleId: string; isMainBom: boolean; isOwner: boolean };
  [key: string]: unknown;
}
interface Line {
  id: string;
  bomHeaderId: string;
  styleId: string | null;
  isMainComponent: boolean;
  quantity: number | null;
  quantityUnit: string | null;
  [key: string]: unknown;
}

const BUTTON = 'style_01J9ZDEM000000000000000010';
const ZIPPER = 'style_01J9ZDEM000000000000000011';
const POPLIN = 'style_01J9ZDEM000000000000000012';
const LABEL = 'style_01J9ZDEM000000000000000013';
const OTHER_BRAND_TOTE = 'style_01J9ZDEM000000000000000050';
const JACKET = 'style_01J9ZDEM000000000000000002';
const LEGACY_LINE = 'bom_line_demo_jacket_pocket_zip';
const PLACEMENT_BODY = 'bomplc_demo_body';

const file = sandboxPerFile({ childLinkDelayMs: 0 });
const { api, control } = file;
let sequence = 0;
const unique = (prefix: string): string => `${prefix}-${Date.now()}-${++sequence}`;

const { product } = file;
/** A style with two variants and two SKUs each. */
const tree = (): Promise<ProductTree> => file.tree(2);

async function bom(styleId: string, name = unique('BOM')): Promise<Header> {
  const response = await api<Header>('POST', '/bom-headers', {
    name,
    description: 'desc',
    link: { styleId, isMainBom: true },
  });
  expect(response.status).toBe(201);
  return response.body.data;
}

async function addLine(
  bomHeaderId: string,
  entity: string,
  component: string,
  extra: Record<string, unknown> = {},
): Promise<Line> {
  const response = await api<Line>('POST', '/bom-lines', {
    bomHeaderId,
    entity: { styleId: entity },
    component: { styleId: component },
    ...extra,
  });
  expect(response.status).toBe(201);
  return response.body.data;
}

async function headersOf(styleId: string): Promise<Header[]> {
  return (await api<Header[]>('GET', `/bom-headers?styleId=${styleId}&limit=100`)).body.data;
}

async function linesOf(bomHeaderId: string): Promise<Line[]> {
  return (
    await api<Line[]>('GET', `/bom-lines?bomHeaderId=${bomHeaderId}&limit=100&sort=createdAt&order=asc`)
  ).body.data;
}

/** A style-level BOM with three lines (button main, poplin, label), linked down to every SKU. */
async function populated(): Promise<{ tree: ProductTree; header: Header; lines: Line[] }> {
  const t = await tree();
  const header = await bom(t.style);
  const lines = [
    await addLine(header.id, t.style, BUTTON, {
      quantity: 3,
      quantityUnit: 'PIECES',
      isMainComponent: true,
      placementId: PLACEMENT_BODY,
    }),
    await addLine(header.id, t.style, POPLIN, {
      quantity: 1.5,
      quantityUnit: 'METRE',
      isMainComponent: true,
    }),
    await addLine(header.id, t.style, LABEL, { quantity: 1, quantityUnit: 'PIECES' }),
  ];
  return { tree: t, header, lines };
}

describe('BOM headers and links', () => {
  it('rule: POST /bom-headers answers 201 with the flat shape (isMainBom, version 1, dates, isArchived, no link)', async () => {
    const t = await tree();
    const header = await bom(t.style, 'Flat');
    expect(header).toMatchObject({
      name: 'Flat',
      description: 'desc',
      isMainBom: true,
      version: 1,
      isArchived: false,
      effectiveEndDate: null,
    });
    expect(header.id).toMatch(/^bomhdr_/);
    expect(header.link).toBeUndefined();
    expect(typeof header['effectiveStartDate']).toBe('string');
  });

  it('rule: a header on a style is owned by the style and inherited by every variant and SKU', async () => {
    const t = await tree();
    const header = await bom(t.style);
    expect((await headersOf(t.style))[0]?.link).toEqual({ styleId: t.style, isMainBom: true, isOwner: true });
    for (const child of [...t.variants, ...t.skus.flat()]) {
      const [linked] = await headersOf(child);
      expect(linked).toMatchObject({ id: header.id, link: { styleId: child, isOwner: false } });
    }
  });

  it("rule: a header on a variant is linked to that variant's SKUs only", async () => {
    const t = await tree();
    const header = await bom(t.variants[0] as string);
    expect((await headersOf(t.skus[0]?.[1] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect(await headersOf(t.skus[1]?.[0] as string)).toEqual([]);
    expect(await headersOf(t.style)).toEqual([]);
  });

  it('rule: child links appear asynchronously, after the create response', async () => {
    const t = await tree();
    await control('/__sandbox/config', { childLinkDelayMs: 150 });
    try {
      const header = await bom(t.style);
      expect(await headersOf(t.skus[0]?.[0] as string)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await headersOf(t.skus[0]?.[0] as string)).map((entry) => entry.id)).toEqual([header.id]);
    } finally {
      await control('/__sandbox/config', { childLinkDelayMs: 0 });
    }
  });

  it('rule: a product created under a product with a BOM inherits it', async () => {
    const t = await tree();
    const header = await bom(t.style);
    const newSku = await product({ parentId: t.variants[1], name: 'XL', dimension: 'XL' });
    expect((await headersOf(newSku)).map((entry) => ({ id: entry.id, owner: entry.link?.isOwner }))).toEqual([
      { id: header.id, owner: false },
    ]);
  });

  it("rule: link.styleId not in the caller's catalogue is 404 entity_not_found", async () => {
    const response = await api('POST', '/bom-headers', { name: 'x', link: { styleId: OTHER_BRAND_TOTE } });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('entity_not_found');
  });

  it('rule: header name is required and limited to 255 characters', async () => {
    const t = await tree();
    expect((await api('POST', '/bom-headers', { link: { styleId: t.style } })).status).toBe(400);
    expect(
      (await api('POST', '/bom-headers', { name: 'x'.repeat(256), link: { styleId: t.style } })).status,
    ).toBe(400);
  });

  it('rule: GET /bom-headers/{id} resolves through the owner link; missing or foreign is 404 bom_header_not_found', async () => {
    const t = await tree();
    const header = await bom(t.style);
    const one = await api<Header>('GET', `/bom-headers/${header.id}`);
    expect(one.body.data).toMatchObject({ id: header.id, link: { styleId: t.style, isOwner: true } });
    for (const [id, key] of [
      ['bomhdr_missing', 'sandbox-key-brand'],
      [header.id, 'sandbox-key-other-brand'],
    ] as const) {
      const response = await api('GET', `/bom-headers/${id}`, undefined, key);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('bom_header_not_found');
    }
  });

  it('rule: GET /bom-headers needs styleId, filters by name, isMainBom, version and ids, and rejects non-boolean filters', async () => {
    const t = await tree();
    const main = await bom(t.style, 'Main Summer');
    const other = (
      await api<Header>('POST', '/bom-headers', {
        name: 'Secondary',
        link: { styleId: t.style, isMainBom: false },
      })
    ).body.data;
    expect((await api('GET', '/bom-headers')).status).toBe(400);
    const ids = async (query: string) =>
      (await api<Header[]>('GET', `/bom-headers?styleId=${t.style}&${query}`)).body.data.map(
        (entry) => entry.id,
      );
    expect(await ids('name=summer')).toEqual([main.id]);
    expect(await ids('isMainBom=false')).toEqual([other.id]);
    expect(await ids(`ids=${other.id}`)).toEqual([other.id]);
    expect((await ids('version=1')).sort()).toEqual([main.id, other.id].sort());
    expect(await ids('version=2')).toEqual([]);
    expect((await api('GET', `/bom-headers?styleId=${t.style}&isMainBom=1`)).status).toBe(400);
  });
});

describe('BOM copy-on-write', () => {
  it("rule: a BOM line edit through a SKU's inherited link forks the header, copied lines lose styleId, siblings keep the original", async () => {
    const { tree: t, header, lines } = await populated();
    const sku = t.skus[0]?.[0] as string;
    const sibling = t.skus[0]?.[1] as string;
    const edited = lines[1] as Line;
    const response = await api<Line>('PUT', `/bom-lines/${edited.id}`, {
      entity: { styleId: sku },
      component: { styleId: POPLIN },
      quantity: 2,
      quantityUnit: 'METRE',
      isMainComponent: true,
    });
    expect(response.status).toBe(200);
    const line = response.body.data;
    expect(line.bomHeaderId).not.toBe(header.id);
    expect(line.id).not.toBe(edited.id);
    expect(line).toMatchObject({ styleId: POPLIN, quantity: 2, isMainComponent: true });

    const [fork] = await headersOf(sku);
    expect(fork).toMatchObject({
      id: line.bomHeaderId,
      name: `${header.name} (Copy)`,
      version: 1,
      link: { isOwner: true },
    });
    const copied = await linesOf(line.bomHeaderId);
    expect(copied).toHaveLength(3);
    for (const other of copied.filter((entry) => entry.id !== line.id)) {
      expect(other).toMatchObject({ styleId: null, isMainComponent: false });
    }
    expect(copied.map((entry) => entry.quantity).sort()).toEqual([1, 2, 3]);

    expect((await headersOf(sibling)).map((entry) => entry.id)).toEqual([header.id]);
    const original = await linesOf(header.id);
    expect(original.map((entry) => entry.styleId)).toEqual([BUTTON, POPLIN, LABEL]);
    expect(original[1]?.quantity).toBe(1.5);
  });

  it('rule: a PUT /bom-lines/{id} with no actual change through an inherited link returns the line without a copy', async () => {
    const { tree: t, header, lines } = await populated();
    const sku = t.skus[1]?.[0] as string;
    const label = lines[2] as Line;
    const response = await api<Line>('PUT', `/bom-lines/${label.id}`, {
      entity: { styleId: sku },
      component: { styleId: LABEL },
      quantity: 1,
      quantityUnit: 'PIECES',
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual(label);
    expect((await headersOf(sku)).map((entry) => entry.id)).toEqual([header.id]);
  });

  it('rule: POST /bom-lines through an inherited link forks; the new line keeps its values in the copy', async () => {
    const { tree: t, header } = await populated();
    const variant = t.variants[0] as string;
    const line = await addLine(header.id, variant, ZIPPER, {
      quantity: 1,
      quantityUnit: 'PIECES',
      isMainComponent: true,
    });
    expect(line.bomHeaderId).not.toBe(header.id);
    expect(line).toMatchObject({ styleId: ZIPPER, isMainComponent: true });
    const copied = await linesOf(line.bomHeaderId);
    expect(copied).toHaveLength(4);
    expect(copied.filter((entry) => entry.styleId === null)).toHaveLength(3);
    // The copy creates no child links: the variant's SKUs keep the original.
    expect((await headersOf(t.skus[0]?.[0] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect(await linesOf(header.id)).toHaveLength(3);
  });

  it('rule: writes through the owner change the shared BOM for every inheriting child at once', async () => {
    const { tree: t, header, lines } = await populated();
    await addLine(header.id, t.style, ZIPPER, { quantity: 2, quantityUnit: 'CENTIMETRE' });
    const put = await api<Line>('PUT', `/bom-lines/${lines[0]?.id}`, {
      entity: { styleId: t.style },
      component: { styleId: BUTTON },
      quantity: 5,
      quantityUnit: 'PIECES',
    });
    expect(put.body.data).toMatchObject({ id: lines[0]?.id, bomHeaderId: header.id, quantity: 5 });
    expect((await headersOf(t.skus[1]?.[1] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect((await linesOf(header.id)).map((entry) => entry.quantity)).toEqual([5, 1.5, 1, 2]);
  });

  it('rule: PUT /bom-lines/{id} is a full replace: omitted fields become null and isMainComponent false', async () => {
    const { tree: t, lines } = await populated();
    const response = await api<Line>('PUT', `/bom-lines/${lines[0]?.id}`, {
      entity: { styleId: t.style },
      component: { styleId: BUTTON },
    });
    expect(response.body.data).toMatchObject({
      placementId: null,
      quantity: null,
      quantityUnit: null,
      weight: null,
      weightUnit: null,
      countryOfOrigin: null,
      isMainComponent: false,
    });
  });

  it('rule: PUT /bom-headers/{id} renaming through an inherited link detaches onto a copy with the new name and version 1', async () => {
    const { tree: t, header } = await populated();
    const variant = t.variants[1] as string;
    const response = await api<Header>('PUT', `/bom-headers/${header.id}`, {
      styleId: variant,
      name: 'Blue BOM',
      isMainBom: true,
    });
    expect(response.body.data).toMatchObject({
      name: 'Blue BOM',
      version: 1,
      link: { styleId: variant, isOwner: true },
    });
    expect(response.body.data.id).not.toBe(header.id);
    expect((await headersOf(variant)).map((entry) => entry.id)).toEqual([response.body.data.id]);
    expect((await linesOf(response.body.data.id)).map((entry) => entry.styleId)).toEqual([null, null, null]);
    expect((await headersOf(t.skus[1]?.[0] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect((await api<Header>('GET', `/bom-headers/${header.id}`)).body.data.name).toBe(header.name);
  });

  it('rule: a description change with the same name through an inherited link copies the header as "<name> (Copy)"', async () => {
    const { tree: t, header } = await populated();
    const response = await api<Header>('PUT', `/bom-headers/${header.id}`, {
      styleId: t.variants[0],
      name: header.name,
      description: 'changed',
      isMainBom: true,
    });
    expect(response.body.data).toMatchObject({ name: `${header.name} (Copy)`, description: 'changed' });
  });

  it("rule: changing only isMainBom through an inherited link makes no copy and touches only that product's link", async () => {
    const { tree: t, header } = await populated();
    const sku = t.skus[0]?.[0] as string;
    const response = await api<Header>('PUT', `/bom-headers/${header.id}`, {
      styleId: sku,
      name: header.name,
      isMainBom: false,
    });
    expect(response.body.data).toMatchObject({
      id: header.id,
      link: { styleId: sku, isMainBom: false, isOwner: false },
    });
    expect((await headersOf(t.skus[0]?.[1] as string))[0]?.link?.isMainBom).toBe(true);
  });

  it('rule: PUT /bom-headers/{id} through the owner renames the shared header for every child', async () => {
    const { tree: t, header } = await populated();
    await api('PUT', `/bom-headers/${header.id}`, { styleId: t.style, name: 'Renamed', isMainBom: true });
    expect((await headersOf(t.skus[1]?.[1] as string))[0]).toMatchObject({ id: header.id, name: 'Renamed' });
  });

  it('rule: PUT /bom-headers/{id} requires styleId, name and isMainBom', async () => {
    const { tree: t, header } = await populated();
    expect((await api('PUT', `/bom-headers/${header.id}`, { styleId: t.style, name: 'x' })).status).toBe(400);
    expect(
      (await api('PUT', `/bom-headers/${header.id}`, { styleId: t.style, isMainBom: true })).status,
    ).toBe(400);
  });

  it('rule: POST /bom-lines/delete through an inherited link yields a copy without the deleted lines', async () => {
    const { tree: t, header, lines } = await populated();
    const sku = t.skus[1]?.[1] as string;
    const response = await api<Record<string, string[]>>('POST', '/bom-lines/delete', {
      styleId: sku,
      bomLineIds: [lines[0]?.id],
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      deletedLines: [lines[0]?.id],
      orphanedHeaders: [],
      errors: [],
    });
    const [copy] = response.body.data['duplicatedHeaders'] ?? [];
    expect((await headersOf(sku)).map((entry) => entry.id)).toEqual([copy]);
    expect(await linesOf(copy as string)).toHaveLength(2);
    expect(await linesOf(header.id)).toHaveLength(3);
  });

  it('rule: POST /bom-lines/delete through the owner removes the lines for everyone and reports orphaned headers', async () => {
    const { tree: t, header, lines } = await populated();
    const response = await api<Record<string, string[]>>('POST', '/bom-lines/delete', {
      styleId: t.style,
      bomLineIds: lines.map((entry) => entry.id),
    });
    expect(response.body.data).toEqual({
      deletedLines: lines.map((entry) => entry.id),
      duplicatedHeaders: [],
      orphanedHeaders: [header.id],
      errors: [],
    });
    expect(await linesOf(header.id)).toEqual([]);
  });

  it('rule: a missing line in POST /bom-lines/delete is 404 bom_lines_not_found and nothing is deleted', async () => {
    const { tree: t, header, lines } = await populated();
    const response = await api('POST', '/bom-lines/delete', {
      styleId: t.style,
      bomLineIds: [lines[0]?.id, 'bom_line_missing'],
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('bom_lines_not_found');
    expect(await linesOf(header.id)).toHaveLength(3);
  });

  it('rule: POST /bom-lines/delete takes at most 100 ids', async () => {
    const { tree: t } = await populated();
    const ids = Array.from({ length: 101 }, (_, index) => `bom_line_${index}`);
    expect((await api('POST', '/bom-lines/delete', { styleId: t.style, bomLineIds: ids })).status).toBe(400);
  });
});

describe('BOM header delete', () => {
  it("rule: through an inherited link the product's and its descendants' links go; the shared header stays", async () => {
    const { tree: t, header } = await populated();
    const variant = t.variants[0] as string;
    const response = await api<Record<string, unknown>>('POST', '/bom-headers/delete', {
      styleId: variant,
      bomHeaderIds: [header.id],
    });
    expect(response.body.data['deletedHeaders']).toEqual([]);
    expect((response.body.data['deletedLinks'] as unknown[]).length).toBe(3);
    for (const id of [variant, ...(t.skus[0] as string[])]) expect(await headersOf(id)).toEqual([]);
    expect((await headersOf(t.variants[1] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect((await api('GET', `/bom-headers/${header.id}`)).status).toBe(200);
  });

  it('rule: through the owner the header is deleted with every link; per-id failures land in errors', async () => {
    const { tree: t, header } = await populated();
    const response = await api<Record<string, unknown[]>>('POST', '/bom-headers/delete', {
      styleId: t.style,
      bomHeaderIds: [header.id, 'bomhdr_missing'],
    });
    expect(response.status).toBe(200);
    expect(response.body.data['deletedHeaders']).toEqual([header.id]);
    expect(response.body.data['deletedLinks']).toHaveLength(7);
    expect(response.body.data['errors']).toEqual([
      expect.objectContaining({ id: 'bomhdr_missing', code: 'bom_header_not_found' }),
    ]);
    expect(await headersOf(t.skus[0]?.[0] as string)).toEqual([]);
    expect((await api('GET', `/bom-headers/${header.id}`)).status).toBe(404);
  });

  it('rule: a detached product that deletes its copy ends with no BOM (no re-attach)', async () => {
    const { tree: t, header } = await populated();
    const sku = t.skus[0]?.[0] as string;
    const fork = await api<Header>('PUT', `/bom-headers/${header.id}`, {
      styleId: sku,
      name: 'Mine',
      isMainBom: true,
    });
    await api('POST', '/bom-headers/delete', { styleId: sku, bomHeaderIds: [fork.body.data.id] });
    expect(await headersOf(sku)).toEqual([]);
  });
});

describe('BOM line rules', () => {
  it('rule: bomHeaderId not linked to entity.styleId is 404 bom_header_or_link_not_found', async () => {
    const { header } = await populated();
    const other = await tree();
    const response = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: other.style },
      component: { styleId: BUTTON },
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('bom_header_or_link_not_found');
  });

  it('rule: PUT /bom-lines/{id} whose header is not linked to entity.styleId is 404 bom_line_link_not_found', async () => {
    const { lines } = await populated();
    const other = await tree();
    const response = await api('PUT', `/bom-lines/${lines[0]?.id}`, {
      entity: { styleId: other.style },
      component: { styleId: BUTTON },
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('bom_line_link_not_found');
  });

  it('rule: entity and component are required on PUT /bom-lines/{id}', async () => {
    const { tree: t, lines } = await populated();
    expect((await api('PUT', `/bom-lines/${lines[0]?.id}`, { entity: { styleId: t.style } })).status).toBe(
      400,
    );
  });

  it("rule: a component outside the caller's catalogue is 404 entity_not_found", async () => {
    const { tree: t, header } = await populated();
    const response = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: t.style },
      component: { styleId: OTHER_BRAND_TOTE },
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('entity_not_found');
  });

  it('rule: a component without any product code is 400 component_codes_not_found', async () => {
    const { tree: t, header } = await populated();
    const catalogue = file.sandbox.ctx.store(catalogueDomain);
    const label = catalogue.get(LABEL) as ProductRecord;
    const codeless: ProductRecord = {
      ...structuredClone(label),
      id: 'style_legacy_codeless',
      externalId: null,
      codes: [],
    };
    catalogue.insert(codeless);
    const response = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: t.style },
      component: { styleId: codeless.id },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('component_codes_not_found');
  });

  it('rule: component and entity accept the externalId; responses carry platform ids', async () => {
    const { header } = await populated();
    const withExternal = await product({
      name: unique('Ext'),
      styleTypeId: 'st_tshirts',
      isComponent: false,
      externalId: unique('EXT'),
    });
    const own = await bom(withExternal);
    const byExternal = await api<Line>('POST', '/bom-lines', {
      bomHeaderId: own.id,
      entity: { styleId: withExternal },
      component: { styleId: 'CMP-BTN-15' },
    });
    expect(byExternal.body.data.styleId).toBe(BUTTON);
    expect(header.id).toMatch(/^bomhdr_/);
  });

  it("rule: a unit outside the component's style type is 400 invalid_bom_quantity_unit / invalid_bom_weight_unit listing accepted units", async () => {
    const { tree: t, header } = await populated();
    const quantity = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: t.style },
      component: { styleId: BUTTON },
      quantityUnit: 'METRE',
    });
    expect(quantity.status).toBe(400);
    expect(quantity.body.code).toBe('invalid_bom_quantity_unit');
    expect(quantity.body.message).toContain('PIECES');
    const weight = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: t.style },
      component: { styleId: BUTTON },
      weightUnit: 'KILOGRAM',
    });
    expect(weight.status).toBe(400);
    expect(weight.body.code).toBe('invalid_bom_weight_unit');
    expect(weight.body.message).toContain('GRAM');
  });

  it('rule: a component whose style type has no units takes the platform-wide lists', async () => {
    const { tree: t, header } = await populated();
    const ok = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: t.style },
      component: { styleId: LABEL },
      quantityUnit: 'CENTIMETRE',
      weightUnit: 'GRAM',
    });
    expect(ok.status).toBe(201);
    const bad = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: t.style },
      component: { styleId: LABEL },
      quantityUnit: 'KILOWATT_HOUR',
    });
    expect(bad.body.code).toBe('invalid_bom_quantity_unit');
  });

  it('rule: a unit already stored on a line stays acceptable while the component is unchanged', async () => {
    const kept = await api<Line>('PUT', `/bom-lines/${LEGACY_LINE}`, {
      entity: { styleId: JACKET },
      component: { styleId: ZIPPER },
      quantity: 0.7,
      quantityUnit: 'METRE',
    });
    expect(kept.status).toBe(200);
    expect(kept.body.data).toMatchObject({ quantity: 0.7, quantityUnit: 'METRE' });
    const changed = await api('PUT', `/bom-lines/${LEGACY_LINE}`, {
      entity: { styleId: JACKET },
      component: { styleId: BUTTON },
      quantity: 0.7,
      quantityUnit: 'METRE',
    });
    expect(changed.body.code).toBe('invalid_bom_quantity_unit');
  });

  it('rule: an unknown placementId is 404 bom_placement_not_found', async () => {
    const { tree: t, header } = await populated();
    const response = await api('POST', '/bom-lines', {
      bomHeaderId: header.id,
      entity: { styleId: t.style },
      component: { styleId: BUTTON },
      placementId: 'bomplc_missing',
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('bom_placement_not_found');
  });

  it('rule: quantity and weight are non-negative and countryOfOrigin is at most 100 characters', async () => {
    const { tree: t, header } = await populated();
    const base = { bomHeaderId: header.id, entity: { styleId: t.style }, component: { styleId: BUTTON } };
    expect((await api('POST', '/bom-lines', { ...base, quantity: -1 })).status).toBe(400);
    expect((await api('POST', '/bom-lines', { ...base, weight: -0.1 })).status).toBe(400);
    expect((await api('POST', '/bom-lines', { ...base, countryOfOrigin: 'x'.repeat(101) })).status).toBe(400);
  });
});

describe('BOM line reads and placements', () => {
  it('rule: GET /bom-lines styleId filters by component (where used), with isMainComponent and countryOfOrigin filters', async () => {
    const { header } = await populated();
    const t = await tree();
    const second = await bom(t.style);
    await addLine(second.id, t.style, BUTTON, { countryOfOrigin: 'Portugal' });
    const usedIn = (await api<Line[]>('GET', `/bom-lines?styleId=${BUTTON}&limit=100`)).body.data.map(
      (entry) => entry.bomHeaderId,
    );
    expect(usedIn).toEqual(expect.arrayContaining([header.id, second.id]));
    const main = (await api<Line[]>('GET', `/bom-lines?bomHeaderId=${header.id}&isMainComponent=true`)).body
      .data;
    expect(main.map((entry) => entry.styleId).sort()).toEqual([BUTTON, POPLIN].sort());
    const country = (await api<Line[]>('GET', `/bom-lines?bomHeaderId=${second.id}&countryOfOrigin=PORT`))
      .body.data;
    expect(country).toHaveLength(1);
    expect((await api('GET', '/bom-lines?isMainComponent=1')).status).toBe(400);
  });

  it('fault: bomLinesNeverWhole makes a header count one line more than its pages list, others untouched', async () => {
    const { header, lines } = await populated();
    const other = await populated();
    await control('/__sandbox/config', { bomLinesNeverWhole: [header.id] });
    try {
      for (const page of [1, 2]) {
        const answer = await api<Line[]>(
          'GET',
          `/bom-lines?bomHeaderId=${header.id}&limit=2&page=${page}&sort=createdAt&order=asc`,
        );
        expect(answer.body.metadata.pagination).toMatchObject({ total: 3, totalPages: 2 });
        expect(answer.body.data.map((l) => l.id)).toEqual(
          lines.slice((page - 1) * 2, Math.min(page * 2, 2)).map((l) => l.id),
        );
      }
      expect(await linesOf(other.header.id)).toHaveLength(3);
    } finally {
      await control('/__sandbox/config', { bomLinesNeverWhole: [] });
    }
    expect(await linesOf(header.id)).toHaveLength(3);
  });

  it('rule: include=entity,placement adds the component (with its type units) and the placement', async () => {
    const { header } = await populated();
    const [first] = (
      await api<Line[]>(
        'GET',
        `/bom-lines?bomHeaderId=${header.id}&include=entity,placement&sort=createdAt&order=asc`,
      )
    ).body.data;
    expect(first?.['entity']).toMatchObject({
      id: BUTTON,
      name: 'Corozo Button 15mm',
      type: { quantityUnits: ['PIECES'], weightUnits: ['GRAM'] },
    });
    expect(first?.['placement']).toMatchObject({ id: PLACEMENT_BODY, value: 'Body' });
  });

  it("rule: other companies never see the caller's BOM lines", async () => {
    const { header } = await populated();
    expect(
      (await api<Line[]>('GET', `/bom-lines?bomHeaderId=${header.id}`, undefined, 'sandbox-key-other-brand'))
        .body.data,
    ).toEqual([]);
  });

  it('rule: POST /bom-placements creates a placement that GET /bom-placements lists for that account only', async () => {
    const value = unique('Hood');
    const created = await api<{ id: string; value: string }>('POST', '/bom-placements', { value });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ value, forCompanyId: 'cmp_brand_nordic_threads' });
    const again = await api<{ id: string }>('POST', '/bom-placements', { value: value.toUpperCase() });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(created.body.data.id);
    const mine = (await api<Array<{ id: string }>>('GET', '/bom-placements?limit=100')).body.data.map(
      (entry) => entry.id,
    );
    expect(mine).toEqual(expect.arrayContaining([created.body.data.id, PLACEMENT_BODY]));
    const theirs = (
      await api<Array<{ id: string }>>(
        'GET',
        '/bom-placements?limit=100',
        undefined,
        'sandbox-key-other-brand',
      )
    ).body.data;
    expect(theirs.map((entry) => entry.id)).not.toContain(created.body.data.id);
    expect((await api('POST', '/bom-placements', { value: '' })).status).toBe(400);
  });

  it("rule: GET /styles include=bom shows the product's BOM headers", async () => {
    const { tree: t, header } = await populated();
    const style = await api<Record<string, unknown>>('GET', `/styles/${t.skus[0]?.[0]}?include=bom`);
    expect(JSON.stringify(style.body.data)).toContain(header.id);
  });
});
