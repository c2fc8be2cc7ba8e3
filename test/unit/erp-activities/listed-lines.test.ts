/**
 * Spec 03, GET /order-lines: "Always ordered by ascending `lineNo`; no `sort` or `order` parameters." Listing every
 * line, most lines share a lineNo with another order's, and the spec gives no order among them: between two page
 * reads a line may show on both pages and another on neither. The push's snapshot and the pull read an order's
 * listed lines only when they are as many as its `lineCount`, so a repeated line must not stand in for a missing
 * one. Against an in-process sandbox over HTTP, its pages shifted by one line.
 */
import { listedLines } from '../../../connectors/erp-orders/platform-reads';
import { ApiCalls } from '../../../connectors/staging';
import { TraceabilityClient, type Order } from '../../../connectors/traceability';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';

const BRAND = 'cmp_brand_nordic_threads';
const SUPPLIER = 'cmp_sup_anatolia_garments';

describe('listedLines: every line of many orders, read by pages', () => {
  let sandbox: RunningSandbox;
  let client: TraceabilityClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 1_000_000 });
    client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  it('a line shown on two pages, another on none: the order no longer adds up, so it is read again', async () => {
    const orders: Order[] = [];
    for (let o = 0; o < 3; o++) {
      orders.push(
        await client.orders.create({
          orderNumber: `LL-${Date.now()}-${o}`,
          buyerCompanyId: BRAND,
          supplierCompanyId: SUPPLIER,
          lines: Array.from({ length: 40 }, (_, l) => ({
            orderLineNumber: String(l + 1),
            styleId: 'PLM-TEE-001-BLK',
            quantity: 1,
            unit: 'PIECES' as const,
          })),
        }),
      );
    }
    // Page 2 as a server whose tie order moved between the reads: its first line is on neither page, and in its
    // place comes a line of the same order that page 1 showed already.
    const list = client.orderLines.list.bind(client.orderLines);
    let pageOne: Awaited<ReturnType<typeof list>>['items'] = [];
    client.orderLines.list = async (query, options) => {
      const page = await list(query, options);
      if (query?.page === 1) pageOne = page.items;
      const [skipped, ...rest] = page.items;
      const repeated = pageOne.find((line) => line.orderId === skipped?.orderId);
      if (query?.page === 2 && repeated) return { ...page, items: [repeated, ...rest] };
      return page;
    };
    try {
      const byOrder = await listedLines(new ApiCalls(client), orders);
      expect(byOrder).toBeDefined();
      const counts = orders.map((order) => {
        const listed = byOrder?.get(order.id) ?? [];
        expect(new Set(listed.map((line) => line.id)).size).toBe(listed.length);
        return listed.length === order.lineCount;
      });
      // The order whose line went missing is short (re-read by the caller); the others add up.
      expect(counts.filter((addsUp) => !addsUp)).toHaveLength(1);
    } finally {
      client.orderLines.list = list;
    }
  });
});
