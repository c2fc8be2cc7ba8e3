import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { z } from 'zod';
import { runKeyOf } from '../../connectors/staging';
import { S3Store, s3ClientFor } from '../../connectors/storage';
import { seededRandom } from '../../sandbox/core/prng';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { SANDBOX_API_KEY } from '../../worker/api-target';
import { plmImport, erpOrders } from '../../workflows';
import { compareState, noDiscrepancies, sandboxStateSchema } from '../chaos/compare';
import { orderExport, plmSheet } from '../chaos/inputs';
import { WorkerProcess } from '../chaos/worker-process';
import { readHarnessInfo } from '../harness';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';

const describeS3 = describeWithS3();

// Issue 20: "A run started on one worker and continued on another (the first killed) finishes with exact results
// when the two workers share nothing but the bucket and Temporal."
describeS3('two workers, separate data folders, one bucket: SIGKILL the one holding the runs', () => {
  let s3: RunningS3;
  let sandbox: RunningSandbox;
  let client: Client;
  let connection: Connection;
  const dirs: string[] = [];
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    s3 = await startS3();
    // Every API answer takes 25 ms: the runs last long enough to be caught mid-write.
    sandbox = await startSandbox({
      port: 0,
      childLinkDelayMs: 0,
      rateLimitPerMinute: 1_000_000,
      faults: { latencyMs: 25 },
    });
    const harness = readHarnessInfo();
    connection = await Connection.connect({ address: harness.address });
    client = new Client({ connection, namespace: harness.namespace });
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await connection?.close();
    await sandbox?.close();
    await s3?.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('the second worker finishes both runs from the bucket alone: 0 duplicates, 0 losses', async () => {
    const harness = readHarnessInfo();
    const taskQueue = `two-workers-${randomUUID()}`;
    const prefix = `TW${Date.now().toString(36).toUpperCase()}`;
    const storePrefix = 'two-workers';
    const settings = {
      url: s3.storeUrl(storePrefix),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    };
    const store = new S3Store(s3ClientFor(settings), s3.bucket, storePrefix);
    const worker = async (name: string): Promise<{ process: WorkerProcess; dataDir: string }> => {
      const dataDir = await mkdtemp(path.join(tmpdir(), `two-workers-${name}-`));
      dirs.push(dataDir);
      const process = new WorkerProcess({
        logFile: path.join(harness.logDir, `two-workers-s3-${name}.log`),
        env: {
          TEMPORAL_ADDRESS: harness.address,
          TEMPORAL_NAMESPACE: harness.namespace,
          TRACE_TASK_QUEUE: taskQueue,
          TRACEABILITY_BASE_URL: sandbox.baseUrl,
          TRACEABILITY_API_KEY: SANDBOX_API_KEY,
          TRACE_DATA_DIR: dataDir,
          LOG_LEVEL: 'info',
          ...s3.env(storePrefix),
        },
      });
      workers.push(process);
      return { process, dataDir };
    };

    const sheet = plmSheet(prefix, 4, 3, 4);
    const orders = orderExport(prefix, 40, seededRandom(20));
    await store.put('inputs/two-workers/sheet.csv', sheet.csv);
    await store.put('inputs/two-workers/orders.csv', orders.csv);

    const a = await worker('a');
    const b = await worker('b');
    await a.process.start();
    const plmId = `plm-two-workers-${randomUUID()}`;
    const erpId = `erp-two-workers-${randomUUID()}`;
    const plm = await client.workflow.start(plmImport, {
      taskQueue,
      workflowId: plmId,
      args: [{ file: store.urlOf('inputs/two-workers/sheet.csv'), profile: 'native', batchSize: 20 }],
    });
    const erp = await client.workflow.start(erpOrders, {
      taskQueue,
      workflowId: erpId,
      args: [{ file: store.urlOf('inputs/two-workers/orders.csv'), batchSize: 10 }],
    });

    // Worker A holds both runs: kill it once both have journaled writes in the bucket (mid-apply).
    const journaled = async (key: string) =>
      (await store.list(`runs/${runKeyOf(key)}/`)).filter((k) => k.includes('.ndjson.d/')).length;
    const deadline = Date.now() + 120_000;
    while ((await journaled(plmId)) < 4 || (await journaled(erpId)) < 4) {
      if (Date.now() > deadline)
        throw new Error(`no journaled writes in time; worker A log:\n${a.process.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await a.process.kill();
    expect(a.process.kills).toBe(1);
    // Killed mid-run: the import was not done, so worker B has work of A's to finish.
    expect((await plm.describe()).status.name).toBe('RUNNING');
    const plmEntriesAtKill = await journaled(plmId);
    await b.process.start();

    const [plmResult, erpResult] = await Promise.all([plm.result(), erp.result()]);
    expect(plmResult.products).toMatchObject({ created: sheet.expected.length, rejected: 0 });
    expect(erpResult.orders).toMatchObject({ rejected: 0, total: orders.expected.length });
    expect(erpResult.orders.created + erpResult.orders.unchanged + erpResult.orders.patched).toBe(
      orders.expected.length,
    );
    // Worker B continued from A's journal (more entries after the kill), never from A's disk.
    expect(await journaled(plmId)).toBeGreaterThan(plmEntriesAtKill);
    expect(existsSync(path.join(b.dataDir, 'runs', runKeyOf(plmId), 'journal'))).toBe(false);

    const state = sandboxStateSchema.parse(
      await (await fetch(`${sandbox.url}/__sandbox/state`)).json().then((body) => z.unknown().parse(body)),
    );
    expect(compareState(state, sheet.expected, orders.expected, prefix)).toEqual(noDiscrepancies());
    expect(b.process.unexpectedExits).toEqual([]);
  }, 400_000);
});
