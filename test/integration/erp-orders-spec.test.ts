import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import type { PullOrdersResult } from '../../activities/erp-pull';
import { DEFAULT_PROFILE } from '../../connectors/erp-orders/profile';
import { erpPull } from '../../workflows';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import { sandboxApi, type TestStack } from '../harness';
import { erpOrdersRunner, startJobStack } from './job-stack';

/**
 * Issue 14: the push read against spec 03 ("Orders, Files, Certificates...") and fed real exports. Each test quotes
 * the spec sentence it holds the job to, on a real Temporal dev server and the sandbox over HTTP.
 */
const BRAND = 'cmp_brand_nordic_threads';
const SUPPLIER = 'cmp_sup_anatolia_garments';

interface RawLine {
  id: string;
  orderLineNumber: string;
  lineNo: number;
  styleId: string;
  quantity: number;
  tracingReflectionOrderId: string | null;
}
interface RawOrder {
  id: string;
  orderNumber: string;
  orderType: string;
  orderDate: string | null;
  receiverCompanyId: string | null;
  receiverFacilityProcess: string | null;
  internalResponsiblePersons: string[] | null;
  lines: RawLine[];
}

describe('erpOrders by the spec, on real Temporal and the sandbox (issue 14)', () => {
  let stack: TestStack;
  let dir: string;
  const { api, control } = sandboxApi(() => stack);
  /** Every copy of an order number on the platform (any type), with lines. */
  const copiesOf = async (orderNumber: string): Promise<RawOrder[]> => {
    const listed = await api<RawOrder[]>(`/orders?limit=100&orderNumber=${encodeURIComponent(orderNumber)}`);
    return Promise.all(listed.map((order) => api<RawOrder>(`/orders/${order.id}`)));
  };
  const only = async (orderNumber: string): Promise<RawOrder> => {
    const copies = await copiesOf(orderNumber);
    expect(copies).toHaveLength(1);
    return copies[0] as RawOrder;
  };
  const writesSince = (before: Record<string, number>): Record<string, number> => {
    const now = stack.apiClient.stats().byMethodStatus;
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
    const file = path.join(dir, name);
    const fields = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    await writeFile(file, Papa.unparse({ fields, data: rows.map((row) => fields.map((f) => row[f] ?? '')) }));
    return file;
  };
  const writeProfile = async (name: string, profile: unknown): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, JSON.stringify(profile));
    return file;
  };
  const push = erpOrdersRunner(() => stack, 'erp-spec');
  /** Parties by platform id, so one file can make the brand buyer on one order and supplier on another. */
  let byIdProfile: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('erp-spec-it-'));
    byIdProfile = await writeProfile('by-id.json', {
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
    });
  }, 60_000);

  afterAll(() => stack?.stop());

  // Item 6. Spec, GET /orders: "limit | number | 20 | 1-100" with pagination metadata; a server may answer fewer
  // items than asked, and the client must follow `totalPages`, as `paginate` does.
  it('an incremental pull follows totalPages when the server caps page sizes below the limit asked', async () => {
    for (let n = 1; n <= 5; n++) {
      await stack.apiClient.orders.create({
        orderNumber: `CAP-${n}`,
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: n, unit: 'PIECES' }],
      });
    }
    const total = (
      (await (
        await fetch(`${stack.sandbox.baseUrl}/orders?limit=1`, { headers: { companyapikey: stack.apiKey } })
      ).json()) as { metadata: { pagination: { total: number } } }
    ).metadata.pagination.total;
    await control('/__sandbox/config', 'PUT', { orderPageSizeCap: 2 });
    let pulled: PullOrdersResult;
    try {
      pulled = await stack.client.workflow.execute(erpPull, {
        args: [{}],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('erp-pull-capped'),
      });
    } finally {
      await control('/__sandbox/config', 'PUT', { orderPageSizeCap: null });
    }
    expect(total).toBeGreaterThan(2);
    expect(pulled.orders).toBe(total);
  });

  // Item 1. Spec, Order.orderNumber: "Unique within the owner company for the same order type".
  it('a purchase order and a sales order with the same number in one file are two orders, not a header_conflict', async () => {
    const file = await writeCsv('same-number.csv', [
      {
        order_number: 'TWIN-1',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 5,
        unit: 'PIECES',
      },
      {
        order_number: 'TWIN-1',
        buyer_id: SUPPLIER,
        supplier_id: BRAND,
        line_number: '1',
        product_external_id: 'PLM-JKT-010-NVY',
        quantity: 7,
        unit: 'PIECES',
      },
    ]);
    const result = await push({ file, mappingFile: byIdProfile });
    expect(result.orders).toMatchObject({ created: 2, rejected: 0 });
    const copies = await copiesOf('TWIN-1');
    expect(copies.map((order) => [order.orderType, order.lines.map((line) => line.quantity)]).sort()).toEqual(
      [
        ['PURCHASE_ORDER', [5]],
        ['SALES_ORDER', [7]],
      ],
    );
    // Pushed again, both are recognised by number and type: nothing is written.
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const again = await push({ file, mappingFile: byIdProfile });
    expect(again.orders).toMatchObject({ unchanged: 2, created: 0, rejected: 0 });
    expect(writesSince(before)).toEqual({});
  });

  // Item 5. Spec, Order.orderType: "Server computed ... Re-derived on every update", and numbers are unique per
  // type only: a file that changes an order's type must not silently create a second order beside it.
  it('parties that change an existing order type are reported as a conflict, never a second order', async () => {
    const first = await writeCsv('type-before.csv', [
      {
        order_number: 'FLIP-1',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 3,
        unit: 'PIECES',
      },
    ]);
    expect((await push({ file: first, mappingFile: byIdProfile })).orders).toMatchObject({ created: 1 });
    const flipped = await writeCsv('type-after.csv', [
      {
        order_number: 'FLIP-1',
        buyer_id: SUPPLIER,
        supplier_id: BRAND,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 3,
        unit: 'PIECES',
      },
    ]);
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const result = await push({ file: flipped, mappingFile: byIdProfile });
    expect(result.orders).toMatchObject({ created: 0, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'FLIP-1',
        code: 'order_type_changed',
        message: expect.stringContaining('PURCHASE_ORDER'),
      }),
    ]);
    expect(writesSince(before)).toEqual({});
    expect((await only('FLIP-1')).orderType).toBe('PURCHASE_ORDER');
  });

  // Item 2. Spec, PATCH /orders/{id}: "partial update; omitted fields are unchanged".
  it('an export without receiver columns leaves the platform receiver alone', async () => {
    const created = await stack.apiClient.orders.create({
      orderNumber: 'RCV-1',
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      buyerFacilityProcess: 'WAREHOUSE',
      receiverCompanyId: 'cmp_sup_porto_trims',
      receiverFacilityProcess: 'CUT_MAKE_TRIM',
      orderDate: '2024-03-01',
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 4, unit: 'PIECES' }],
    });
    const file = await writeCsv('no-receiver.csv', [
      {
        order_number: 'RCV-1',
        supplier_code: 'SUP-1001',
        buyer_facility_process: 'Warehouse',
        order_date: '2024-04-02',
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 4,
        unit: 'PIECES',
      },
    ]);
    const result = await push({ file });
    expect(result.orders).toMatchObject({ patched: 1, rejected: 0 });
    const after = await only('RCV-1');
    expect(after.id).toBe(created.id);
    expect(after.orderDate).toBe('2024-04-02');
    expect([after.receiverCompanyId, after.receiverFacilityProcess]).toEqual([
      'cmp_sup_porto_trims',
      'CUT_MAKE_TRIM',
    ]);
  });

  // Spec 03, PATCH /orders/{id} rule 3: "Receiver pair rule: send both or neither; to remove the receiver, send both
  // as null". Blank receiver columns mean the default receiver; without a buyer facility process the default (the
  // buyer with the buyer's process) cannot be written as a pair, so another receiver is removed.
  it('blank receiver columns remove a receiver when the buyer has no facility process; the default stays', async () => {
    const created = await stack.apiClient.orders.create({
      orderNumber: 'RCV-2',
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      receiverCompanyId: 'cmp_sup_porto_trims',
      receiverFacilityProcess: 'CUT_MAKE_TRIM',
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 4, unit: 'PIECES' }],
    });
    const row = (orderNumber: string) => ({
      order_number: orderNumber,
      supplier_code: 'SUP-1001',
      receiver_code: '',
      receiver_facility_process: '',
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 4,
      unit: 'PIECES',
    });
    const file = await writeCsv('blank-receiver.csv', [row('RCV-2'), row('RCV-3')]);
    const result = await push({ file });
    expect(result.orders).toMatchObject({ patched: 1, created: 1, rejected: 0 });
    const removed = await only('RCV-2');
    expect(removed.id).toBe(created.id);
    expect([removed.receiverCompanyId, removed.receiverFacilityProcess]).toEqual([null, null]);
    // Pushed again: the removed receiver and the server's default on the new order both match; nothing is written.
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const again = await push({ file });
    expect(again.orders).toMatchObject({ unchanged: 2, patched: 0, created: 0 });
    expect(writesSince(before)).toEqual({});
  });

  // Item 3. Spec, Order.internalResponsiblePersons: "Unknown entry: 404 `responsible_person_not_found`"; DESIGN:
  // "4xx answers are row-level, non-retryable outcomes recorded with their `code`".
  it('a 404 naming bad data on PATCH is the order outcome: rejected with its code, the run carries on', async () => {
    const rows = ['NF-1', 'NF-2'].map((orderNumber) => ({
      order_number: orderNumber,
      supplier_code: 'SUP-1001',
      responsible_persons: '',
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 2,
      unit: 'PIECES',
    }));
    await push({ file: await writeCsv('nf-before.csv', rows) });
    const edited = [
      { ...rows[0], responsible_persons: 'nobody@nowhere.example' },
      { ...rows[1], quantity: 3 },
    ];
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const result = await push({ file: await writeCsv('nf-after.csv', edited) });
    expect(result.orders).toMatchObject({ patched: 1, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({ orderNumber: 'NF-1', code: 'responsible_person_not_found' }),
    ]);
    expect(writesSince(before)).toEqual({ 'PATCH 404': 1, 'PATCH 200': 1 });
    expect(readFileSync(result.rejectsFile!, 'utf8')).toContain('responsible_person_not_found');
  }, 120_000);

  // Spec 03, line reconciliation: "Order fields and lines are changed atomically… Swapping `orderLineNumber` between
  // two existing lines in one request gives 409 (use a temporary number in two requests)." The first request of the
  // two commits alone: when the second is refused, the order must not be left with the temporary numbers.
  it('a swap whose second request is refused puts the line numbers back and reports the reason', async () => {
    const created = await stack.apiClient.orders.create({
      orderNumber: 'SWAP-1',
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      lines: [
        { orderLineNumber: '10', styleId: 'PLM-TEE-001-BLK', quantity: 5, unit: 'PIECES' },
        { orderLineNumber: '20', styleId: 'PLM-TEE-001-OWH', quantity: 6, unit: 'PIECES' },
      ],
    });
    const [first, second] = created.lines ?? [];
    const row = (line: typeof first, number: string, product: string, quantity: number) => ({
      order_number: 'SWAP-1',
      supplier_code: 'SUP-1001',
      responsible_persons: 'nobody@nowhere.example',
      line_id: line!.id,
      line_number: number,
      product_external_id: product,
      quantity,
      unit: 'PIECES',
    });
    const file = await writeCsv('swap-refused.csv', [
      row(first, '20', 'PLM-TEE-001-BLK', 5),
      row(second, '10', 'PLM-TEE-001-OWH', 6),
    ]);
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const result = await push({ file });
    expect(result.orders).toMatchObject({ patched: 0, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'SWAP-1',
        code: 'responsible_person_not_found',
        message: expect.stringContaining('line numbers were put back'),
      }),
    ]);
    // Step 1 (to temporary numbers), step 2 refused, the compensating request.
    expect(writesSince(before)).toEqual({ 'PATCH 200': 2, 'PATCH 404': 1 });
    const after = await only('SWAP-1');
    expect(after.lines.map((line) => [line.id, line.orderLineNumber])).toEqual([
      [first!.id, '10'],
      [second!.id, '20'],
    ]);
  });

  // Spec 03, Order.orderNumber: "exact match (no trimming or case folding). Unique within the owner company for the
  // same order type". A JSON number past 2^53 loses digits when read: 9007199254740993 would be read as
  // 9007199254740992 and two ERP orders would become one.
  it('a JSON order number that cannot be read exactly is refused (quote it), never merged into another order', async () => {
    const line = (orderNumber: string, product: string) =>
      `{"order_number":${orderNumber},"supplier_code":"SUP-1001","line_number":1,` +
      `"product_external_id":"${product}","quantity":2,"unit":"PIECES"}\n`;
    const file = path.join(dir, 'big-numbers.ndjson');
    await writeFile(
      file,
      line('9007199254740993', 'PLM-TEE-001-BLK') + line('9007199254740992', 'PLM-JKT-010-NVY'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({
        code: 'invalid_value',
        message: expect.stringMatching(
          /row 1, column 'order_number' \(orderNumber\): the JSON number 9007199254740993 .*"9007199254740993"/,
        ),
      }),
    ]);
    expect((await only('9007199254740992')).lines.map((l) => l.styleId)).toHaveLength(1);
    expect(await copiesOf('9007199254740993')).toEqual([]);
    // The rejects file gives the number back as written, ready to be quoted and pushed again.
    const rejects = readFileSync(result.rejectsFile!, 'utf8');
    expect(rejects).toContain('"order_number":9007199254740993,');
  });

  // Item 4. Spec, Order line.lineNo: "treat as display position, not identity"; "Tracing coupling" 1: "removing that
  // line (omitting it from a PATCH lines array ...) also deletes the tracing request built from it".
  it('without line numbers, lines match by content: dropping one deletes exactly it; a traced line needs the opt-in', async () => {
    const line = (product: string, quantity: number) => ({
      order_number: 'NOLN-1',
      supplier_code: 'SUP-1001',
      product_external_id: product,
      quantity,
      unit: 'PIECES',
    });
    const full = [line('PLM-TEE-001-BLK', 10), line('PLM-TEE-001-OWH', 20), line('PLM-JKT-010-NVY', 30)];
    const created = await push({ file: await writeCsv('noln-1.csv', full), complete: true });
    expect(created.orders).toMatchObject({ created: 1 });
    const original = await only('NOLN-1');
    const idOf = (order: RawOrder, quantity: number) => order.lines.find((l) => l.quantity === quantity)?.id;

    const dropped = await push({ file: await writeCsv('noln-2.csv', [full[0]!, full[2]!]), complete: true });
    expect(dropped.orders).toMatchObject({ patched: 1 });
    expect(dropped.lines).toEqual({ created: 0, updated: 0, deleted: 1 });
    const after = await only('NOLN-1');
    expect(after.lines.map((l) => l.id)).toEqual([idOf(original, 10), idOf(original, 30)]);

    // Sent to tracing: removing a line would delete the counterparty's tracing request.
    await control(`/__sandbox/orders/${after.id}/tracing`, 'PUT', { linesSentToTracing: true });
    const before = { ...stack.apiClient.stats().byMethodStatus };
    const refused = await push({ file: await writeCsv('noln-3.csv', [full[0]!]), complete: true });
    expect(refused.orders).toMatchObject({ patched: 0, rejected: 1 });
    expect(refused.rejections).toEqual([
      expect.objectContaining({
        code: 'traced_line_protected',
        message: expect.stringContaining('--allow-traced-line-removal'),
      }),
    ]);
    expect(writesSince(before)).toEqual({});
    expect((await only('NOLN-1')).lines).toHaveLength(2);

    const allowed = await push({
      file: await writeCsv('noln-4.csv', [full[0]!]),
      complete: true,
      allowTracedLineRemoval: true,
    });
    expect(allowed.lines).toMatchObject({ deleted: 1 });
    expect((await only('NOLN-1')).lines.map((l) => l.id)).toEqual([idOf(original, 10)]);
  });

  // Item 8. Spec, Order line.styleId: "A non-archived product owned by the caller ... else 404 `style_not_found`";
  // POST /orders rule 5: "Unknown company id ... 404 `invalid_company_id`".
  it('a dry run rejects what the real run will reject, with the same codes', async () => {
    const file = await writeCsv('dry-check.csv', [
      {
        order_number: 'DRY-OK',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 1,
        unit: 'PIECES',
      },
      // A fourth product: the catalogue is read in pages of 100 (one per level) instead of one GET per product.
      {
        order_number: 'DRY-OK',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '2',
        product_external_id: 'PLM-JKT-010-NVY',
        quantity: 1,
        unit: 'PIECES',
      },
      {
        order_number: 'DRY-GONE',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '1',
        product_external_id: 'NO-SUCH-PRODUCT',
        quantity: 1,
        unit: 'PIECES',
      },
      {
        order_number: 'DRY-ARCH',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '1',
        product_external_id: 'PLM-FLC-002',
        quantity: 1,
        unit: 'PIECES',
      },
      {
        order_number: 'DRY-COMP',
        buyer_id: BRAND,
        supplier_id: 'cmp_no_such_company',
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 1,
        unit: 'PIECES',
      },
    ]);
    const codes = (result: PushErpOrdersResult) =>
      Object.fromEntries(result.rejections.map((rejection) => [rejection.orderNumber, rejection.code]));
    const dry = await push({ file, mappingFile: byIdProfile, dryRun: true });
    const expected = {
      'DRY-GONE': 'style_not_found',
      'DRY-ARCH': 'style_not_found',
      'DRY-COMP': 'invalid_company_id',
    };
    expect(dry.orders).toMatchObject({ created: 1, rejected: 3 });
    expect(dry.lines).toMatchObject({ created: 2 });
    expect(codes(dry)).toEqual(expected);
    const real = await push({ file, mappingFile: byIdProfile });
    expect(real.orders).toMatchObject({ created: 1, rejected: 3 });
    expect(codes(real)).toEqual(expected);
  });

  // Item 9. README: the rejects file is "the bad orders' rows in the input's format".
  it('a semicolon, Windows-1252, LF csv gets its rejects file in the same delimiter, encoding and line endings', async () => {
    const text =
      'order_number;supplier_code;shipment_reference;line_number;product_external_id;quantity;unit\n' +
      'SEMI-1;SUP-1001;Café Nord;1;PLM-TEE-001-BLK;2;PIECES\n' +
      'SEMI-2;SUP-9999;Crème;1;PLM-TEE-001-BLK;2;PIECES\n';
    const file = path.join(dir, 'semicolon.csv');
    await writeFile(file, Buffer.from(text, 'latin1'));
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
    const bytes = readFileSync(result.rejectsFile!);
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    expect(bytes.includes(Buffer.from('\r\n'))).toBe(false);
    const rejects = bytes.toString('latin1');
    expect(rejects.split('\n')[0]).toBe(
      'order_number;supplier_code;shipment_reference;line_number;product_external_id;quantity;unit;error_code;error_message',
    );
    expect(rejects.split('\n')[1]).toMatch(
      /^SEMI-2;SUP-9999;Crème;1;PLM-TEE-001-BLK;2;PIECES;unknown_company;/,
    );
  });

  // Item 10. Spec, POST /orders rule 8: "a retry can create a duplicate ... re-read with the `orderNumber` filter
  // before retrying": recovered creates must still be counted with their lines, and the total covers every phase.
  it('figures add up: lines counted after lost answers equal the lines on the platform, total covers prepare', async () => {
    const rows = Array.from({ length: 12 }, (_, o) =>
      [1, 2].map((l) => ({
        order_number: `FIG-${String(o + 1).padStart(2, '0')}`,
        supplier_code: 'SUP-1001',
        line_number: String(l),
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: l,
        unit: 'PIECES',
      })),
    ).flat();
    await control('/__sandbox/faults', 'PUT', {
      dropAfterCommitRate: 0.5,
      methods: ['POST'],
      pathPrefix: '/orders',
      seed: 11,
    });
    let result: PushErpOrdersResult;
    try {
      result = await push({ file: await writeCsv('figures.csv', rows), batchSize: 5 });
    } finally {
      await control('/__sandbox/faults', 'DELETE');
    }
    expect(result.recoveries.lostAnswer).toBeGreaterThan(0);
    let onPlatform = 0;
    for (let o = 1; o <= 12; o++)
      onPlatform += (await only(`FIG-${String(o).padStart(2, '0')}`)).lines.length;
    expect(onPlatform).toBe(24);
    expect(result.orders).toMatchObject({ created: 12 });
    expect(result.lines.created).toBe(onPlatform);
    const { prepare, apply, finish, total } = result.durationsMs;
    expect(total).toBeGreaterThanOrEqual(prepare + apply + finish);
  });

  // Item 7 and the Shopify example. Shopify writes `Created at` as `2025-05-11 09:55:16 -0400`; order fields only on
  // the first row of an order; no line numbers.
  it('a Shopify orders_export.csv is pushed with a mapping file alone, dates as written', async () => {
    const repo = path.resolve(__dirname, '..', '..');
    const file = path.join(repo, 'examples', 'erp', 'shopify-orders_export.csv');
    const mappingFile = path.join(repo, 'examples', 'erp', 'profile-shopify.json');
    const result = await push({ file, mappingFile });
    expect(result.orders).toMatchObject({ created: 3, rejected: 0 });
    const first = await only('#1001');
    expect(first.orderDate).toBe('2025-05-11');
    expect(first.lines.map((l) => [l.quantity])).toEqual([[2], [1]]);
    expect((await only('#1003')).orderDate).toBe('2025-05-12');
    const again = await push({ file, mappingFile });
    expect(again.orders).toMatchObject({ unchanged: 3, created: 0, patched: 0 });
  });

  // Spec, Order.internalResponsiblePersons: "E-mail addresses or user ids …; e-mails resolve to user ids, match
  // case-insensitively". The platform stores ids; an export that names people by e-mail must not read as changed
  // on every push (each PATCH of a traced order re-syncs it and notifies the counterparty).
  describe('responsible persons given as e-mails', () => {
    const PEOPLE = 'ines.buyer@nordicthreads.example; ola.quality@NORDICTHREADS.example';
    const personRow = (orderNumber: string) => ({
      order_number: orderNumber,
      supplier_code: 'SUP-1001',
      responsible_persons: PEOPLE,
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 4,
      unit: 'PIECES',
    });

    it('two people named by e-mail: the second push writes nothing', async () => {
      const file = await writeCsv('persons-two.csv', [personRow('RP-1'), personRow('RP-2')]);
      const first = await push({ file });
      expect(first.orders).toMatchObject({ created: 2, rejected: 0 });
      expect((await only('RP-1')).internalResponsiblePersons?.sort()).toEqual([
        'user_brand_buyer',
        'user_brand_qa',
      ]);
      const before = { ...stack.apiClient.stats().byMethodStatus };
      const again = await push({ file });
      expect(again.orders).toMatchObject({ unchanged: 2, patched: 0 });
      expect(writesSince(before)).toEqual({});
    });

    it("the mapping profile's responsiblePersonIds: an order the worker never wrote compares as unchanged", async () => {
      // Written with ids by someone else: this worker has learned nothing of these people from this order.
      await stack.apiClient.orders.create({
        orderNumber: 'RP-3',
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        internalResponsiblePersons: ['user_brand_qa'],
        lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 4, unit: 'PIECES' }],
      });
      const row = { ...personRow('RP-3'), responsible_persons: 'Ola.Quality@nordicthreads.example' };
      const mappingFile = await writeProfile('persons-mapped.json', {
        ...DEFAULT_PROFILE,
        responsiblePersonIds: { 'ola.quality@nordicthreads.example': 'user_brand_qa' },
      });
      const before = { ...stack.apiClient.stats().byMethodStatus };
      const result = await push({ file: await writeCsv('persons-mapped.csv', [row]), mappingFile });
      expect(result.orders).toMatchObject({ unchanged: 1, patched: 0, rejected: 0 });
      expect(writesSince(before)).toEqual({});
    });
  });
});
