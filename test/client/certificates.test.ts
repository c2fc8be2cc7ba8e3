import { collect } from '../../connectors/traceability';
import { caught } from '../harness/errors';
import { sandboxForFile } from '../harness/sandbox-client';

const h = sandboxForFile();

describe('certificates, supply chains and ESG against the sandbox', () => {
  it('lists certificates with filters across pages and reads one with a fresh file URL', async () => {
    const approved = await collect(h.client.certificates.iterate({ status: 'APPROVED', type: 'SCOPE' }));
    expect(approved.length).toBeGreaterThan(0);
    expect(approved.every((c) => c.status === 'APPROVED' && c.type === 'SCOPE')).toBe(true);
    const byFilter = await h.client.certificates.list({ filter: { name: 'GOTS' }, limit: 100 });
    expect(byFilter.items.every((c) => c.name.includes('GOTS'))).toBe(true);
    const one = await h.client.certificates.get(approved[0]?.id ?? '');
    expect(one.id).toBe(approved[0]?.id);
    expect((await caught(h.client.certificates.get('cert_missing'))).statusCode).toBe(404);
  });

  it('reads a supply chain by externalId, falling back to the closest ancestor', async () => {
    const chain = await h.client.supplyChains.get('PLM-TEE-001-BLK');
    expect(chain.nodesByProductionProcesses.length).toBeGreaterThan(0);
    expect(chain.nodesByProductionProcesses[0]?.tier).toMatch(/^T\d/);
    expect((await caught(h.client.supplyChains.get('no-such-product'))).code).toBe('not_found');
  });

  it('reads a shared ESG profile with filters and 404s an unshared one', async () => {
    const esg = await h.client.esg.get('cmp_sup_gujarat_mills');
    expect(esg.environmental.sectionId).toBe('2.1');
    const energy = await h.client.esg.get('cmp_sup_gujarat_mills', { templateId: '2.1.6.1' });
    expect(energy.environmental.dataPoints.every((p) => p.templateId === '2.1.6.1')).toBe(true);
    expect((await caught(h.client.esg.get('cmp_sup_dhaka_knitwear'))).code).toBe('company_not_found');
  });
});
