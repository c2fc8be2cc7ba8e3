import { toCsv, type Column } from './reports';
import type { RunFolder } from './staging';
import { writeFileAtomically } from './storage';

/**
 * Approved writes held back after approval (the platform changed them since the plan) travel in the activity's
 * result and the workflow's approval outcome, payloads that error at 2 MB: they list the first ones, the run file
 * `held-back.csv` lists every one.
 */
export const MAX_LISTED_HELD_BACK = 100;

export interface HeldBackList<R> {
  /** The first MAX_LISTED_HELD_BACK held back. */
  replanned: R[];
  /** How many were held back in all. */
  replannedCount: number;
  /**
   * `held-back.csv`, listing every one, where an operator finds it: its run-data store URL (`s3://…`), or its path in
   * the run folder without TRACE_STORE_URL; null when none.
   */
  replannedFile: string | null;
}

export async function writeHeldBack<R>(
  run: Pick<RunFolder, 'file' | 'publishedLocation'>,
  columns: readonly Column<R>[],
  rows: readonly R[],
): Promise<HeldBackList<R>> {
  if (rows.length === 0) return { replanned: [], replannedCount: 0, replannedFile: null };
  await writeFileAtomically(run.file('held-back.csv'), toCsv({ name: 'Held back', columns, rows }));
  return {
    replanned: rows.slice(0, MAX_LISTED_HELD_BACK),
    replannedCount: rows.length,
    replannedFile: await run.publishedLocation('held-back.csv'),
  };
}
