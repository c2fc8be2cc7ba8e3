/**
 * The ERP push test files' shared setup: per test file, a job stack started in beforeAll (job-stack.ts) and the
 * helpers its tests use. `erpSpecStack` serves erp-orders-spec*.test.ts (issue 14: the push held to spec 03),
 * `erpReadingStack` erp-orders-reading*.test.ts (how the push reads real exports).
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import { sandboxApi, type TestStack } from '../harness';
import { erpOrdersRunner, startJobStack } from './job-stack';

export const BRAND = 'cmp_brand_nordic_threads';
export const SUPPLIER = 'cmp_sup_anatolia_garments';

/** Registers the file's beforeAll/afterAll; `stack` and `dir` work inside its tests, the push as `push`. */
function erpStack(dirPrefix: string, workflowPrefix: string, setUp: () => Promise<void> = async () => {}) {
  let stack: TestStack | undefined;
  let dir = '';
  const started = (): TestStack => {
    if (!stack) throw new Error('the test stack starts in beforeAll: use it inside a test or hook');
    return stack;
  };
  beforeAll(async () => {
    ({ dir, stack } = await startJobStack(dirPrefix));
    await setUp();
  }, 60_000);
  afterAll(() => stack?.stop());
  return {
    stack: started,
    dir: () => dir,
    ...sandboxApi(started),
    push: erpOrdersRunner(started, workflowPrefix),
  };
}

interface SpecLine {
  id: string;
  orderLineNumber: string;
  lineNo: number;
  styleId: string;
  quantity: number;
  tracingReflectionOrderId: string | null;
}
export interface SpecOrder {
  id: string;
  orderNumber: string;
  orderType: string;
  isArchived?: boolean;
  orderDate: string | null;
  receiverCompanyId: string | null;
  receiverFacilityProcess: string | null;
  internalResponsiblePersons: string[] | null;
  updatedAt: string;
  lines: SpecLine[];
}

/** Parties by platform id, so one file can make the brand buyer on one order and supplier on another. */
export const BY_ID_PROFILE = {
  name: 'by-id',
  ownCompanyAs: 'none',
  columns: {
    orderNumber: 'order_number',
    buyerCompanyId: 'buyer_id',
    supplierCompanyId: 'supplier_id',
    orderLineNumber: 'line_number',
    productExternalId: 'product_external_id',
    quantity: 'quantity',
    unit: 'unit',
  },
};

export function erpSpecStack() {
  let byIdProfile = '';
  const base = erpStack('erp-spec-it-', 'erp-spec', async () => {
    byIdProfile = await writeProfile('by-id.json', BY_ID_PROFILE);
  });
  const { api, stack, dir } = base;
  const writeProfile = async (name: string, profile: unknown): Promise<string> => {
    const file = path.join(dir(), name);
    await writeFile(file, JSON.stringify(profile));
    return file;
  };
  /** Every copy of an order number on the platform (any type), with lines. */
  const copiesOf = async (orderNumber: string): Promise<SpecOrder[]> => {
    const listed = await api<SpecOrder[]>(`/orders?limit=100&orderNumber=${encodeURIComponent(orderNumber)}`);
    return Promise.all(listed.map((order) => api<SpecOrder>(`/orders/${order.id}`)));
  };
  const only = async (orderNumber: string): Promise<SpecOrder> => {
    const copies = await copiesOf(orderNumber);
    expect(copies).toHaveLength(1);
    return copies[0] as SpecOrder;
  };
  const writesSince = (before: Record<string, number>): Record<string, number> => {
    const now = stack().apiClient.stats().byMethodStatus;
    return Object.fromEntries(
      Object.entries(now)
        .filter(([key]) => !key.startsWith('GET'))
        .map(([key, n]) => [key, n - (before[key] ?? 0)] as const)
        .filter(([, n]) => n > 0),
    );
  };
  const writeCsv = async (
    name: string,
    rows: ReadonlyArray<Record<string, string | number>>,
  ): Promise<string> => {
    const file = path.join(dir(), name);
    const fields = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    await writeFile(file, Papa.unparse({ fields, data: rows.map((row) => fields.map((f) => row[f] ?? '')) }));
    return file;
  };
  return {
    ...base,
    copiesOf,
    only,
    writesSince,
    writeCsv,
    writeProfile,
    /** The by-id mapping profile's file (BY_ID_PROFILE). */
    byIdProfile: () => byIdProfile,
  };
}

interface ReadLine {
  id: string;
  orderLineNumber: string;
  quantity: number;
  unit: string;
  secondaryQuantity?: number | null;
}
interface ReadOrder {
  id: string;
  orderNumber: string;
  shipmentReference: string | null;
  orderDate: string | null;
  deliveryDate: string | null;
  tags: string[] | null;
  lines: ReadLine[];
}

export function erpReadingStack() {
  const base = erpStack('erp-reading-it-', 'erp-reading');
  const { api } = base;
  const copiesOf = async (orderNumber: string): Promise<ReadOrder[]> => {
    const listed = await api<ReadOrder[]>(`/orders?limit=100&orderNumber=${encodeURIComponent(orderNumber)}`);
    return Promise.all(
      listed
        .filter((order) => order.orderNumber === orderNumber)
        .map((order) => api<ReadOrder>(`/orders/${order.id}`)),
    );
  };
  const linesOf = async (orderNumber: string): Promise<string[]> =>
    (await copiesOf(orderNumber))
      .flatMap((order) => order.lines.map((line) => `${line.orderLineNumber}:${line.quantity}`))
      .sort();
  const csvRows = (file: string): Array<Record<string, string>> =>
    Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    }).data;
  return { ...base, copiesOf, linesOf, csvRows };
}
