/**
 * What one order's sync trusts of a read, against an in-process sandbox over HTTP: an order read by the id the run
 * knew is the export's only while it holds the export's number and type (spec 03: `orderNumber` is the natural key,
 * and PATCH may change it). End to end (real Temporal) in test/integration/erp-orders-spec-writes.test.ts.
 */
import { orderDraftSchema, type OrderDraft } from '../../../connectors/erp-orders/orders/draft';
import { naturalKey, takeSnapshot, toExisting } from '../../../connectors/erp-orders/platform-reads';
import type { BatchRecord } from '../../../connectors/erp-orders/push-run';
import { syncOrder } from '../../../connectors/erp-orders/sync-order';
import { ApiCalls } from '../../../connectors/staging';
import type { TraceabilityClient } from '../../../connectors/traceability';
import type { RunningSandbox } from '../../../sandbox/server';
import { BRAND, startSyncSandbox, SUPPLIER, type SyncSandbox } from './helpers';

describe('one order sync and what it reads', () => {
  let env: SyncSandbox | undefined;
  let sandbox: RunningSandbox;
  let client: TraceabilityClient;
  let runs = 0;

  beforeAll(async () => {
    env = await startSyncSandbox('erp-reads-');
    ({ sandbox, client } = env);
  });

  afterAll(async () => {
    await env?.close();
  });

  const context = () => env!.context(`run-${(runs += 1)}`);
  const draft = (orderNumber: string, status: 'IN_PROGRESS' | 'COMPLETED', quantity: number): OrderDraft =>
    orderDraftSchema.parse({
      orderType: 'PURCHASE_ORDER',
      rows: [2],
      orderNumber,
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      status,
      lines: [
        {
          rows: [2],
          orderLineNumber: '10',
          productRef: { externalId: 'PLM-TEE-001-BLK' },
          quantity,
          unit: 'PIECES',
        },
      ],
    });

  /** A record staged with no snapshot of the platform: its sync looks the order up itself. */
  const lookedUpByNumber = (orderDraft: OrderDraft): BatchRecord => ({
    draft: orderDraft,
    lookup: 'unknown',
    existing: null,
    linesKnown: false,
    typesInFile: [],
    typesOnPlatform: null,
  });

  // Spec 03: PATCH rule 2, "a change of type or of `orderNumber`": the run's snapshot (or a retried attempt's
  // earlier read) knew the order by id, and the platform renamed it since.
  it.each([
    ['the snapshot knew it (listed mode)', { retry: false }],
    ['a retried attempt re-reads it', { retry: true }],
  ])('an order renamed since %s is not patched: the number is looked up, and created', async (_, hint) => {
    const number = `RN-${hint.retry ? 'RETRY' : 'SNAP'}`;
    const created = await syncOrder(lookedUpByNumber(draft(number, 'IN_PROGRESS', 5)), await context(), {
      retry: false,
    });
    expect(created.outcome).toBe('created');
    const snapshot = toExisting(await client.orders.get(created.orderId!));
    await client.orders.update(snapshot.id, { orderNumber: `${number}-OLD` });

    const record: BatchRecord = {
      draft: draft(number, 'COMPLETED', 7),
      lookup: 'known',
      existing: snapshot,
      linesKnown: true,
      typesInFile: [],
      typesOnPlatform: ['PURCHASE_ORDER'],
    };
    const outcome = await syncOrder(record, await context(), hint);
    expect(outcome).toMatchObject({ outcome: 'created' });
    expect(outcome.orderId).not.toBe(snapshot.id);
    const old = await client.orders.get(snapshot.id);
    expect([old.orderNumber, old.status, old.lines?.map((line) => line.quantity)]).toEqual([
      `${number}-OLD`,
      'IN_PROGRESS',
      [5],
    ]);
    const now = await client.orders.get(outcome.orderId!);
    expect([now.orderNumber, now.status, now.lines?.map((line) => line.quantity)]).toEqual([
      number,
      'COMPLETED',
      [7],
    ]);
  });

  // Spec 03, line reconciliation: "any existing line absent from the array is deleted". A GET /orders/{id} whose
  // `lines` came back empty (or short) while `lineCount` says otherwise would make every line of the order look
  // absent: a lines PATCH planned on it deletes them all (traced ones included) and creates them anew.
  it.each([
    ['null', null],
    ['short', 1],
  ])(
    'a read whose lines are %s while lineCount says 2 plans no write: a clear, retryable error',
    async (_, kept) => {
      const number = `SHORT-${kept ?? 'NULL'}`;
      const order = await client.orders.create({
        orderNumber: number,
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        lines: [
          { orderLineNumber: '10', styleId: 'PLM-TEE-001-BLK', quantity: 5, unit: 'PIECES' },
          { orderLineNumber: '20', styleId: 'PLM-TEE-001-OWH', quantity: 6, unit: 'PIECES' },
        ],
      });
      const before = (await client.orders.get(order.id)).lines?.map((line) => line.id);
      const changed = draft(number, 'COMPLETED', 5);
      changed.lines.push({
        ...changed.lines[0]!,
        rows: [3],
        orderLineNumber: '20',
        productRef: { externalId: 'PLM-TEE-001-OWH' },
        quantity: 6,
      });
      const real = client.orders.get.bind(client.orders);
      const get = jest.spyOn(client.orders, 'get').mockImplementation(async (id, options) => {
        const answer = await real(id, options);
        return { ...answer, lines: kept === null ? null : (answer.lines ?? []).slice(0, kept) };
      });
      const update = jest.spyOn(client.orders, 'update');
      try {
        await expect(
          syncOrder(lookedUpByNumber(changed), { ...(await context()), complete: true }, { retry: false }),
        ).rejects.toThrow(`order '${number}': the platform answered ${kept ?? 0} of its 2 lines`);
        expect(update).not.toHaveBeenCalled();
      } finally {
        get.mockRestore();
        update.mockRestore();
      }
      expect((await client.orders.get(order.id)).lines?.map((line) => line.id)).toEqual(before);
      // Read whole again (the batch's retry), the same draft is a patch of the status alone.
      const outcome = await syncOrder(
        lookedUpByNumber(changed),
        { ...(await context()), complete: true },
        { retry: true },
      );
      expect(outcome).toMatchObject({ outcome: 'patched', lines: { created: 0, updated: 0, deleted: 0 } });
      expect((await client.orders.get(order.id)).lines?.map((line) => line.id)).toEqual(before);
    },
  );

  // Spec 03, Order.orderNumber: "Unique within the owner company for the same order type", so a number held under
  // another type is the push's `order_type_changed` guard, which in listed mode rests on the run's snapshot. GET
  // /orders read by page number while an order is deleted shifts later orders back a page: read oldest first, the
  // one that slid onto a page already read was never seen, and its number looked free of other types.
  it('a snapshot read while an order is deleted still sees every order: no second order of another type', async () => {
    const control = (body: unknown) =>
      fetch(`${sandbox.url}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const line = { orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 1, unit: 'PIECES' as const };
    const before = (await client.orders.list({ limit: 1 })).pagination.total;
    const scratch = await client.orders.create({
      orderNumber: 'MV-SCRATCH',
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      lines: [line],
    });
    // Page size 2: the sales order is first on its page (index even, oldest first).
    if ((before + 1) % 2 === 1)
      await client.orders.create({
        orderNumber: 'MV-FILL',
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        lines: [line],
      });
    await client.orders.create({
      orderNumber: 'MV-X',
      buyerCompanyId: SUPPLIER,
      supplierCompanyId: BRAND,
      lines: [line],
    });
    const index = before + ((before + 1) % 2 === 1 ? 2 : 1);
    const pageOfX = index / 2 + 1;

    const drafts = [
      draft('MV-X', 'IN_PROGRESS', 1),
      ...Array.from({ length: 60 }, (_, n) => draft(`MV-OTHER-${n}`, 'IN_PROGRESS', 1)),
    ];
    const real = client.orders.list.bind(client.orders);
    const list = jest.spyOn(client.orders, 'list').mockImplementation(async (query = {}, options) => {
      // Someone deletes an older order just before the push reads the sales order's page.
      if (
        query.sort === 'createdAt' &&
        query.page === pageOfX &&
        list.mock.calls.filter((c) => c[0]?.page === pageOfX).length === 1
      )
        await client.orders.delete(scratch.id);
      return real(query, options);
    });
    await control({ orderPageSizeCap: 2 });
    let snapshot;
    try {
      snapshot = await takeSnapshot(new ApiCalls(client), drafts);
    } finally {
      list.mockRestore();
      await control({ orderPageSizeCap: null });
    }
    const mvx = drafts[0]!;
    const known = snapshot.existing.get(naturalKey(mvx.orderType, mvx.orderNumber));
    const record: BatchRecord = {
      draft: mvx,
      lookup: snapshot.mode === 'listed' ? 'known' : 'unknown',
      existing: known?.order ?? null,
      linesKnown: known?.linesKnown ?? false,
      typesInFile: [],
      typesOnPlatform: snapshot.mode === 'listed' ? (snapshot.typesByNumber.get('MV-X') ?? []) : null,
    };
    const outcome = await syncOrder(record, await context(), { retry: false });
    expect(outcome).toMatchObject({ outcome: 'rejected', code: 'order_type_changed' });
    const copies = (await client.orders.list({ orderNumber: 'MV-X' })).items;
    expect(copies.map((order) => order.orderType)).toEqual(['SALES_ORDER']);
  });
});
