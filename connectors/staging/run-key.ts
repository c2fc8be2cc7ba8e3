import { shortHash } from '../short-hash';

/** Longest run key: a folder name (255 bytes at most on common file systems) with room to spare. */
const MAX_RUN_KEY = 200;

/**
 * The workflow id made safe for a folder name, so continue-as-new and activity retries find the same folder. Pure
 * (workflow code checks a continuation's `resume` with it). An id longer than a folder name may be keeps its start
 * and a hash of the whole id: the CLI's ids end with the start time after the file name, so cutting them short made
 * two runs of one long-named file share a folder, the second overwriting the first's rejects file.
 */
export function runKeyOf(workflowId: string): string {
  const safe = safeKey(workflowId);
  if (safe.length <= MAX_RUN_KEY) return safe;
  const hash = shortHash(workflowId);
  return `${safe.slice(0, MAX_RUN_KEY - hash.length - 1)}-${hash}`;
}

/**
 * The folder a run of this id was given before session 55 (the id cut at 200 characters); the same as `runKeyOf` for
 * every id of 200 characters or fewer. A long-id run in flight across the upgrade keeps its folder: its continuation
 * is still its own, the sweep leaves it, and a retry finds its list of rejected products.
 */
export function legacyRunKeyOf(workflowId: string): string {
  return safeKey(workflowId).slice(0, MAX_RUN_KEY);
}

/** Whether `runKey` is the folder of a run of `workflowId`, under today's naming or the one before it. */
export function isRunKeyOf(runKey: string, workflowId: string): boolean {
  return runKey === runKeyOf(workflowId) || runKey === legacyRunKeyOf(workflowId);
}

function safeKey(workflowId: string): string {
  return workflowId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'run';
}
