import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalStore } from './local-store';
import type { ObjectStore } from './object-store';

/**
 * Which store holds the run data of a data folder. Jobs name their files by local path (`<dataDir>/runs/<key>/…`);
 * a path under a bound data folder is the key of the same name in its store, so the jobs' code need not change
 * when the data moves to a bucket. A worker binds its data folder once, when its activities are made.
 */
const bindings = new Map<string, ObjectStore>();

export function bindDataDir(dataDir: string, store: ObjectStore): void {
  bindings.set(resolve(dataDir), store);
}

export interface StoreLocation {
  store: ObjectStore;
  /** The key of the path in the store ('' for the data folder itself). */
  key: string;
}

/** The store and key of a local path; a path under no bound data folder is a file of its own folder. */
export function locate(path: string): StoreLocation {
  const absolute = resolve(path);
  let best: { dir: string; store: ObjectStore } | undefined;
  for (const [dir, store] of bindings) {
    const rel = relative(dir, absolute);
    if (rel.startsWith('..') || isAbsolute(rel)) continue;
    if (!best || dir.length > best.dir.length) best = { dir, store };
  }
  if (best) return { store: best.store, key: relative(best.dir, absolute).split(sep).join('/') };
  return { store: new LocalStore('/'), key: absolute.split(sep).filter(Boolean).join('/') };
}

/**
 * Where a file of the data folder is found once published, as a result, a run's details or its memo name it: its URL
 * in the store (`s3://…`: a worker's path means nothing on another host), or its path when the store is a folder.
 */
export function storedLocation(path: string): string {
  const { store, key } = locate(path);
  const url = store.urlOf(key);
  return url.startsWith('file:') ? fileURLToPath(url) : url;
}

/** True when the path's data lives somewhere else than the path itself (a bucket, or another folder). */
function remote(location: StoreLocation, path: string): boolean {
  return !(location.store instanceof LocalStore) || location.store.pathOf(location.key) !== resolve(path);
}

/**
 * A run file named by the path another worker gave it (`/its/data/runs/<run>/rejects.csv`, in a workflow result
 * that a retry passes on): the same key (`runs/<run>/rejects.csv`) in the store this worker's data folder is bound
 * to; undefined when the path names no run file or no store other than the disk is bound.
 */
export function runFileElsewhere(path: string): StoreLocation | undefined {
  const segments = resolve(path).split(sep);
  const at = segments.lastIndexOf('runs');
  if (at < 0 || at >= segments.length - 2) return undefined;
  for (const store of bindings.values()) {
    if (store.kind === 's3') return { store, key: segments.slice(at).join('/') };
  }
  return undefined;
}

/** Copies a local file of the data folder to its store (no-op when the store is that folder); returns its URL. */
export async function publishFile(path: string): Promise<string> {
  const location = locate(path);
  if (remote(location, path)) await location.store.upload(location.key, path);
  return location.store.urlOf(location.key);
}

/** Every file under a local folder of the data folder, copied to the store. */
export async function publishFolder(folder: string): Promise<void> {
  const local = new LocalStore(resolve(folder));
  for (const key of await local.list('')) await publishFile(local.pathOf(key));
}

/**
 * Copies to a local folder of the data folder the store's files under it that this worker lacks (those another
 * worker wrote), keeping only keys `wanted` accepts.
 */
export async function fetchFolder(
  folder: string,
  wanted: (key: string) => boolean = () => true,
): Promise<void> {
  const location = locate(folder);
  if (!remote(location, folder)) return;
  const prefix = location.key === '' ? '' : `${location.key}/`;
  for (const key of await location.store.list(prefix)) {
    if (wanted(key)) await fetchFile(join(resolve(folder), ...key.slice(prefix.length).split('/')));
  }
}

/** Replaces a local file of the data folder with the store's copy (another worker may have moved it on). */
export async function refreshFile(path: string): Promise<void> {
  const location = locate(path);
  if (remote(location, path)) await location.store.download(location.key, path);
}

/**
 * Makes a file of the data folder present on this worker's disk, fetching it from the store when another worker
 * wrote it; false when neither has it.
 */
export async function fetchFile(path: string): Promise<boolean> {
  const location = locate(path);
  if (!remote(location, path)) return location.store.exists(location.key);
  const here = new LocalStore('/');
  if (await here.exists(resolve(path).split(sep).filter(Boolean).join('/'))) return true;
  return location.store.download(location.key, path);
}
