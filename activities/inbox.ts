import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, extname, join, parse } from 'node:path';
import { Context } from '@temporalio/activity';
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { z } from 'zod';
import { mappingFileProblem } from '../connectors/mapping-file';
import { inputObject, isS3Url, LocalStore, mergeIntoStored, type S3Store } from '../connectors/storage';

import {
  exists,
  INBOX_DONE_FOLDERS,
  listInbox,
  REASON_CHARS,
  sha256OfFile,
  sha256OfObject,
  type InboxDestination,
  type InboxFile,
  type MovedFile,
} from './inbox-listing';

export {
  DEFAULT_SETTLE_SECONDS,
  INBOX_DONE_FOLDERS,
  INBOX_RECORD_MAX_AGE_MS,
  MAX_FILES_PER_RUN,
  sweepInboxRecords,
  type InboxDestination,
  type InboxFile,
  type InboxListing,
  type MovedFile,
  type SkippedInboxFile,
} from './inbox-listing';

/** The ETag an S3 drop was listed with (its version is `<last-modified ms>-<etag>`), quoted as S3 sends it. */
function listedETag(file: InboxFile): string | undefined {
  const dash = file.version?.indexOf('-') ?? -1;
  const etag = dash >= 0 ? file.version?.slice(dash + 1) : undefined;
  return etag ? `"${etag}"` : undefined;
}

/** The records an S3 inbox keeps beside its files: who handles a drop, and where a drop moves. */
const ownerClaimSchema = z.object({
  /** The inbox run's workflow id. */
  owner: z.string(),
  /** Its run id, and the id of the child it starts for the drop (claims written before takeover lack both). */
  runId: z.string().optional(),
  child: z.string().optional(),
});
type OwnerClaim = z.infer<typeof ownerClaimSchema>;
const moveRecordSchema = z.object({
  target: z.string(),
  to: z.enum(INBOX_DONE_FOLDERS).optional(),
  /** The inbox run that wrote it (records written before a record named its run lack both: they bind every run). */
  owner: z.string().optional(),
  runId: z.string().optional(),
});
type MoveRecord = z.infer<typeof moveRecordSchema>;
const claimOf = <T>(schema: z.ZodType<T>, body: Buffer): T => schema.parse(JSON.parse(body.toString('utf8')));

/** The inbox run filing a drop away: the run that holds its claim. */
export interface InboxMover {
  owner: string;
  runId: string;
}

/**
 * Whether `by` may replace a move record it did not write: only a record of a closed run whose copy never happened
 * (the drop is still in the inbox, nothing at the target), and only while `by` holds the drop's claim (took it over).
 * A record whose copy happened stays: the file is where it is.
 */
async function replaceable(
  store: S3Store,
  record: MoveRecord,
  by: InboxMover,
  claimKey: string,
  to: InboxDestination,
): Promise<boolean> {
  if (record.owner === undefined || record.to === to) return false;
  if (record.owner === by.owner && record.runId === by.runId) return false;
  if (await store.exists(record.target)) return false;
  const claim = await store.get(claimKey);
  const holder = claim ? claimOf(ownerClaimSchema, claim) : undefined;
  if (holder?.owner !== by.owner || holder.runId !== by.runId) return false;
  return !(await mayStillRun(record.owner, record.runId));
}

/**
 * S3 has no rename, and several workers may poll one inbox: the first mover of a drop writes a record naming the
 * destination and its run (`If-None-Match: *`, so only one record can exist); every mover, the first included and
 * any retry of it, then completes that same move (copy, then delete), which is safe to repeat. A run that took the
 * drop's claim over replaces a closed run's record whose copy never happened (`If-Match` on its ETag).
 */
async function moveS3InboxFile(file: InboxFile, to: InboxDestination, by?: InboxMover): Promise<MovedFile> {
  const { store, key: sourceKey } = inputObject(file.path);
  const folder = sourceKey.slice(0, sourceKey.length - file.name.length);
  const { name: stem } = parse(file.name);
  const recordKey = dropRecordKey(folder, '.moves', file);
  const claimKey = dropRecordKey(folder, '.claims', file);
  const current = await sha256OfObject(store, sourceKey);
  const freshTarget = async (): Promise<string> => {
    const plain = `${folder}${to}/${file.name}`;
    return (await store.exists(plain))
      ? `${folder}${to}/${stem}-${file.sha256.slice(0, 12)}${extname(file.name)}`
      : plain;
  };
  const mine = (target: string) => JSON.stringify({ target, to, ...(by ?? {}) });
  let existing = await store.getWithETag(recordKey);
  if (!existing) {
    if (current === null) return { movedTo: null, note: 'the file is no longer in the inbox' };
    if (current !== file.sha256)
      return { movedTo: null, note: 'the file changed since it was listed; the next run takes it' };
  }
  let target: string | undefined;
  let recorded = false;
  // Each pass settles the target unless a racer wrote the record meanwhile; then read it again.
  for (let pass = 0; pass < 5 && target === undefined; pass++) {
    if (!existing) {
      const fresh = await freshTarget();
      if (await store.putIfAbsent(recordKey, mine(fresh))) target = fresh;
      else existing = await store.getWithETag(recordKey);
      continue;
    }
    const record = claimOf(moveRecordSchema, existing.body);
    if (by && current === file.sha256 && (await replaceable(store, record, by, claimKey, to))) {
      const fresh = await freshTarget();
      if (await store.putIfMatch(recordKey, mine(fresh), existing.etag)) target = fresh;
      else existing = await store.getWithETag(recordKey);
      continue;
    }
    target = record.target;
    recorded = true;
  }
  if (target === undefined) throw new Error(`the move record ${recordKey} kept changing while it was read`);
  const changed = { movedTo: null, note: 'the file changed since it was listed; the next run takes it' };
  if (current === file.sha256) {
    // The source may be overwritten (an ERP's fixed-name export) at any moment: copy only the listed drop, and
    // delete only while the key still holds it, so a new export stays in the inbox for the next run.
    const etag = listedETag(file);
    const copied = etag
      ? await store.copyIfUnchanged(sourceKey, target, etag)
      : await store.copy(sourceKey, target);
    if (!copied && !(await store.exists(target))) return changed;
    const now = await store.etagOf(sourceKey);
    if (now !== null && (etag === undefined || now === etag)) await store.remove(sourceKey);
    else if (now !== null)
      return {
        movedTo: store.urlOf(target),
        note: 'a new copy was dropped meanwhile; the next run takes it',
      };
    return { movedTo: store.urlOf(target), ...(recorded ? { note: 'already moved' } : {}) };
  }
  if (!(await store.exists(target))) return changed;
  return { movedTo: store.urlOf(target), note: 'already moved' };
}

const CLOSED: ReadonlySet<WorkflowExecutionStatusName> = new Set<WorkflowExecutionStatusName>([
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
]);

/** Whether a run (the latest of the id without a run id) may still act: anything but a closed status or none. */
async function mayStillRun(workflowId: string, runId?: string): Promise<boolean> {
  try {
    const run = await Context.current().client.workflow.getHandle(workflowId, runId).describe();
    return !CLOSED.has(run.status.name);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * A claim may be taken over once its run is closed (terminated, cancelled, failed) and so is the child it started
 * for the drop (a parent's close terminates its children, but not at the same instant).
 */
async function abandoned(claim: OwnerClaim, child: string): Promise<boolean> {
  return !(await mayStillRun(claim.owner, claim.runId)) && !(await mayStillRun(claim.child ?? child));
}

/** `<folder>/<kind>/<name>-<hash>-<version>.json`: the record of one drop of one file (hidden from listings). */
export function dropRecordKey(
  folder: string,
  kind: '.claims' | '.moves' | '.failures',
  file: InboxFile,
): string {
  return `${folder}${kind}/${file.name}-${file.sha256.slice(0, 16)}-${(file.version ?? '').replace(/[^A-Za-z0-9]/g, '')}.json`;
}

/** The children of one drop that failed for a reason outside its file, each once (by run id), with the reason. */
const dropFailuresSchema = z.object({
  failures: z.array(z.object({ runId: z.string(), reason: z.string() })),
});
type DropFailures = z.infer<typeof dropFailuresSchema>;

const withFailure = (record: DropFailures, runId: string, reason: string): DropFailures =>
  record.failures.some((failure) => failure.runId === runId)
    ? record
    : { failures: [...record.failures, { runId, reason: reason.slice(0, REASON_CHARS) }] };

/**
 * Adds a child's failure to the drop's record, merged with what other runs wrote meanwhile (S3: only over the ETag
 * read; the worker's disk: under a lock file); the number of failed children it now holds.
 */
async function recordDropFailure(file: InboxFile, runId: string, reason: string): Promise<number> {
  const s3 = isS3Url(file.path) ? inputObject(file.path) : undefined;
  const store = s3?.store ?? new LocalStore(dirname(file.path));
  const folder = s3 ? s3.key.slice(0, s3.key.length - file.name.length) : '';
  const recordKey = dropRecordKey(folder, '.failures', file);
  let failures = 0;
  const merged = await mergeIntoStored(store, recordKey, (current) => {
    const record = withFailure(
      current ? claimOf(dropFailuresSchema, current) : { failures: [] },
      runId,
      reason,
    );
    failures = record.failures.length;
    return JSON.stringify(record);
  });
  if (!merged)
    throw new Error(`the failure record ${store.urlOf(recordKey)} kept changing while it was read`);
  return failures;
}

/** A drop of the worker's disk filed to `to/` (under a hashed name when one of that name is there). */
async function moveLocalInboxFile(file: InboxFile, to: InboxDestination): Promise<MovedFile> {
  const folder = join(file.path, '..', to);
  const target = join(folder, file.name);
  const { name: stem } = parse(file.name);
  const hashed = join(folder, `${stem}-${file.sha256.slice(0, 12)}${extname(file.name)}`);
  if (!(await exists(file.path))) {
    for (const candidate of [target, hashed]) {
      if ((await exists(candidate)) && (await sha256OfFile(candidate)) === file.sha256)
        return { movedTo: candidate, note: 'already moved' };
    }
    return { movedTo: null, note: 'the file is no longer in the inbox' };
  }
  if ((await sha256OfFile(file.path)) !== file.sha256)
    return { movedTo: null, note: 'the file changed since it was listed; the next run takes it' };
  await mkdir(folder, { recursive: true });
  const destination = (await exists(target)) ? hashed : target;
  await rename(file.path, destination);
  return { movedTo: destination };
}

/** Removes a drop's `.failures/` record (none is fine: most drops never had one). */
async function forgetDropFailures(file: InboxFile): Promise<void> {
  if (isS3Url(file.path)) {
    const { store, key } = inputObject(file.path);
    await store.remove(dropRecordKey(key.slice(0, key.length - file.name.length), '.failures', file));
    return;
  }
  await rm(dropRecordKey(`${dirname(file.path)}/`, '.failures', file), { force: true });
}

export function createInboxActivities() {
  return {
    /**
     * S3 inboxes: the inbox run that may handle a drop (start its child and file it away); the first to ask gets it
     * (`If-None-Match: *`), and asking again with the same owner (a retry) still says yes. A claim whose run and child
     * are closed is taken over by a later run with `If-Match` on the claim's ETag, so of runs racing for it one wins.
     * Folders on the worker's disk: always yes (a rename there is atomic already).
     */
    async claimInboxFile(input: {
      file: InboxFile;
      owner: string;
      /** The claiming run and the drop's child; runs started before takeover send neither and never take over. */
      runId?: string;
      child?: string;
    }): Promise<boolean> {
      if (!isS3Url(input.file.path)) return true;
      const { store, key } = inputObject(input.file.path);
      const claimKey = dropRecordKey(
        key.slice(0, key.length - input.file.name.length),
        '.claims',
        input.file,
      );
      const mine: OwnerClaim = {
        owner: input.owner,
        ...(input.runId !== undefined ? { runId: input.runId } : {}),
        ...(input.child !== undefined ? { child: input.child } : {}),
      };
      // Each pass ends in a yes or a no unless a racer changed the claim meanwhile; then read it again.
      for (let pass = 0; pass < 5; pass++) {
        if (await store.putIfAbsent(claimKey, JSON.stringify(mine))) return true;
        const current = await store.getWithETag(claimKey);
        if (!current) continue;
        const claim = claimOf(ownerClaimSchema, current.body);
        if (claim.owner === input.owner && claim.runId === input.runId) return true;
        if (input.runId === undefined || input.child === undefined) return false;
        if (!(await abandoned(claim, input.child))) return false;
        if (await store.putIfMatch(claimKey, JSON.stringify(mine), current.etag)) return true;
      }
      throw new Error(`the claim ${claimKey} kept changing while it was read`);
    },

    /**
     * Whether the run with this id still runs: a drop whose child another inbox run started (and waits for) stays in
     * the inbox until that run files it away.
     */
    async inboxChildRuns(input: { workflowId: string }): Promise<boolean> {
      return mayStillRun(input.workflowId);
    },

    /**
     * The inbox's files (not its sub-folders), oldest name first, each with its content hash, and the files left for
     * a later run with the reason: on the worker's disk one changed within `settleSeconds` (default
     * DEFAULT_SETTLE_SECONDS: it may still be being copied in), and anywhere one that cannot be read (the other
     * drops go on).
     */
    listInboxDrops: listInbox,

    /** listInboxDrops' files alone: what inbox runs started before the listing named skipped files call. */
    async listInboxFiles(input: { folder: string; settleSeconds?: number }): Promise<InboxFile[]> {
      return (await listInbox(input)).files;
    },

    /**
     * Moves a handled file into `processed/` or `failed/` beside it. Safe to repeat: a file already moved is found
     * there; a name taken by other content gets the hash in its name; a file whose content changed since it was
     * listed stays (it is a new file for the next run). A filed drop's outage record (`.failures/`) goes with it.
     */
    async moveInboxFile(input: {
      file: InboxFile;
      to: InboxDestination;
      /** S3: the run that holds the drop's claim (runs started before a move record named its run send none). */
      by?: InboxMover;
    }): Promise<MovedFile> {
      const { file } = input;
      const moved = isS3Url(file.path)
        ? await moveS3InboxFile(file, input.to, input.by)
        : await moveLocalInboxFile(file, input.to);
      // Filed away: the drop's outage count has nothing left to bound (and a later drop of the same file starts anew).
      if (moved.movedTo !== null) await forgetDropFailures(file);
      return moved;
    },

    /**
     * Notes that a drop's child (`runId`) failed for a reason outside the file (the API out, the worker's trouble),
     * in a record beside the drop (`.failures/`, hidden from listings; it outlives the runs' retention), and returns
     * how many of its children failed so: the inbox leaves the drop for the next run until they are too many. Safe
     * to repeat: a run is counted once.
     */
    async recordInboxDropFailure(input: { file: InboxFile; runId: string; reason: string }): Promise<number> {
      const { file, runId, reason } = input;
      return recordDropFailure(file, runId, reason);
    },

    /**
     * Loads an inbox's mapping file with its job's own loader, before any drop is touched: a file that does not load
     * would fail every drop's child. Fails non-retryably (`InvalidInput`) with the loader's reason.
     */
    async checkInboxMappingFile(input: {
      job: 'erp-orders' | 'plm-import';
      mappingFile: string;
    }): Promise<void> {
      const problem = await mappingFileProblem(input.job, input.mappingFile);
      if (problem !== undefined) throw ApplicationFailure.nonRetryable(problem, 'InvalidInput');
    },
  };
}
