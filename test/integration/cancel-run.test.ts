import type { WorkflowHandle } from '@temporalio/client';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Papa from 'papaparse';
import { TraceStatus } from '../../worker/search-attributes';
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import { bomRepair, erpOrders, plmImport } from '../../workflows';
import { cliEnv, cliProblems, sandboxApi, startTestStack, traceSync, type TestStack } from '../harness';
import { expectCancelledRun } from '../harness/errors';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';
import { buildTree, forkThroughSku, TEE_LINES } from './bom-trees';

/**
 * Cancelling a run (Web UI "Cancel", `temporal workflow cancel`) as an operator expects it: the running batch stops
 * before its next write, the run closes as cancelled only once it has, and says how many were written; a rerun of
 * the same file writes the rest, nothing twice.
 */
describe('cancelling a run mid-batch', () => {
  let stack: TestStack;
  let dir: string;
  const { control } = sandboxApi(() => stack);
  const STYLES = 60;
  const PREFIX = 'CANCELRUN';
  const ORDERS = 100;
  const ORDER_PREFIX = 'CANCELERP';

  /** The sandbox's whole state over HTTP (the test's own view; not counted against the key's allowance). */
  const sandboxState = async () =>
    (await (await fetch(`${stack.sandbox.baseUrl.replace(/\/api\/v2$/, '')}/__sandbox/state`)).json()) as {
      catalogue: { products: Array<{ externalId: string | null }> };
      orders: Array<{ orderNumber: string }>;
      boms: { lines: Array<{ bomHeaderId: string; styleId: string | null }> };
    };
  /** Products of this test on the platform. */
  const platformProducts = async (): Promise<string[]> =>
    (await sandboxState()).catalogue.products
      .map((product) => product.externalId ?? '')
      .filter((externalId) => externalId.startsWith(`${PREFIX}-`));
  /** Orders of this test on the platform, by number (a number twice would be a duplicate). */
  const platformOrders = async (): Promise<string[]> =>
    (await sandboxState()).orders
      .map((order) => order.orderNumber)
      .filter((orderNumber) => orderNumber.startsWith(`${ORDER_PREFIX}-`));
  const setRate = async (rateLimitPerMinute: number): Promise<void> => {
    const response = await fetch(`${stack.sandbox.baseUrl.replace(/\/api\/v2$/, '')}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rateLimitPerMinute }),
    });
    expect(response.ok).toBe(true);
  };

  /**
   * Waits until the run writes (`writing`), cancels it, and checks it closes as cancelled within `closesWithinMs`;
   * returns its description.
   */
  const cancelOnceWriting = async (
    handle: WorkflowHandle,
    writing: () => Promise<boolean>,
    closesWithinMs: number,
    cancel: () => Promise<unknown> = () => handle.cancel(),
  ) => {
    // A run may first wait out the key's window, which the set-up's calls filled at a higher allowance: up to 60 s.
    const deadline = Date.now() + 120_000;
    while (!(await writing())) {
      if (Date.now() > deadline) throw new Error(`${handle.workflowId} never started writing`);
      await sleep(200);
    }
    const cancelledAt = Date.now();
    await cancel();
    await expectCancelledRun(handle);
    expect(Date.now() - cancelledAt).toBeLessThan(closesWithinMs);
    const described = await handle.describe();
    expect(described.status.name).toBe('CANCELLED');
    return described;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cancel-run-it-'));
    stack = await startTestStack({ config: { dataDir: path.join(dir, 'data') } });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('PLM import: a cancel stops the batch before its next write; the run closes as cancelled with what it wrote; a rerun writes the rest once', async () => {
    // One batch of 60 styles, paced at 2 calls a second by the key's allowance: the batch runs for ~30 s.
    const file = path.join(dir, 'cancel.csv');
    // A row naming no product is rejected at read: the stop line counts it among the rows rejected.
    await writeFile(
      file,
      toCsv([
        ...nativeRows({ prefix: PREFIX, styles: STYLES, coloursPerStyle: 0, sizesPerColour: 0 }),
        { externalId: '', level: 'style', name: 'No key', styleType: 'T-shirts', isComponent: 'no' },
      ]),
    );
    await setRate(120);
    const handle = await stack.client.workflow.start(plmImport, {
      args: [{ file }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-cancel'),
    });
    // An operator following the run sees it end as cancelled, not failed (exit 3), with what it wrote.
    const watching = traceSync(['watch', handle.workflowId], cliEnv(stack), 150_000);
    // The cancel reaches the batch through its next heartbeat (a few seconds), and the writes in flight finish.
    const described = await cancelOnceWriting(
      handle,
      async () => (await platformProducts()).length >= 5,
      15_000,
    );

    // Nothing is written after the run closed: the platform's count stays where it was.
    const atClose = await platformProducts();
    expect(atClose.length).toBeLessThan(STYLES);
    await sleep(5_000);
    expect(await platformProducts()).toHaveLength(atClose.length);

    // The run says it was cancelled and how many it wrote (what the journal holds, so a later run sees it).
    expect(described.typedSearchAttributes.get(TraceStatus)).toBe('cancelled');
    const memo = (await described.memo) as { products?: { created?: number }; cancelled?: boolean };
    expect(memo.cancelled).toBe(true);
    expect(memo.products?.created).toBe(atClose.length);
    const watched = await watching;
    expect({ status: watched.status, stdout: watched.stdout }).toEqual({ status: 3, stdout: '' });
    expect(cliProblems(watched.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^trace-sync: Workflow ${handle.workflowId} was cancelled by \\S+: it stopped before its next write and writes nothing more\\. What it wrote before the stop: ${atClose.length} products created, 0 updated; 1 row rejected \\(rejects file: \\S+rejects\\.csv\\)\\.$`,
        ),
      ),
    ]);

    // A rerun of the same file completes the rest, with no product twice.
    await setRate(100_000);
    const rerun = await stack.client.workflow.execute(plmImport, {
      args: [{ file }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-cancel-rerun'),
    });
    expect(rerun.products).toMatchObject({ created: STYLES - atClose.length, unchanged: atClose.length });
    const after = await platformProducts();
    expect(after).toHaveLength(STYLES);
    expect(new Set(after).size).toBe(STYLES);
  }, 180_000);

  it('ERP push: a cancel stops the batch before its next order; the run closes as cancelled with what it pushed; a rerun pushes the rest once', async () => {
    const columns = [
      'order_number',
      'supplier_code',
      'order_date',
      'line_number',
      'product_external_id',
      'quantity',
      'unit',
    ];
    const file = path.join(dir, 'cancel-orders.csv');
    await writeFile(
      file,
      Papa.unparse({
        fields: columns,
        data: Array.from({ length: ORDERS }, (_, o) => [
          `${ORDER_PREFIX}-${String(o + 1).padStart(4, '0')}`,
          'SUP-1001',
          '2024-03-01',
          '1',
          'PLM-TEE-001-BLK',
          10,
          'PIECES',
        ]),
      }),
    );
    // Order creation is exempt from the allowance (spec 01: "Order creation is stated to be not rate limited"), so
    // each create answers after a second instead; the low allowance keeps the lanes few: the batch runs for ~25 s.
    await setRate(120);
    await control('/__sandbox/faults', 'PUT', { latencyMs: 1000, methods: ['POST'], pathPrefix: '/orders' });
    const handle = await stack.client.workflow.start(erpOrders, {
      args: [{ file }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-cancel'),
    });
    // As an operator would: `trace-sync cancel <id> --wait` returns once the run has stopped writing and closed.
    const described = await cancelOnceWriting(
      handle,
      async () => (await platformOrders()).length >= 3,
      15_000,
      async () => {
        const cli = await traceSync(
          ['cancel', handle.workflowId, '--wait', '--by', 'ops-lead', '--reason', 'wrong export loaded'],
          cliEnv(stack),
          60_000,
        );
        expect(cliProblems(cli.stderr)).toEqual([]);
        expect(cli.status).toBe(0);
        expect(cli.stderr).toBe(
          `Sent cancel to ${handle.workflowId}; waiting for its running batch to stop...\n`,
        );
        expect(cli.stdout).toMatch(
          /^Workflow \S+ cancelled \(TraceStatus cancelled\); what it wrote: \d+ orders created, 0 patched\.\nRun the same input again/,
        );
      },
    );

    // Who cancelled and why, as Temporal recorded them: what `watch` tells whoever looks at the run later.
    const watched = await traceSync(['watch', handle.workflowId], cliEnv(stack), 60_000);
    expect(watched.status).toBe(3);
    expect(cliProblems(watched.stderr)).toEqual([
      expect.stringContaining(`was cancelled by ops-lead (reason: wrong export loaded):`),
    ]);

    const atClose = await platformOrders();
    expect(atClose.length).toBeLessThan(ORDERS);
    expect(watched.stderr).toContain(
      `What it wrote before the stop: ${atClose.length} orders created, 0 patched.`,
    );
    await sleep(5_000);
    expect(await platformOrders()).toHaveLength(atClose.length);
    expect(described.typedSearchAttributes.get(TraceStatus)).toBe('cancelled');
    const memo = (await described.memo) as { orders?: { created?: number }; cancelled?: boolean };
    expect(memo.cancelled).toBe(true);
    expect(memo.orders?.created).toBe(atClose.length);

    await setRate(100_000);
    await control('/__sandbox/faults', 'DELETE');
    const rerun = await stack.client.workflow.execute(erpOrders, {
      args: [{ file }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-cancel-rerun'),
    });
    expect(rerun.orders).toMatchObject({ created: ORDERS - atClose.length, unchanged: atClose.length });
    const after = await platformOrders();
    expect(after).toHaveLength(ORDERS);
    expect(new Set(after).size).toBe(ORDERS);
  }, 180_000);

  it('BOM repair: a cancel stops the batch before its next product; the run closes as cancelled with what it repaired; a rerun repairs the rest', async () => {
    await setRate(100_000);
    const styles: string[] = [];
    const forks: string[] = [];
    for (let t = 0; t < 6; t++) {
      const tree = await buildTree(stack.apiClient, `cancel-${t}`, TEE_LINES);
      styles.push(tree.ext[tree.styleId]!);
      for (const product of [...tree.variants, ...tree.skus])
        forks.push(
          await forkThroughSku(stack.apiClient, tree, product, (l) => l.styleId === DEMO_IDS.button),
        );
    }
    /** Copied lines of the forks still without their component. */
    const broken = async () => {
      const headers = new Set(forks);
      return (await sandboxState()).boms.lines.filter((l) => headers.has(l.bomHeaderId) && l.styleId === null)
        .length;
    };
    const before = await broken();
    expect(before).toBeGreaterThan(20);

    // Each product is a few calls (reads, a PUT per line), paced at 2 calls a second: the batch runs for ~90 s.
    await setRate(120);
    const handle = await stack.client.workflow.start(bomRepair, {
      args: [{ products: styles }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('bom-cancel'),
    });
    // The products under way (8 at once, each a few calls paced at 2 a second, waiting out the key's window) are
    // finished first, never a product half repaired: at this allowance that takes up to a minute.
    const described = await cancelOnceWriting(handle, async () => (await broken()) <= before - 2, 120_000);

    // Longer than for the other jobs: a batch left running waits out the key's window between its writes.
    const atClose = await broken();
    expect(atClose).toBeGreaterThan(0);
    await sleep(20_000);
    expect(await broken()).toBe(atClose);
    expect(described.typedSearchAttributes.get(TraceStatus)).toBe('cancelled');
    const memo = (await described.memo) as { cancelled?: boolean; linesRepaired?: number };
    expect(memo).toMatchObject({ cancelled: true, linesRepaired: before - atClose });

    await setRate(100_000);
    const rerun = await stack.client.workflow.execute(bomRepair, {
      args: [{ products: styles }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('bom-cancel-rerun'),
    });
    expect(rerun.linesRepaired).toBe(atClose);
    expect(await broken()).toBe(0);
  }, 300_000);
});
