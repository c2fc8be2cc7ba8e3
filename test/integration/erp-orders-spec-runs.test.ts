/**
 * Issue 14: the push read against spec 03 ("Orders, Files, Certificates...") and fed real exports. Each test quotes
 * the spec sentence it holds the job to, on a real Temporal dev server and the sandbox over HTTP.
 * This file: lines (swaps, matching by content) and what a run reads and reports (pages, dry runs, the rejects file,
 * figures, a Shopify export); orders and their fields are in erp-orders-spec.test.ts, the shared setup in erp-stack.ts.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PullOrdersResult } from '../../activities/erp-pull';
import { erpPull } from '../../workflows';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import { BRAND, erpSpecStack, SUPPLIER, type SpecOrder } from './erp-stack';

describe('erpOrders by the spec, on real Temporal and the sandbox (issue 14)', () => {
  const { stack, dir, control, only, writesSince, writeCsv, push, byIdProfile } = erpSpecStack();

  // Item 6. Spec, GET /orders: "limit | number | 20 | 1-100" with pagination metadata; a server may answer fewer
  // items than asked, and the client must follow `totalPages`, as `paginate` does.
  it('an incremental pull follows totalPages when the server caps page sizes below the limit asked', async () => {
    for (let n = 1; n <= 5; n++) {
      await stack().apiClient.orders.create({
        orderNumber: `CAP-${n}`,
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: n, unit: 'PIECES' }],
      });
    }
    const total = (
      (await (
        await fetch(`${stack().sandbox.baseUrl}/orders?limit=1`, {
          headers: { companyapikey: stack().apiKey },
        })
      ).json()) as { metadata: { pagination: { total: number } } }
    ).metadata.pagination.total;
    await control('/__sandbox/config', 'PUT', { orderPageSizeCap: 2 });
    let pulled: PullOrdersResult;
    try {
      pulled = await stack().client.workflow.execute(erpPull, {
        args: [{}],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('erp-pull-capped'),
      });
    } finally {
      await control('/__sandbox/config', 'PUT', { orderPageSizeCap: null });
    }
    expect(total).toBeGreaterThan(2);
    expect(pulled.orders).toBe(total);
  });

  // Spec 03, line reconciliation: "Order fields and lines are changed atomically… Swapping `orderLineNumber` between
  // two existing lines in one request gives 409 (use a temporary number in two requests)." The first request of the
  // two commits alone: when the second is refused, the order must not be left with the temporary numbers.
  it('a swap whose second request is refused puts the line numbers back and reports the reason', async () => {
    const created = await stack().apiClient.orders.create({
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
    const before = { ...stack().apiClient.stats().byMethodStatus };
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
    const idOf = (order: SpecOrder, quantity: number) => order.lines.find((l) => l.quantity === quantity)?.id;

    const dropped = await push({ file: await writeCsv('noln-2.csv', [full[0]!, full[2]!]), complete: true });
    expect(dropped.orders).toMatchObject({ patched: 1 });
    expect(dropped.lines).toEqual({ created: 0, updated: 0, deleted: 1 });
    const after = await only('NOLN-1');
    expect(after.lines.map((l) => l.id)).toEqual([idOf(original, 10), idOf(original, 30)]);

    // Sent to tracing: removing a line would delete the counterparty's tracing request.
    await control(`/__sandbox/orders/${after.id}/tracing`, 'PUT', { linesSentToTracing: true });
    const before = { ...stack().apiClient.stats().byMethodStatus };
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
    const dry = await push({ file, mappingFile: byIdProfile(), dryRun: true });
    const expected = {
      'DRY-GONE': 'style_not_found',
      'DRY-ARCH': 'style_not_found',
      'DRY-COMP': 'invalid_company_id',
    };
    expect(dry.orders).toMatchObject({ created: 1, rejected: 3 });
    expect(dry.lines).toMatchObject({ created: 2 });
    expect(codes(dry)).toEqual(expected);
    const real = await push({ file, mappingFile: byIdProfile() });
    expect(real.orders).toMatchObject({ created: 1, rejected: 3 });
    expect(codes(real)).toEqual(expected);
  });

  // Item 9. README: the rejects file is "the bad orders' rows in the input's format".
  it('a semicolon, Windows-1252, LF csv gets its rejects file in the same delimiter, encoding and line endings', async () => {
    const text =
      'order_number;supplier_code;shipment_reference;line_number;product_external_id;quantity;unit\n' +
      'SEMI-1;SUP-1001;Café Nord;1;PLM-TEE-001-BLK;2;PIECES\n' +
      'SEMI-2;SUP-9999;Crème;1;PLM-TEE-001-BLK;2;PIECES\n';
    const file = path.join(dir(), 'semicolon.csv');
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
});
