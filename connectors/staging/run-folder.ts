import { join } from 'node:path';
import { StagingStore } from './store';

/** The workflow id made safe for a folder name, so continue-as-new and activity retries find the same folder. */
export function runKeyOf(workflowId: string): string {
  const safe = workflowId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return (safe || 'run').slice(0, 200);
}

/**
 * `<dataDir>/runs/<runKey>/`: where a job run keeps its staged batches, journals, rejects file and result.
 * Every worker of a task queue must see the same data dir, since a retried activity may land on another worker.
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
}
