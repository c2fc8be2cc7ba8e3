import { join } from 'node:path';
import { fetchFile, publishFile } from '../storage';
import { StagingStore } from './store';

/** The workflow id made safe for a folder name, so continue-as-new and activity retries find the same folder. */
export function runKeyOf(workflowId: string): string {
  const safe = workflowId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return (safe || 'run').slice(0, 200);
}

/**
 * `<dataDir>/runs/<runKey>/`: where a job run keeps its staged batches, journals, rejects file and result.
 * Staged data and journals go through the run-data store (connectors/storage): with TRACE_STORE_URL=s3://… a
 * retried activity may land on a worker with a data folder of its own and still find them.
 */
export class RunFolder {
  readonly staging: StagingStore;

  constructor(
    readonly dataDir: string,
    readonly runKey: string,
    /** Sub-folder of the run that holds staged data (none: the run folder itself). */
    private readonly stagingFolder: readonly string[] = [],
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
   * The local path of a run file, fetched from the run-data store when another worker wrote it (a run continued
   * after its first worker died); null when the store has none either.
   */
  async fetch(...parts: string[]): Promise<string | null> {
    const path = this.file(...parts);
    return (await fetchFile(path)) ? path : null;
  }
}
