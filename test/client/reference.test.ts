import { collect, describeLookupFailure } from '../../connectors/traceability';
import { sandboxForFile } from '../harness/sandbox-client';

const h = sandboxForFile();

describe('reference data against the sandbox', () => {
  it('reads every facility process page and caches the list', async () => {
    const first = await h.client.processes.listFacility({ limit: 100 });
    expect(first.pagination.totalPages).toBeGreaterThan(1);
    const all = await collect(h.client.processes.iterateFacility());
    expect(all.length).toBe(first.pagination.total);

    const before = h.client.stats().calls;
    expect(await h.client.reference.resolveFacilityProcess('Weaving mill')).toMatchObject({ ok: true });
    const spent = h.client.stats().calls - before;
    expect(await h.client.reference.resolveFacilityProcess('laundry')).toMatchObject({ ok: true });
    expect(h.client.stats().calls - before).toBe(spent);
  });

  it('maps names to ids and suggests near matches for unknown names', async () => {
    const type = await h.client.reference.resolveStyleType('jackets');
    expect(type).toMatchObject({ ok: true, id: 'st_jackets' });
    const typo = await h.client.reference.resolveStyleType('Jakcets');
    if (typo.ok) throw new Error('typo should not resolve');
    expect(typo.suggestions.map((s) => s.id)).toContain('st_jackets');
    expect(describeLookupFailure('style type', typo)).toContain("did you mean 'Jackets' (st_jackets)");

    expect(await h.client.reference.resolveStyleProperty('brands', 'Nordic Threads')).toMatchObject({
      ok: true,
      id: 'prop_brand_nordic',
    });
    expect(await h.client.reference.resolveProductionProcess('MANUFACTURING')).toMatchObject({
      ok: true,
      id: 'MANUFACTURING',
    });
    expect(await h.client.reference.resolvePlacement('sleeve')).toMatchObject({
      ok: true,
      id: 'bomplc_demo_sleeve',
    });
  });

  it('maps company codes exactly although the API filter is a substring match', async () => {
    const substring = await h.client.companies.list({ filter: { internalCompanyCode: 'SUP-1002' } });
    expect(substring.items.length).toBe(2);
    const mapped = await h.client.naturalKeys.mapCompanyCodes(['SUP-1002', 'SUP-9999', 'SUP-1002']);
    expect(mapped.get('SUP-1002')).toEqual({ status: 'found', id: 'cmp_sup_gujarat_mills' });
    expect(mapped.get('SUP-9999')).toEqual({ status: 'not_found' });
    expect(mapped.size).toBe(2);
  });
});
