import { badRequest } from './errors';

/** Fastify hands query values over as strings, or arrays when a name repeats; the last one wins here. */
export type RawQuery = Record<string, string | string[] | undefined>;

export function str(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** Strict boolean filter: only the literals `true` and `false`; anything else is a 400. */
export function bool(query: RawQuery, name: string): boolean | undefined {
  const value = str(query, name);
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw badRequest(`Query parameter '${name}' must be 'true' or 'false', got '${value}'`);
}

export function num(query: RawQuery, name: string): number | undefined {
  const value = str(query, name);
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed))
    throw badRequest(`Query parameter '${name}' must be a number, got '${value}'`);
  return parsed;
}

export function list(query: RawQuery, name: string): string[] | undefined {
  const value = str(query, name);
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

export interface PageParams {
  page: number;
  limit: number;
}

/**
 * `page` is 1-based (default 1); `limit` defaults to 20 and is capped at `maxLimit`.
 * With `rejectAboveMax` a limit over the cap is a 400 instead of being capped (the orders endpoints say 1-100).
 */
export function pageParams(
  query: RawQuery,
  options: { maxLimit?: number; rejectAboveMax?: boolean } = {},
): PageParams {
  const maxLimit = options.maxLimit ?? 100;
  const page = num(query, 'page') ?? 1;
  const limit = num(query, 'limit') ?? 20;
  if (!Number.isInteger(page) || page < 1) throw badRequest(`Query parameter 'page' must be an integer >= 1`);
  if (!Number.isInteger(limit) || limit < 1)
    throw badRequest(`Query parameter 'limit' must be an integer >= 1`);
  if (limit > maxLimit && options.rejectAboveMax) {
    throw badRequest(`Query parameter 'limit' must be at most ${maxLimit}`);
  }
  return { page, limit: Math.min(limit, maxLimit) };
}

export type SortOrder = 'asc' | 'desc';

/** `sort` must be one of `allowed` (400 otherwise); `order` is `asc`/`desc` in any case, default `desc`. */
export function sortParams<K extends string>(
  query: RawQuery,
  allowed: readonly K[],
  defaultSort: K,
): { sort: K; order: SortOrder } {
  const sort = str(query, 'sort') ?? defaultSort;
  if (!(allowed as readonly string[]).includes(sort)) {
    throw badRequest(`Query parameter 'sort' must be one of ${allowed.join(', ')}`);
  }
  const rawOrder = (str(query, 'order') ?? 'desc').toLowerCase();
  if (rawOrder !== 'asc' && rawOrder !== 'desc')
    throw badRequest(`Query parameter 'order' must be 'asc' or 'desc'`);
  return { sort: sort as K, order: rawOrder };
}

export type Comparable = string | number | boolean | null | undefined;

/** Stable sort by a key (nulls last in ascending order), ties broken by `id` so paging order is stable. */
export function sortBy<T extends { id: string }>(
  items: T[],
  key: (item: T) => Comparable,
  order: SortOrder,
): T[] {
  const direction = order === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => {
    const left = key(a);
    const right = key(b);
    if (left !== right) {
      if (left === null || left === undefined) return direction;
      if (right === null || right === undefined) return -direction;
      return (left < right ? -1 : 1) * direction;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

/** Each run of equal sort values in a fresh order (Fisher-Yates), as a database may answer ties. */
export function shuffleTies<T>(
  sorted: readonly T[],
  key: (item: T) => Comparable,
  random: () => number,
): T[] {
  const out = [...sorted];
  for (let start = 0; start < out.length;) {
    let end = start + 1;
    while (end < out.length && key(out[end]!) === key(out[start]!)) end++;
    for (let i = end - 1; i > start; i--) {
      const j = start + Math.floor(random() * (i - start + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    start = end;
  }
  return out;
}

/** `updatedAfterUnixMs` / `updatedBeforeUnixMs`: milliseconds, both bounds inclusive. */
export function updatedWindow(query: RawQuery): (updatedAt: string | null) => boolean {
  const after = num(query, 'updatedAfterUnixMs');
  const before = num(query, 'updatedBeforeUnixMs');
  return (updatedAt) => {
    if (after === undefined && before === undefined) return true;
    if (updatedAt === null) return false;
    const at = Date.parse(updatedAt);
    return (after === undefined || at >= after) && (before === undefined || at <= before);
  };
}

export function parseJsonFilter(query: RawQuery, name = 'filter'): Record<string, unknown> {
  const value = str(query, name);
  if (value === undefined || value === '') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw badRequest(`Query parameter '${name}' must be a URL-encoded JSON object`);
}
