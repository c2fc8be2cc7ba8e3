/**
 * The ERP push writes to the right order and the right lines (an audit of job 2 against spec 03): each test quotes
 * the spec sentence it holds the push to, on a real Temporal dev server and the sandbox over HTTP. The shared setup
 * is in erp-stack.ts; lines by number and tracing are in erp-orders-spec-runs.test.ts.
 */
import { erpOrders } from '../../workflows';
import { erpSpecStack, SUPPLIER, type SpecOrder } from './erp-stack';

describe('erpOrders writes to the right order and lines, on real Temporal and the sandbox', () => {
  const { stack, control, only, copiesOf, writesSince, writeCsv, push } = erpSpecStack();

  /** A row of the default profile without line numbers (a Shopify-like export). */
  const unnumbered = (order: string, product: string, quantity: number, unit = 'PIECES') => ({
    order_number: order,
    supplier_code: 'SUP-1001',
    product_external_id: product,
    quantity,
    unit,
  });
  const linesOf = (order: SpecOrder) =>
    order.lines
      .map((line) => [line.styleId, line.quantity])
      .sort((a, b) => String(a).localeCompare(String(b)));

  // Spec 03, Line reconciliation: "an entry without `id` creates a line; any existing line absent from the array is
  // deleted". Without line numbers, a line whose product or unit changed matches no platform line: sending it as a
  // new line while keeping the unmatched platform line (an export not marked complete) gives the order both.
  it('an incomplete export without line numbers that swaps a product is refused, not pushed as a second line', async () => {
    const first = await push({
      file: await writeCsv('swap-1.csv', [
        unnumbered('NOLN-SWAP', 'PLM-TEE-001-BLK', 3),
        unnumbered('NOLN-SWAP', 'PLM-JKT-010-NVY', 2),
      ]),
    });
    expect(first.orders).toMatchObject({ created: 1 });
    const original = await only('NOLN-SWAP');

    // The export now says OWH where it said BLK: replace the line, or add one beside it?
    const swapped = [
      unnumbered('NOLN-SWAP', 'PLM-TEE-001-OWH', 3),
      unnumbered('NOLN-SWAP', 'PLM-JKT-010-NVY', 2),
    ];
    const before = { ...stack().apiClient.stats().byMethodStatus };
    const refused = await push({ file: await writeCsv('swap-2.csv', swapped) });
    expect(refused.orders).toMatchObject({ patched: 0, rejected: 1 });
    const [rejection] = refused.rejections;
    expect(rejection).toMatchObject({ orderNumber: 'NOLN-SWAP', code: 'lines_ambiguous' });
    // It names the export's row, the platform line left unmatched, and the remedy.
    expect(rejection?.message).toContain('row 2 (PLM-TEE-001-OWH, 3 PIECES)');
    const blk = original.lines.find((line) => line.quantity === 3);
    expect(rejection?.message).toContain(`'${blk?.orderLineNumber}' (product ${blk?.styleId}, 3 PIECES)`);
    expect(rejection?.message).toContain('set "complete": true in the profile');
    expect(writesSince(before)).toEqual({});
    expect(linesOf(await only('NOLN-SWAP'))).toEqual(linesOf(original));

    // Told that the export lists every line, the push replaces the line: two lines, the unchanged one kept by id.
    const replaced = await push({ file: await writeCsv('swap-3.csv', swapped), complete: true });
    expect(replaced.orders).toMatchObject({ patched: 1, rejected: 0 });
    expect(replaced.lines).toEqual({ created: 1, updated: 0, deleted: 1 });
    const after = await only('NOLN-SWAP');
    expect(after.lines).toHaveLength(2);
    expect(after.lines.find((line) => line.quantity === 2)?.id).toBe(
      original.lines.find((line) => line.quantity === 2)?.id,
    );
  });

  // The same sentence, where the export leaves no doubt: a quantity changed on a line that keeps its product and
  // unit (another line left out of the export is kept), or lines added while every platform line is listed.
  it('an incomplete export without line numbers still changes quantities in place and adds lines', async () => {
    const blk = unnumbered('NOLN-KEEP', 'PLM-TEE-001-BLK', 3);
    const nvy = unnumbered('NOLN-KEEP', 'PLM-JKT-010-NVY', 2);
    expect((await push({ file: await writeCsv('keep-1.csv', [blk, nvy]) })).orders).toMatchObject({
      created: 1,
    });
    const original = await only('NOLN-KEEP');
    const idOf = (order: SpecOrder, quantity: number) =>
      order.lines.find((line) => line.quantity === quantity)?.id;

    const changed = await push({ file: await writeCsv('keep-2.csv', [{ ...blk, quantity: 5 }]) });
    expect(changed.orders).toMatchObject({ patched: 1, rejected: 0 });
    expect(changed.lines).toEqual({ created: 0, updated: 1, deleted: 0 });
    const afterChange = await only('NOLN-KEEP');
    expect(idOf(afterChange, 5)).toBe(idOf(original, 3));
    expect(idOf(afterChange, 2)).toBe(idOf(original, 2));

    const added = await push({
      file: await writeCsv('keep-3.csv', [
        { ...blk, quantity: 5 },
        nvy,
        unnumbered('NOLN-KEEP', 'PLM-TEE-001-OWH', 1),
      ]),
    });
    expect(added.orders).toMatchObject({ patched: 1, rejected: 0 });
    expect(added.lines).toEqual({ created: 1, updated: 0, deleted: 0 });
    const afterAdd = await only('NOLN-KEEP');
    expect(afterAdd.lines.map((line) => line.quantity).sort()).toEqual([1, 2, 5]);
    expect(idOf(afterAdd, 5)).toBe(idOf(original, 3));
  });

  /** Holds each GET of one order for `ms` (sandbox fault), and resolves once the push's read of it is held. */
  const holdReadsOf = async (orderId: string, ms: number) => {
    await control('/__sandbox/faults', 'DELETE');
    await control('/__sandbox/faults', 'PUT', {
      latencyMs: ms,
      methods: ['GET'],
      pathPrefix: `/orders/${orderId}`,
    });
    return async (): Promise<void> => {
      for (let i = 0; i < 400; i++) {
        const faults = (await (await control('/__sandbox/faults', 'GET')).json()) as {
          counters: { delayed: number };
        };
        if (faults.counters.delayed > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the push never read order ${orderId}`);
    };
  };

  // Spec 03, Order.orderNumber: the natural key ("Unique within the owner company for the same order type"), and
  // PATCH may change it ("a change of type or of `orderNumber`"). An order renamed on the platform after the run's
  // snapshot is another order now: the export's order is the one that holds its number, never the renamed one.
  it('an order renamed on the platform after the snapshot is left alone; the number is created anew', async () => {
    const row = (order: string, status: string, quantity: number) => ({
      order_number: order,
      supplier_code: 'SUP-1001',
      status,
      line_number: '10',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity,
      unit: 'PIECES',
    });
    const first = await push({
      file: await writeCsv('rename-1.csv', [row('REN-1', 'IN_PROGRESS', 5), row('REN-2', 'IN_PROGRESS', 5)]),
    });
    expect(first.orders).toMatchObject({ created: 2 });
    const renamed = await only('REN-1');

    // Two orders in one page of the platform's orders: the run snapshots them all (listed mode) and the batch
    // reads REN-1 by the snapshot's id; the order is renamed while that read waits.
    const file = await writeCsv('rename-2.csv', [
      row('REN-1', 'COMPLETED', 7),
      row('REN-2', 'IN_PROGRESS', 5),
    ]);
    const held = await holdReadsOf(renamed.id, 3000);
    let result;
    try {
      const handle = await stack().client.workflow.start(erpOrders, {
        args: [{ file }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('erp-rename'),
      });
      await held();
      await stack().apiClient.orders.update(renamed.id, { orderNumber: 'REN-1-OLD-CANCELLED' });
      result = await handle.result();
    } finally {
      await control('/__sandbox/faults', 'DELETE');
    }
    expect(result.orders).toMatchObject({ created: 1, patched: 0, unchanged: 1, rejected: 0 });
    const old = await only('REN-1-OLD-CANCELLED');
    expect(old.id).toBe(renamed.id);
    expect((await stack().apiClient.orders.get(old.id)).status).toBe('IN_PROGRESS');
    expect(old.lines.map((line) => line.quantity)).toEqual([5]);
    const [now, ...more] = await copiesOf('REN-1');
    expect(more).toEqual([]);
    expect(now?.id).not.toBe(renamed.id);
    expect(now?.lines.map((line) => line.quantity)).toEqual([7]);
  });

  // Spec 03, Order archive flag: an archived order stays "readable over the API; hidden from order lists and
  // analytics views in the platform UI", and "PATCH with `isArchived: false`" restores it. Writing the export into an
  // order nobody sees would go unnoticed: like the PLM import's archived products, it is refused unless the run says
  // to unarchive it.
  it('an archived order is refused (order_archived), unless the run unarchives it and then updates it', async () => {
    const row = (status: string) => ({
      order_number: 'ARC-1',
      supplier_code: 'SUP-1001',
      status,
      line_number: '10',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 4,
      unit: 'PIECES',
    });
    const first = await writeCsv('archived-1.csv', [row('IN_PROGRESS')]);
    expect((await push({ file: first })).orders).toMatchObject({ created: 1 });
    const { id } = await only('ARC-1');
    await stack().apiClient.orders.update(id, { isArchived: true });

    const changed = await writeCsv('archived-2.csv', [row('COMPLETED')]);
    const before = { ...stack().apiClient.stats().byMethodStatus };
    for (const file of [changed, first]) {
      const refused = await push({ file });
      expect(refused.orders).toMatchObject({ patched: 0, unchanged: 0, rejected: 1 });
      expect(refused.rejections).toEqual([
        expect.objectContaining({
          orderNumber: 'ARC-1',
          code: 'order_archived',
          message: expect.stringContaining('--unarchive (workflow input "unarchive": true)'),
        }),
      ]);
    }
    expect(writesSince(before)).toEqual({});
    expect(await stack().apiClient.orders.get(id)).toMatchObject({ isArchived: true, status: 'IN_PROGRESS' });

    const restored = await push({ file: changed, unarchive: true });
    expect(restored.orders).toMatchObject({ patched: 1, rejected: 0 });
    expect(await stack().apiClient.orders.get(id)).toMatchObject({ isArchived: false, status: 'COMPLETED' });
  });
  // Spec 03, Order line.styleId: "A non-archived product owned by the caller, by platform id or externalId; else 404
  // `style_not_found`"; spec 01, Product.forCompanyId: "Owning company", and POST /styles takes `forCompanyId`
  // ("create on behalf of another company in the network"). A product the brand made for its supplier shows in the
  // brand's lists, and codes are unique per owner's catalogue, so it may carry the code of the brand's own product:
  // the line must take the brand's own one, never the supplier's (which the API refuses on the brand's order line).
  it("a product code resolves to the caller's own product, not one it created for a supplier", async () => {
    const code = { codeId: 'ERP_ID', codeValue: 'OWN-VS-MADE-FOR-1' };
    const own = await stack().apiClient.products.create({
      name: 'Brand tee',
      codes: [code],
      styleTypeId: 'st_tshirts',
      isComponent: false,
    });
    // Made after the brand's own, so the lists (newest first) show it first.
    const madeForSupplier = await stack().apiClient.products.create({
      name: 'Tee made for the supplier',
      codes: [code],
      styleTypeId: 'st_tshirts',
      isComponent: false,
      forCompanyId: SUPPLIER,
    });
    expect(madeForSupplier.forCompanyId).toBe(SUPPLIER);
    const file = await writeCsv('owned-product.csv', [
      {
        order_number: 'OWNED-1',
        supplier_code: 'SUP-1001',
        line_number: '1',
        product_code: code.codeValue,
        quantity: 6,
        unit: 'PIECES',
      },
    ]);
    for (const dryRun of [true, false]) {
      const result = await push({ file, dryRun });
      expect(result.rejections).toEqual([]);
      expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    }
    expect((await only('OWNED-1')).lines.map((line) => line.styleId)).toEqual([own.id]);
    // Pushed again, the line still compares with the brand's own product: nothing to write.
    const before = { ...stack().apiClient.stats().byMethodStatus };
    expect((await push({ file })).orders).toMatchObject({ unchanged: 1, rejected: 0 });
    expect(writesSince(before)).toEqual({});
  });
});
