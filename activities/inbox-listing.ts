import { createHash } from 'node:crypto';
import { createReadStream, type Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { inputObject, isS3Url, type ListedObject, type S3Store } from '../connectors/storage';

/**
 * What an inbox run finds in its folder (a folder on the worker's disk, or an S3 prefix): the drops it takes, each
 * with its content hash and version, and the files it leaves for a later run, with the reason.
 */

export const INBOX_DONE_FOLDERS = ['processed', 'failed'] as const;
export type InboxDestination = (typeof INBOX_DONE_FOLDERS)[number];

/** At most this many files per inbox run; the next run takes the rest. */
export const MAX_FILES_PER_RUN = 100;

export interface InboxFile {
  name: string;
  /** A path on the worker, or `s3://bucket/key` for an inbox in a bucket. */
  path: string;
  sha256: string;
  bytes: number;
  /**
   * When this copy was dropped: S3 `<last-modified ms>-<etag>`, the worker's disk `<mtime ms>` (a file dropped again is
   * a new drop, with a child run of its own; on S3 it is moved on its own too). Absent from older runs' listings.
   */
  version?: string;
}

/** A file the listing left in the inbox this run, and why (the next run looks at it again). */
export interface SkippedInboxFile {
  name: string;
  reason: string;
}

export interface InboxListing {
  files: InboxFile[];
  /** At most MAX_FILES_PER_RUN; reasons at most REASON_CHARS long. */
  skipped: SkippedInboxFile[];
}

/**
 * A file on the worker's disk changed less than this long ago may still be being copied in: SMB, sftp, scp and most
 * FTP clients write to the final name, so a half-written file looks like any other.
 */
export const DEFAULT_SETTLE_SECONDS = 60;
export const REASON_CHARS = 200;

export interface MovedFile {
  /** Where the file is now; null when it was not moved (gone, or replaced by other content meanwhile). */
  movedTo: string | null;
  note?: string;
}

async function sha256Of(body: AsyncIterable<unknown>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export const sha256OfFile = (path: string) => sha256Of(createReadStream(path));

/** Hidden files, editor locks and the temporary names of files still being copied in are not picked up. */
function ignored(name: string): boolean {
  return (
    name.startsWith('.') || name.startsWith('~$') || /\.(tmp|part|crdownload|partial|filepart)$/i.test(name)
  );
}

const unreadable = (error: unknown): string =>
  `cannot be read: ${error instanceof Error ? error.message : String(error)}`.slice(0, REASON_CHARS);

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export async function sha256OfObject(store: S3Store, key: string): Promise<string | null> {
  const body = await store.read(key);
  return body ? sha256Of(body) : null;
}

/** `s3://bucket/inbox/erp` → the bucket's store and the folder's key prefix, ending in `/`. */
function s3Folder(folder: string): { store: S3Store; prefix: string } {
  const { store, key } = inputObject(folder);
  return { store, prefix: key === '' ? '' : `${key.replace(/\/+$/, '')}/` };
}

/** The files a listing leaves for a later run, at most MAX_FILES_PER_RUN of them. */
function skipList(): { skipped: SkippedInboxFile[]; skip: (name: string, reason: string) => void } {
  const skipped: SkippedInboxFile[] = [];
  return {
    skipped,
    skip: (name, reason) => {
      if (skipped.length < MAX_FILES_PER_RUN) skipped.push({ name, reason });
    },
  };
}

/**
 * How old a `.claims/` or `.moves/` record must be before a run deletes it. A record matters only to a run that listed
 * its drop before the drop was filed away (it would win the claim again, or its retried move would find no record and
 * report the drop gone); such a run claims and files the drops it listed within its own life. Inbox runs have no
 * execution timeout to take as the bound, but a run works through at most MAX_FILES_PER_RUN drops, a few at a time,
 * as the schedule starts the next: a week is far beyond any run's life, and short enough that the records stay few.
 */
export const INBOX_RECORD_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** At most this many records are deleted per run. */
export const INBOX_RECORDS_SWEPT_PER_RUN = 1_000;

/**
 * Deletes the inbox's `.claims/` and `.moves/` records last written more than INBOX_RECORD_MAX_AGE_MS before `now`,
 * at most `limit` of them, from the first listing page (1,000 keys, by name) of each: a prefix of 100,000 records
 * costs a run two list requests and a delete. A young record ahead of old ones in that page is old within the bound,
 * so the backlog drains run by run. `.failures/` records are not swept: a drop's outage count lives until the drop
 * is filed (moveInboxFile removes it). Returns how many were deleted.
 */
export async function sweepInboxRecords(
  store: S3Store,
  prefix: string,
  now: number,
  limit = INBOX_RECORDS_SWEPT_PER_RUN,
): Promise<number> {
  let swept = 0;
  for (const kind of ['.claims', '.moves']) {
    const pages = store.pagesUnder(`${prefix}${kind}/`);
    const page = await pages.next();
    await pages.return(undefined);
    if (page.done) continue;
    const old = page.value
      .filter((object) => object.lastModifiedMs > 0 && now - object.lastModifiedMs > INBOX_RECORD_MAX_AGE_MS)
      .slice(0, limit - swept)
      .map((object) => object.key);
    await store.removeKeys(old);
    swept += old.length;
    if (swept >= limit) break;
  }
  return swept;
}

async function listS3Inbox(folder: string, now: number): Promise<InboxListing> {
  const { store, prefix } = s3Folder(folder);
  // At the start of the run, before its listing: records older than any run's listing can be relevant. A sweep that
  // fails costs nothing but the records' room, so it never fails the run.
  await sweepInboxRecords(store, prefix, now).catch((error: unknown) => {
    try {
      log.warn('Could not sweep the inbox records', { folder, error: (error as Error).message });
    } catch {
      // Called outside an activity (a test): nothing to log to.
    }
  });
  const files: InboxFile[] = [];
  const { skipped, skip } = skipList();
  const cannotList = (error: unknown) =>
    ApplicationFailure.nonRetryable(
      `cannot list the inbox ${folder}: ${(error as Error).message}`,
      'InboxFolderError',
    );
  // The inbox's own level: processed/, failed/, .claims/, .moves/ and .failures/ grow with every drop filed away. A
  // page at a time, in name order: once a run's worth of drops is found, the pages after it are not fetched.
  const pages = store.folderPages(prefix);
  while (files.length < MAX_FILES_PER_RUN) {
    let page: IteratorResult<ListedObject[]>;
    try {
      page = await pages.next();
    } catch (error) {
      throw cannotList(error);
    }
    if (page.done) break;
    for (const object of page.value) {
      const name = object.key.slice(prefix.length);
      // '': the folder's own marker (`inbox/erp/`, the AWS console's "Create folder"), not a drop.
      if (name === '' || name.includes('/') || ignored(name)) continue;
      if (files.length >= MAX_FILES_PER_RUN) break;
      let sha256: string | null;
      try {
        sha256 = await sha256OfObject(store, object.key);
      } catch (error) {
        skip(name, unreadable(error));
        continue;
      }
      if (sha256 === null) continue;
      files.push({
        name,
        path: store.urlOf(object.key),
        sha256,
        bytes: object.bytes,
        version: object.version,
      });
    }
  }
  await pages.return(undefined);
  return { files, skipped };
}

async function listLocalInbox(folder: string, settleSeconds: number): Promise<InboxListing> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    throw ApplicationFailure.nonRetryable(
      `cannot read the inbox folder ${folder}: ${(error as Error).message}`,
      'InboxFolderError',
    );
  }
  const files: InboxFile[] = [];
  const { skipped, skip } = skipList();
  const unsettled = (name: string, mtimeMs: number): boolean => {
    // Either way round: a clock a little ahead of the worker's stamps a file being written in the future.
    const age = Math.abs(Date.now() - mtimeMs) / 1000;
    if (age >= settleSeconds) return false;
    skip(
      name,
      `still being written (changed ${Math.floor(age)} s ago; taken once unchanged for ${settleSeconds} s)`,
    );
    return true;
  };
  for (const name of names.filter((n) => !ignored(n)).sort()) {
    if (files.length >= MAX_FILES_PER_RUN) break;
    const path = join(folder, name);
    let info: Stats;
    try {
      info = await stat(path);
    } catch (error) {
      // A link to nothing is named; a name gone since the listing (another run filed it away) is not a drop.
      if ((await lstat(path).catch(() => undefined))?.isSymbolicLink()) skip(name, unreadable(error));
      continue;
    }
    // Folders (processed/, failed/, the operator's own) are not drops.
    if (info.isDirectory()) continue;
    if (!info.isFile()) {
      skip(name, 'not a regular file (a FIFO, socket or device): the inbox takes files only');
      continue;
    }
    if (unsettled(name, info.mtimeMs)) continue;
    let sha256: string;
    try {
      sha256 = await sha256OfFile(path);
    } catch (error) {
      skip(name, unreadable(error));
      continue;
    }
    // Written to while it was read: the hash is of neither version.
    const after = await stat(path).catch(() => undefined);
    if (after?.size !== info.size || after.mtimeMs !== info.mtimeMs) {
      skip(name, 'still being written (it changed while it was read)');
      continue;
    }
    files.push({ name, path, sha256, bytes: info.size, version: `${Math.trunc(info.mtimeMs)}` });
  }
  return { files, skipped };
}

/** `now`: the clock, for the S3 records' sweep (tests pass a later one). */
export function listInbox(
  input: { folder: string; settleSeconds?: number },
  now = Date.now(),
): Promise<InboxListing> {
  if (isS3Url(input.folder)) return listS3Inbox(input.folder, now);
  return listLocalInbox(input.folder, input.settleSeconds ?? DEFAULT_SETTLE_SECONDS);
}
