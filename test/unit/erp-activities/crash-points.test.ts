/**
 * The push's promise at every crash point: re-running a batch (as Temporal does after a worker dies) converges on
 * exactly one order per number with the export's lines, and counts it right. The activities run in a mock activity
 * context against an in-process sandbox over HTTP.
 */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  createErpOrderActivities,
  type BatchResult,
  type FinishOutput,
  type PrepareResult,
} from '../../../activities/erp-orders';
import { TraceabilityClient } from '../../../connectors/traceability';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';
import { loadConfig } from '../../../worker/config';

const HEADER = 'order_number,supplier_code,line_id,line_number,product_external_id,quantity,unit';
const BRAND = 'cmp_brand_nordic_threads';

describe('re-running a batch after a crash converges', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  let client: TraceabilityClient;
  let activities: ReturnType<typeof createErpOrderActivities>;
  const firstAttempt = () =>
    new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('WARN') });
  const retryAttempt = () =>
    new MockActivityEnvironment({ attempt: 2 }, { logger: new DefaultLogger('WARN') });

  const csv = async (name: string, lines: string[]): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, [HEADER, ...lines].join('\n'));
    return file;
  };
  const prepare = (file: string, workflowId: string): Promise<PrepareResult> =>
    firstAttempt().run(activities.prepareErpOrderPush, { file, workflowId, batchSize: 100 });
  const ordersNumbered = async (prefix: string) => {
    const found = [];
    for await (const order of client.orders.iterate({}))
      if (order.orderNumber.startsWith(prefix)) found.push(await client.orders.get(order.id));
    return found;
  };
  const writesSince = (before: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(client.stats().byMethodStatus)
        .filter(([key]) => !key.startsWith('GET'))
        .map(([key, n]) => [key, n - (before[key] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'erp-crash-'));
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 1_000_000 });
    client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
    activities = createErpOrderActivities({
      client,
      baseUrl: sandbox.baseUrl,
      config: loadConfig({ TRACE_DATA_DIR: path.join(dir, 'data') }),
    });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a create that committed before the worker died is recognised as ours: no second order, counted as created', async () => {
    const file = await csv('died-after-post.csv', [
      'CR-1,SUP-1001,,1,PLM-TEE-001-BLK,3,PIECES',
      'CR-2,SUP-1001,,1,PLM-TEE-001-OWH,4,PIECES',
    ]);
    const prepared = await prepare(file, 'crash-after-post');
    // The dead attempt journalled its intent and its POST committed; the answer never got written down.
    await client.orders.create({
      orderNumber: 'CR-1',
      buyerCompanyId: BRAND,
      supplierCompanyId: 'cmp_sup_anatolia_garments',
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 3, unit: 'PIECES' }],
    });
    const log = path.join(dir, 'data', 'runs', prepared.runKey, 'outcomes', 'batch-00000.ndjson');
    await mkdir(path.dirname(log), { recursive: true });
    await appendFile(
      log,
      `${JSON.stringify({ kind: 'intent', orderNumber: 'CR-1', write: 'create' })}\n{"kind":"outc`,
    );

    const before = { ...client.stats().byMethodStatus };
    const result: BatchResult = await retryAttempt().run(activities.applyErpOrderBatch, {
      runKey: prepared.runKey,
      manifest: prepared.manifest,
      batch: 0,
      dryRun: false,
    });
    expect(result.counts).toEqual({ created: 2, patched: 0, unchanged: 0, rejected: 0 });
    // The dead attempt's create is counted with its line (issue 14, item 10: counts equal what the API holds).
    expect(result.lines).toEqual({ created: 2, updated: 0, deleted: 0 });
    expect(result.recoveries.resumed).toBe(1);
    expect(writesSince(before)).toEqual({ 'POST 201': 1 });
    const orders = await ordersNumbered('CR-');
    expect(orders.map((o) => o.orderNumber).sort()).toEqual(['CR-1', 'CR-2']);
  });

  it('a batch run again after it finished skips what its journal says is done', async () => {
    const file = await csv('rerun.csv', [
      'RR-1,SUP-1001,,1,PLM-TEE-001-BLK,3,PIECES',
      'RR-2,SUP-1002,,1,PLM-JKT-010-NVY,4,PIECES',
    ]);
    const prepared = await prepare(file, 'rerun');
    const input = { runKey: prepared.runKey, manifest: prepared.manifest, batch: 0, dryRun: false };
    await firstAttempt().run(activities.applyErpOrderBatch, input);
    const calls = client.stats().calls;
    const again: BatchResult = await retryAttempt().run(activities.applyErpOrderBatch, input);
    expect(again.counts).toEqual({ created: 2, patched: 0, unchanged: 0, rejected: 0 });
    expect(client.stats().calls).toBe(calls);
    expect(await ordersNumbered('RR-')).toHaveLength(2);
  });

  // The finish step runs under the whole-run steps' options (workflows/batch-run.ts), whose heartbeat timeout of 2
  // minutes runs from the activity's start: a finish that never heartbeats is timed out on every attempt once writing
  // the rejects and totals takes longer, and a killed worker's finish is noticed only then.
  it('finish heartbeats while it writes the rejects and totals', async () => {
    const file = await csv('finish-beats.csv', [
      'FB-1,SUP-1001,,1,PLM-TEE-001-BLK,3,PIECES',
      'FB-2,NO-SUCH,,1,X,1,PIECES',
    ]);
    const prepared = await prepare(file, 'finish-beats');
    const input = { runKey: prepared.runKey, manifest: prepared.manifest };
    for (let batch = 0; batch < prepared.batchCount; batch++)
      await firstAttempt().run(activities.applyErpOrderBatch, { ...input, batch, dryRun: false });
    const env = firstAttempt();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const finished = (await env.run(activities.finishErpOrderPush, input)) as FinishOutput;
    expect(finished.totals.counts).toMatchObject({ created: 1 });
    expect(beats).toBeGreaterThan(0);
  });

  it('every create answer lost: each is re-read, never sent twice', async () => {
    const file = await csv('all-lost.csv', [
      'LA-1,SUP-1001,,1,PLM-TEE-001-BLK,3,PIECES',
      'LA-2,SUP-1002,,1,PLM-TEE-001-OWH,4,PIECES',
      'LA-3,SUP-1003,,1,PLM-JKT-010-NVY,5,PIECES',
    ]);
    const prepared = await prepare(file, 'all-lost');
    const faults = `${sandbox.baseUrl.replace(/\/api\/v2$/, '')}/__sandbox/faults`;
    await fetch(faults, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dropAfterCommitRate: 1, methods: ['POST'], pathPrefix: '/orders' }),
    });
    try {
      const before = { ...client.stats().byMethodStatus };
      const result: BatchResult = await firstAttempt().run(activities.applyErpOrderBatch, {
        runKey: prepared.runKey,
        manifest: prepared.manifest,
        batch: 0,
        dryRun: false,
      });
      expect(result.counts.created).toBe(3);
      expect(result.recoveries.lostAnswer).toBe(3);
      expect(writesSince(before)).toEqual({ 'POST 0': 3 });
    } finally {
      await fetch(faults, { method: 'DELETE' });
    }
    expect((await ordersNumbered('LA-')).map((o) => o.lines?.length)).toEqual([1, 1, 1]);
  });

  it('a line-number swap interrupted between its two requests is completed, not duplicated', async () => {
    const order = await client.orders.create({
      orderNumber: 'SW-1',
      buyerCompanyId: BRAND,
      supplierCompanyId: 'cmp_sup_anatolia_garments',
      lines: [
        { orderLineNumber: 'A', styleId: 'PLM-TEE-001-BLK', quantity: 1, unit: 'PIECES' },
        { orderLineNumber: 'B', styleId: 'PLM-TEE-001-OWH', quantity: 2, unit: 'PIECES' },
      ],
    });
    const [a, b] = order.lines ?? [];
    const file = await csv('swap.csv', [
      `SW-1,SUP-1001,${a!.id},B,PLM-TEE-001-BLK,1,PIECES`,
      `SW-1,SUP-1001,${b!.id},A,PLM-TEE-001-OWH,2,PIECES`,
    ]);
    const prepared = await prepare(file, 'swap');
    // The dead attempt sent step 1 (both lines to temporary numbers) and died before step 2.
    await appendFile(
      path.join(dir, 'data', 'runs', prepared.runKey, 'outcomes', 'batch-00000.ndjson'),
      `${JSON.stringify({ kind: 'intent', orderNumber: 'SW-1', write: 'patch' })}\n`,
    );
    await client.orders.update(order.id, {
      lines: [
        { id: a!.id, orderLineNumber: `~tmp~${a!.id}` },
        { id: b!.id, orderLineNumber: `~tmp~${b!.id}` },
      ],
    });

    const result: BatchResult = await retryAttempt().run(activities.applyErpOrderBatch, {
      runKey: prepared.runKey,
      manifest: prepared.manifest,
      batch: 0,
      dryRun: false,
    });
    expect(result.counts).toEqual({ created: 0, patched: 1, unchanged: 0, rejected: 0 });
    const after = await client.orders.get(order.id);
    expect(after.lines?.map((line) => [line.id, line.orderLineNumber, line.quantity])).toEqual([
      [a!.id, 'B', 1],
      [b!.id, 'A', 2],
    ]);
  });

  it('responsible persons given by e-mail are learned from the first write, so a second push writes nothing', async () => {
    const file = path.join(dir, 'persons.csv');
    await writeFile(
      file,
      [
        'order_number,supplier_code,responsible_persons,line_number,product_external_id,quantity,unit',
        'RP-1,SUP-1001,Ines.Buyer@nordicthreads.example,1,PLM-TEE-001-BLK,3,PIECES',
        'RP-2,SUP-1002,ines.buyer@nordicthreads.example,1,PLM-TEE-001-OWH,4,PIECES',
      ].join('\n'),
    );
    const push = async (workflowId: string): Promise<BatchResult> => {
      const prepared = await prepare(file, workflowId);
      return firstAttempt().run(activities.applyErpOrderBatch, {
        runKey: prepared.runKey,
        manifest: prepared.manifest,
        batch: 0,
        dryRun: false,
      });
    };
    expect((await push('persons-1')).counts.created).toBe(2);
    const before = { ...client.stats().byMethodStatus };
    expect((await push('persons-2')).counts).toEqual({ created: 0, patched: 0, unchanged: 2, rejected: 0 });
    expect(writesSince(before)).toEqual({});
  });
});
