import { readFile, stat } from 'node:fs/promises';
import { openStore, s3ClientFor, type StoreSettings } from './open-store';
import { CLOCK_SKEWED, parseS3Url, s3ErrorOf, S3Store } from './s3-store';
import { s3ReferenceProblem } from '../s3-reference';
import { bindDataDir, runFileElsewhere } from './data-dir';
import type { ObjectStore } from './object-store';
import { writeFileAtomically } from './local-store';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { count, inputLimits, InputLimitError } from '../input-limits';
import { mappingJsonProblem } from '../json-keys';

let settings: StoreSettings = {};

/** Opens the store of a worker's data folder and binds it (see data-dir.ts); `s3://` inputs use the same settings. */
export function configureStorage(dataDir: string, storeSettings: StoreSettings): ObjectStore {
  settings = storeSettings;
  const store = openStore(storeSettings, dataDir);
  bindDataDir(dataDir, store);
  return store;
}

export function isS3Url(ref: string): boolean {
  return ref.startsWith('s3://');
}

/**
 * The object an `s3://bucket/key` input names, readable with the worker's S3 settings. A reference with credentials
 * in it or no key is refused here too (an activity's input may come from anywhere), never repeating its userinfo.
 */
export function inputObject(ref: string): { store: S3Store; key: string } {
  const problem = s3ReferenceProblem(ref, false);
  if (problem !== undefined) throw new InputRefusedError(problem);
  const { bucket, key } = parseS3Url(ref);
  return { store: new S3Store(s3ClientFor(settings), bucket, ''), key };
}

/**
 * An `s3://` input S3 refuses outright (a bucket name it does not take, a bucket the worker's credentials may not
 * read, a host clock S3 does not trust): no retry changes the answer, so the run fails at once naming the reference
 * (failureMapper: `InputRefused`).
 */
export class InputRefusedError extends Error {
  override readonly name = 'InputRefusedError';
}

/** S3's error codes that say a try may work again (a socket timeout, throttling, the server's own trouble). */
const TRANSIENT_CODES = new Set([
  'RequestTimeout',
  'SlowDown',
  'InternalError',
  'ServiceUnavailable',
  'Throttling',
  'ThrottlingException',
]);

/**
 * The refusal S3's `error` on `ref` is, read by its code first: InvalidBucketName, AccessDenied and
 * RequestTimeTooSkewed (the host's clock) by name; a HEAD's answer has no body to name it, so a 400 for a bucket name
 * S3 does not take or a 403 is read by its status. Undefined: not a refusal (a transient code stays retryable).
 */
export function s3InputRefusal(ref: string, bucket: string, error: unknown): InputRefusedError | undefined {
  const { status, code } = s3ErrorOf(error);
  if (TRANSIENT_CODES.has(code)) return undefined;
  if (code === 'RequestTimeTooSkewed') return new InputRefusedError(`${ref}: ${CLOCK_SKEWED}`);
  if (code === 'InvalidBucketName' || (status === 400 && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)))
    return new InputRefusedError(`${ref}: S3 refuses the bucket name "${bucket}"; check the reference`);
  if (code === 'AccessDenied' || status === 403)
    return new InputRefusedError(
      `${ref}: access denied; the worker's AWS credentials may not read it (or its bucket ${bucket})`,
    );
  return undefined;
}

/** `work` on an `s3://` input, with S3's refusals as InputRefusedError (s3InputRefusal). */
async function onInputObject<T>(ref: string, work: (store: S3Store, key: string) => Promise<T>): Promise<T> {
  const { store, key } = inputObject(ref);
  try {
    return await work(store, key);
  } catch (error) {
    throw s3InputRefusal(ref, store.bucket, error) ?? error;
  }
}

/** Whether a job's input (a worker path or an `s3://` reference) is there; for a path, see the callers' own checks. */
export async function inputExists(ref: string): Promise<boolean> {
  if (isS3Url(ref)) return onInputObject(ref, async (store, key) => key !== '' && (await store.exists(key)));
  if ((await stat(ref).catch(() => null))?.isFile()) return true;
  const elsewhere = runFileElsewhere(ref);
  return elsewhere !== undefined && (await elsewhere.store.exists(elsewhere.key));
}

/** The most a small input (a mapping profile) may hold: the largest real profile is a few KB. */
export const MAX_INPUT_TEXT_BYTES = 1024 * 1024;

/**
 * A small input (a mapping profile) as text, from a worker path or an `s3://` reference; throws when missing, when
 * the path is not a regular file (a FIFO would hold a worker's file thread until someone writes to it, a device such
 * as /dev/zero never ends), when it is over `MAX_INPUT_TEXT_BYTES` (an export given as the mapping file), or when its
 * JSON repeats a key, holds a `__proto__` key or nests too deep (`mappingJsonProblem`).
 */
export async function readInputText(ref: string, what = 'mapping file'): Promise<string> {
  const text = await readInputBytes(ref, what);
  const problem = mappingJsonProblem(text);
  if (problem !== undefined) throw new Error(problem);
  return text;
}

async function readInputBytes(ref: string, what: string): Promise<string> {
  if (!isS3Url(ref)) {
    const info = await stat(ref);
    if (!info.isFile())
      throw new Error('it is not a regular file (a folder, FIFO or device); give the JSON file');
    if (info.size > MAX_INPUT_TEXT_BYTES)
      throw tooLarge(`${info.size.toLocaleString('en-US')} bytes, over`, what);
    return readFile(ref, 'utf8');
  }
  const body = await onInputObject(ref, (store, key) =>
    key === '' ? Promise.resolve(null) : store.read(key),
  );
  if (!body) throw new Error('it was not found in the bucket');
  // Read no further than the limit: an export named as the mapping would otherwise be downloaded whole.
  const chunks: Buffer[] = [];
  try {
    for await (const buffer of upTo(body, MAX_INPUT_TEXT_BYTES, () => tooLarge('over', what)))
      chunks.push(buffer);
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(size: string, what: string): Error {
  return new Error(
    `it is ${size} the limit of ${MAX_INPUT_TEXT_BYTES.toLocaleString('en-US')} bytes for a ${what}; check that it ` +
      'is the mapping file',
  );
}

function inputTooLarge(size: string, maxBytes: number): InputLimitError {
  return new InputLimitError(
    'file_too_large',
    `the input is ${size} the limit of ${count(maxBytes)} bytes for an export; it was not copied. Split it and re-run.`,
  );
}

/** The body, failing with `tooBig()` as soon as more than `maxBytes` have passed (nothing more is fetched). */
async function* upTo(
  body: AsyncIterable<unknown>,
  maxBytes: number,
  tooBig: () => Error,
): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    bytes += buffer.length;
    if (bytes > maxBytes) throw tooBig();
    yield buffer;
  }
}

/**
 * Copies a job's input (a path on the worker or an `s3://bucket/key` reference) to a local file; false when it
 * does not exist (or is not a file). An input over `maxBytes` (default: the largest any reader takes) is refused
 * before it is copied (a path) or as soon as the download passes it (an object), with `file_too_large`.
 */
export async function copyInput(
  ref: string,
  localPath: string,
  maxBytes: number = Math.max(inputLimits.textFileBytes, inputLimits.workbookFileBytes),
): Promise<boolean> {
  if (isS3Url(ref))
    return onInputObject(ref, async (store, key) => {
      if (key === '') return false;
      const body = await store.read(key);
      if (!body) return false;
      try {
        await writeFileAtomically(
          localPath,
          Readable.from(upTo(body, maxBytes, () => inputTooLarge('over', maxBytes))),
        );
      } finally {
        body.destroy();
      }
      return true;
    });
  const info = await stat(ref).catch(() => null);
  if (info?.isFile() && info.size > maxBytes)
    throw inputTooLarge(`${count(info.size)} bytes, over`, maxBytes);
  if (!info?.isFile()) {
    // A run file another worker wrote (a retry of its rejects): the bucket has it under the same key.
    const elsewhere = runFileElsewhere(ref);
    return elsewhere ? elsewhere.store.download(elsewhere.key, localPath) : false;
  }
  await writeFileAtomically(localPath, createReadStream(ref));
  return true;
}
