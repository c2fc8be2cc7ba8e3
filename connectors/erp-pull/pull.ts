/**
 * The ERP pull, without Temporal: orders changed on the platform since the stored high-water mark, written as NDJSON
 * and CSV; then the mark moves. activities/erp-pull.ts wraps it.
 */

import { join } from 'node:path';
import { z } from 'zod';
import { quoteInput } from '../input-limits';
import type { ApiCalls, Progress } from '../staging';
import { DATE_FIELDS } from '../erp-orders/orders/draft';
import { listedLines, toExisting } from '../erp-orders/platform-reads';
import type { ExistingOrder, ExistingOrderLine } from '../erp-orders/reconcile';
import { toCsv, type Column } from '../reports';
import {
  fetchFile,
  locate,
  mergeIntoStored,
  refreshFile,
  storedLocation,
  type StoreLocation,
} from '../storage';
import { IncrementalSync, type Order } from '../traceability';
import { utcTimestampMs } from '../traceability/timestamps';

/**
 * Where the last pull stopped: the largest `updatedAt` exported and the ids exported at exactly that instant.
 * The API's `updatedAfterUnixMs` bound is inclusive, so the next pull sees those orders again and skips them by id.
 */
export const highWaterMarkSchema = z.strictObject({
  updatedAtMs: z.number().int().nonnegative(),
  idsAtMark: z.array(z.string().min(1)),
});
export type HighWaterMark = z.infer<typeof highWaterMarkSchema>;

export const INITIAL_MARK: HighWaterMark = { updatedAtMs: 0, idsAtMark: [] };

export interface Stamped {
  id: string;
  updatedAt?: string | null;
}

function updatedMs(order: Stamped): number {
  const ms = order.updatedAt ? utcTimestampMs(order.updatedAt) : Number.NaN;
  if (Number.isNaN(ms))
    throw new Error(`order ${order.id} has no readable updatedAt (${String(order.updatedAt)})`);
  return ms;
}

/** The list query for the next pull (the first pull takes everything). */
export function pullQuery(mark: HighWaterMark): { updatedAfterUnixMs?: number } {
  return mark.updatedAtMs > 0 ? { updatedAfterUnixMs: mark.updatedAtMs } : {};
}

/**
 * The orders of a pull not exported yet: those at the mark already exported are dropped, as are any older
 * ones, and an order met twice (updated while the pages were read) counts once, at its latest version.
 * Sorted by `updatedAt`, then id.
 */
export function ordersSince<T extends Stamped>(mark: HighWaterMark, orders: readonly T[]): T[] {
  const seenAtMark = new Set(mark.idsAtMark);
  const latest = new Map<string, { order: T; ms: number }>();
  for (const order of orders) {
    const ms = updatedMs(order);
    if (ms < mark.updatedAtMs || (ms === mark.updatedAtMs && seenAtMark.has(order.id))) continue;
    const known = latest.get(order.id);
    if (!known || ms > known.ms) latest.set(order.id, { order, ms });
  }
  return [...latest.values()]
    .sort((a, b) => a.ms - b.ms || a.order.id.localeCompare(b.order.id))
    .map((entry) => entry.order);
}

/** The mark after exporting `exported` (the output of `ordersSince`). */
export function advanceMark(mark: HighWaterMark, exported: readonly Stamped[]): HighWaterMark {
  let next: HighWaterMark = { updatedAtMs: mark.updatedAtMs, idsAtMark: [...mark.idsAtMark] };
  for (const order of exported) {
    const ms = updatedMs(order);
    if (ms > next.updatedAtMs) next = { updatedAtMs: ms, idsAtMark: [order.id] };
    else if (ms === next.updatedAtMs && !next.idsAtMark.includes(order.id)) next.idsAtMark.push(order.id);
  }
  return { updatedAtMs: next.updatedAtMs, idsAtMark: [...next.idsAtMark].sort() };
}

/**
 * The mark that covers both: the later one, or at the same instant the ids of both. Two pulls at once store the
 * mark this way, so it never moves back past what the other pull exported.
 */
export function laterMark(a: HighWaterMark, b: HighWaterMark): HighWaterMark {
  if (a.updatedAtMs !== b.updatedAtMs) return a.updatedAtMs > b.updatedAtMs ? a : b;
  return { updatedAtMs: a.updatedAtMs, idsAtMark: [...new Set([...a.idsAtMark, ...b.idsAtMark])].sort() };
}

/** One line of an order with its order, or the order alone when it has no lines. */
interface OrderLineRow {
  order: ExistingOrder;
  line: ExistingOrderLine | undefined;
}

const orderColumn = (
  header: string,
  value: (order: ExistingOrder) => string | number | boolean | null | undefined,
): Column<OrderLineRow> => ({
  header,
  value: (row) => value(row.order),
});
const lineColumn = (
  header: string,
  value: (line: ExistingOrderLine) => string | number | null | undefined,
): Column<OrderLineRow> => ({
  header,
  value: (row) => (row.line === undefined ? null : value(row.line)),
});
const snake = (field: string): string => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Column names follow the default mapping profile where the field is the same (ids here, not company codes). */
const ORDER_EXPORT_COLUMNS: readonly Column<OrderLineRow>[] = [
  orderColumn('order_id', (order) => order.id),
  orderColumn('order_number', (order) => order.orderNumber),
  orderColumn('order_type', (order) => order.orderType),
  orderColumn('order_sub_type', (order) => order.orderSubType),
  orderColumn('status', (order) => order.status),
  orderColumn('buyer_company_id', (order) => order.buyerCompanyId),
  orderColumn('supplier_company_id', (order) => order.supplierCompanyId),
  orderColumn('receiver_company_id', (order) => order.receiverCompanyId),
  orderColumn('vendor_company_id', (order) => order.vendorCompanyId),
  orderColumn('factory_id', (order) => order.factory),
  orderColumn('buyer_facility_process', (order) => order.buyerFacilityProcess),
  orderColumn('supplier_facility_process', (order) => order.supplierFacilityProcess),
  orderColumn('receiver_facility_process', (order) => order.receiverFacilityProcess),
  ...DATE_FIELDS.map((field) => orderColumn(snake(field), (order) => order[field])),
  orderColumn('tags', (order) => (order.tags ?? []).join(',')),
  orderColumn('shipment_reference', (order) => order.shipmentReference),
  orderColumn('counterparty_order_number', (order) => order.counterpartyOrderNumberRef),
  orderColumn('responsible_persons', (order) => (order.internalResponsiblePersons ?? []).join(',')),
  orderColumn('is_archived', (order) => order.isArchived),
  orderColumn('updated_at', (order) => order.updatedAt),
  lineColumn('line_id', (line) => line.id),
  lineColumn('line_number', (line) => line.orderLineNumber),
  lineColumn('line_no', (line) => line.lineNo),
  lineColumn('style_id', (line) => line.styleId),
  lineColumn('quantity', (line) => line.quantity),
  lineColumn('unit', (line) => line.unit),
  lineColumn('secondary_quantity_kg', (line) => line.secondaryQuantity),
];

/**
 * One CSV row per order line (an order without lines gets one row with empty line cells). Text a spreadsheet
 * would run as a formula (starting with = + - @) is prefixed with an apostrophe. UTF-8 with BOM, CRLF.
 */
export function ordersToCsv(orders: readonly ExistingOrder[]): string {
  const rows = orders.flatMap((order): OrderLineRow[] =>
    order.lines.length === 0 ? [{ order, line: undefined }] : order.lines.map((line) => ({ order, line })),
  );
  return toCsv({ name: 'orders', columns: ORDER_EXPORT_COLUMNS, rows });
}

/** One JSON object per line: the order as read from the API, lines nested. */
export function ordersToNdjson(orders: readonly ExistingOrder[]): string {
  return orders.map((order) => JSON.stringify(order)).join('\n') + (orders.length > 0 ? '\n' : '');
}

const ORDERS_EXPORT_FOLDER = join('exports', 'orders');
const MARK_FILE = 'high-water-mark.json';

export interface PullOrdersResult {
  /** Orders changed since the previous pull and exported (0: nothing was written). */
  orders: number;
  /**
   * Orders listed as changed but deleted on the platform before the pull read them: not in the files (the mark moves
   * past them). The first few are named. Orders deleted at any other time never show in a pull (see the README).
   */
  deletedBeforeRead: { count: number; orders: Array<{ id: string; orderNumber: string }> };
  /** Where the exports and the mark are found: `s3://…` with an S3 run-data store, else their paths. */
  files: { ndjson: string; csv: string } | null;
  markFile: string;
  from: HighWaterMark;
  to: HighWaterMark;
  apiCalls: number;
  durationMs: number;
}

/** The stored mark cannot be read: no retry fixes it (the activity fails it as `CorruptHighWaterMark`). */
export class CorruptHighWaterMarkError extends Error {
  override readonly name = 'CorruptHighWaterMarkError';
}

function parseMark(stored: Buffer | null, where: string): HighWaterMark {
  if (stored === null) return INITIAL_MARK;
  let parsed;
  try {
    parsed = highWaterMarkSchema.safeParse(JSON.parse(stored.toString('utf8')));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    throw new CorruptHighWaterMarkError(
      `the high-water mark ${where} is not readable: restore it, or delete it to export every order again`,
    );
  }
  return parsed.data;
}

/** Names of one range tried before a pull gives up (each taken by another pull of exactly that range). */
const NAMES_PER_RANGE = 50;

/**
 * Writes the export under a name no other file has: `orders-updated-after-<from>-through-<to>`, with `_02`, `_03`…
 * after it (sorting after the first: `_` comes after `.`) when another pull (or an earlier attempt that died before its mark) exported that very range. Never
 * over another pull's files: each is created only where none is (S3: `If-None-Match: *`).
 */
async function writeExport(
  folder: StoreLocation,
  range: string,
  bodies: { ndjson: string; csv: string },
): Promise<{ ndjson: string; csv: string }> {
  for (let n = 1; n <= NAMES_PER_RANGE; n++) {
    const base = `orders-updated-after-${range}${n === 1 ? '' : `_${String(n).padStart(2, '0')}`}`;
    const names = { ndjson: `${base}.ndjson`, csv: `${base}.csv` };
    if (!(await folder.store.putIfAbsent(`${folder.key}/${names.ndjson}`, bodies.ndjson))) continue;
    // The CSV of a name is only ever written by the pull that created its NDJSON.
    if (!(await folder.store.putIfAbsent(`${folder.key}/${names.csv}`, bodies.csv))) continue;
    return names;
  }
  throw new Error(`${NAMES_PER_RANGE} exports of orders-updated-after-${range} exist already`);
}

/** Orders a pull result names as deleted before their lines were read. */
const DELETED_NAMED = 10;

/**
 * Lines of the changed orders: every line listed (100 a page) when cheaper than one GET per order. An order deleted
 * since it was listed (its GET is 404; spec 03: "Deleted orders are never returned") cannot be exported: it is
 * returned apart, so the result says so.
 */
async function withLines(
  api: ApiCalls,
  orders: readonly Order[],
  stop?: AbortSignal,
): Promise<{ exported: ExistingOrder[]; deleted: Order[] }> {
  const byOrder = await listedLines(api, orders, 2);
  const exported: ExistingOrder[] = [];
  const deleted: Order[] = [];
  for (const order of orders) {
    stop?.throwIfAborted();
    const listed = byOrder?.get(order.id) ?? [];
    if (order.lineCount === 0 || (byOrder !== undefined && listed.length === order.lineCount)) {
      exported.push(toExisting(order, listed));
      continue;
    }
    // The GET may show a newer version; the mark still follows the listed one, so nothing in between is skipped.
    const current = await api.found(() => api.client.orders.get(order.id));
    if (current) exported.push(toExisting(current));
    else deleted.push(order);
  }
  return { exported, deleted };
}

const stamp = (ms: number): string => new Date(ms).toISOString().replace(/[:.]/g, '-');

/**
 * Orders changed on the platform since the stored high-water mark, as NDJSON and CSV in
 * `<dataDir>/exports/orders/`, named after the range they cover and never over another file. The mark moves only
 * after both files are complete, and only forward: it is read again as it is stored, and the later of the stored and
 * this pull's is kept (another pull may have stored its own meanwhile). A run that dies in between exports the same
 * orders again next time, in files of their own. `progress` gets the
 * latest details to heartbeat with; the caller heartbeats on a timer, as listing and lines can wait out the allowance.
 * Once `stop` is aborted (the activity is cancelled), the pull throws its reason before its next page or read and
 * before it writes: nothing is written and the mark stays. Once writing, it finishes the files and the mark.
 */
export async function pullOrders(
  api: ApiCalls,
  dataDir: string,
  progress: Progress,
  stop?: AbortSignal,
): Promise<PullOrdersResult> {
  const started = Date.now();
  const folder = join(dataDir, ORDERS_EXPORT_FOLDER);
  const markFile = join(folder, MARK_FILE);
  const markAt = locate(markFile); // the run-data store's mark: another worker may move it
  const from = parseMark(await markAt.store.get(markAt.key), storedLocation(markFile));
  const sync = new IncrementalSync(
    (window) => api.one(() => api.client.orders.list({ ...window, sort: 'updatedAt', order: 'ASC' })),
    { highWaterMarkMs: from.updatedAtMs, idsAtHighWaterMark: from.idsAtMark },
  );
  const listed: Order[] = [];
  for await (const order of sync) {
    // Checked at each order, so at the latest when the next page would be asked for.
    stop?.throwIfAborted();
    listed.push(order);
    if (listed.length % 100 === 0) progress({ phase: 'listing', orders: listed.length });
  }
  stop?.throwIfAborted();
  const changed = ordersSince(
    from,
    listed.map((order) => ({ ...order, updatedAt: order.updatedAt ?? null })),
  );
  // Named where they are found: on S3 their s3:// location, not this worker's path.
  const result = (
    orders: number,
    files: PullOrdersResult['files'],
    to: HighWaterMark,
    deleted: readonly Order[] = [],
  ): PullOrdersResult => ({
    orders,
    deletedBeforeRead: {
      count: deleted.length,
      orders: deleted
        .slice(0, DELETED_NAMED)
        .map((order) => ({ id: order.id, orderNumber: quoteInput(order.orderNumber) })),
    },
    files: files && { ndjson: storedLocation(files.ndjson), csv: storedLocation(files.csv) },
    markFile: storedLocation(markFile),
    from,
    to,
    apiCalls: api.count,
    durationMs: Date.now() - started,
  });
  if (changed.length === 0) return result(0, null, from);
  progress({ phase: 'reading lines', orders: changed.length });
  const { exported, deleted } = await withLines(api, changed, stop);
  stop?.throwIfAborted();
  const to = advanceMark(from, changed);
  const exportsAt = locate(folder);
  const names = await writeExport(exportsAt, `${stamp(from.updatedAtMs)}-through-${stamp(to.updatedAtMs)}`, {
    ndjson: ordersToNdjson(exported),
    csv: ordersToCsv(exported),
  });
  const stored = await mergeIntoStored(
    markAt.store,
    markAt.key,
    (current) => `${JSON.stringify(laterMark(parseMark(current, storedLocation(markFile)), to), null, 2)}\n`,
  );
  if (!stored)
    throw new Error(
      `the high-water mark ${storedLocation(markFile)} kept changing under other pulls; try again`,
    );
  const files = { ndjson: join(folder, names.ndjson), csv: join(folder, names.csv) };
  // An ERP reads TRACE_DATA_DIR/exports/orders on the worker's disk: a store elsewhere (TRACE_STORE_URL) gets the
  // files first, then this worker's folder a copy, as every job's files are published.
  await fetchFile(files.ndjson);
  await fetchFile(files.csv);
  await refreshFile(markFile);
  return result(exported.length, files, to, deleted);
}
