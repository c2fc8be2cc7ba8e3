/**
 * The catalogue scan reads GET /styles by page number (spec 01: "Iterate until `page` reaches `totalPages`"). A
 * listing that loses products while it is read shifts the later ones back onto pages already read: archiving a style
 * "Always cascades to all variants and SKUs of an archived style" (spec 01), so an operator archiving a season while
 * a nightly repair runs moves hundreds of SKUs out of the `isArchived=false` listing at once. The products after them
 * must still be looked at, or their forks are never repaired (and a `sinceLastRun` mark moves past them).
 */
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import { TraceJob } from '../../worker/search-attributes';
import { bomRepair } from '../../workflows';
import type { TestStack } from '../harness';
import { buildTree, forkThroughSku, startBomRepairStack, TEE_LINES } from './bom-trees';

describe('bomRepair scan while the catalogue moves', () => {
  let stack: TestStack;
  const control = async (method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown) => {
    const res = await fetch(`${new URL(stack.sandbox.baseUrl).origin}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const answers = async () => Number((await control('GET', '/__sandbox/stats'))['total']);

  beforeAll(async () => {
    stack = await startBomRepairStack();
  }, 60_000);

  afterAll(async () => {
    await control('DELETE', '/__sandbox/faults').catch(() => undefined);
    await stack?.stop();
  });

  it('finds a fork on page 2 of the SKU listing when a style with 110 SKUs is archived after page 1 was read', async () => {
    const api = stack.apiClient;
    const tag = `mv${Date.now().toString(36)}`;
    const product = (externalId: string, extra: Record<string, unknown>) =>
      api.products.create({
        externalId,
        codes: [{ codeId: 'PLM_ID', codeValue: externalId }],
        name: externalId,
        ...extra,
      } as Parameters<typeof api.products.create>[0]);
    const season = await product(`${tag}-OLD`, { styleTypeId: 'st_tshirts', isComponent: false });
    const variant = await product(`${tag}-OLD-V`, { parentId: season.id, color: 'GRY' });
    for (let i = 0; i < 110; i++)
      await product(`${tag}-OLD-${i}`, { parentId: variant.id, dimension: `S${i}` });
    // Created after the old season's SKUs: listed oldest first, its SKUs sit on page 2.
    const tree = await buildTree(api, tag, TEE_LINES);
    const forked = tree.skus[3]!;
    await forkThroughSku(api, tree, forked, (l) => l.styleId === DEMO_IDS.button);

    // Each GET /styles page waits 1.5 s; the stage's calls are, in order: variants (one page), archived variants,
    // SKUs page 1, SKUs page 2, ... The season is archived once SKUs page 1 was answered, before page 2 is served.
    const before = await answers();
    await control('PUT', '/__sandbox/faults', { latencyMs: 1_500, methods: ['GET'], pathPrefix: '/styles' });
    const handle = await stack.client.workflow.start(bomRepair, {
      args: [{ all: true, dryRun: true }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('bom-repair-scan-moves'),
      typedSearchAttributes: [{ key: TraceJob, value: 'bom-repair' }],
    });
    const deadline = Date.now() + 60_000;
    while ((await answers()) < before + 3) {
      if (Date.now() > deadline) throw new Error('the scan never read SKUs page 1');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await api.products.archive([season.id]);
    const result = await handle.result();
    await control('DELETE', '/__sandbox/faults');

    const found = result.products.find((p) => p.productId === forked);
    expect(found).toMatchObject({ wouldRepair: 3 });
    expect(result.linesWouldRepair).toBeGreaterThanOrEqual(3);
    // The second read of the SKU listing held: nothing is reported as possibly missed.
    expect(result.listingsMoved).toBeUndefined();
  }, 180_000);
});
