/**
 * Runs of one job on one input that overlap or follow each other, as operators on several machines start them (the
 * CLI, the Web UI, a schedule): each writes once what the platform lacks and keeps its own run files.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import { pushOrdersWorkflowId } from '../../cli/commands/erp-orders';
import { erpOrders, plmImport } from '../../workflows';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import type { TestStack } from '../harness';
import { erpOrdersRunner, startJobStack } from './job-stack';

const PRODUCTS = ['PLM-TEE-001-BLK', 'PLM-TEE-001-OWH', 'PLM-JKT-010-NVY'];
const COLUMNS = [
  'order_number',
  'supplier_code',
  'order_date',
  'line_number',
  'product_external_id',
  'quantity',
  'unit',
];

/** `count` orders of two lines each, numbered `<prefix>-0001`...; `product` picks a line's product. */
function exportCsv(
  prefix: string,
  count: number,
  product = (o: number, l: number) => PRODUCTS[(o + l) % 3],
): string {
  const data = Array.from({ length: count }, (_, o) =>
    [0, 1].map((l) => [
      `${prefix}-${String(o + 1).padStart(4, '0')}`,
      o % 2 === 0 ? 'SUP-1001' : 'SUP-1002',
      '2024-03-01',
      String(l + 1),
      product(o, l) as string,
      String(10 * (l + 1)),
      'PIECES',
    ]),
  ).flat();
  return Papa.unparse({ fields: COLUMNS, data });
}

describe('runs of the same job and input, at once or one after the other', () => {
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('runs-apart-it-'));
  }, 60_000);
  afterAll(() => stack?.stop());

  /** The platform's orders numbered `<prefix>-…`, by number: how many orders carry it and their line counts. */
  const platformOrders = async (prefix: string): Promise<Record<string, number[]>> => {
    const byNumber: Record<string, number[]> = {};
    for (let page = 1; ; page++) {
      const response = await fetch(`${stack.sandbox.baseUrl}/orders?limit=100&page=${page}`, {
        headers: { companyapikey: stack.apiKey },
      });
      const body = (await response.json()) as {
        data: Array<{ id: string; orderNumber: string }>;
        metadata: { pagination: { totalPages: number } };
      };
      for (const order of body.data.filter((o) => o.orderNumber.startsWith(`${prefix}-`))) {
        const full = await fetch(`${stack.sandbox.baseUrl}/orders/${order.id}`, {
          headers: { companyapikey: stack.apiKey },
        });
        const { lines } = ((await full.json()) as { data: { lines: unknown[] } }).data;
        byNumber[order.orderNumber] = [...(byNumber[order.orderNumber] ?? []), lines.length];
      }
      if (page >= body.metadata.pagination.totalPages) return byNumber;
    }
  };

  // Spec 03: "Creation is not idempotent ... a retry can create a duplicate unless the order number collides."
  it('two ERP pushes of one export at once create each order once, with its lines once', async () => {
    const file = path.join(dir, 'both-at-once.csv');
    await writeFile(file, exportCsv('PO-TWICE', 12));
    const push = erpOrdersRunner(() => stack, 'erp-orders-both-at-once');
    const results = await Promise.all([push({ file, batchSize: 4 }), push({ file, batchSize: 4 })]);

    const orders = await platformOrders('PO-TWICE');
    expect(Object.keys(orders)).toHaveLength(12);
    for (const copies of Object.values(orders)) expect(copies).toEqual([2]);
    const sum = (pick: (r: PushErpOrdersResult) => number) => results.reduce((n, r) => n + pick(r), 0);
    expect({ created: sum((r) => r.orders.created), rejected: sum((r) => r.orders.rejected) }).toEqual({
      created: 12,
      rejected: 0,
    });
  });

  it('two PLM imports of one sheet at once create each product once and reject the same rows', async () => {
    const file = path.join(dir, 'ss26-catalogue.csv');
    await copyFile(path.resolve(__dirname, '../../examples/plm/ss26-catalogue.csv'), file);
    const start = () =>
      stack.client.workflow.execute(plmImport, {
        args: [{ file, profile: 'native' }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('plm-import-both-at-once'),
      });
    const [one, two] = await Promise.all([start(), start()]);
    expect(one.products.created + two.products.created).toBe(10);
    expect([one.rejectedRows, two.rejectedRows]).toEqual([2, 2]);
    expect(one.rejectsFile).not.toBe(two.rejectsFile);
  });

  it('two pushes of a file with a long name keep their own run files', async () => {
    // A name of 200 characters is a legal file name; the CLI's run id puts the start time after it.
    const file = path.join(dir, `${'long-export-name-'.repeat(11)}${'x'.repeat(9)}.csv`);
    await writeFile(
      file,
      exportCsv('PO-LONG', 3, (o, l) => (o === 1 && l === 1 ? 'NO-SUCH-PRODUCT' : PRODUCTS[l])),
    );
    const startedAt = Date.parse('2026-03-01T08:00:00.000Z');
    const push = (at: number) =>
      stack.client.workflow.execute(erpOrders, {
        args: [{ file }],
        taskQueue: stack.taskQueue,
        workflowId: `${pushOrdersWorkflowId(file, new Date(at))}-${stack.workflowId('t')}`.slice(0, 300),
      });
    const first = await push(startedAt);
    expect(first.orders).toMatchObject({ created: 2, rejected: 1 });
    const firstRejects = await readFile(first.rejectsFile as string, 'utf8');

    // The export fixed for the second order, and another order broken: the second run's rejects are its own.
    await writeFile(
      file,
      exportCsv('PO-LONG', 3, (o, l) => (o === 2 && l === 1 ? 'OTHER-MISSING' : PRODUCTS[l])),
    );
    const second = await push(startedAt + 60_000);
    expect(second.orders).toMatchObject({ created: 1, rejected: 1 });
    expect(second.rejectsFile).not.toBe(first.rejectsFile);
    // The first run's rejects file, which its result names, still holds the order it rejected.
    expect(await readFile(first.rejectsFile as string, 'utf8')).toBe(firstRejects);
    expect(firstRejects).toContain('NO-SUCH-PRODUCT');
  });
});
