import { sandboxPerFile } from '../harness/sandbox-client';

interface Company {
  id: string;
  name: string;
  internalCompanyCode: string | null;
  country: string | null;
}
interface Process {
  id: string;
  name: string;
  productionProcessId?: string;
  depthLevel?: number;
}
interface ChainNode {
  tier: string;
  companyId: string;
  companyName: string;
  country: string;
  coordinates: { latitude: number; longitude: number } | null;
  address: Record<string, string | null>;
  facilityProcesses: string[];
  productionProcess: string;
}
interface Chain {
  productId: string;
  productName: string;
  nodesByProductionProcesses: Array<{
    productionProcessId: string;
    productionProcessName: string;
    tier: string;
    nodes: ChainNode[];
  }>;
}
interface EsgSection {
  sectionId: string;
  totalDataPoints: number;
  answeredDataPoints: number;
  dataPoints: Array<{
    platformId: string;
    name: string;
    templateId: string;
    impactArea: string;
    value: number | null;
  }>;
}
type Esg = { companyId: string } & Record<'environmental' | 'social' | 'governance', EsgSection>;

const SUPPLIER = 'cmp_sup_anatolia_garments';
const TEE_STYLE = 'style_01J9ZDEM000000000000000001';
const TEE_SKU = 'sku_01J9ZDEM000000000000000001';
const JACKET_STYLE = 'style_01J9ZDEM000000000000000002';
const CHINO = 'a8f3k2m9q1x7';
const OTHER_BRAND_TOTE = 'style_01J9ZDEM000000000000000050';

const file = sandboxPerFile({ childLinkDelayMs: 0 });
const api = <T>(path: string, key?: string) => file.api<T>('GET', path, undefined, key);

const companies = async (value: Record<string, unknown>, key = 'sandbox-key-brand'): Promise<Company[]> =>
  (await api<Company[]>(`/companies?limit=100&filter=${encodeURIComponent(JSON.stringify(value))}`, key)).body
    .data;

describe('GET /companies', () => {
  it('rule: filter.internalCompanyCode maps an external company code to the platform id (case-insensitive substring)', async () => {
    expect((await companies({ internalCompanyCode: 'sup-10021' })).map((company) => company.id)).toEqual([
      'cmp_sup_izmir_spinning',
    ]);
    const partial = (await companies({ internalCompanyCode: 'SUP-1002' }))
      .map((company) => company.id)
      .sort();
    expect(partial).toEqual(['cmp_sup_gujarat_mills', 'cmp_sup_izmir_spinning']);
  });

  it('rule: name, officialName and city match case-insensitive substrings', async () => {
    expect((await companies({ name: 'MILLS' })).map((company) => company.id)).toEqual([
      'cmp_sup_gujarat_mills',
    ]);
    expect((await companies({ officialName: 'lanificio' })).map((company) => company.id)).toEqual([
      'cmp_sup_prato_wool',
    ]);
    expect((await companies({ city: 'tiru' })).map((company) => company.id)).toEqual([
      'cmp_sup_tirupur_cotton',
    ]);
  });

  it('rule: country is an exact ISO code, several comma-separated', async () => {
    const ids = (await companies({ country: 'TR,IT' })).map((company) => company.id).sort();
    expect(ids).toEqual(['cmp_sup_anatolia_garments', 'cmp_sup_izmir_spinning', 'cmp_sup_prato_wool']);
    expect(await companies({ country: 'T' })).toEqual([]);
  });

  it('rule: only the caller and the companies in its network are found', async () => {
    expect((await companies({ name: 'Other Label' })).length).toBe(0);
    expect((await companies({}, 'sandbox-key-other-brand')).map((company) => company.id)).toEqual([
      'cmp_brand_other_label',
    ]);
  });

  it('rule: a filter that is not a JSON object is 400', async () => {
    expect((await api('/companies?filter=%7Bname')).status).toBe(400);
  });
});

describe('process reference lists', () => {
  it('rule: there are more than 100 facility processes, so the list pages (limit up to 100)', async () => {
    const first = await api<Process[]>('/facility-processes?limit=100');
    expect(first.body.metadata.pagination?.total).toBeGreaterThan(100);
    expect(first.body.metadata.pagination?.totalPages).toBeGreaterThanOrEqual(2);
    const second = await api<Process[]>('/facility-processes?limit=100&page=2');
    expect(second.body.data.length).toBeGreaterThan(0);
    const ids = [...first.body.data, ...second.body.data].map((process) => process.id);
    expect(ids).toEqual(
      expect.arrayContaining(['CUT_MAKE_TRIM', 'WEAVING_MILL', 'QUALITY_ASSURANCE', 'LAUNDRY']),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('rule: every facility process names its parent production process, which carries a depthLevel', async () => {
    const production = (await api<Process[]>('/production-processes?limit=100')).body.data;
    expect(production.find((process) => process.id === 'MANUFACTURING')?.depthLevel).toBe(1);
    expect(production.find((process) => process.id === 'FABRIC_PROCESSING')?.depthLevel).toEqual(
      expect.any(Number),
    );
    const known = new Set(production.map((process) => process.id));
    const facility = (await api<Process[]>('/facility-processes?limit=100')).body.data;
    expect(facility.every((process) => known.has(process.productionProcessId as string))).toBe(true);
    expect(facility.find((process) => process.id === 'CUT_MAKE_TRIM')).toMatchObject({
      name: 'Cut make trim',
      productionProcessId: 'MANUFACTURING',
    });
  });
});

describe('GET /supply-chains/{id}', () => {
  it("rule: the product's chain comes grouped by production process, tiers from depth, nodes with display names", async () => {
    const response = await api<Chain>(`/supply-chains/${TEE_STYLE}`);
    expect(response.status).toBe(200);
    const chain = response.body.data;
    expect(chain).toMatchObject({ productId: TEE_STYLE, productName: 'Merino Crew Tee' });
    const manufacturing = chain.nodesByProductionProcesses.find(
      (group) => group.productionProcessId === 'MANUFACTURING',
    );
    expect(manufacturing).toMatchObject({ productionProcessName: 'Manufacturing', tier: 'T1' });
    const node = manufacturing?.nodes[0] as ChainNode;
    expect(node).toMatchObject({
      tier: 'T1',
      companyId: SUPPLIER,
      companyName: 'Anatolia Garments',
      country: 'TR',
      productionProcess: 'Manufacturing',
    });
    expect(node.facilityProcesses).toEqual(['Cut make trim', 'Quality assurance']);
    expect(node.coordinates).toEqual({ latitude: expect.any(Number), longitude: expect.any(Number) });
    const tiers = chain.nodesByProductionProcesses.map((group) => Number(group.tier.slice(1)));
    expect(tiers).toEqual([...tiers].sort((a, b) => a - b));
  });

  it("rule: a product without a chain of its own gets its closest ancestor's active chain", async () => {
    const chain = (await api<Chain>(`/supply-chains/${TEE_SKU}`)).body.data;
    expect(chain.productId).toBe(TEE_SKU);
    expect(chain.nodesByProductionProcesses.length).toBeGreaterThan(0);
  });

  it('rule: nothing mapped (or an inactive story) is 200 with an empty nodesByProductionProcesses', async () => {
    expect((await api<Chain>(`/supply-chains/${JACKET_STYLE}`)).body.data.nodesByProductionProcesses).toEqual(
      [],
    );
    const inactive = await api<Chain>(`/supply-chains/${CHINO}`);
    expect(inactive.status).toBe(200);
    expect(inactive.body.data.nodesByProductionProcesses).toEqual([]);
  });

  it("rule: an unknown product id (or another company's) is 404 not_found", async () => {
    for (const id of ['style_missing', OTHER_BRAND_TOTE]) {
      const response = await api(`/supply-chains/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });
});

describe('GET /companies/{companyId}/esg', () => {
  it('rule: a shared profile of a network company has three sections 2.1, 2.2, 2.3 with counts', async () => {
    const response = await api<Esg>(`/companies/${SUPPLIER}/esg`);
    expect(response.status).toBe(200);
    const esg = response.body.data;
    expect([esg.environmental.sectionId, esg.social.sectionId, esg.governance.sectionId]).toEqual([
      '2.1',
      '2.2',
      '2.3',
    ]);
    for (const section of [esg.environmental, esg.social, esg.governance]) {
      expect(section.totalDataPoints).toBe(section.dataPoints.length);
      expect(section.answeredDataPoints).toBe(
        section.dataPoints.filter((point) => point.value !== null).length,
      );
    }
  });

  it('rule: filters combine with AND and the counts describe the filtered result', async () => {
    const energy = (await api<Esg>(`/companies/${SUPPLIER}/esg?templateId=2.1.6.1`)).body.data;
    expect(energy.environmental.totalDataPoints).toBe(3);
    expect(energy.social.totalDataPoints).toBe(0);
    const combined = (await api<Esg>(`/companies/${SUPPLIER}/esg?templateId=2.1.6.1&name=COAL`)).body.data;
    expect(combined.environmental.dataPoints.map((point) => point.name)).toEqual([
      'Share of coal in energy mix',
    ]);
    const area = (await api<Esg>(`/companies/${SUPPLIER}/esg?impactArea=wage`)).body.data;
    expect(area.social.dataPoints.every((point) => point.impactArea === 'Wages')).toBe(true);
    expect(area.social.totalDataPoints).toBe(1);
    const platformId = combined.environmental.dataPoints[0]?.platformId as string;
    const exact = (await api<Esg>(`/companies/${SUPPLIER}/esg?platformId=${platformId}`)).body.data;
    expect(exact.environmental.dataPoints.map((point) => point.platformId)).toEqual([platformId]);
  });

  it('rule: an unknown company, or a profile not shared with the caller, is 404 company_not_found', async () => {
    for (const id of ['cmp_unknown', 'cmp_sup_dhaka_knitwear']) {
      const response = await api(`/companies/${id}/esg`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('company_not_found');
    }
    expect((await api(`/companies/${SUPPLIER}/esg`, 'sandbox-key-other-brand')).status).toBe(404);
  });

  it('rule: a company always sees its own profile', async () => {
    expect((await api<Esg>('/companies/cmp_brand_nordic_threads/esg')).body.data.companyId).toBe(
      'cmp_brand_nordic_threads',
    );
  });
});
