import type { Pagination } from './envelope';

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

export type PageFetcher<T> = (page: number, limit: number) => Promise<Page<T>>;

export interface PaginateOptions {
  /** Page size; the API caps it at 100, which is also the cheapest in calls. */
  limit?: number;
  startPage?: number;
}

/** Yields every item of a list endpoint, page by page (limit 100) until `totalPages`. */
export async function* paginate<T>(
  fetchPage: PageFetcher<T>,
  options: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const limit = options.limit ?? 100;
  for (let page = options.startPage ?? 1; ; page++) {
    const result = await fetchPage(page, limit);
    yield* result.items;
    if (result.items.length === 0 || page >= result.pagination.totalPages) return;
  }
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** What an incremental job stores between runs. */
export interface IncrementalCheckpoint {
  /** Largest `updatedAt` (Unix ms) seen; pass it as the next run's inclusive lower bound. */
  highWaterMarkMs: number;
  /** Ids already delivered whose `updatedAt` equals the mark (the bound is inclusive). */
  idsAtHighWaterMark: string[];
}

export interface UpdatedWindowQuery {
  updatedAfterUnixMs: number;
  updatedBeforeUnixMs?: number;
  page: number;
  limit: number;
}

/** Must return items sorted by `updatedAt` ascending for the given inclusive bounds. */
export type UpdatedWindowFetcher<T> = (query: UpdatedWindowQuery) => Promise<Page<T>>;

export interface Updatable {
  id: string;
  updatedAt?: string | null;
  createdAt?: string | null;
}

function timestampOf(item: Updatable): number | undefined {
  const text = item.updatedAt ?? item.createdAt;
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Reads of one crowded millisecond before giving up on records that keep changing under the drain. */
const MAX_DRAIN_PASSES = 5;

/**
 * Incremental sync over `updatedAfterUnixMs`. It walks by keyset (always page 1 from the last seen
 * `updatedAt`, ascending) rather than by page number, so records updated while the run pages do not
 * shift pages under it; the inclusive bound is de-duplicated by id. When more than a page of records
 * share one millisecond it pages through that millisecond. `checkpoint()` is valid at any time: every
 * record older than the mark has been yielded.
 */
export class IncrementalSync<T extends Updatable> implements AsyncIterable<T> {
  private cursor: number;
  private seenAtCursor: Set<string>;
  private readonly limit: number;

  constructor(
    private readonly fetchWindow: UpdatedWindowFetcher<T>,
    from?: IncrementalCheckpoint,
    options: { limit?: number } = {},
  ) {
    this.cursor = from?.highWaterMarkMs ?? 0;
    this.seenAtCursor = new Set(from?.idsAtHighWaterMark ?? []);
    this.limit = options.limit ?? 100;
  }

  checkpoint(): IncrementalCheckpoint {
    return { highWaterMarkMs: this.cursor, idsAtHighWaterMark: [...this.seenAtCursor] };
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    let lowerBound = this.cursor;
    for (;;) {
      const page = await this.fetchWindow({ updatedAfterUnixMs: lowerBound, page: 1, limit: this.limit });
      yield* this.take(page.items);
      // A server may answer fewer items than asked (it caps page sizes): more pages are there while `totalPages`
      // says so, as `paginate` reads it, not while pages come back full.
      const more = page.items.length > 0 && page.pagination.totalPages > 1;
      if (!more) return;
      if (this.cursor === lowerBound) {
        // A whole page shares one millisecond: page through exactly it, then go strictly past it.
        yield* this.drainMillisecond(lowerBound);
        lowerBound += 1;
      } else {
        lowerBound = this.cursor;
      }
    }
  }

  /** Yields items not delivered yet, advancing the mark. */
  private *take(items: readonly T[]): Generator<T, void, undefined> {
    // Sorted locally too, so a page in another order cannot push the mark past unread records.
    const ordered = items
      .map((item, index) => ({ item, index, ts: timestampOf(item) ?? Number.NEGATIVE_INFINITY }))
      .sort((a, b) => a.ts - b.ts || a.index - b.index)
      .map((entry) => entry.item);
    for (const item of ordered) {
      const ts = timestampOf(item);
      if (ts === undefined) {
        yield item;
        continue;
      }
      if (ts < this.cursor) continue;
      if (ts === this.cursor && this.seenAtCursor.has(item.id)) continue;
      if (ts > this.cursor) {
        this.cursor = ts;
        this.seenAtCursor = new Set();
      }
      this.seenAtCursor.add(item.id);
      yield item;
    }
  }

  /**
   * Pages through exactly one millisecond. A record that leaves it meanwhile (updated again, deleted) shifts the
   * pages after it, so the ids the server listed are counted against its `total`, the count restarting whenever
   * `total` changes; the millisecond is read again until they cover it.
   */
  private async *drainMillisecond(ms: number): AsyncGenerator<T, void, undefined> {
    let listed = new Set<string>();
    let total: number | undefined;
    for (let pass = 1; pass <= MAX_DRAIN_PASSES; pass++) {
      for (let pageNo = 1; ; pageNo++) {
        const page = await this.fetchWindow({
          updatedAfterUnixMs: ms,
          updatedBeforeUnixMs: ms,
          page: pageNo,
          limit: this.limit,
        });
        if (page.pagination.total !== total) {
          total = page.pagination.total;
          listed = new Set();
        }
        for (const item of page.items) listed.add(item.id);
        yield* this.take(page.items);
        if (listed.size >= total) return;
        if (page.items.length === 0 || pageNo >= page.pagination.totalPages) break;
      }
    }
    throw new Error(
      `incremental sync: updatedAt ${new Date(ms).toISOString()}: the server counts ${total ?? 0} records in this ` +
        `millisecond but ${MAX_DRAIN_PASSES} reads of its pages listed ${listed.size}; they kept changing while read, ` +
        'so checkpoint() stays at that millisecond (run the sync again)',
    );
  }
}
