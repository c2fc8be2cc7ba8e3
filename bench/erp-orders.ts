/**
 * Job 2 at scale: 1,000 new ERP orders (3 lines each) pushed through the job's activities against the sandbox over
 * HTTP, then the same file again. Prints API calls per order (aim: at most 1.01 for new orders, zero writes for the
 * unchanged re-push) and time. Run: node bin/run-ts.cjs bench/erp-orders.ts [--orders 1000]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  createErpOrderActivities,
  type BatchResult,
  type FinishOutput,
  type PrepareResult,
} from '../activities/erp-orders';
import { TraceabilityClient, type ClientMetricsSnapshot } from '../connectors/traceability';
import { startSandbox } from '../sandbox/server';
import { loadConfig } from '../worker/config';

const argIndex = process.argv.indexOf('--orders');
const ORDERS = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 1000;
const LINES = 3;
const PRODUCTS = ['PLM-TEE-001-BLK', 'PLM-TEE-001-OWH', 'PLM-JKT-010-NVY', 'CMP-FAB-POP'];
const SUPPLIERS = ['SUP-1001', 'SUP-1002', 'SUP-1003'];

function exportCsv(): string {
  const header =
    'order_number,supplier_code,buyer_facility_process,supplier_facility_process,order_date,status,tags,line_number,product_external_id,quantity,unit';
  const rows: string[] = [header];
  for (let o = 0; o < ORDERS; o++) {
    for (let l = 0; l < LINES; l++) {
      rows.push(
        [
          `BENCH-${String(o + 1).padStart(5, '0')}`,
          SUPPLIERS[o % SUPPLIERS.length],
          'Warehouse',
          'Cut make trim',
          '2024-03-01',
          'IN_PROGRESS',
          '"SS25,core"',
          String(l + 1),
          PRODUCTS[(o + l) % PRODUCTS.length],
          String(10 + l),
          'PIECES',
        ].join(','),
      );
    }
  }
  return `${rows.join('\n')}\n`;
}

function writes(stats: ClientMetricsSnapshot): number {
  return Object.entries(stats.byMethodStatus)
    .filter(([key]) => !key.startsWith('GET'))
    .reduce((sum, [, n]) => sum + n, 0);
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-erp-orders-'));
  const file = path.join(dir, 'orders.csv');
  await writeFile(file, exportCsv());
  const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 1_000_000 });
  const client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
  const activities = createErpOrderActivities({
    client,
    baseUrl: sandbox.baseUrl,
    config: loadConfig({ TRACE_DATA_DIR: dir }),
  });
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN') });

  const push = async (workflowId: string) => {
    client.resetStats();
    const started = performance.now();
    const prepared: PrepareResult = await env.run(activities.prepareErpOrderPush, {
      file,
      workflowId,
      batchSize: 250,
    });
    const batches: BatchResult[] = [];
    for (let batch = 0; batch < prepared.batchCount; batch++) {
      batches.push(
        await env.run(activities.applyErpOrderBatch, {
          runKey: prepared.runKey,
          manifest: prepared.manifest,
          batch,
          dryRun: false,
        }),
      );
    }
    const finished: FinishOutput = await env.run(activities.finishErpOrderPush, {
      runKey: prepared.runKey,
      manifest: prepared.manifest,
    });
    return { prepared, batches, finished, stats: client.stats(), ms: performance.now() - started };
  };

  try {
    const first = await push('bench-new');
    const second = await push('bench-unchanged');
    const row = (label: string, value: string) => console.log(`${label.padEnd(38)}${value}`);
    row('orders x lines:', `${ORDERS} x ${LINES}`);
    row('new orders: outcome', JSON.stringify(first.finished.totals.counts));
    row(
      'new orders: API calls',
      `${first.stats.calls} (${(first.stats.calls / ORDERS).toFixed(3)} per order; aim <= 1.01)`,
    );
    row('new orders: by method/status', JSON.stringify(first.stats.byMethodStatus));
    row('new orders: time', `${first.ms.toFixed(0)} ms (prepare ${first.prepared.durationMs} ms)`);
    row('unchanged re-push: outcome', JSON.stringify(second.finished.totals.counts));
    row('unchanged re-push: writes', `${writes(second.stats)} (aim 0)`);
    row(
      'unchanged re-push: API calls (reads)',
      `${second.stats.calls} (${(second.stats.calls / ORDERS).toFixed(3)} per order)`,
    );
    row('unchanged re-push: by method/status', JSON.stringify(second.stats.byMethodStatus));
    row('unchanged re-push: time', `${second.ms.toFixed(0)} ms`);
  } finally {
    await client.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
