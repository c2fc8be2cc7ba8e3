import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import { WorkflowFailedError } from '@temporalio/client';
import { retryPlanFor } from '../../cli/commands/retry';
import { TraceStatus } from '../../worker/search-attributes';
import { erpOrders } from '../../workflows';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import { sandboxApi, type TestStack } from '../harness';
import { awaitingApproval, erpOrdersRunner, startJobStack } from './job-stack';

/** One export row per order line, in the default profile's columns. */
interface Row {
  order_number: string;
  supplier_code: string;
  supplier_facility_process?: string;
  buyer_facility_process?: string;
  order_date?: string;
  status?: string;
  line_number: string;
  product_external_id: string;
  quantity: number;
  unit: string;
}

const COLUMNS = [
  'order_number',
  'supplier_code',
  'buyer_facility_process',
  'supplier_facility_process',
  'order_date',
  'status',
  'line_number',
  'product_external_id',
  'quantity',
  'unit',
] as const;

const PRODUCTS = ['PLM-TEE-001-BLK', 'PLM-TEE-001-OWH', 'PLM-JKT-010-NVY'];

/** `count` orders of `lines` lines each, numbered `<prefix>-0001`... */
function orders(prefix: string, count: number, lines = 2): Row[] {
  return Array.from({ length: count }, (_, o) =>
    Array.from({ length: lines }, (_, l): Row => ({
      order_number: `${prefix}-${String(o + 1).padStart(4, '0')}`,
      supplier_code: o % 2 === 0 ? 'SUP-1001' : 'SUP-1002',
      buyer_facility_process: 'Warehouse',
      supplier_facility_process: 'Cut make trim',
      order_date: '2024-03-01',
      status: 'IN_PROGRESS',
      line_number: String(l + 1),
      product_external_id: PRODUCTS[(o + l) % PRODUCTS.length] as string,
      quantity: 10 * (l + 1),
      unit: 'PIECES',
    })),
  ).flat();
}

interface RawOrder {
  id: string;
  orderNumber: string;
  orderDate: string | null;
  supplierFacilityProcess: string | null;
  lines: Array<{ orderLineNumber: string; quantity: number; styleId: string }>;
}

describe('erpOrders on a real Temporal dev server and the sandbox', () => {
  let stack: TestStack;
  let dir: string;
  const { api, control } = sandboxApi(() => stack);
  /** The platform's orders whose number starts with `prefix`, by number, with lines (the test's own reads). */
  const platformOrders = async (prefix: string): Promise<Map<string, RawOrder[]>> => {
    const byNumber = new Map<string, RawOrder[]>();
    for (let page = 1; ; page++) {
      const response = await fetch(`${stack.sandbox.baseUrl}/orders?limit=100&page=${page}`, {
        headers: { companyapikey: stack.apiKey },
      });
      const body = (await response.json()) as {
        data: RawOrder[];
        metadata: { pagination: { totalPages: number } };
      };
      for (const order of body.data.filter((o) => o.orderNumber.startsWith(`${prefix}-`))) {
        const full = await api<RawOrder>(`/orders/${order.id}`);
        byNumber.set(order.orderNumber, [...(byNumber.get(order.orderNumber) ?? []), full]);
      }
      if (page >= body.metadata.pagination.totalPages) return byNumber;
    }
  };
  /** API writes (non-GET answers) counted by the jobs' own client since `before`. */
  const writesSince = (before: Record<string, number>): Record<string, number> => {
    const now = stack.apiClient.stats().byMethodStatus;
    return Object.fromEntries(
      Object.entries(now)
        .filter(([key]) => !key.startsWith('GET'))
        .map(([key, n]) => [key, n - (before[key] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
  };
  const writeCsv = async (name: string, rows: readonly Row[]): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(
      file,
      Papa.unparse({ fields: [...COLUMNS], data: rows.map((row) => COLUMNS.map((c) => row[c] ?? '')) }),
    );
    return file;
  };
  const push = erpOrdersRunner(() => stack, 'erp-push');

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('erp-orders-it-'));
  }, 60_000);

  afterAll(() => stack?.stop());

  it('a first push creates every order with its lines; a second push of the same file writes nothing', async () => {
    const file = await writeCsv('first.csv', orders('PO-A', 6, 3));
    const first = await push({ file });
    expect(first.orders).toMatchObject({ created: 6, patched: 0, unchanged: 0, rejected: 0, total: 6 });
    expect(first.rejectsFile).toBeNull();
    const state = await platformOrders('PO-A');
    expect(state.size).toBe(6);
    for (const [number, copies] of state) {
      expect(copies).toHaveLength(1);
      expect(copies[0]?.lines.map((line) => [line.orderLineNumber, line.quantity])).toEqual([
        ['1', 10],
        ['2', 20],
        ['3', 30],
      ]);
      expect(copies[0]?.supplierFacilityProcess).toBe('CUT_MAKE_TRIM');
      expect(number).toMatch(/^PO-A-000[1-6]$/);
    }

    const before = { ...stack.apiClient.stats().byMethodStatus };
    const second = await push({ file });
    expect(second.orders).toMatchObject({ created: 0, patched: 0, unchanged: 6, rejected: 0 });
    expect(writesSince(before)).toEqual({});
    // The snapshot lists orders and lines in pages instead of reading each order.
    expect(second.apiCalls.total).toBeLessThan(12);
  });

  it('an edited export patches exactly the changed orders and lines', async () => {
    const rows = orders('PO-B', 5, 2);
    const file = await writeCsv('edit-before.csv', rows);
    await push({ file });
    const edited = rows.map((row) => ({ ...row }));
    // PO-B-0002: one line's quantity; PO-B-0004: the order date and a new third line.
    edited.find((r) => r.order_number === 'PO-B-0002' && r.line_number === '2')!.quantity = 25;
    for (const row of edited.filter((r) => r.order_number === 'PO-B-0004')) row.order_date = '2024-04-15';
    edited.push({
      ...edited.find((r) => r.order_number === 'PO-B-0004')!,
      line_number: '3',
      product_external_id: 'PLM-JKT-010-NVY',
      quantity: 7,
    });
    const editedFile = await writeCsv('edit-after.csv', edited);

    const before = { ...stack.apiClient.stats().byMethodStatus };
    const result = await push({ file: editedFile });
    expect(result.orders).toMatchObject({ created: 0, patched: 2, unchanged: 3, rejected: 0 });
    expect(result.lines).toMatchObject({ created: 1, updated: 1, deleted: 0 });
    expect(writesSince(before)).toEqual({ 'PATCH 200': 2 });
    const state = await platformOrders('PO-B');
    expect(state.get('PO-B-0002')?.[0]?.lines.map((l) => l.quantity)).toEqual([10, 25]);
    expect(state.get('PO-B-0004')?.[0]?.orderDate).toBe('2024-04-15');
    expect(state.get('PO-B-0004')?.[0]?.lines.map((l) => [l.orderLineNumber, l.quantity])).toEqual([
      ['1', 10],
      ['2', 20],
      ['3', 7],
    ]);
    expect(state.get('PO-B-0001')?.[0]?.orderDate).toBe('2024-03-01');
  });

  it('with connections dropped after committed creates, every number ends up exactly once with all its lines', async () => {
    const file = await writeCsv('dropped.csv', orders('PO-C', 20, 2));
    await control('/__sandbox/faults', 'PUT', {
      dropAfterCommitRate: 0.5,
      methods: ['POST'],
      pathPrefix: '/orders',
      seed: 7,
    });
    let result: PushErpOrdersResult;
    try {
      result = await push({ file, batchSize: 7 });
    } finally {
      await control('/__sandbox/faults', 'DELETE');
    }
    expect(result.orders).toMatchObject({ created: 20, rejected: 0 });
    expect(result.recoveries.lostAnswer).toBeGreaterThan(0);
    const state = await platformOrders('PO-C');
    expect(state.size).toBe(20);
    for (const copies of state.values()) {
      expect(copies).toHaveLength(1);
      expect(copies[0]?.lines).toHaveLength(2);
    }
  });

  it('a bad order does not stop the others: it lands in the rejects file with its code, and retry re-runs only it', async () => {
    const rows = orders('PO-D', 4, 2);
    rows.find((r) => r.order_number === 'PO-D-0002' && r.line_number === '2')!.product_external_id =
      'NO-SUCH-PRODUCT';
    for (const row of rows.filter((r) => r.order_number === 'PO-D-0003')) row.supplier_code = 'SUP-9999';
    const file = await writeCsv('with-bad.csv', rows);
    const workflowId = stack.workflowId('erp-orders-with-bad');
    const result = await stack.client.workflow.execute(erpOrders, {
      args: [{ file }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result.orders).toMatchObject({ created: 2, rejected: 2 });
    // Two orders of two export rows each: each number says what it counts (rejectedRows kept for older readers).
    expect(result).toMatchObject({ rejectedExportRows: 4, rejectedRows: 4 });
    expect(result.rejections).toHaveLength(2);
    const metadata = (await stack.client.workflow
      .getHandle(workflowId)
      .query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe(
      `orders: 2 created, 0 patched, 0 unchanged, 2 rejected (4 export rows) — rejects file: ${result.rejectsFile ?? ''}`,
    );
    expect(result.rejectsFile).toBe(path.join(stack.config.dataDir, 'runs', workflowId, 'rejects.csv'));
    const rejects = Papa.parse<Record<string, string>>(
      readFileSync(result.rejectsFile!, 'utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(rejects.map((r) => [r['order_number'], r['error_code']])).toEqual([
      ['PO-D-0002', 'style_not_found'],
      ['PO-D-0002', 'style_not_found'],
      ['PO-D-0003', 'unknown_company'],
      ['PO-D-0003', 'unknown_company'],
    ]);
    expect(rejects[2]?.['error_message']).toContain('SUP-9999');
    // The export gave a supplier code: the message names the profile key of that column, not the API's id field.
    expect(rejects[2]?.['error_message']).toContain("column 'supplier_code' (supplierCompanyCode)");
    expect(rejects[2]?.['error_message']).not.toContain('supplierCompanyId');
    expect([...(await platformOrders('PO-D')).keys()].sort()).toEqual(['PO-D-0001', 'PO-D-0004']);

    // `trace-sync retry` starts the same job on the rejects file: only the two failed orders are pushed again.
    const plan = await retryPlanFor(stack.client, workflowId);
    expect(plan).toMatchObject({
      workflowType: 'erpOrders',
      input: { file: result.rejectsFile, retryOf: workflowId },
    });
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const retried = (await stack.client.workflow.execute(plan.workflowType, {
      args: [plan.input],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-orders-retry'),
    })) as PushErpOrdersResult;
    expect(retried.orders).toMatchObject({ total: 2, rejected: 2, created: 0 });
    expect(retried.retryOf).toBe(workflowId);
    expect(retried.rejections.map((r) => r.orderNumber)).toEqual(['PO-D-0002', 'PO-D-0003']);
    // Nothing else was written: the good orders were not in the rejects file.
    expect(Object.keys(writesSince(before)).filter((key) => / 2\d\d$/.test(key))).toEqual([]);
    expect([...(await platformOrders('PO-D')).keys()].sort()).toEqual(['PO-D-0001', 'PO-D-0004']);
  });

  // `trace-sync retry` "starts the same job on the rejects file": the same job is the one the operator asked for, so a
  // run behind the approval gate is retried behind it, a dry run's retry is a dry run (it checks the fixes), and a run
  // allowed to remove lines sent to tracing retries its fixed orders with that allowance.
  it('retry keeps the run’s approval gate, its dry run and its traced-line allowance: the fixed rows are planned, never written unasked', async () => {
    const rows = orders('PO-RT', 2, 1);
    for (const row of rows.filter((r) => r.order_number === 'PO-RT-0002')) row.supplier_code = 'SUP-9999';
    const file = await writeCsv('dry-with-bad.csv', rows);
    const dryId = stack.workflowId('erp-orders-dry-bad');
    const dry = await stack.client.workflow.execute(erpOrders, {
      args: [{ file, dryRun: true, allowTracedLineRemoval: true }],
      taskQueue: stack.taskQueue,
      workflowId: dryId,
    });
    expect(dry.orders.rejected).toBe(1);
    const dryPlan = await retryPlanFor(stack.client, dryId);
    expect(dryPlan.input).toMatchObject({
      file: dry.rejectsFile,
      dryRun: true,
      allowTracedLineRemoval: true,
      retryOf: dryId,
    });
    const retried = (await stack.client.workflow.execute(dryPlan.workflowType, {
      args: [dryPlan.input],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-orders-dry-retry'),
    })) as PushErpOrdersResult;
    expect(retried.dryRun).toBe(true);
    expect((await platformOrders('PO-RT')).size).toBe(0);

    const gatedId = stack.workflowId('erp-orders-gated-bad');
    const gated = await stack.client.workflow.start(erpOrders, {
      args: [{ file, approval: { timeoutSeconds: 120 } }],
      taskQueue: stack.taskQueue,
      workflowId: gatedId,
    });
    await awaitingApproval(gated);
    await gated.signal('approve', { by: 'test' });
    const approved = await gated.result();
    expect(approved.orders).toMatchObject({ created: 1, rejected: 1 });
    const gatedPlan = await retryPlanFor(stack.client, gatedId);
    expect(gatedPlan.input).toMatchObject({ approval: { timeoutSeconds: 120 }, retryOf: gatedId });
    expect(gatedPlan.input).not.toHaveProperty('dryRun');
  });

  it('reports the tracing lock (409) once, without retrying it, and goes on with the other orders', async () => {
    const rows = orders('PO-E', 2, 1);
    const file = await writeCsv('lock-before.csv', rows);
    await push({ file });
    const locked = (await platformOrders('PO-E')).get('PO-E-0001')?.[0];
    await control(`/__sandbox/orders/${locked!.id}/tracing`, 'PUT', { structuralFieldsLocked: true });
    const changed = rows.map((row) => ({ ...row, supplier_facility_process: 'Weaving mill' }));
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const result = await push({ file: await writeCsv('lock-after.csv', changed) });
    expect(result.orders).toMatchObject({ patched: 1, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'PO-E-0001',
        code: 'order_structural_fields_locked_by_tracing',
        message: expect.stringContaining('locked by tracing'),
      }),
    ]);
    expect(writesSince(before)).toEqual({ 'PATCH 409': 1, 'PATCH 200': 1 });
  });

  it('continues as new on long runs and still counts every order once', async () => {
    const file = await writeCsv('long.csv', orders('PO-F', 14, 1));
    const workflowId = stack.workflowId('erp-orders-long');
    const handle = await stack.client.workflow.start(erpOrders, {
      args: [{ file, batchSize: 1 }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    const result = await handle.result();
    expect(result.orders).toMatchObject({ created: 14, total: 14 });
    const latest = await stack.client.workflow.getHandle(workflowId).describe();
    expect(latest.runId).not.toBe(handle.firstExecutionRunId);
    expect((await platformOrders('PO-F')).size).toBe(14);
  });

  // README: TraceStatus `dry-run-done` for a dry run; `done-with-rejects` is a run that wrote and rejected some.
  it('a dry run with rejects ends as dry-run-done (it wrote nothing), its rejects in its result', async () => {
    const rows = orders('PO-GR', 2, 1);
    rows[1]!.product_external_id = 'NO-SUCH-PRODUCT';
    const file = await writeCsv('dry-rejects.csv', rows);
    const workflowId = stack.workflowId('erp-dry-rejects');
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const result = await stack.client.workflow.execute(erpOrders, {
      args: [{ file, dryRun: true }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result).toMatchObject({ dryRun: true, orders: { created: 1, rejected: 1 } });
    expect(result.rejectsFile).not.toBeNull();
    expect(writesSince(before)).toEqual({});
    const status = (await stack.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes;
    expect(status.get(TraceStatus)).toBe('dry-run-done');
  });

  // It said "supplierCompanyId: the order has no supplier", the API's field, of a column the operator left blank.
  it("an order whose supplier cell is blank is rejected naming the export's column and what to fill in", async () => {
    const rows = orders('PO-NS', 2, 1);
    rows[1]!.supplier_code = '';
    const result = await push({ file: await writeCsv('no-supplier.csv', rows), dryRun: true });
    expect(result).toMatchObject({ orders: { created: 1, rejected: 1 } });
    const rejects = Papa.parse<Record<string, string>>(
      readFileSync(result.rejectsFile!, 'utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(rejects.map((r) => [r['order_number'], r['error_code'], r['error_message']])).toEqual([
      [
        'PO-NS-0002',
        'missing_value',
        "order 'PO-NS-0002' (row 3), column 'supplier_code' (supplierCompanyCode): blank, so the order has no " +
          "supplier; give the supplier's company code there, or a constant supplierCompanyCode in the mapping",
      ],
    ]);
  });

  it('a dry run reports what would change and writes nothing', async () => {
    const file = await writeCsv('dry.csv', orders('PO-G', 3, 2));
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const result = await push({ file, dryRun: true });
    expect(result).toMatchObject({ dryRun: true, orders: { created: 3, rejected: 0 } });
    expect(writesSince(before)).toEqual({});
    expect((await platformOrders('PO-G')).size).toBe(0);
  });

  it('refuses a bad input with a message naming the field, and a missing file without retrying', async () => {
    await expect(push({ file: '' })).rejects.toMatchObject({
      cause: { message: expect.stringContaining('file:') },
    });
    await expect(
      push({ file: path.join(dir, 'missing.csv'), mappingFile: 'x.json', profile: 'default' }),
    ).rejects.toBeInstanceOf(WorkflowFailedError);
    const missing = push({ file: path.join(dir, 'missing.csv') });
    // The workflow's failure carries the activity's message (what `--wait` prints); the activity's own is the root.
    const notFound = expect.stringMatching(/missing\.csv was not found on the worker\. Check the path/);
    await expect(missing).rejects.toMatchObject({
      cause: {
        message: notFound,
        type: 'ExportFileError:file_not_found',
        nonRetryable: true,
        cause: { cause: { message: notFound, nonRetryable: true } },
      },
    });
    expect(existsSync(path.join(dir, 'missing.csv'))).toBe(false);
  });
});
