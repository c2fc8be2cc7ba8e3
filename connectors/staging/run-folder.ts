import { join } from 'node:path';
import type { z } from 'zod';
import { fetchFile, locate, publishFile, storedLocation } from '../storage';
import { BatchJournal, JsonLinesJournal, type JournalLine, type OutcomeOf } from './journal';
import { StagingStore, type StagingRef } from './store';

/** How a job keeps its journals in its run folder: `<folder>/batch-00007.ndjson`, one per batch (or named). */
export interface JournalLayout<E extends JournalLine> {
  folder: string;
  schema: z.ZodType<E>;
  /** A record's key within one journal. */
  keyOf: (entry: E) => string;
  /** A settled record's key across the run's journals (the last outcome per key wins); default `keyOf`. */
  outcomeKeyOf?: (outcome: OutcomeOf<E>, journal: string) => string;
}

export { legacyRunKeyOf, runKeyOf } from './run-key';

/**
 * `<dataDir>/runs/<runKey>/`: where a job run keeps its staged batches, journals, rejects file and result.
 * Staged data and journals go through the run-data store (connectors/storage): with TRACE_STORE_URL=s3://… a
 * retried activity may land on a worker with a data folder of its own and still find them.
 */
export class RunFolder<E extends JournalLine = JournalLine> {
  readonly staging: StagingStore;

  constructor(
    readonly dataDir: string,
    readonly runKey: string,
    /** Sub-folder of the run that holds staged data (none: the run folder itself). */
    private readonly stagingFolder: readonly string[] = [],
    /** Where the run's batch journals live (a run without journals has none). */
    private readonly journals?: JournalLayout<E>,
  ) {
    this.staging = new StagingStore(join(dataDir, 'runs'));
  }

  get path(): string {
    return join(this.dataDir, 'runs', this.runKey);
  }

  /** Staging key of a file of this run. */
  key(...parts: string[]): string {
    return [this.runKey, ...this.stagingFolder, ...parts].join('/');
  }

  file(...parts: string[]): string {
    return join(this.path, ...parts);
  }

  /**
   * Copies a file the run wrote on this worker (rejects, result, a copy of the input) to the run-data store, where
   * other workers and operators find it; returns its URL there. A no-op when the store is this data folder.
   */
  async publish(...parts: string[]): Promise<string> {
    return publishFile(this.file(...parts));
  }

  /**
   * Where a run file is found once published, as a result, the run's details or its memo name it: its URL in the store
   * (`s3://…`: a worker's path means nothing to an operator or a worker on another host), or its path when the store
   * is a folder (without TRACE_STORE_URL, the run folder itself).
   */
  location(...parts: string[]): string {
    return storedLocation(this.file(...parts));
  }

  /** Publishes a run file and names it where it is found (see `location`). */
  async publishedLocation(...parts: string[]): Promise<string> {
    await this.publish(...parts);
    return this.location(...parts);
  }

  /**
   * The local path of a run file, fetched from the run-data store when another worker wrote it (a run continued
   * after its first worker died); null when the store has none either.
   */
  async fetch(...parts: string[]): Promise<string | null> {
    const path = this.file(...parts);
    return (await fetchFile(path)) ? path : null;
  }

  /** The run's staged manifest and its batch `n` (a batch that is not there is a caller's bug: thrown). */
  async stagedBatch<M extends { batches: readonly unknown[] }>(
    ref: StagingRef,
    schema: z.ZodType<M>,
    batch: number,
  ): Promise<{ manifest: M; entry: NonNullable<M['batches'][number]> }> {
    const manifest = await this.staging.getJson(ref, schema);
    const entry = manifest.batches[batch];
    if (entry === undefined || entry === null)
      throw new Error(`batch ${batch} is not in run ${this.runKey} (it has ${manifest.batches.length})`);
    return { manifest, entry: entry as NonNullable<M['batches'][number]> };
  }

  /** The journal of batch `n`, or a named one (`read`: records refused while reading). */
  journal(batch: number | string): BatchJournal<E> {
    const layout = this.layout();
    const name = typeof batch === 'number' ? `batch-${String(batch).padStart(5, '0')}` : batch;
    return new BatchJournal(this.file(layout.folder, `${name}.ndjson`), layout.schema, layout.keyOf);
  }

  /** Final outcome of every record the run's journals settled (those of batches before `beforeBatch` only). */
  async outcomes(beforeBatch = Number.POSITIVE_INFINITY): Promise<OutcomeOf<E>[]> {
    const layout = this.layout();
    let names: string[];
    try {
      names = (await JsonLinesJournal.namesIn(this.file(layout.folder))).filter((name) =>
        name.endsWith('.ndjson'),
      );
    } catch {
      return [];
    }
    const latest = new Map<string, OutcomeOf<E>>();
    for (const name of names) {
      const batch = /^batch-(\d+)\.ndjson$/.exec(name);
      if (beforeBatch !== Number.POSITIVE_INFINITY && (!batch || Number(batch[1]) >= beforeBatch)) continue;
      for (const entry of await this.journal(name.slice(0, -'.ndjson'.length)).entries()) {
        if (entry.kind !== 'outcome') continue;
        const outcome = entry as OutcomeOf<E>;
        latest.set(layout.outcomeKeyOf ? layout.outcomeKeyOf(outcome, name) : layout.keyOf(outcome), outcome);
      }
    }
    return [...latest.values()];
  }

  private layout(): JournalLayout<E> {
    if (!this.journals) throw new Error(`run ${this.runKey} keeps no journals`);
    return this.journals;
  }
}

/**
 * A JSON document of the data folder kept across runs (a high-water mark, a snapshot), through the run-data store;
 * undefined when there is none. Throws when it is not JSON or not what `schema` says.
 */
export async function readStoredJson<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  const { store, key } = locate(path);
  const buffer = await store.get(key);
  return buffer === null ? undefined : schema.parse(JSON.parse(buffer.toString('utf8')));
}

/** Replaces a JSON document of the data folder at once (readers see the old or the new one), in the run-data store. */
export async function storeJson(path: string, value: unknown): Promise<void> {
  const { store, key } = locate(path);
  await store.put(key, `${JSON.stringify(value, null, 2)}\n`);
}
