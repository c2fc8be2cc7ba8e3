import { rmdir } from 'node:fs/promises';
import { LocalStore, S3Store, type ObjectStore } from '../storage';
import { DEFAULT_STAGING_RETENTION_DAYS } from './retention';

/** Staged data of a run that ended stays this long after it was written, then goes (unless the worker is told otherwise). */
export const STAGING_RETENTION_MS = DEFAULT_STAGING_RETENTION_DAYS * 24 * 60 * 60 * 1000;
/** Objects one pass lists at most (S3: 10 list requests), so a bucket of 100,000 old objects never stalls a worker. */
export const SWEEP_LISTED_PER_PASS = 10_000;

/** Where runs keep staged data, in key order (a pass resumes from a key). */
const SWEPT_PREFIXES = ['runs/', 'staging/certificate-report/'] as const;

/**
 * The run whose staging a store key is, or undefined when the key is not staging (rejects, result.json, plan files,
 * reports, the copy of the input, the ERP push's outcome logs and manifests: what a run leaves for operators).
 * - certificate-report: `staging/certificate-report/<run>/…` (the fetch journal and the staged certificates);
 * - plm-import: `runs/<run>/staging/…` and `runs/<run>/journal/…`;
 * - erp-orders: `runs/<run>/batches/…` and `runs/<run>/<approved|recheck>-batch-NNNNN.ndjson`;
 * - bom-repair: `runs/<run>/candidates.ndjson`, `runs/<run>/to-retry.json` and `runs/<run>/journal/…`.
 */
export function stagedRunOf(key: string): string | undefined {
  const parts = key.split('/');
  if (parts[0] === 'staging' && parts[1] === 'certificate-report' && parts.length >= 4) return parts[2];
  if (parts[0] !== 'runs' || parts.length < 3) return undefined;
  const [, run, first = ''] = parts;
  if (parts.length >= 4 && (first === 'staging' || first === 'journal' || first === 'batches')) return run;
  if (
    parts.length === 3 &&
    (first === 'candidates.ndjson' || first === 'to-retry.json' || /^[a-z]+-batch-\d+\.ndjson$/.test(first))
  )
    return run;
  return undefined;
}

/** The workflows open now, as Temporal lists them. */
export interface OpenRuns {
  /** Their ids made folder names (`runKeyOf`, and each odd character replaced one for one as a BOM repair does). */
  runKeys: ReadonlySet<string>;
  /** Their run ids (a certificate report's staging is `<asOf>-<runId>`). */
  runIds: ReadonlySet<string>;
}

/**
 * Whether a run folder may belong to a run still open: its key is an open workflow's run key, or that key followed by
 * `-` (a BOM repair's `<id>-<runId>`, an approval's `<id>--plan`), or it ends with `-<runId>` of an open run. A folder
 * of another run that happens to match is merely kept until that workflow closes.
 */
export function isOpenRun(run: string, open: OpenRuns): boolean {
  if (open.runKeys.has(run)) return true;
  for (let at = run.indexOf('-'); at > 0; at = run.indexOf('-', at + 1)) {
    if (open.runKeys.has(run.slice(0, at)) || open.runIds.has(run.slice(at + 1))) return true;
  }
  return false;
}

export interface StagingSweepOptions {
  store: ObjectStore;
  /** The clock (tests move it on). */
  now: number;
  /** The workflows open now: their staging is never touched. */
  open: OpenRuns;
  retentionMs?: number;
  maxListed?: number;
  /** Where the previous pass stopped (its `next`). */
  startAfter?: string | undefined;
}

export interface StagingSweepResult {
  listed: number;
  removed: number;
  /** Staged objects old enough that were kept because their run is open. */
  keptOpen: number;
  /** The key to resume from in the next pass; undefined when this pass reached the end. */
  next: string | undefined;
}

/**
 * One bounded pass over the store: removes the staged objects (see `stagedRunOf`) written more than the retention
 * ago whose run is not open in Temporal. Lists at most `maxListed` objects, in key order, from `startAfter`.
 */
export async function sweepStaging(options: StagingSweepOptions): Promise<StagingSweepResult> {
  const { store, open } = options;
  const cutoff = options.now - (options.retentionMs ?? STAGING_RETENTION_MS);
  const maxListed = options.maxListed ?? SWEEP_LISTED_PER_PASS;
  const result: StagingSweepResult = { listed: 0, removed: 0, keptOpen: 0, next: undefined };
  const cursor = options.startAfter;
  for (const prefix of SWEPT_PREFIXES) {
    // A cursor past this prefix: the prefix was swept in an earlier pass.
    if (cursor !== undefined && cursor > prefix && !cursor.startsWith(prefix)) continue;
    const from = cursor !== undefined && cursor.startsWith(prefix) ? cursor : undefined;
    for await (const page of store.pagesUnder(prefix, from)) {
      const doomed: string[] = [];
      let last: string | undefined;
      for (const object of page) {
        if (result.listed >= maxListed) break;
        result.listed += 1;
        last = object.key;
        const run = stagedRunOf(object.key);
        if (run === undefined || object.lastModifiedMs === 0 || object.lastModifiedMs > cutoff) continue;
        if (isOpenRun(run, open)) result.keptOpen += 1;
        else doomed.push(object.key);
      }
      await removeKeys(store, doomed);
      result.removed += doomed.length;
      if (result.listed >= maxListed) {
        result.next = last;
        return result;
      }
    }
  }
  return result;
}

async function removeKeys(store: ObjectStore, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  if (store instanceof S3Store) {
    await store.removeKeys(keys);
    return;
  }
  for (const key of keys) await store.remove(key);
  if (store instanceof LocalStore) await pruneEmptyFolders(store, keys);
}

/** Drops the folders the removed files leave empty, up to the run folder (a folder with anything left stays). */
async function pruneEmptyFolders(store: LocalStore, keys: readonly string[]): Promise<void> {
  const folders = new Set<string>();
  for (const key of keys) {
    const parts = key.split('/');
    // Down to `runs/<run>` or `staging/certificate-report/<run>`, never their parents.
    const shallowest = parts[0] === 'staging' ? 3 : 2;
    for (let end = parts.length - 1; end >= shallowest; end -= 1) folders.add(parts.slice(0, end).join('/'));
  }
  // Deepest first, so a parent is tried once its children are gone.
  for (const folder of [...folders].sort((a, b) => b.split('/').length - a.split('/').length)) {
    await rmdir(store.pathOf(folder)).catch(() => undefined);
  }
}
