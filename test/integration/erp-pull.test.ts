import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import type { PullOrdersResult } from '../../activities/erp-pull';
import { setTimeout as sleep } from 'node:timers/promises';
import { erpPull } from '../../workflows';
import { sandboxApi, startTestStack, type TestStack } from '../harness';

const BRAND = 'cmp_brand_nordic_threads';

describe('erpPull: orders changed on the platform since the stored mark', () => {
  let stack: TestStack;
  let exportsDir: string;
  const pull = (): Promise<PullOrdersResult> =>
    stack.client.workflow.execute(erpPull, {
      args: [{}],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-pull'),
    });
  const createOrder = (orderNumber: string, lines: number) =>
    stack.apiClient.orders.create({
      orderNumber,
      buyerCompanyId: BRAND,
      supplierCompanyId: 'cmp_sup_anatolia_garments',
      lines: Array.from({ length: lines }, (_, i) => ({
        orderLineNumber: String(i + 1),
        styleId: 'PLM-TEE-001-BLK',
        quantity: i + 1,
        unit: 'PIECES' as const,
      })),
    });
  const ndjsonNumbers = (file: string): string[] =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { orderNumber: string }).orderNumber);

  beforeAll(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'erp-pull-it-'));
    exportsDir = path.join(dataDir, 'exports', 'orders');
    stack = await startTestStack({ config: { dataDir } });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('writes the changed orders as NDJSON and CSV, then nothing new until something changes', async () => {
    await createOrder('PULL-1', 2);
    await createOrder('PULL-2', 1);
    await createOrder('PULL-3', 3);

    const first = await pull();
    expect(first.orders).toBe(3);
    expect(first.files).not.toBeNull();
    expect(ndjsonNumbers(first.files!.ndjson)).toEqual(['PULL-1', 'PULL-2', 'PULL-3']);
    const csv = Papa.parse<Record<string, string>>(
      readFileSync(first.files!.csv, 'utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    // One row per order line, with the line's own fields.
    expect(csv.map((row) => [row['order_number'], row['line_number'], row['quantity']])).toEqual([
      ['PULL-1', '1', '1'],
      ['PULL-1', '2', '2'],
      ['PULL-2', '1', '1'],
      ['PULL-3', '1', '1'],
      ['PULL-3', '2', '2'],
      ['PULL-3', '3', '3'],
    ]);
    const mark = JSON.parse(readFileSync(path.join(exportsDir, 'high-water-mark.json'), 'utf8')) as {
      updatedAtMs: number;
    };
    expect(mark.updatedAtMs).toBe(first.to.updatedAtMs);
    expect(mark.updatedAtMs).toBeGreaterThan(0);

    const filesBefore = readdirSync(exportsDir).sort();
    const second = await pull();
    expect(second).toMatchObject({ orders: 0, files: null });
    expect(second.to).toEqual(first.to);
    expect(readdirSync(exportsDir).sort()).toEqual(filesBefore);
    // Listing one empty window is all an idle pull costs.
    expect(second.apiCalls).toBe(1);
  });

  it('a later change is exported on its own, and the mark moves past it', async () => {
    const [order] = (await stack.apiClient.orders.list({ orderNumber: 'PULL-2' })).items;
    await stack.apiClient.orders.update(order!.id, { shipmentReference: 'SHIP-42' });
    const result = await pull();
    expect(result.orders).toBe(1);
    const [record] = readFileSync(result.files!.ndjson, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(record).toMatchObject({ orderNumber: 'PULL-2', shipmentReference: 'SHIP-42' });
    expect(result.to.updatedAtMs).toBeGreaterThan(result.from.updatedAtMs);
    expect((await pull()).orders).toBe(0);
  });
});

/**
 * TEMPORAL-NOTES: "an activity must heartbeat to see cancellation"; the pull runs under the steps' 2-minute heartbeat
 * timeout, so a pull slowed by the key's allowance must heartbeat all along, not once per 500 orders listed, or each
 * attempt times out while it still runs and a retry runs beside it.
 */
describe('erpPull at a low allowance', () => {
  let stack: TestStack;
  const { api, control } = sandboxApi(() => stack);

  beforeAll(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'erp-pull-slow-it-'));
    stack = await startTestStack({ config: { dataDir }, sandbox: { rateLimitPerMinute: 100_000 } });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('heartbeats every few seconds while the allowance paces it, and finishes in one attempt', async () => {
    for (let i = 1; i <= 6; i++) {
      await stack.apiClient.orders.create({
        orderNumber: `SLOW-${i}`,
        buyerCompanyId: BRAND,
        supplierCompanyId: 'cmp_sup_anatolia_garments',
        lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 1, unit: 'PIECES' as const }],
      });
    }
    // Ten reads with the same key fill the minute's allowance (order creation is exempt); the last, through the
    // worker's client, tells it so: the pull's calls wait out the rolling window, about a minute, without a 429.
    expect((await control('/__sandbox/config', 'PUT', { rateLimitPerMinute: 10 })).ok).toBe(true);
    for (let i = 0; i < 9; i++) await api('/orders?limit=1');
    await stack.apiClient.orders.list({ limit: 1 });
    const started = Date.now();
    const handle = await stack.client.workflow.start(erpPull, {
      args: [{}],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-pull-slow'),
    });
    const beats = new Set<number>();
    const attempts = new Set<number>();
    let done = false;
    const result = handle.result().finally(() => {
      done = true;
    });
    while (!done) {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      for (const activity of pending) {
        attempts.add(activity.attempt ?? 0);
        const at = activity.lastHeartbeatTime?.seconds;
        if (at !== undefined && at !== null) beats.add(Number(at));
      }
      await sleep(1_000);
    }
    const pulled = await result;
    const tookMs = Date.now() - started;
    expect(pulled.orders).toBe(6);
    expect(tookMs).toBeGreaterThan(20_000);
    // A heartbeat every few seconds: about one per 3 s of the run (seconds seen, some polls fall between).
    expect(beats.size).toBeGreaterThanOrEqual(Math.floor(tookMs / 1000 / 6));
    expect([...attempts]).toEqual([1]);
  }, 180_000);
});
