import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { openStore, type ObjectStore } from '../connectors/storage';
import type { AppConfig } from '../worker/config';

/** How long the links printed after `--wait` stay valid. */
export const LINK_SECONDS = 24 * 3600;

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

/** Store keys of the run files a result names by the worker's local path (`…/runs/<run>/rejects.csv`, reports…). */
export function runFileKeys(result: unknown): { label: string; key: string }[] {
  const found = new Map<string, string>();
  const visit = (value: unknown, label: string): void => {
    if (typeof value === 'string') {
      const match = /(?:^|\/)((?:runs|reports|exports)\/[^/].*)$/.exec(value);
      if (match?.[1] && path.isAbsolute(value) && path.extname(value) !== '') {
        // The last `runs/`, `reports/` or `exports/` folder of the path is the data folder's own.
        const segments = value.split('/');
        const at = Math.max(
          segments.lastIndexOf('runs'),
          segments.lastIndexOf('reports'),
          segments.lastIndexOf('exports'),
        );
        if (at >= 0 && at < segments.length - 1) found.set(segments.slice(at).join('/'), label);
      }
      return;
    }
    if (Array.isArray(value)) value.forEach((item) => visit(item, label));
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) visit(item, label === '' ? key : `${label}.${key}`);
  };
  visit(result, '');
  return [...found].map(([key, label]) => ({ key, label }));
}

/** After `--wait`: where the run's rejects and reports are in the bucket, each with a link valid for a day. */
export async function printStoreLinks(
  store: ObjectStore | undefined,
  result: unknown,
  print: (line: string) => void,
): Promise<void> {
  if (!store) return;
  const files = [];
  for (const file of runFileKeys(result)) if (await store.exists(file.key)) files.push(file);
  if (files.length === 0) return;
  print(`Files of this run in ${store.url} (links valid for 24 hours):`);
  for (const { label, key } of files) {
    print(`  ${label}: ${store.urlOf(key)}`);
    print(`    ${await store.presign(key, LINK_SECONDS)}`);
  }
}
