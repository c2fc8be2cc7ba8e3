/**
 * Job 3 on an API far away: how fast does a BOM repair settle products whose forks lost their components? Builds
 * `--trees` catalogue trees (a style with two variants of two SKUs, a BOM of four lines on the style, each SKU's
 * BOM forked by an edit through it), then repairs them through the job's activities, as the workflow drives them
 * (batches of 25), with one client built as the worker builds it, against a sandbox whose answers come
 * `--latency-ms` (100) each way and 0-`--jitter-ms` (40) more. Prints the products and lines repaired, the time,
 * products a second, and the calls spent while repairing against what the key allows. No goal: the figures say
 * whether the job's pace is set by the allowance or by its round trips.
 * Run: node bin/run-ts.cjs bench/bom-repair-remote.ts [--trees 15] [--limit 3000] [--latency-ms 100] [--jitter-ms 40]
 */
import { z } from 'zod';
import {
  createBomRepairActivities,
  PRODUCT_LANES,
  type BomRepairBatchResult,
  type StagedBomRepairCandidates,
} from '../activities/bom-repair';
import { forEachBounded } from '../connectors/staging/journal';
import { DEMO_IDS } from '../sandbox/seed/demo-catalogue';
import { buildTree, forkThroughSku, TEE_LINES } from '../test/integration/bom-trees';
import { arg, networkArgs, WINDOW_MS } from './client-rate-figures';
import { withRemoteJobStage } from './remote-job-stage';

/** Products per repair activity: the workflow's default `batchSize`. */
const BATCH_SIZE = 25;

async function main(): Promise<void> {
  const positive = z.coerce.number().int().positive();
  const limit = positive.parse(arg('limit') ?? '3000');
  const trees = positive.parse(arg('trees') ?? '15');
  const network = networkArgs(100);
  const line = (label: string, value: string) => console.log(`${label.padEnd(36)}${value}`);
  const sandboxOptions = {
    rateLimitPerMinute: limit,
    jitterMs: network.jitterMs,
    networkDelayMs: network.latencyMs,
    childLinkDelayMs: 0,
  };
  await withRemoteJobStage('bom-remote', sandboxOptions, async ({ sandbox, client, config, env }) => {
    const { counted, refusedAt } = sandbox;
    line(
      'bom-repair-remote:',
      `${trees} trees, ${trees * 4} forks, allowance ${limit}/min, API ${network.latencyMs} ms and 0-${network.jitterMs} ms each way`,
    );
    const styles: string[] = [];
    await forEachBounded(
      Array.from({ length: trees }, (_, i) => i),
      8,
      async (i) => {
        const tree = await buildTree(client, `bench${i}`, TEE_LINES);
        for (const sku of tree.skus)
          await forkThroughSku(client, tree, sku, (l) => l.styleId === DEMO_IDS.button);
        styles.push(tree.styleId);
      },
    );

    const activities = createBomRepairActivities({ client, config });
    const runKey = 'bench-bom-remote';
    const staged: StagedBomRepairCandidates = await env.run(activities.stageBomRepairCandidates, {
      selector: { kind: 'products' as const, products: styles },
      runKey,
    });
    const from = Date.now();
    const callsFrom = counted.length;
    let repaired = 0;
    let products = 0;
    for (let offset = 0; offset < staged.candidates.items; offset += BATCH_SIZE) {
      const batch: BomRepairBatchResult = await env.run(activities.repairBomBatch, {
        runKey,
        candidates: staged.candidates,
        offset,
        limit: BATCH_SIZE,
        dryRun: false,
        sourceNames: {},
      });
      for (const product of batch.results) {
        repaired += product.repaired;
        if (product.verified === true) products += 1;
      }
    }
    const seconds = (Date.now() - from) / 1000;
    const calls = counted.length - callsFrom;
    line('products repaired and verified:', `${products} of ${staged.candidates.items} candidates`);
    line('lines repaired:', `${repaired}`);
    line('repair time:', `${seconds.toFixed(1)} s (${(products / seconds).toFixed(2)} products a second)`);
    line(
      'calls while repairing:',
      `${calls} (the key allows ${limit} in any ${WINDOW_MS / 1000} s; ${client.lanes(PRODUCT_LANES)} lanes)`,
    );
    line('429s:', `${refusedAt.length}`);
    if (products !== trees * 4) {
      console.error(`expected ${trees * 4} products repaired and verified, got ${products}`);
      process.exitCode = 1;
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
