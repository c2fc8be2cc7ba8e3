import type { Readable } from 'node:stream';

/** A body to store: small values whole, large ones as a stream (S3: multipart upload). */
export type StoreBody = string | Buffer | Readable | AsyncIterable<Uint8Array | string>;

/**
 * Where a run's data lives (inputs, staged batches, journals, rejects, reports, the pull's exports, the inbox).
 * Keys are `/`-separated paths relative to the store's root: `runs/<runKey>/staging/manifest.json`.
 */
export interface ObjectStore {
  /** `local` keeps files in a folder; `s3` in a bucket (no append, no rename: see the journal). */
  readonly kind: 'local' | 's3';
  /** `file:///data` or `s3://bucket/prefix`: what TRACE_STORE_URL said. */
  readonly url: string;
  /** Replaces the object at once: readers see the old or the new content, never part of it. */
  put(key: string, body: StoreBody): Promise<void>;
  /** Writes only when no object has the key yet (S3: `If-None-Match: *`); false when one was there. */
  putIfAbsent(key: string, body: string | Buffer): Promise<boolean>;
  /** The whole object, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** The object as a stream, or null when there is none. */
  read(key: string): Promise<Readable | null>;
  exists(key: string): Promise<boolean>;
  /** Keys under a prefix (a folder ends with `/`), sorted. */
  list(prefix: string): Promise<string[]>;
  remove(key: string): Promise<void>;
  /**
   * Every object under a prefix with its last write, in key order (as S3 lists: a folder's keys sit where its name
   * followed by `/` sorts), from after `startAfter`, a page at a time, each page read once needed.
   */
  pagesUnder(prefix: string, startAfter?: string): AsyncGenerator<ListedObject[]>;
  /** Removes every object under a folder. */
  removeFolder(prefix: string): Promise<void>;
  /** Copies an object inside the store (replacing the target); false when the source is gone. */
  copy(from: string, to: string): Promise<boolean>;
  /** Copies a local file in (multipart on S3). */
  upload(key: string, localPath: string): Promise<void>;
  /** Copies an object to a local file (through a temporary name); false when there is none. */
  download(key: string, localPath: string): Promise<boolean>;
  /** A URL naming the object: `s3://bucket/prefix/key` or `file:///…`. */
  urlOf(key: string): string;
  /** An https link anyone holding it may GET for `seconds` (S3 only; local: the file URL). */
  presign(key: string, seconds: number): Promise<string>;
  /** Fails with a clear message when the store cannot be reached or the credentials are refused. */
  check(): Promise<void>;
}

/** A listed object: its key in the store, its size, and a version (`<last-modified ms>-<etag or size>`). */
export interface ListedObject {
  key: string;
  bytes: number;
  version: string;
  /** When it was last written (ms since the epoch; 0 when S3 did not say). */
  lastModifiedMs: number;
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Rejects keys that could leave the store's root. */
export function checkKey(key: string): string {
  const parts = key.split('/');
  if (key === '' || key.startsWith('/') || parts.some((part) => part === '..' || part === '.')) {
    throw new StoreError(`Store key '${key}' must be a relative path inside the store`);
  }
  return key;
}
