import { collect, type TraceabilityClient } from '../../connectors/traceability';
import { caught, startHarness, type Harness } from './harness';

let h: Harness;
let client: TraceabilityClient;

beforeAll(async () => {
  h = await startHarness();
  client = h.client();
});
afterAll(async () => h.close());

describe('certificates, supply chains and ESG against the sandbox', () => {
  it('lists certificates with filters across pages and reads one with a fresh file URL', async () => {
    const approved = await collect(client.certificates.iterate({ status: 'APPROVED', type: 'SCOPE' }));
    expect(approved.length).toBeGreaterThan(0);
    expect(approved.every((c) => c.status === 'APPROVED' && c.type === 'SCOPE')).toBe(true);
    const byFilter = await client.certificates.list({ filter: { name: 'GOTS' }, limit: 100 });
    expect(byFilter.items.every((c) => c.name.includes('GOTS'))).toBe(true);
    const one = await client.certificates.get(approved[0]?.id ?? '');
    expect(one.id).toBe(approved[0]?.id);
    expect((await caught(client.certificates.get('cert_missing'))).statusCode).toBe(404);
  });

  it('reads a supply chain by externalId, falling back to the closest ancestor', async () => {
    const chain = await client.supplyChains.get('PLM-TEE-001-BLK');
    expect(chain.nodesByProductionProcesses.length).toBeGreaterThan(0);
    expect(chain.nodesByProductionProcesses[0]?.tier).toMatch(/^T\d/);
    expect((await caught(client.supplyChains.get('no-such-product'))).code).toBe('not_found');
  });

  it('reads a shared ESG profile with filters and 404s an unshared one', async () => {
    const esg = await client.esg.get('cmp_sup_gujarat_mills');
    expect(esg.environmental.sectionId).toBe('2.1');
    const energy = await client.esg.get('cmp_sup_gujarat_mills', { templateId: '2.1.6.1' });
    expect(energy.environmental.dataPoints.every((p) => p.templateId === '2.1.6.1')).toBe(true);
    expect((await caught(client.esg.get('cmp_sup_dhaka_knitwear'))).code).toBe('company_not_found');
  });
});
