/**
 * Spec 03, line reconciliation: "Order fields and lines are changed atomically… Swapping `orderLineNumber` between two
 * existing lines in one request gives 409 (use a temporary number in two requests)." Each request is atomic, the pair
 * is not: when step 2 is refused, a compensating request puts step 1's numbers back (test/integration/
 * erp-orders-spec-runs.test.ts). Here that request fails too, against an in-process sandbox over HTTP: the outcome must
 * say plainly which lines carry temporary numbers.
 */
import { orderDraftSchema } from '../../../connectors/erp-orders/orders/draft';
import type { BatchRecord } from '../../../connectors/erp-orders/push-run';
import { syncOrder } from '../../../connectors/erp-orders/sync-order';
import { TraceabilityApiError, type Order, type TraceabilityClient } from '../../../connectors/traceability';
import { BRAND, startSyncSandbox, SUPPLIER, type SyncSandbox } from './helpers';

describe('a refused renumbering whose undo fails too', () => {
  let env: SyncSandbox | undefined;
  let client: TraceabilityClient;

  beforeAll(async () => {
    env = await startSyncSandbox('erp-undo-');
    ({ client } = env);
  });

  afterAll(async () => {
    await env?.close();
  });

  const context = (runKey: string) => env!.context(runKey);
  const record = (order: Order, persons: string[]): BatchRecord => {
    const [first, second] = order.lines ?? [];
    const line = (
      id: string,
      orderLineNumber: string,
      externalId: string,
      quantity: number,
      row: number,
    ) => ({
      rows: [row],
      lineId: id,
      orderLineNumber,
      productRef: { externalId },
      quantity,
      unit: 'PIECES' as const,
    });
    return {
      draft: orderDraftSchema.parse({
        orderType: 'PURCHASE_ORDER',
        rows: [2, 3],
        orderNumber: order.orderNumber,
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        internalResponsiblePersons: persons,
        lines: [
          line(first!.id, '20', 'PLM-TEE-001-BLK', 5, 2),
          line(second!.id, '10', 'PLM-TEE-001-OWH', 6, 3),
        ],
      }),
      lookup: 'unknown',
      existing: null,
      linesKnown: false,
      typesInFile: [],
      typesOnPlatform: null,
    };
  };

  /** An order with lines '10' and '20', which `record` swaps (two requests through temporary numbers). */
  const swappable = async (orderNumber: string) => {
    const order = await client.orders.create({
      orderNumber,
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      lines: [
        { orderLineNumber: '10', styleId: 'PLM-TEE-001-BLK', quantity: 5, unit: 'PIECES' },
        { orderLineNumber: '20', styleId: 'PLM-TEE-001-OWH', quantity: 6, unit: 'PIECES' },
      ],
    });
    const [a, b] = order.lines ?? [];
    const numbers = async () =>
      ((await client.orders.get(order.id)).lines ?? []).map((line) => [line.id, line.orderLineNumber]);
    return { order, a: a!, b: b!, numbers };
  };

  /** PATCHes reach the sandbox, except those `fails` picks (by their count, from 1), which throw `error`. */
  const failingUpdates = (fails: (patch: number) => boolean, error: TraceabilityApiError) => {
    const real = client.orders.update.bind(client.orders);
    const seen = { patches: 0 };
    const spy = jest.spyOn(client.orders, 'update').mockImplementation(async (id, patch, options) => {
      seen.patches += 1;
      if (fails(seen.patches)) throw error;
      return real(id, patch, options);
    });
    return { seen, restore: () => spy.mockRestore() };
  };

  it('names each line left with a temporary number and its former number; pushing again renames them', async () => {
    const { order, a, b, numbers } = await swappable('UNDO-1');
    // Step 1 and the refused step 2 reach the sandbox; the compensating third request meets an outage.
    const updates = failingUpdates(
      (patch) => patch === 3,
      new TraceabilityApiError({
        statusCode: 503,
        code: 'service_unavailable',
        message: 'PATCH /orders/{id} failed with 503 service_unavailable',
        method: 'PATCH',
        path: '/orders/{id}',
        retryable: true,
      }),
    );
    let outcome;
    try {
      outcome = await syncOrder(record(order, ['nobody@nowhere.example']), await context('undo-fails'), {
        retry: false,
      });
    } finally {
      updates.restore();
    }
    expect(updates.seen.patches).toBe(3);
    expect(outcome).toMatchObject({ outcome: 'rejected', code: 'responsible_person_not_found' });
    expect(outcome.message).toContain('putting the line numbers back failed too');
    expect(outcome.message).toContain(`line ${a.id} (was '10') carries '~tmp~${a.id}'`);
    expect(outcome.message).toContain(`line ${b.id} (was '20') carries '~tmp~${b.id}'`);
    expect(outcome.problems?.map((problem) => problem.code)).toEqual([
      'responsible_person_not_found',
      'temporary_line_numbers_left',
    ]);
    expect(await numbers()).toEqual([
      [a.id, `~tmp~${a.id}`],
      [b.id, `~tmp~${b.id}`],
    ]);

    // The message's advice holds: once the error is fixed, the same lines (by id) get their numbers in one go.
    const again = await syncOrder(record(order, []), await context('undo-fails-again'), { retry: false });
    expect(again).toMatchObject({ outcome: 'patched' });
    expect(await numbers()).toEqual([
      [a.id, '20'],
      [b.id, '10'],
    ]);
  });

  // connectors/erp-orders/README: "A key refused between a renumbering's two PATCHes cannot put the numbers back:
  // the failure names the order left on temporary line numbers, which the next push renames by line id."
  it('a key refused between the two requests fails with the order named, sends no undo, and the next push renames the lines', async () => {
    const { order, a, b, numbers } = await swappable('UNDO-KEY-1');
    // Spec 01: 401 token_or_api_key_invalid, "Missing or invalid credential": the key, not the order.
    const updates = failingUpdates(
      (patch) => patch >= 2,
      new TraceabilityApiError({
        statusCode: 401,
        code: 'token_or_api_key_invalid',
        message: 'PATCH /orders/{id} failed with 401 token_or_api_key_invalid',
        method: 'PATCH',
        path: '/orders/{id}',
        retryable: false,
      }),
    );
    let failure: unknown;
    try {
      await syncOrder(record(order, []), await context('undo-key'), { retry: false });
    } catch (error) {
      failure = error;
    } finally {
      updates.restore();
    }
    expect(updates.seen.patches).toBe(2);
    expect(failure).toBeInstanceOf(TraceabilityApiError);
    expect(failure).toMatchObject({ statusCode: 401, code: 'token_or_api_key_invalid', retryable: false });
    expect((failure as Error).message).toContain(
      "Order 'UNDO-KEY-1' was left with 2 line(s) on temporary numbers",
    );
    expect(await numbers()).toEqual([
      [a.id, `~tmp~${a.id}`],
      [b.id, `~tmp~${b.id}`],
    ]);

    const again = await syncOrder(record(order, []), await context('undo-key-again'), { retry: false });
    expect(again).toMatchObject({ outcome: 'patched' });
    expect(await numbers()).toEqual([
      [a.id, '20'],
      [b.id, '10'],
    ]);
  });
});
