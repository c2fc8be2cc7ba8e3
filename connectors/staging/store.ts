import { createHash } from 'node:crypto';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { locate, type StoreLocation } from '../storage';
import { missingStagedDataSaid } from './retention';
import { z } from 'zod';

/** What travels in a workflow payload instead of the data: small, plain JSON. */
export const stagingRefSchema = z.object({
  key: z.string().min(1),
  sha256: z.string().length(64),
  bytes: z.number().int().min(0),
  /** Number of records (NDJSON lines, or 1 for a JSON document). */
  items: z.number().int().min(0),
});
export type StagingRef = z.infer<typeof stagingRefSchema>;

/** What an activity of a staged run is given: the run and its manifest (and, to apply one, the batch's number). */
export const stagedRunInputSchema = z.strictObject({ runKey: z.string().min(1), manifest: stagingRefSchema });
export const stagedBatchInputSchema = stagedRunInputSchema.extend({ batch: z.number().int().min(0) });

/** What every staged run's manifest holds: the run, its input, and the copy of the input inside the run folder. */
export const runManifestBaseSchema = z.strictObject({
  runKey: z.string(),
  sourceFile: z.string(),
  sourceCopy: z.string(),
});

/**
 * Staged data that is gone: most often the worker's sweep removed it (the run ended longer ago than the retention and
 * has been reset since), so the operator is told which setting keeps it longer.
 */
export class StagingIntegrityError extends Error {
  constructor(key: string, reason: string) {
    super(`Staged data '${key}' is unusable: ${reason}`);
    this.name = 'StagingIntegrityError';
  }
}

/**
 * Claim-check store over the run-data store (connectors/storage): a local folder (TRACE_DATA_DIR/…) or, when the
 * folder is bound to a bucket, the objects of the same name. Each object appears whole or not at all (temp file +
 * rename on disk, a single PUT or a completed multipart upload on S3), so an activity that crashes mid-write and
 * runs again never finds half of it; reads verify the hash.
 */
export class StagingStore {
  constructor(readonly root: string) {}

  /** The local path of a key (on S3 the object's key mirrors it). */
  pathOf(key: string): string {
    const normalised = normalize(key);
    if (isAbsolute(key) || normalised.startsWith('..') || normalised.split(sep).includes('..')) {
      throw new Error(`Staging key '${key}' must be a relative path inside the staging folder`);
    }
    return join(this.root, normalised);
  }

  private where(key: string): StoreLocation {
    return locate(this.pathOf(key));
  }

  async putJson(key: string, value: unknown): Promise<StagingRef> {
    const text = JSON.stringify(value);
    return this.writeAtomically(key, [text], 1);
  }

  async getJson<T>(ref: StagingRef, schema: z.ZodType<T>): Promise<T> {
    const { store, key } = this.where(ref.key);
    const buffer = await store.get(key);
    await this.checkHash(ref, buffer && [buffer]);
    const parsed = schema.safeParse(JSON.parse(String(buffer)));
    if (!parsed.success)
      throw new StagingIntegrityError(ref.key, parsed.error.issues[0]?.message ?? 'schema mismatch');
    return parsed.data;
  }

  /** Writes one JSON record per line; takes any (async) iterable so large sets stream through. */
  async putNdjson(key: string, records: Iterable<unknown> | AsyncIterable<unknown>): Promise<StagingRef> {
    const lines = (async function* () {
      for await (const record of records) yield JSON.stringify(record) + '\n';
    })();
    return this.writeAtomically(key, lines);
  }

  /** Reads NDJSON records one by one, validating each; the hash is checked before the first record is given. */
  async *readNdjson<T>(ref: StagingRef, schema: z.ZodType<T>): AsyncGenerator<T> {
    const { store, key } = this.where(ref.key);
    // Hashed as a stream first, so verifying a large batch does not load it into memory.
    await this.checkHash(ref, await store.read(key));
    const input = await store.read(key);
    if (!input) throw new StagingIntegrityError(ref.key, missingStagedDataSaid());
    const lines = createInterface({ input, crlfDelay: Infinity });
    let lineNo = 0;
    for await (const line of lines) {
      lineNo += 1;
      if (line.length === 0) continue;
      const parsed = schema.safeParse(JSON.parse(line));
      if (!parsed.success) {
        throw new StagingIntegrityError(
          ref.key,
          `line ${lineNo}: ${parsed.error.issues[0]?.message ?? 'schema mismatch'}`,
        );
      }
      yield parsed.data;
    }
  }

  /** Every record of a staged NDJSON batch, checked (a batch is small enough to hold; large sets use readNdjson). */
  async readAllNdjson<T>(ref: StagingRef, schema: z.ZodType<T>): Promise<T[]> {
    const records: T[] = [];
    for await (const record of this.readNdjson(ref, schema)) records.push(record);
    return records;
  }

  async exists(key: string): Promise<boolean> {
    const { store, key: objectKey } = this.where(key);
    return store.exists(objectKey);
  }

  /** Removes a key or a whole folder of keys (for example one run's batches). */
  async remove(keyOrPrefix: string): Promise<void> {
    const { store, key } = this.where(keyOrPrefix);
    await store.remove(key);
    await store.removeFolder(`${key}/`);
  }

  private async writeAtomically(
    key: string,
    chunks: Iterable<string> | AsyncIterable<string>,
    knownItems?: number,
  ): Promise<StagingRef> {
    const { store, key: objectKey } = this.where(key);
    const hash = createHash('sha256');
    let bytes = 0;
    let items = 0;
    const body = Readable.from(
      (async function* () {
        for await (const chunk of chunks) {
          const buffer = Buffer.from(chunk, 'utf8');
          hash.update(buffer);
          bytes += buffer.length;
          items += 1;
          yield buffer;
        }
      })(),
    );
    await store.put(objectKey, body);
    return { key, sha256: hash.digest('hex'), bytes, items: knownItems ?? items };
  }

  private async checkHash(
    ref: StagingRef,
    data: AsyncIterable<unknown> | Iterable<Buffer> | null,
  ): Promise<void> {
    if (!data) throw new StagingIntegrityError(ref.key, missingStagedDataSaid());
    const hash = createHash('sha256');
    for await (const chunk of data) hash.update(chunk as Buffer);
    if (hash.digest('hex') !== ref.sha256) {
      throw new StagingIntegrityError(ref.key, 'its content changed since it was staged');
    }
  }
}
