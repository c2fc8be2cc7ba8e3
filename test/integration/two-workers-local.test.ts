/**
 * Two workers on one task queue, each with a data folder of its own (no shared volume, no TRACE_STORE_URL): a run
 * whose steps land on both cannot find what its earlier step staged. It must fail saying so, not blame the sweep.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createActivities, type ActivityDeps } from '../../activities';
import { erpOrders } from '../../workflows';
import { readHarnessInfo, startTestStack, type TestStack } from '../harness';
import { failureText } from '../harness/errors';
import { runWorker } from '../harness/stack';

describe('two workers with data folders of their own on one task queue', () => {
  let stack: TestStack;
  let dir = '';
  const stops: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'two-workers-local-it-'));
    let deps: ActivityDeps | undefined;
    stack = await startTestStack({
      config: { dataDir: path.join(dir, 'first') },
      // Every answer takes 30 ms, so both workers poll while the run goes on.
      sandbox: { rateLimitPerMinute: 100_000, faults: { latencyMs: 30 } },
      activities: (given) => {
        deps = given;
        return createActivities(given);
      },
    });
    if (!deps) throw new Error('the stack made no activities');
    const harness = readHarnessInfo();
    await runWorker(harness.address, stops, {
      namespace: stack.namespace,
      taskQueue: stack.taskQueue,
      activities: createActivities({
        ...deps,
        config: { ...deps.config, dataDir: path.join(dir, 'second') },
      }),
      workflowBundlePath: harness.workflowBundlePath,
      overrides: { shutdownGraceTime: '2s' },
    });
  }, 60_000);
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a push whose batches land on the other worker fails naming the unshared data folder', async () => {
    const file = path.join(dir, 'orders.csv');
    const rows = Array.from(
      { length: 12 },
      (_, i) => `SPLIT-${i},SUP-1001,2024-03-01,1,PLM-TEE-001-BLK,5,PIECES`,
    );
    await writeFile(
      file,
      ['order_number,supplier_code,order_date,line_number,product_external_id,quantity,unit', ...rows].join(
        '\n',
      ),
    );
    const run = stack.client.workflow.execute(erpOrders, {
      args: [{ file, batchSize: 1 }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-orders-two-folders'),
    });
    const message = await run.then(
      () => 'completed',
      (error: unknown) => failureText(error),
    );
    expect(message).toMatch(
      /is unusable: it is missing\. .*ran on another worker whose data folder is not this one's: every worker of a task queue must share one \(TRACE_DATA_DIR on a shared volume, or TRACE_STORE_URL=s3:\/\/… on all of them\)/,
    );
  });
});
