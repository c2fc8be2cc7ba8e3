/**
 * A small document that several workers add to (read, merge, write): the ERP push's persons file, the inbox's
 * outage records. A plain write lets the last writer drop what another added between its read and its write. Here a
 * write only lands while the document is still what was read, else it is read again and merged anew, a bounded number
 * of times.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { ObjectStore } from './object-store';
import { S3Store } from './s3-store';

/** Tries of one update before it gives up (each try after a conflict waits a little longer, with jitter). */
export const MERGE_ATTEMPTS = 8;
/** A lock file older than this was left by a worker that died holding it (holding it takes one read and one write). */
const STALE_LOCK_MS = 30_000;

/**
 * Writes `next(current)` (current: the document's bytes, null when absent) only over the document it was computed
 * from. S3: `If-Match` on the ETag read (`If-None-Match: *` when absent). A folder: under a lock file made with
 * `putIfAbsent`, the document is read again and written only if unchanged. False when every attempt met another
 * writer.
 */
export async function mergeIntoStored(
  store: ObjectStore,
  key: string,
  next: (current: Buffer | null) => string,
): Promise<boolean> {
  for (let attempt = 0; attempt < MERGE_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(10 * attempt + Math.random() * 20 * attempt);
    if (store instanceof S3Store) {
      const read = await store.getWithETag(key);
      const body = next(read?.body ?? null);
      if (read ? await store.putIfMatch(key, body, read.etag) : await store.putIfAbsent(key, body))
        return true;
    } else {
      const read = await store.get(key);
      if (await replaceIfUnchanged(store, key, read, next(read))) return true;
    }
  }
  return false;
}

async function replaceIfUnchanged(
  store: ObjectStore,
  key: string,
  read: Buffer | null,
  body: string,
): Promise<boolean> {
  const lock = `${key}.lock`;
  if (!(await store.putIfAbsent(lock, JSON.stringify({ at: Date.now() })))) {
    await removeIfStale(store, lock);
    return false;
  }
  try {
    const now = await store.get(key);
    if (now === null ? read !== null : read === null || !now.equals(read)) return false;
    await store.put(key, body);
    return true;
  } finally {
    await store.remove(lock);
  }
}

async function removeIfStale(store: ObjectStore, lock: string): Promise<void> {
  const held = await store.get(lock);
  if (held === null) return;
  let at: unknown;
  try {
    at = (JSON.parse(held.toString('utf8')) as { at?: unknown }).at;
  } catch {
    at = undefined;
  }
  if (typeof at !== 'number' || Date.now() - at > STALE_LOCK_MS) await store.remove(lock);
}
