/**
 * A BOM repair batch that fails after it repaired some lines (a 5xx past the client's retries, a 429 with a long
 * Retry-After, a dead worker) is retried by Temporal. The repaired lines no longer look broken (spec 02, "Copy
 * fidelity caveat": "lines copied during a BOM fork currently do not keep the component reference (`styleId`) [...]
 * Clients re-read the copied lines and re-apply references"), so the retry must know from its journal what the
 * failed attempt wrote, report those lines as repaired and verify them.
 */
import { createActivities } from '../../activities';
import {
  TraceabilityApiError,
  type BomLineListQuery,
  type CallOptions,
  type TraceabilityClient,
} from '../../connectors/traceability';
import type { BomsResource } from '../../connectors/traceability/resources/boms';
import { TraceJob } from '../../worker/search-attributes';
import { bomRepair } from '../../workflows';
import type { RepairBomForksResult, RepairBomInput } from '../../workflows/bom-repair';
import { startTestStack, type TestStack } from '../harness';
import { buildTree, forkThroughSku, linesOf, TEE_LINES } from './bom-trees';

describe('bomRepair retried after a fault that followed its writes', () => {
  let stack: TestStack;
  /** The fork whose re-read after the repair's PUTs fails once, as a 503 the client gave up on. */
  let failVerificationOf: string | undefined;
  let putsThroughWorker = 0;
  let failures = 0;

  /** The worker's client, with the fork's first re-read after a PUT failing (the product has no such hook). */
  function faulty(client: TraceabilityClient): TraceabilityClient {
    const boms = Object.create(client.boms) as BomsResource;
    boms.replaceLine = async (...args: Parameters<BomsResource['replaceLine']>) => {
      putsThroughWorker += 1;
      return client.boms.replaceLine(...args);
    };
    boms.listLines = async (query?: BomLineListQuery, options?: CallOptions) => {
      if (putsThroughWorker > 0 && failures === 0 && query?.bomHeaderId === failVerificationOf) {
        failures += 1;
        throw new TraceabilityApiError({
          statusCode: 503,
          code: 'http_503',
          message: 'GET /bom-lines failed with 503',
          method: 'GET',
          path: '/bom-lines',
          retryable: true,
          attempts: 4,
        });
      }
      return client.boms.listLines(query, options);
    };
    return Object.assign(Object.create(client) as TraceabilityClient, { boms });
  }

  const run = (input: RepairBomInput, name: string): Promise<RepairBomForksResult> =>
    stack.client.workflow.execute(bomRepair, {
      args: [input],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId(`bom-repair-retry-${name}`),
      typedSearchAttributes: [{ key: TraceJob, value: 'bom-repair' }],
    });

  beforeAll(async () => {
    stack = await startTestStack({
      sandbox: { childLinkDelayMs: 300, rateLimitPerMinute: 100_000 },
      activities: (deps) => createActivities({ ...deps, client: faulty(deps.client) }),
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('lines the failed attempt repaired are reported as repaired by the retry, and verified', async () => {
    const tree = await buildTree(stack.apiClient, 'retry', TEE_LINES);
    const sku = tree.skus[0]!;
    const forkId = await forkThroughSku(stack.apiClient, tree, sku, (l) => l.quantityUnit === 'PIECES');
    expect((await linesOf(stack.apiClient, forkId)).filter((l) => l.styleId === null)).toHaveLength(3);
    failVerificationOf = forkId;

    const result = await run({ products: [tree.ext[sku]!] }, 'after-puts');
    expect(failures).toBe(1);
    // The first attempt wrote the three lines, the retry wrote nothing again.
    expect(putsThroughWorker).toBe(3);
    expect(result).toMatchObject({
      productsWithForks: 1,
      linesRepaired: 3,
      linesFailed: 0,
      linesAmbiguous: 0,
      linesUnmatched: 0,
    });
    const product = result.products[0]!;
    expect(product).toMatchObject({ productId: sku, repaired: 3, verified: true });
    expect(product.headers).toEqual([
      expect.objectContaining({ headerId: forkId, sourceHeaderId: tree.headerId, linesWithoutComponent: 3 }),
    ]);
    expect(product.lines.map((l) => l.outcome)).toEqual(['repaired', 'repaired', 'repaired']);
    expect((await linesOf(stack.apiClient, forkId)).filter((l) => l.styleId === null)).toEqual([]);
  });
});
