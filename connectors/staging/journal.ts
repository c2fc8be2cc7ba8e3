import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { LocalStore, locate, type ObjectStore, type StoreLocation } from '../storage';

/**
 * Runs `work` over `items`, `limit` at a time (lanes, each taking the next item). A `limit` given as a function is
 * read as each item finishes: lanes start while it is above those running and end while it is below. After the
 * first failure no new item starts and the ones in flight finish before it is thrown, so a retried attempt never
 * overlaps the writes of this one. Once `stop` is aborted (the activity is cancelled) it is the same: no new item
 * starts, the ones in flight finish, and the signal's reason is thrown (an item is never cut in two).
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number | (() => number),
  work: (item: T, index: number) => Promise<void>,
  stop?: AbortSignal,
): Promise<void> {
  const width = typeof limit === 'number' ? () => limit : limit;
  let next = 0;
  let running = 0;
  let failure: { error: unknown } | undefined;
  const stopped = (): boolean => failure !== undefined || stop?.aborted === true;
  const lanes: Promise<void>[] = [];
  const widen = (): void => {
    while (!stopped() && next < items.length && running < Math.max(1, width())) {
      running += 1;
      lanes.push(lane());
    }
  };
  const lane = async (): Promise<void> => {
    while (!stopped() && next < items.length) {
      const index = next++;
      try {
        await work(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
      if (running > Math.max(1, width())) break;
      widen();
    }
    running -= 1;
  };
  widen();
  // Lanes started later are pushed before the lane that started them ends.
  for (let awaited = 0; awaited < lanes.length; awaited++) await lanes[awaited];
  if (stop?.aborted && next < items.length) throw stop.reason;
  if (failure) throw failure.error;
}

/** Objects of an S3 journal: `<journal key>.d/<sequence>.json`, one per entry. */
const ENTRY_FOLDER = '.d/';
const SEQUENCE_DIGITS = 10;
const MAX_REMEMBERED_JOURNALS = 1000;

/** Next free sequence number of each S3 journal this process appends to, and the chain that orders its appends. */
const sequences = new Map<string, { next: number | undefined; chain: Promise<unknown> }>();

function sequenceOf(key: string): number {
  return Number(key.slice(key.lastIndexOf('/') + 1).replace(/\.json$/, ''));
}

async function readAll(store: ObjectStore, keys: readonly string[]): Promise<(Buffer | null)[]> {
  const out = new Array<Buffer | null>(keys.length).fill(null);
  await forEachBounded(keys, 16, async (key, index) => {
    out[index] = await store.get(key);
  });
  return out;
}

/**
 * Append-only journal of a batch's writes (an intent before each write, its outcome after), read by a retried
 * attempt to skip settled work and to recognise a write that was under way when the worker died.
 *
 * On disk it is one JSON-lines file; a line cut short by a crash mid-write is ignored (the record it concerned is
 * simply done again). S3 has no append, so there every entry is an object of its own, written with
 * `If-None-Match: *` under the next sequence number: an entry is stored whole or not at all, and two writers can
 * never take the same number, so the order of the entries is the order they were written in.
 */
export class JsonLinesJournal<T> {
  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
  ) {}

  private where(): StoreLocation & { local: string | undefined } {
    const location = locate(this.path);
    const local = location.store instanceof LocalStore ? location.store.pathOf(location.key) : undefined;
    return { ...location, local };
  }

  /** Names of the journals kept in a folder (disk files or S3 entry folders alike), sorted. */
  static async namesIn(folder: string): Promise<string[]> {
    const { store, key } = locate(folder);
    const prefix = key === '' ? '' : `${key}/`;
    const names = new Set<string>();
    for (const objectKey of await store.list(prefix)) {
      const first = objectKey.slice(prefix.length).split('/')[0] ?? '';
      const name = first.endsWith(ENTRY_FOLDER.slice(0, -1))
        ? first.slice(0, -ENTRY_FOLDER.length + 1)
        : first;
      if (name !== '' && !name.endsWith('.tmp')) names.add(name);
    }
    return [...names].sort();
  }

  async append(entry: T): Promise<void> {
    const { store, key, local } = this.where();
    if (local !== undefined) {
      await mkdir(dirname(local), { recursive: true });
      // One write per line in append mode: lines of concurrent writes never interleave.
      await appendFile(local, `${JSON.stringify(entry)}\n`, 'utf8');
      return;
    }
    const id = `${store.url}|${key}`;
    const state = sequences.get(id) ?? { next: undefined, chain: Promise.resolve() };
    // Most recently used last; the oldest journals are forgotten (a forgotten one just lists its entries again).
    sequences.delete(id);
    sequences.set(id, state);
    if (sequences.size > MAX_REMEMBERED_JOURNALS) {
      const oldest = sequences.keys().next().value;
      if (oldest !== undefined) sequences.delete(oldest);
    }
    const body = JSON.stringify(entry);
    const write = state.chain.then(async () => {
      for (;;) {
        if (state.next === undefined) {
          const existing = await store.list(`${key}${ENTRY_FOLDER}`);
          state.next = existing.length === 0 ? 1 : Math.max(...existing.map(sequenceOf)) + 1;
        }
        const objectKey = `${key}${ENTRY_FOLDER}${String(state.next).padStart(SEQUENCE_DIGITS, '0')}.json`;
        if (await store.putIfAbsent(objectKey, body)) {
          state.next += 1;
          return;
        }
        // Another writer took that number: look again.
        state.next = undefined;
      }
    });
    state.chain = write.catch(() => undefined);
    await write;
  }

  /** Replaces the whole journal with these entries at once (a file through a rename; on S3 a single object). */
  async writeAll(entries: readonly T[]): Promise<void> {
    const { store, key, local } = this.where();
    const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    if (local !== undefined) {
      await store.put(key, text);
      return;
    }
    await store.removeFolder(`${key}${ENTRY_FOLDER}`);
    sequences.delete(`${store.url}|${key}`);
    if (text !== '') await store.put(`${key}${ENTRY_FOLDER}${'1'.padStart(SEQUENCE_DIGITS, '0')}.json`, text);
  }

  async entries(): Promise<T[]> {
    const { store, key, local } = this.where();
    const lines: string[] = [];
    if (local !== undefined) {
      let text: string;
      try {
        text = await readFile(local, 'utf8');
      } catch {
        return [];
      }
      lines.push(...text.split('\n'));
    } else {
      const keys = (await store.list(`${key}${ENTRY_FOLDER}`)).filter((k) => /\/\d+\.json$/.test(k));
      keys.sort((a, b) => sequenceOf(a) - sequenceOf(b));
      for (const buffer of await readAll(store, keys))
        if (buffer) lines.push(...buffer.toString('utf8').split('\n'));
    }
    const entries: T[] = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const parsed = this.schema.safeParse(JSON.parse(line));
        if (parsed.success) entries.push(parsed.data);
      } catch {
        // torn line: see the class comment
      }
    }
    return entries;
  }

  /** After a crash mid-line, the next entry must start on a line of its own (S3 entries cannot be torn). */
  async closeTornLine(): Promise<void> {
    const { local } = this.where();
    if (local === undefined) return;
    try {
      const text = await readFile(local, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) await appendFile(local, '\n', 'utf8');
    } catch {
      // no journal yet
    }
  }
}

/** A line of a batch journal: an `intent` before a write, an `outcome` once the record is settled. */
export interface JournalLine {
  kind: 'intent' | 'outcome';
}
export type IntentOf<E extends JournalLine> = Extract<E, { kind: 'intent' }>;
export type OutcomeOf<E extends JournalLine> = Extract<E, { kind: 'outcome' }>;

/** What a batch's journal says: settled records by key, and the intents of writes under way when an attempt stopped. */
export interface JournalState<E extends JournalLine> {
  done: Map<string, OutcomeOf<E>>;
  pending: Map<string, IntentOf<E>>;
}

/** Replays a journal in order: an intent opens a record's write, an outcome settles it (the last line wins). */
function replay<E extends JournalLine>(entries: readonly E[], keyOf: (entry: E) => string): JournalState<E> {
  const done = new Map<string, OutcomeOf<E>>();
  const pending = new Map<string, IntentOf<E>>();
  for (const entry of entries) {
    const key = keyOf(entry);
    if (entry.kind === 'intent') {
      pending.set(key, entry as IntentOf<E>);
      done.delete(key);
    } else {
      done.set(key, entry as OutcomeOf<E>);
      pending.delete(key);
    }
  }
  return { done, pending };
}

/**
 * The journal of one batch. A retried attempt reads it to skip records already settled and to recognise a write
 * that was under way when the previous attempt died (an `intent` with no `outcome` after it).
 */
export class BatchJournal<E extends JournalLine> extends JsonLinesJournal<E> {
  constructor(
    path: string,
    private readonly entrySchema: z.ZodType<E>,
    readonly keyOf: (entry: E) => string,
  ) {
    super(path, entrySchema);
  }

  /** Checked before it is written: an entry the reader would skip as invalid must fail here, not vanish from the counts. */
  override async append(entry: E): Promise<void> {
    await super.append(this.entrySchema.parse(entry));
  }

  /** What earlier attempts left; a line a crash cut short is closed first, so this attempt's lines start clean. */
  async resume(): Promise<JournalState<E>> {
    await this.closeTornLine();
    return this.state();
  }

  /**
   * Settles `records` (those the journal has not settled yet), `lanes` at a time, journalling each outcome as it
   * settles (`settle` may give none: nothing is journalled). Returns every outcome of the batch, earlier attempts'
   * (`done`) included; `onSettled` hears how many there are after each. Once `stop` is aborted no further record is
   * begun; those under way settle and are journalled, then the signal's reason is thrown (see forEachBounded).
   */
  async settleAll<R>(
    done: ReadonlyMap<string, OutcomeOf<E>>,
    records: readonly R[],
    lanes: number | (() => number),
    settle: (record: R) => Promise<OutcomeOf<E> | undefined>,
    onSettled: (settled: number) => void,
    stop?: AbortSignal,
  ): Promise<Map<string, OutcomeOf<E>>> {
    const outcomes = new Map(done);
    await forEachBounded(
      records,
      lanes,
      async (record) => {
        const outcome = await settle(record);
        if (outcome === undefined) return;
        await this.append(outcome);
        outcomes.set(this.keyOf(outcome), outcome);
        onSettled(outcomes.size);
      },
      stop,
    );
    return outcomes;
  }

  /** What the journal says now (read only). */
  async state(): Promise<JournalState<E>> {
    return replay(await this.entries(), this.keyOf);
  }
}
