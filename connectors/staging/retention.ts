// Kept apart from the sweep (which loads the stores) so that the worker's configuration can read it too.

/** Days an ended run's staged data stays after it was written by default (TRACE_STAGING_RETENTION_DAYS). */
export const DEFAULT_STAGING_RETENTION_DAYS = 7;

/** What this process's worker was started with (null: never swept); undefined in a process that runs no worker. */
let workerRetentionDays: number | null | undefined;

/** Whether this worker's run data is in its own data folder (no TRACE_STORE_URL=s3://…), which others may not see. */
let workerStoreIsFolder = false;

/**
 * The worker's TRACE_STAGING_RETENTION_DAYS, so that a run that finds its staged data gone names it, and whether its
 * run data lives in its data folder, so that such a run names the folder not shared between workers too.
 */
export function useStagingRetention(days: number | null, storeIsFolder = false): void {
  workerRetentionDays = days;
  workerStoreIsFolder = storeIsFolder;
}

/** Workers with data folders of their own split a run: its next step finds nothing its first staged. */
const UNSHARED_FOLDER_SAID =
  ". Or an earlier step of this run ran on another worker whose data folder is not this one's: every worker of a task queue must share one (TRACE_DATA_DIR on a shared volume, or TRACE_STORE_URL=s3://… on all of them); fix that, then start the job again";

/** Why staged data may be missing, in the operator's words, with the retention this worker was started with. */
export function missingStagedDataSaid(): string {
  return `${retentionSaid()}${workerStoreIsFolder ? UNSHARED_FOLDER_SAID : ''}`;
}

function retentionSaid(): string {
  if (workerRetentionDays === null)
    return 'it is missing. This worker never sweeps staged data (TRACE_STAGING_RETENTION_DAYS=off), so another worker sharing the data folder or store swept it (set TRACE_STAGING_RETENTION_DAYS=off there too), or the data folder was cleaned';
  const days =
    workerRetentionDays === undefined
      ? `${DEFAULT_STAGING_RETENTION_DAYS} by default`
      : `${workerRetentionDays} on this worker`;
  return `it is missing. The worker removes an ended run's staged data TRACE_STAGING_RETENTION_DAYS days after it was written (${days}), so a run reset after that finds it gone: start the job again, and set TRACE_STAGING_RETENTION_DAYS higher (or off) to reset runs later. Otherwise the data folder was cleaned`;
}
