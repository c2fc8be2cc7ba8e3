import { paginationSchema, type Pagination } from './envelope';
import { utcTimestampMs } from './timestamps';

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

/**
 * A page fetcher for {@link readList}: `read` is which whole read of the list asks (1, 2, ...), so a list whose records
 * tie on the sort can be read again in another sort (spec 01 gives no order among equal values).
 */
export type ListPageFetcher<T> = (page: number, limit: number, read: number) => Promise<Page<T>>;

export interface ReadListOptions<T> {
  /** Page size; default 100, the API's cap. */
  limit?: number;
  /** Page 1 when the caller has read it already (to choose a way to read): it is not asked again. */
  first?: Page<T>;
  /** Which copy of a record met twice is kept: the first (default) or the latest read. */
  keep?: 'first' | 'latest';
  /**
   * Runs the reads of pages 2..totalPages of page 1 (several at once, say); without it pages are read one after the
   * other until the latest page's `totalPages`.
   */
  schedule?: (pages: number[], read: (page: number) => Promise<void>) => Promise<void>;
  /**
   * What says the list moved under a read. 'total' (default): a page's `total` differs from page 1's, or the distinct
   * records read are not that many. 'shrink': a page's `total` is below page 1's, or fewer distinct records were read
   * than page 1 counted; for a list read oldest first, where a record added meanwhile lands after the pages read and
   * shifts none of them.
   */
  moved?: 'total' | 'shrink';
  /** Whole reads tried until one holds the list (default 1). */
  reads?: number;
  /**
   * Ids counted by one read still count in the next while `total` stays, the count restarting when it changes, and
   * a read stops once they cover `total`. Exact for a list that can only lose records (one millisecond of
   * `updatedAt`); a list that also gains them (a certificate status list) can keep its `total` while one record
   * leaves and another comes, so its caller must check for changes over the read itself (the certificate report
   * does, `changedWhileRead`).
   */
  countAcross?: boolean;
  /** Called after each page with its records and the distinct records read so far. */
  onPage?: (items: readonly T[], distinct: number) => void;
}

export interface ListRead<T> {
  /**
   * Distinct records by id, in the order first met: of the last read; with `countAcross`, of every read since `total`
   * last changed (a record read before that and not met since has left the list).
   */
  items: T[];
  /** `pagination.total` of the read's first page (the latest count with `countAcross`). */
  total: number;
  /** Records counted against `total`: the distinct ones (with `countAcross`, those read since `total` last changed). */
  counted: number;
  /** Reads made. */
  reads: number;
  /** How the list moved under the last read; undefined when the read holds it whole. */
  moved?: string;
}

function checkedPagination(pagination: unknown, page: number): Pagination {
  const parsed = paginationSchema.safeParse(pagination);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Error(
    `list page ${page}: pagination.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'} ` +
      '(spec 01: integer page, limit, total, totalPages)',
  );
}

/**
 * Reads a paged list whole (spec 01: "`page` is 1-based [...] Iterate until `page` reaches `totalPages`"), each record
 * once by id. A read by offset of a list that changes meanwhile shifts records across pages (one read twice, another
 * never), so the count read is checked against the envelope's `total` and the list read again, up to `reads` times;
 * the answer says how the last read fell short (`moved`) rather than throwing, the caller deciding what that costs.
 */
export async function readList<T extends { id: string }>(
  fetchPage: ListPageFetcher<T>,
  options: ReadListOptions<T> = {},
): Promise<ListRead<T>> {
  const limit = options.limit ?? 100;
  const byId = new Map<string, T>();
  let counted = new Set<string>();
  let latest: number | undefined;
  let first = options.first;
  let read: ListRead<T> = { items: [], total: 0, counted: 0, reads: 0 };
  for (let reads = 1; reads <= (options.reads ?? 1); reads++) {
    if (!options.countAcross) byId.clear();
    const totals = new Set<number>();
    let covered = false;
    const take = (answer: Page<T>, page: number): Pagination => {
      const pagination = checkedPagination(answer.pagination, page);
      totals.add(pagination.total);
      if (options.countAcross && pagination.total !== latest) counted = new Set();
      latest = pagination.total;
      for (const item of answer.items) {
        counted.add(item.id);
        if (options.keep === 'latest' || !byId.has(item.id)) byId.set(item.id, item);
      }
      options.onPage?.(answer.items, byId.size);
      covered = options.countAcross === true && counted.size >= pagination.total;
      return pagination;
    };
    const one = first ?? (await fetchPage(1, limit, reads));
    first = undefined;
    const head = take(one, 1);
    if (options.schedule) {
      const pages = Array.from({ length: Math.max(0, head.totalPages - 1) }, (_, index) => index + 2);
      if (!covered)
        await options.schedule(pages, async (page) => void take(await fetchPage(page, limit, reads), page));
    } else {
      for (let page = 2, last = head; !covered && one.items.length > 0 && page <= last.totalPages; page++) {
        const answer = await fetchPage(page, limit, reads);
        last = take(answer, page);
        if (answer.items.length === 0) break;
      }
    }
    const [firstTotal = 0] = totals;
    const total = options.countAcross ? (latest ?? 0) : firstTotal;
    read = {
      items: options.countAcross
        ? [...byId.values()].filter((item) => counted.has(item.id))
        : [...byId.values()],
      total,
      counted: options.countAcross ? counted.size : byId.size,
      reads,
    };
    if (options.countAcross) {
      if (!covered) read.moved = `${total} listed, ${counted.size} read since that count`;
    } else if (options.moved === 'shrink') {
      const low = Math.min(...totals);
      if (low < firstTotal) read.moved = `its total went ${firstTotal} -> ${low} between pages`;
      // Fewer distinct records than page 1 counted, with no record gone: some were missed, as when records with
      // equal sort values come back in another order on each page (the spec promises a stable one for orders only).
      else if (byId.size < firstTotal) read.moved = `${firstTotal} listed, ${byId.size} distinct read`;
    } else if (totals.size > 1) read.moved = `its total went ${[...totals].join(' -> ')} between pages`;
    else if (byId.size !== firstTotal) read.moved = `${firstTotal} listed, ${byId.size} distinct read`;
    if (read.moved === undefined) break;
  }
  return read;
}

/** Whole reads of a list `readWhole` makes before it gives up (records tied on the sort). */
const WHOLE_LIST_READS = 3;

/**
 * Every record of a paged list, each once by id; `first` is reused when already fetched. Records tied on the sort may
 * come in another order on each page (spec 01 promises a stable order for GET /orders only), so one is met twice and
 * another missed: the count is checked against page 1's `total` and a short list read again, a few times at most, the
 * reads unioned by id while `total` holds (a server that reshuffles ties per query may miss another record on each
 * read). A list still short throws a plain error (the activity's retry reads it afresh) rather than give part of it.
 * A list read whole the first time costs one call a page, as a plain page loop does.
 */
export async function readWhole<T extends { id: string }>(
  endpoint: string,
  fetchPage: PageFetcher<T>,
  first?: Page<T>,
): Promise<T[]> {
  const read = await readList(fetchPage, {
    reads: WHOLE_LIST_READS,
    countAcross: true,
    ...(first ? { first } : {}),
  });
  if (read.moved === undefined) return read.items;
  throw new Error(
    `${endpoint} did not hold still over ${read.reads} reads (${read.moved}): a record could be missed; the read is retried`,
  );
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
  const ms = utcTimestampMs(text);
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
    const read = await readList(
      (page, limit) => this.fetchWindow({ updatedAfterUnixMs: ms, updatedBeforeUnixMs: ms, page, limit }),
      { limit: this.limit, reads: MAX_DRAIN_PASSES, countAcross: true },
    );
    yield* this.take(read.items);
    if (read.moved === undefined) return;
    throw new Error(
      `incremental sync: updatedAt ${new Date(ms).toISOString()}: the server counts ${read.total} records in this ` +
        `millisecond but ${MAX_DRAIN_PASSES} reads of its pages listed ${read.counted}; they kept changing while read, ` +
        'so checkpoint() stays at that millisecond (run the sync again)',
    );
  }
}
