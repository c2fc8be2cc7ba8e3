import { z } from 'zod';

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
  const ms = order.updatedAt ? Date.parse(order.updatedAt) : Number.NaN;
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
