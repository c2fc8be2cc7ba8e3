import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { openStore, parseS3Url, S3Store, type ObjectStore } from '../connectors/storage';
import { s3ReferenceProblem } from '../connectors/s3-reference';
import type { AppConfig } from '../worker/config';

/**
 * A job's input file or mapping file as given on the command line: an `s3://bucket/key` reference as it is (the
 * worker reads it), else a local file that must exist, made absolute.
 */
export function inputFileArg(value: string): string {
  if (value.startsWith('s3://')) {
    const problem = s3ReferenceProblem(value, true);
    if (problem !== undefined) throw new InvalidArgumentError(problem);
    return value;
  }
  const absolute = path.resolve(value);
  if (!existsSync(absolute)) throw new InvalidArgumentError(`no file at ${absolute}`);
  if (statSync(absolute).isDirectory())
    throw new InvalidArgumentError(`${absolute} is a folder, not a file: give the path of a file in it`);
  if (!statSync(absolute).isFile()) throw new InvalidArgumentError(`no file at ${absolute}`);
  return absolute;
}

/** A path the worker reads: `s3://` references as they are, local paths made absolute. */
export function workerPath(value: string): string {
  return value.startsWith('s3://') ? value : path.resolve(value);
}

/** How long the links printed after `--wait` stay valid (unless the credentials signing them expire sooner). */
export const LINK_SECONDS = 24 * 3600;

/** When links the store makes now stop working: LINK_SECONDS on, or when the signing credentials expire. */
async function linksExpireAt(store: ObjectStore): Promise<Date> {
  return store instanceof S3Store
    ? store.linksExpireAt(LINK_SECONDS)
    : new Date(Date.now() + LINK_SECONDS * 1000);
}

/** `links valid for 24 hours`, or until when, and why, when the credentials signing them expire sooner. */
export function linksValidity(expiresAt: Date, now = Date.now()): string {
  if (expiresAt.getTime() >= now + (LINK_SECONDS - 60) * 1000) return 'links valid for 24 hours';
  const until = `${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `links valid until ${until}, when the AWS credentials signing them expire`;
}

/** The run-data store when it is a bucket (a local store is the worker's own folder: nothing to upload). */
export function bucketStore(config: AppConfig): ObjectStore | undefined {
  if (!config.store?.url?.startsWith('s3://')) return undefined;
  return openStore(config.store, config.dataDir);
}

/** Key of an uploaded input: `inputs/<workflowId>/<file name>`. */
export function inputKey(workflowId: string, file: string): string {
  const safeId = workflowId.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `inputs/${safeId}/${path.basename(file)}`;
}

/**
 * With an S3 store, a job's local input file (the `file` of its input) is uploaded under `inputs/<workflowId>/`
 * and the workflow gets its `s3://` reference, so a worker elsewhere can read it.
 */
export async function uploadLocalInput<A extends readonly unknown[]>(
  store: ObjectStore | undefined,
  workflowId: string,
  args: A,
  print: (line: string) => void,
): Promise<A> {
  const [first, ...rest] = args;
  if (!store || typeof first !== 'object' || first === null) return args;
  const input: Record<string, unknown> = { ...first };
  // The input file, and a mapping profile file: both are read by the worker.
  for (const field of ['file', 'mappingFile']) {
    const file = input[field];
    if (typeof file !== 'string' || file.startsWith('s3://') || !existsSync(file) || !statSync(file).isFile())
      continue;
    const key = inputKey(workflowId, file);
    await store.upload(key, file);
    input[field] = store.urlOf(key);
    print(`Uploaded ${file} to ${input[field]}`);
  }
  return [input, ...rest] as unknown as A;
}

/** The folders of the data folder (and of the store) that hold run files an operator reads. */
const RUN_FILE_FOLDERS = ['runs', 'reports', 'exports'];

/**
 * The store key of a run file as a result or a run's details name it: by the worker's local path
 * (`/its/data/runs/<run>/rejects.csv`: the last `runs/`, `reports/` or `exports/` folder of the path is the data
 * folder's own) or by its URL in this store (`s3://bucket/prefix/runs/<run>/plan.html`); undefined for anything else.
 */
export function runFileKey(value: string, storeUrl?: string): string | undefined {
  let segments: string[];
  if (storeUrl !== undefined && value.startsWith(`${storeUrl}/`)) {
    segments = value.slice(storeUrl.length + 1).split('/');
    if (!RUN_FILE_FOLDERS.includes(segments[0] ?? '')) return undefined;
  } else if (path.isAbsolute(value)) {
    segments = value.split('/');
    const at = Math.max(...RUN_FILE_FOLDERS.map((folder) => segments.lastIndexOf(folder)));
    if (at < 0) return undefined;
    segments = segments.slice(at);
  } else return undefined;
  // A file is inside a run's (or report's, export's) own folder: `runs/<run>/<file>`, never `runs/<run>` itself.
  if (segments.length < 3 || segments.some((segment) => segment === '' || segment === '..')) return undefined;
  return path.posix.extname(segments.at(-1) ?? '') === '' ? undefined : segments.join('/');
}

/** Store keys of the run files a result names, by a worker's local path or by their URL in the store at `storeUrl`. */
export function runFileKeys(result: unknown, storeUrl?: string): { label: string; key: string }[] {
  const found = new Map<string, string>();
  const visit = (value: unknown, label: string): void => {
    if (typeof value === 'string') {
      const key = runFileKey(value, storeUrl);
      if (key !== undefined) found.set(key, label);
      return;
    }
    if (Array.isArray(value)) value.forEach((item) => visit(item, label));
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) visit(item, label === '' ? key : `${label}.${key}`);
  };
  visit(result, '');
  return [...found].map(([key, label]) => ({ key, label }));
}

/**
 * The `s3://` locations a result names as an inbox's filed drops (`movedTo`). An inbox is a prefix of its own, in
 * the store's bucket outside its prefix or in another bucket, so its drops are no run files of the store.
 */
export function filedDropUrls(result: unknown): { label: string; url: string }[] {
  const found: { label: string; url: string }[] = [];
  const visit = (value: unknown, label: string): void => {
    if (typeof value === 'string') {
      if (label.split('.').at(-1) === 'movedTo' && value.startsWith('s3://'))
        found.push({ label, url: value });
      return;
    }
    if (Array.isArray(value)) value.forEach((item) => visit(item, label));
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) visit(item, label === '' ? key : `${label}.${key}`);
  };
  visit(result, '');
  return found;
}

/** After `--wait`: where the run's rejects, plan and reports are in the bucket, each with a link (valid for a day). */
export async function printStoreLinks(
  store: ObjectStore | undefined,
  result: unknown,
  print: (line: string) => void,
): Promise<void> {
  if (!store) return;
  const files = [];
  for (const file of runFileKeys(result, store.url)) if (await store.exists(file.key)) files.push(file);
  const validity = linksValidity(await linksExpireAt(store));
  if (files.length > 0) {
    print(`Files of this run in ${store.url} (${validity}):`);
    for (const { label, key } of files) {
      print(`  ${label}: ${store.urlOf(key)}`);
      print(`    ${await store.presign(key, LINK_SECONDS)}`);
    }
  }
  if (!(store instanceof S3Store)) return;
  // Read with the store's client and credentials, as the worker moved them with its own.
  const drops = [];
  for (const drop of filedDropUrls(result)) {
    const { bucket, key } = parseS3Url(drop.url);
    const there = new S3Store(store.client, bucket, '');
    if (key !== '' && (await there.exists(key)))
      drops.push({ ...drop, link: await there.presign(key, LINK_SECONDS) });
  }
  if (drops.length === 0) return;
  print(`Filed inbox drops (${validity}):`);
  for (const { label, url, link } of drops) {
    print(`  ${label}: ${url}`);
    print(`    ${link}`);
  }
}

export interface StoreLink {
  /** The file's `s3://` URL. */
  url: string;
  /** A presigned https link valid for LINK_SECONDS, or until the credentials signing it expire. */
  link: string;
  /** When `link` stops working (ISO 8601). */
  expiresAt: string;
}

/**
 * The run files of the store a run's details text names (`Plan: s3://…/plan.html (and s3://…/plan.xlsx)`), each with a
 * link valid for a day, in the order named: what an operator opens before approving from another host.
 */
export async function storeLinksIn(store: ObjectStore, text: string): Promise<StoreLink[]> {
  const links: StoreLink[] = [];
  const seen = new Set<string>();
  const expiresAt = (await linksExpireAt(store)).toISOString();
  for (const token of text.split(/[\s()`*,;]+/)) {
    const key = runFileKey(token.replace(/\.+$/, ''), store.url);
    if (key === undefined || seen.has(key) || !(await store.exists(key))) continue;
    seen.add(key);
    links.push({ url: store.urlOf(key), link: await store.presign(key, LINK_SECONDS), expiresAt });
  }
  return links;
}
