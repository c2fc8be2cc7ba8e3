import { caught } from '../harness/errors';
import { BRAND_ID, sandboxForFile, unique } from '../harness/sandbox-client';

const SUPPLIER = 'cmp_sup_anatolia_garments';
const h = sandboxForFile();

const draft = (orderNumber: string) => ({
  orderNumber,
  buyerCompanyId: BRAND_ID,
  supplierCompanyId: SUPPLIER,
  orderDate: '2025-03-01',
  lines: [{ styleId: 'PLM-TEE-001-BLK', quantity: 10, unit: 'PIECES' as const }],
});

describe('orders against the sandbox', () => {
  it('creates an order, finds it by exact number, patches it and reads its lines', async () => {
    const number = unique('PO');
    const created = await h.client.orders.create(draft(number));
    expect(created).toMatchObject({ orderNumber: number, orderType: 'PURCHASE_ORDER' });
    expect(created.lines).toHaveLength(1);

    expect((await h.client.naturalKeys.findOrdersByNumber(number)).map((o) => o.id)).toEqual([created.id]);
    expect(await h.client.naturalKeys.findOrdersByNumber(number.slice(0, -1))).toEqual([]);
    expect(await h.client.orders.findByOrderNumber(number, { type: 'SALES_ORDER' })).toEqual([]);

    const line = created.lines?.[0];
    const patched = await h.client.orders.update(created.id, {
      status: 'IN_REVIEW',
      lines: [
        { id: line?.id, quantity: 12 },
        { styleId: 'PLM-TEE-001-OWH', quantity: 3, unit: 'PIECES' },
      ],
    });
    expect(patched.status).toBe('IN_REVIEW');
    const lines = (await h.client.orderLines.list({ orderId: created.id })).items;
    expect(lines.map((l) => l.quantity).sort()).toEqual([12, 3].sort());
    expect((await h.client.orderLines.get(lines[0]?.id ?? '')).orderId).toBe(created.id);

    await h.client.orders.delete(created.id);
    expect(await h.client.naturalKeys.findOrdersByNumber(number)).toEqual([]);
  });

  it('surfaces a duplicate number as a row-level 400', async () => {
    const number = unique('PO');
    await h.client.orders.create(draft(number));
    const error = await caught(h.client.orders.create(draft(number)));
    expect(error).toMatchObject({ statusCode: 400, code: 'order_number_already_existing', retryable: false });
  });

  it('does not re-send an order whose answer was lost; re-reading by number finds it', async () => {
    const number = unique('PO');
    await h.control('PUT', '/__sandbox/faults', {
      dropAfterCommitRate: 1,
      methods: ['POST'],
      pathPrefix: '/orders',
    });
    const error = await caught(h.client.orders.create(draft(number)));
    await h.control('DELETE', '/__sandbox/faults');
    expect(error).toMatchObject({
      statusCode: 0,
      code: 'network_error',
      retryable: true,
      maybeCommitted: true,
      attempts: 1,
    });
    const found = await h.client.naturalKeys.findOrdersByNumber(number);
    expect(found).toHaveLength(1);
  });

  it('creates orders without waiting for the pacer', async () => {
    const paused = h.newClient();
    await paused.orders.list({ limit: 1 });
    paused.rateLimiter.pauseFor(30_000);
    const started = Date.now();
    await paused.orders.create(draft(unique('PO')));
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
