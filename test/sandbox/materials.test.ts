import { sandboxPerFile, type Envelope, type ProductTree } from '../harness/sandbox-client';

interface Header {
  id: string;
  name: string;
  description: string | null;
  link: { styleId: string; isMainMaterial: boolean; isOwner?: boolean };
  [key: string]: unknown;
}
interface Line {
  id: string;
  materialHeaderId: string;
  parentId: string | null;
  percentage: number;
  hierarchy: number;
  position: number;
  rawMaterialId: string;
  countriesOfOrigin: string[] | null;
  weights: number | null;
  weightUnit: string | null;
  [key: string]: unknown;
}
type Tree = Omit<ProductTree, 'skus'> & { skus: string[] };
type DeleteResult = Record<'deletedLines' | 'duplicatedHeaders' | 'orphanedHeaders', string[]> & {
  errors: Array<{ id: string; code: string }>;
};

const OTHER_BRAND_TOTE = 'style_01J9ZDEM000000000000000050';

const file = sandboxPerFile({ childLinkDelayMs: 0 });
const { api } = file;
let sequence = 0;
const unique = (prefix: string): string => `${prefix}-${Date.now()}-${++sequence}`;

const { product } = file;

/** A style with two variants, each with one SKU. */
async function tree(): Promise<Tree> {
  const t = await file.tree(1);
  return { ...t, skus: t.skus.flat() };
}

async function composition(styleId: string, name = unique('Composition')): Promise<Header> {
  const response = await api<Header>('POST', '/material-headers', {
    name,
    description: 'shell',
    link: { styleId, isMainMaterial: true },
  });
  expect(response.status).toBe(201);
  return response.body.data;
}

async function addLine(
  styleId: string,
  materialHeaderId: string,
  extra: Record<string, unknown>,
): Promise<{ status: number; body: Envelope<Line> }> {
  return api<Line>('POST', '/material-lines', {
    styleId,
    materialHeaderId,
    rawMaterialId: 'rawmat_cotton',
    percentage: 10,
    ...extra,
  });
}

async function line(
  styleId: string,
  materialHeaderId: string,
  extra: Record<string, unknown>,
): Promise<Line> {
  const response = await addLine(styleId, materialHeaderId, extra);
  expect(response.status).toBe(201);
  return response.body.data;
}

const headersOf = async (styleId: string): Promise<Header[]> =>
  (await api<Header[]>('GET', `/material-headers?styleId=${styleId}&limit=100`)).body.data;
const linesOf = async (headerId: string): Promise<Line[]> =>
  (
    await api<Line[]>(
      'GET',
      `/material-lines?materialHeaderId=${headerId}&limit=100&sort=createdAt&order=asc`,
    )
  ).body.data;

/** A style composition: cotton 60 [IN, PK] with child organic 50 [IN]; polyester 40 [CN]. */
async function populated(): Promise<{
  tree: Tree;
  header: Header;
  cotton: Line;
  organic: Line;
  polyester: Line;
}> {
  const t = await tree();
  const header = await composition(t.style);
  const cotton = await line(t.style, header.id, { percentage: 60, countriesOfOrigin: ['IN', 'PK'] });
  const organic = await line(t.style, header.id, {
    parentId: cotton.id,
    rawMaterialId: 'rawmat_cotton_organic',
    percentage: 50,
    countriesOfOrigin: ['IN'],
  });
  const polyester = await line(t.style, header.id, {
    rawMaterialId: 'rawmat_polyester',
    percentage: 40,
    countriesOfOrigin: ['CN'],
  });
  return { tree: t, header, cotton, organic, polyester };
}

describe('material headers and links', () => {
  it('rule: POST /material-headers answers 201 with the header and an echoed link (styleId, isMainMaterial)', async () => {
    const t = await tree();
    const header = await composition(t.style, 'Shell');
    expect(header).toMatchObject({
      name: 'Shell',
      description: 'shell',
      link: { styleId: t.style, isMainMaterial: true },
    });
    expect(header.id).toMatch(/^mtrialhdr_/);
    expect(header.link.isOwner).toBeUndefined();
  });

  it('rule: a composition on a style is owned by it and inherited by its variants and SKUs', async () => {
    const t = await tree();
    const header = await composition(t.style);
    expect((await headersOf(t.style))[0]?.link).toEqual({
      styleId: t.style,
      isMainMaterial: true,
      isOwner: true,
    });
    for (const id of [...t.variants, ...t.skus])
      expect((await headersOf(id))[0]).toMatchObject({ id: header.id, link: { isOwner: false } });
  });

  // Spec 01 shows `include=material` only as "material composition headers"; `materialIncludeShape` lets tests meet
  // an API whose include leaves the link role out.
  it('rule: GET /styles include=material shows the linked headers with `link`; materialIncludeShape `bare` leaves it out', async () => {
    const t = await tree();
    const header = await composition(t.style);
    const variant = t.variants[0] as string;
    const included = async () =>
      (await api<{ material: Array<Record<string, unknown>> }>('GET', `/styles/${variant}?include=material`))
        .body.data.material;
    const shape = (materialIncludeShape: 'full' | 'bare') =>
      fetch(`${new URL(file.sandbox.baseUrl).origin}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ materialIncludeShape }),
      });
    expect(await included()).toEqual([
      expect.objectContaining({
        id: header.id,
        link: expect.objectContaining({ styleId: variant, isOwner: false }),
      }),
    ]);
    expect((await shape('bare')).status).toBe(200);
    try {
      const bare = await included();
      expect(bare.map((entry) => entry['id'])).toEqual([header.id]);
      expect(bare[0]).not.toHaveProperty('link');
    } finally {
      await shape('full');
    }
  });

  it('rule: a product created later under a product with a composition inherits it', async () => {
    const t = await tree();
    const header = await composition(t.variants[0] as string);
    const sku = await product({ parentId: t.variants[0], name: 'M', dimension: 'M' });
    expect((await headersOf(sku)).map((entry) => entry.id)).toEqual([header.id]);
  });

  it('rule: GET /material-headers/{id} resolves only through the owner link (404 material_header_not_found otherwise)', async () => {
    const t = await tree();
    const header = await composition(t.style);
    expect((await api<Header>('GET', `/material-headers/${header.id}`)).body.data.link).toMatchObject({
      styleId: t.style,
      isOwner: true,
    });
    const foreign = await api('GET', `/material-headers/${header.id}`, undefined, 'sandbox-key-other-brand');
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('material_header_not_found');
  });

  it('rule: GET /material-headers filters by name, description, isMainMaterial and isOwner (true/false only)', async () => {
    const { tree: t, header } = await populated();
    const ids = async (styleId: string, query: string) =>
      (await api<Header[]>('GET', `/material-headers?styleId=${styleId}&${query}`)).body.data.map(
        (entry) => entry.id,
      );
    expect(await ids(t.style, `name=${header.name.slice(0, 5).toUpperCase()}`)).toEqual([header.id]);
    expect(await ids(t.style, 'description=SHE')).toEqual([header.id]);
    expect(await ids(t.variants[0] as string, 'isOwner=false')).toEqual([header.id]);
    expect(await ids(t.variants[0] as string, 'isOwner=true')).toEqual([]);
    expect(await ids(t.style, 'isMainMaterial=false')).toEqual([]);
    expect((await api('GET', `/material-headers?styleId=${t.style}&isOwner=yes`)).status).toBe(400);
    expect((await api('GET', '/material-headers')).status).toBe(400);
  });

  it("rule: a link.styleId outside the caller's catalogue is 404 entity_not_found", async () => {
    const response = await api('POST', '/material-headers', {
      name: 'x',
      link: { styleId: OTHER_BRAND_TOTE },
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('entity_not_found');
  });

  it('rule: isMainMaterial is held per link, so each product sets its own through the owner', async () => {
    const t = await tree();
    const header = await composition(t.style);
    const response = await api<Header>('PUT', `/material-headers/${header.id}`, {
      name: header.name,
      link: { styleId: t.style, isMainMaterial: false },
    });
    expect(response.body.data).toMatchObject({
      id: header.id,
      link: { isMainMaterial: false, isOwner: true },
    });
    expect((await headersOf(t.variants[0] as string))[0]?.link.isMainMaterial).toBe(true);
  });
});

describe('material tree rules', () => {
  it('rule: positions are auto-assigned in steps of 100 and hierarchy is the depth from 0', async () => {
    const { cotton, organic, polyester } = await populated();
    expect([cotton.position, polyester.position]).toEqual([100, 200]);
    expect([cotton.hierarchy, organic.hierarchy, organic.position]).toEqual([0, 1, 100]);
  });

  it('rule: sibling percentages may sum to at most 100 (400 percentage_constraint_violation), not exactly 100', async () => {
    const { tree: t, header, cotton } = await populated();
    const over = await addLine(t.style, header.id, { percentage: 0.01 });
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('percentage_constraint_violation');
    expect(
      (await addLine(t.style, header.id, { parentId: cotton.id, percentage: 50, countriesOfOrigin: ['PK'] }))
        .status,
    ).toBe(201);
    expect((await addLine(t.style, header.id, { parentId: cotton.id, percentage: 1 })).body.code).toBe(
      'percentage_constraint_violation',
    );
  });

  // Spec 02: "percentage | number | 0-100, share among siblings"; tree rule 1: "Sibling percentages at one tree level
  // must sum to at most 100". No rounding is stated: the number sent is stored and the sum is held to 100.
  it('rule: a percentage is stored as sent (0, 33.333) and siblings over 100 by less than a hundredth are refused', async () => {
    const t = await tree();
    const header = await composition(t.style);
    const third = await line(t.style, header.id, { percentage: 33.333 });
    const zero = await line(t.style, header.id, { rawMaterialId: 'rawmat_elastane', percentage: 0 });
    expect([third.percentage, zero.percentage]).toEqual([33.333, 0]);
    expect((await linesOf(header.id)).map((l) => l.percentage)).toEqual([33.333, 0]);
    await line(t.style, header.id, { rawMaterialId: 'rawmat_wool', percentage: 33.333 });
    expect(
      (await addLine(t.style, header.id, { rawMaterialId: 'rawmat_polyester', percentage: 33.334 })).status,
    ).toBe(201);
    const over = await addLine(t.style, header.id, { rawMaterialId: 'rawmat_silk', percentage: 0.004 });
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('percentage_constraint_violation');
  });

  it("rule: a child's countries must be a subset of its parent's (400 countries_of_origin_constraint_violation)", async () => {
    const { tree: t, header, cotton, polyester } = await populated();
    await api('PUT', `/material-lines/${polyester.id}`, {
      styleId: t.style,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_polyester',
      percentage: 30,
      countriesOfOrigin: ['CN'],
    });
    const response = await addLine(t.style, header.id, {
      parentId: cotton.id,
      percentage: 10,
      countriesOfOrigin: ['CN'],
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('countries_of_origin_constraint_violation');
  });

  it('rule: a parent without countries cannot have children with countries', async () => {
    const t = await tree();
    const header = await composition(t.style);
    const parent = await line(t.style, header.id, { percentage: 50 });
    expect(
      (await addLine(t.style, header.id, { parentId: parent.id, countriesOfOrigin: ['PT'] })).body.code,
    ).toBe('countries_of_origin_constraint_violation');
    expect((await addLine(t.style, header.id, { parentId: parent.id })).status).toBe(201);
  });

  it('rule: removing from a root line a country a child still uses is 400 parent_countries_constraint_violation', async () => {
    const { tree: t, header, cotton } = await populated();
    const response = await api('PUT', `/material-lines/${cotton.id}`, {
      styleId: t.style,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_cotton',
      percentage: 60,
      countriesOfOrigin: ['PK'],
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('parent_countries_constraint_violation');
  });

  it('rule: a parentId that is not a line of the same composition is 404 parent_line_not_found', async () => {
    const { tree: t, header } = await populated();
    const other = await populated();
    const response = await addLine(t.style, header.id, { parentId: other.cotton.id });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('parent_line_not_found');
  });

  it('rule: country codes are exactly 2 characters and percentage is 0-100', async () => {
    const { tree: t, header } = await populated();
    expect((await addLine(t.style, header.id, { percentage: 0, countriesOfOrigin: ['PRT'] })).status).toBe(
      400,
    );
    expect((await addLine(t.style, header.id, { percentage: 101 })).status).toBe(400);
    expect((await addLine(t.style, header.id, { percentage: 0, weights: -1 })).status).toBe(400);
  });

  it('rule: PUT /material-lines/{id} is a full replace: omitted weights, weightUnit and countries become null', async () => {
    const t = await tree();
    const header = await composition(t.style);
    const root = await line(t.style, header.id, {
      percentage: 20,
      weights: 1.5,
      weightUnit: 'kg',
      countriesOfOrigin: ['PT'],
    });
    const response = await api<Line>('PUT', `/material-lines/${root.id}`, {
      styleId: t.style,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_linen',
      percentage: 25,
    });
    expect(response.body.data).toMatchObject({
      id: root.id,
      rawMaterialId: 'rawmat_linen',
      percentage: 25,
      weights: null,
      weightUnit: null,
      countriesOfOrigin: null,
      position: 100,
    });
  });

  it('rule: an omitted parentId moves the line to the root, keeping its stale hierarchy and checking the root sum', async () => {
    const { tree: t, header, organic } = await populated();
    const full = await api('PUT', `/material-lines/${organic.id}`, {
      styleId: t.style,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_cotton_organic',
      percentage: 50,
    });
    expect(full.body.code).toBe('percentage_constraint_violation');
    const moved = await api<Line>('PUT', `/material-lines/${organic.id}`, {
      styleId: t.style,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_cotton_organic',
      percentage: 0,
    });
    expect(moved.body.data).toMatchObject({ parentId: null, hierarchy: 1 });
  });

  it('rule: PUT /material-lines/{id} on a line outside the given composition is 404 material_line_not_found', async () => {
    const { tree: t, header } = await populated();
    const other = await populated();
    const response = await api('PUT', `/material-lines/${other.cotton.id}`, {
      styleId: t.style,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_cotton',
      percentage: 1,
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('material_line_not_found');
  });

  it('rule: a line write naming a composition not linked to styleId is 404 material_header_not_found', async () => {
    const { header } = await populated();
    const other = await tree();
    expect((await addLine(other.style, header.id, {})).body.code).toBe('material_header_not_found');
  });

  it('rule: deleting a line cascades one level only: grandchildren keep a dangling parentId', async () => {
    const { tree: t, header, cotton, organic } = await populated();
    const grandchild = await line(t.style, header.id, {
      parentId: organic.id,
      percentage: 100,
      countriesOfOrigin: ['IN'],
    });
    const response = await api<DeleteResult>('POST', '/material-lines/delete', {
      styleId: t.style,
      materialLineIds: [cotton.id],
    });
    expect(response.body.data.deletedLines.sort()).toEqual([cotton.id, organic.id].sort());
    const left = await linesOf(header.id);
    expect(left.find((entry) => entry.id === grandchild.id)?.parentId).toBe(organic.id);
  });

  it('rule: GET /material-lines filters by parentId (direct children), rawMaterialId and countriesOfOrigin, with includes', async () => {
    const { header, cotton, organic } = await populated();
    const children = (await api<Line[]>('GET', `/material-lines?parentId=${cotton.id}`)).body.data;
    expect(children.map((entry) => entry.id)).toEqual([organic.id]);
    const byCountry = (
      await api<Line[]>('GET', `/material-lines?materialHeaderId=${header.id}&countriesOfOrigin=pk`)
    ).body.data;
    expect(byCountry.map((entry) => entry.id)).toEqual([cotton.id]);
    const [withIncludes] = (
      await api<Line[]>(
        'GET',
        `/material-lines?materialHeaderId=${header.id}&rawMaterialId=rawmat_cotton_organic&include=rawMaterials,countriesOfOrigin`,
      )
    ).body.data;
    expect(withIncludes?.['rawMaterial']).toMatchObject({ id: 'rawmat_cotton_organic', isSynthetic: false });
    expect(withIncludes?.['countries']).toEqual([
      expect.objectContaining({ countryCode: 'IN', currencyCode: 'INR' }),
    ]);
  });

  it('rule: rawMaterialId is not validated (a wrong id creates a dangling reference)', async () => {
    const t = await tree();
    const header = await composition(t.style);
    const dangling = await line(t.style, header.id, { rawMaterialId: 'rawmat_does_not_exist' });
    const [read] = (
      await api<Line[]>('GET', `/material-lines?materialHeaderId=${header.id}&include=rawMaterials`)
    ).body.data;
    expect(read).toMatchObject({ id: dangling.id, rawMaterial: null });
  });
});

describe('material copy-on-write', () => {
  it('rule: a line write through an inherited link is a full fork: "(Copy)" header, lines copied with remapped parents, product detached', async () => {
    const { tree: t, header, cotton, organic } = await populated();
    const variant = t.variants[0] as string;
    const added = await line(variant, header.id, {
      parentId: organic.id,
      percentage: 100,
      countriesOfOrigin: ['IN'],
    });
    expect(added.materialHeaderId).not.toBe(header.id);
    const [fork] = await headersOf(variant);
    expect(fork).toMatchObject({
      id: added.materialHeaderId,
      name: `${header.name} (Copy)`,
      link: { isOwner: true },
    });
    const copied = await linesOf(added.materialHeaderId);
    expect(copied).toHaveLength(4);
    const copiedOrganic = copied.find((entry) => entry.rawMaterialId === 'rawmat_cotton_organic') as Line;
    const copiedCotton = copied.find(
      (entry) => entry.rawMaterialId === 'rawmat_cotton' && entry.parentId === null,
    ) as Line;
    expect(copiedOrganic.id).not.toBe(organic.id);
    expect(copiedOrganic.parentId).toBe(copiedCotton.id);
    expect(copiedCotton.id).not.toBe(cotton.id);
    expect(added.parentId).toBe(copiedOrganic.id);
    // The variant's own SKU and its sibling keep the original.
    expect((await headersOf(t.skus[0] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect((await headersOf(t.variants[1] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect(await linesOf(header.id)).toHaveLength(3);
  });

  it('rule: PUT /material-lines/{id} with no actual change through an inherited link returns the line, no copy', async () => {
    const { tree: t, header, polyester } = await populated();
    const sku = t.skus[1] as string;
    const response = await api<Line>('PUT', `/material-lines/${polyester.id}`, {
      styleId: sku,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_polyester',
      percentage: 40,
      countriesOfOrigin: ['CN'],
    });
    expect(response.body.data).toEqual(polyester);
    expect((await headersOf(sku)).map((entry) => entry.id)).toEqual([header.id]);
  });

  it('rule: PUT /material-lines/{id} with a change through an inherited link forks and answers ids of the copy', async () => {
    const { tree: t, header, polyester } = await populated();
    const sku = t.skus[1] as string;
    const response = await api<Line>('PUT', `/material-lines/${polyester.id}`, {
      styleId: sku,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_polyester_recycled',
      percentage: 40,
      countriesOfOrigin: ['CN'],
    });
    expect(response.body.data.id).not.toBe(polyester.id);
    expect(response.body.data.materialHeaderId).not.toBe(header.id);
    expect((await linesOf(header.id)).find((entry) => entry.id === polyester.id)?.rawMaterialId).toBe(
      'rawmat_polyester',
    );
  });

  it('rule: PUT /material-headers/{id} through an inherited link adds an empty header copy and keeps the inherited link', async () => {
    const { tree: t, header } = await populated();
    const variant = t.variants[1] as string;
    const same = await api<Header>('PUT', `/material-headers/${header.id}`, {
      name: header.name,
      link: { styleId: variant, isMainMaterial: true },
    });
    expect(same.body.data).toMatchObject({
      name: `${header.name} (Copy)`,
      link: { styleId: variant, isOwner: true },
    });
    expect(await linesOf(same.body.data.id)).toEqual([]);
    const renamed = await api<Header>('PUT', `/material-headers/${header.id}`, {
      name: 'Given name',
      link: { styleId: variant, isMainMaterial: false },
    });
    expect(renamed.body.data.name).toBe('Given name');
    const linked = await headersOf(variant);
    expect(linked.map((entry) => entry.id).sort()).toEqual(
      [header.id, same.body.data.id, renamed.body.data.id].sort(),
    );
    expect(linked.find((entry) => entry.id === header.id)?.link.isOwner).toBe(false);
  });

  it('rule: POST /material-lines/delete through an inherited link deletes from the shared composition and also forks (no detach)', async () => {
    const { tree: t, header, polyester } = await populated();
    const variant = t.variants[0] as string;
    const response = await api<DeleteResult>('POST', '/material-lines/delete', {
      styleId: variant,
      materialLineIds: [polyester.id, 'mtrialln_missing'],
    });
    expect(response.status).toBe(200);
    expect(response.body.data.deletedLines).toEqual([polyester.id]);
    expect(response.body.data.duplicatedHeaders).toHaveLength(1);
    expect(response.body.data.errors).toEqual([expect.objectContaining({ id: 'mtrialln_missing' })]);
    expect((await linesOf(header.id)).map((entry) => entry.id)).not.toContain(polyester.id);
    const linked = (await headersOf(variant)).map((entry) => entry.id);
    expect(linked.sort()).toEqual([header.id, response.body.data.duplicatedHeaders[0]].sort());
  });

  it('rule: POST /material-headers/delete through an inherited link removes only that link; through the owner the composition goes', async () => {
    const { tree: t, header } = await populated();
    const detach = await api<Record<string, unknown[]>>('POST', '/material-headers/delete', {
      styleId: t.variants[0],
      materialHeaderIds: [header.id],
    });
    expect(detach.body.data['deletedHeaders']).toEqual([]);
    expect(detach.body.data['deletedLinks']).toHaveLength(1);
    expect(await headersOf(t.variants[0] as string)).toEqual([]);
    expect((await headersOf(t.skus[0] as string)).map((entry) => entry.id)).toEqual([header.id]);
    const removed = await api<Record<string, unknown[]>>('POST', '/material-headers/delete', {
      styleId: t.style,
      materialHeaderIds: [header.id, 'mtrialhdr_missing'],
    });
    expect(removed.body.data['deletedHeaders']).toEqual([header.id]);
    expect(removed.body.data['errors']).toEqual([
      expect.objectContaining({ id: 'mtrialhdr_missing', code: 'material_header_not_found' }),
    ]);
    expect(await headersOf(t.skus[1] as string)).toEqual([]);
  });

  it('rule: writes through the owner modify the shared composition for every inheriting child', async () => {
    const { tree: t, header, polyester } = await populated();
    await api('PUT', `/material-lines/${polyester.id}`, {
      styleId: t.style,
      materialHeaderId: header.id,
      rawMaterialId: 'rawmat_polyester',
      percentage: 35,
      countriesOfOrigin: ['CN'],
    });
    expect((await headersOf(t.skus[0] as string)).map((entry) => entry.id)).toEqual([header.id]);
    expect((await linesOf(header.id)).find((entry) => entry.id === polyester.id)?.percentage).toBe(35);
  });
});
