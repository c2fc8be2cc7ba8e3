import { existingOrderSchema, type ExistingOrder, type OrderDraft } from '../../connectors/erp-orders';
import type { Order, OrderLine } from '../../connectors/traceability';
import type { OrderType } from '../../connectors/traceability/schemas/orders';
import type { ApiCalls } from '../batch-kit';

/** `orderType` + `orderNumber`: the natural key (numbers are unique per company and order type). */
export const naturalKey = (orderType: string, orderNumber: string): string =>
  `${orderType}\u0000${orderNumber}`;

/** An order from the API as the reconciliation reads it (list answers carry no lines). */
export function toExisting(order: Order, lines: readonly OrderLine[] = order.lines ?? []): ExistingOrder {
  return existingOrderSchema.parse({ ...order, lines: [...lines].sort((a, b) => a.lineNo - b.lineNo) });
}

export interface Snapshot {
  mode: 'listed' | 'lookup';
  /** listed mode: the platform's orders with the export's numbers, by natural key (lines filled when `linesListed`). */
  existing: Map<string, { order: ExistingOrder; linesKnown: boolean }>;
  /** listed mode: the types the platform holds each of the export's numbers under (absent: none). */
  typesByNumber: Map<string, OrderType[]>;
  linesListed: boolean;
}

/**
 * What the platform holds for the export's orders, read the cheapest way: when all the caller's orders fit in fewer
 * list pages than there are drafts, they are listed (100 a page) and matched locally; otherwise each batch looks its
 * orders up by number. Lines likewise: every order line listed, or one GET per existing order later.
 * The snapshot only decides "unchanged"; any write is planned on a fresh read.
 */
export async function takeSnapshot(api: ApiCalls, drafts: readonly OrderDraft[]): Promise<Snapshot> {
  const snapshot: Snapshot = {
    mode: 'lookup',
    existing: new Map(),
    typesByNumber: new Map(),
    linesListed: false,
  };
  if (drafts.length === 0) return snapshot;
  const wanted = new Set(drafts.map((draft) => naturalKey(draft.orderType, draft.orderNumber)));
  const numbers = new Set(drafts.map((draft) => draft.orderNumber));
  // Sorted by creation, so orders created while we read land on later pages instead of shifting earlier ones.
  const fetchOrders = (page: number, limit: number) =>
    api.client.orders.list({ sort: 'createdAt', order: 'ASC', page, limit });
  const first = await api.one(() => fetchOrders(1, 100));
  if (first.pagination.totalPages >= drafts.length) return snapshot;
  snapshot.mode = 'listed';
  const matched = new Map<string, Order>();
  for (const order of await api.all(fetchOrders, first)) {
    const key = naturalKey(order.orderType, order.orderNumber);
    if (wanted.has(key)) matched.set(key, order);
    if (numbers.has(order.orderNumber)) {
      const types = snapshot.typesByNumber.get(order.orderNumber) ?? [];
      if (!types.includes(order.orderType))
        snapshot.typesByNumber.set(order.orderNumber, [...types, order.orderType]);
    }
  }
  const linesByOrder = await listedLines(api, [...matched.values()]);
  if (linesByOrder) snapshot.linesListed = true;
  for (const [key, order] of matched) {
    const noLines = order.lineCount === 0;
    const listed = linesByOrder?.get(order.id);
    snapshot.existing.set(key, {
      order: toExisting(order, listed ?? []),
      // A line count that disagrees with the lines listed means the order changed while we read: read it again later.
      linesKnown: noLines || (listed !== undefined && listed.length === order.lineCount),
    });
  }
  return snapshot;
}

/**
 * Every line of these orders by listing all lines (100 a page), when that takes fewer pages than one read per order
 * (and at least `atLeast` orders have lines); undefined otherwise.
 */
export async function listedLines(
  api: ApiCalls,
  orders: readonly Order[],
  atLeast = 1,
): Promise<Map<string, OrderLine[]> | undefined> {
  const needing = orders.filter((order) => (order.lineCount ?? 1) > 0);
  if (needing.length < atLeast) return undefined;
  const fetchLines = (page: number, limit: number) => api.client.orderLines.list({ page, limit });
  const first = await api.one(() => fetchLines(1, 100));
  if (first.pagination.totalPages >= needing.length) return undefined;
  const wanted = new Set(needing.map((order) => order.id));
  const byOrder = new Map<string, OrderLine[]>();
  for (const line of await api.all(fetchLines, first)) {
    if (line.orderId && wanted.has(line.orderId))
      byOrder.set(line.orderId, [...(byOrder.get(line.orderId) ?? []), line]);
  }
  return byOrder;
}
