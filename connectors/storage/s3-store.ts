import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { checkKey, StoreError, type ListedObject, type ObjectStore, type StoreBody } from './object-store';
import { writeFileAtomically } from './local-store';

/** Parts of a multipart upload; a body smaller than one part goes in a single PUT. */
const PART_BYTES = 8 * 1024 * 1024;

/** An S3 error's HTTP status and code (the XML body's `Code`, else the SDK's error name), whoever reads it. */
export function s3ErrorOf(error: unknown): { status: number | undefined; name: string; code: string } {
  const name = (error as { name?: string }).name ?? 'Error';
  return {
    status: (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode,
    name,
    code: (error as { Code?: string }).Code ?? name,
  };
}

function statusOf(error: unknown): number | undefined {
  return s3ErrorOf(error).status;
}

function notFound(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return statusOf(error) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/**
 * S3's RequestTimeTooSkewed (a 403): the request's signed time is over 15 minutes from the server's. Refused, not
 * retried: only the operator's fix of the clock changes the answer.
 */
export const CLOCK_SKEWED =
  "this host's clock is off from the S3 server's by more than S3 allows (RequestTimeTooSkewed); set the clock " +
  'on the worker host (NTP)';

/** `s3://bucket/prefix` → its parts; the prefix has no leading or trailing slash. */
export function parseS3Url(url: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match || !match[1]) throw new StoreError(`'${url}' is not an s3://bucket/key URL`);
  return { bucket: match[1], key: (match[2] ?? '').replace(/\/+$/, '') };
}

/** S3-compatible object storage through the AWS SDK; keys live under `prefix/` in `bucket`. */
export class S3Store implements ObjectStore {
  readonly kind = 's3' as const;

  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    readonly prefix: string,
  ) {}

  get url(): string {
    return `s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ''}`;
  }

  objectKey(key: string): string {
    checkKey(key);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  async put(key: string, body: StoreBody): Promise<void> {
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Body: body }),
      );
      return;
    }
    // Upload splits a stream into parts and sends them while it reads: big files never sit in memory whole.
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: this.objectKey(key),
        Body: body instanceof Readable ? body : Readable.from(body),
      },
      partSize: PART_BYTES,
      queueSize: 2,
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async putIfAbsent(key: string, body: string | Buffer): Promise<boolean> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Body: body, IfNoneMatch: '*' }),
      );
      return true;
    } catch (error) {
      // 412: the key exists; 409: a concurrent conditional write of the same key is under way and will win.
      if (statusOf(error) === 412 || statusOf(error) === 409) return false;
      throw error;
    }
  }

  /**
   * Replaces a key only while it still has the ETag read earlier (`If-Match`): of writers racing from one read,
   * exactly one wins. False when the key changed or is gone.
   */
  async putIfMatch(key: string, body: string | Buffer, etag: string): Promise<boolean> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Body: body, IfMatch: etag }),
      );
      return true;
    } catch (error) {
      // 412: another write came first; 409: a concurrent conditional write is under way; 404: the key is gone.
      if (statusOf(error) === 412 || statusOf(error) === 409 || notFound(error)) return false;
      throw error;
    }
  }

  /** A small object's body with its ETag, for a later `putIfMatch`; null when the key does not exist. */
  async getWithETag(key: string): Promise<{ body: Buffer; etag: string } | null> {
    try {
      const response = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      const chunks: Buffer[] = [];
      for await (const chunk of response.Body as Readable) chunks.push(chunk as Buffer);
      if (!response.ETag) throw new StoreError(`${this.urlOf(key)}: the server sent no ETag`);
      return { body: Buffer.concat(chunks), etag: response.ETag };
    } catch (error) {
      if (notFound(error)) return null;
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    const stream = await this.read(key);
    if (!stream) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async read(key: string): Promise<Readable | null> {
    try {
      const response = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      return response.Body as Readable;
    } catch (error) {
      if (notFound(error)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  /** Keys under a prefix with their size and a version (last-modified time and ETag), sorted by key. */
  listDetailed(prefix: string): Promise<ListedObject[]> {
    return this.listObjects(prefix, undefined);
  }

  /**
   * The objects directly in a folder (`inbox/erp/`), a page (up to 1,000) at a time: a listing with `Delimiter: '/'`
   * gives each sub-folder as one entry, so its cost does not grow with what the sub-folders hold. Each page is
   * requested only once the one before is used up, in S3's order (by key, as UTF-8 bytes): a caller that needs the
   * first few stops paying for the rest.
   */
  folderPages(folder: string): AsyncGenerator<ListedObject[]> {
    return this.pages(folder, '/');
  }

  /** Every object under a prefix, sub-folders' too, a page (up to 1,000) at a time, each fetched once needed. */
  pagesUnder(prefix: string, startAfter?: string): AsyncGenerator<ListedObject[]> {
    return this.pages(prefix, undefined, startAfter);
  }

  private async *pages(
    prefix: string,
    delimiter: '/' | undefined,
    startAfter?: string,
  ): AsyncGenerator<ListedObject[]> {
    const full = this.prefix ? `${this.prefix}/${prefix}` : prefix;
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: full,
          ContinuationToken: token,
          ...(startAfter !== undefined && token === undefined
            ? { StartAfter: this.objectKey(startAfter) }
            : {}),
          ...(delimiter !== undefined ? { Delimiter: delimiter } : {}),
        }),
      );
      const objects: ListedObject[] = [];
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        const lastModifiedMs = object.LastModified?.getTime() ?? 0;
        const version = `${lastModifiedMs}-${(object.ETag ?? '').replace(/"/g, '')}`;
        objects.push({ key: object.Key.slice(strip), bytes: object.Size ?? 0, version, lastModifiedMs });
      }
      yield objects;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async listObjects(prefix: string, delimiter: '/' | undefined): Promise<ListedObject[]> {
    const objects: ListedObject[] = [];
    for await (const page of this.pages(prefix, delimiter)) objects.push(...page);
    return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.listDetailed(prefix)).map((object) => object.key);
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async removeFolder(prefix: string): Promise<void> {
    const folder = prefix.endsWith('/') ? prefix : `${prefix}/`;
    await this.removeKeys(await this.list(folder));
  }

  /** Deletes these keys, up to 1,000 per request (a key already gone is fine). */
  async removeKeys(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: {
            Objects: keys.slice(i, i + 1000).map((key) => ({ Key: this.objectKey(key) })),
            Quiet: true,
          },
        }),
      );
    }
  }

  async copy(from: string, to: string): Promise<boolean> {
    const source = `${this.bucket}/${this.objectKey(from)}`.split('/').map(encodeURIComponent).join('/');
    try {
      await this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: this.objectKey(to), CopySource: source }),
      );
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  /**
   * Copies `from` only while it still has `etag` (`x-amz-copy-source-if-match`): a key overwritten since it was
   * read is not copied. False when the source changed or is gone.
   */
  async copyIfUnchanged(from: string, to: string, etag: string): Promise<boolean> {
    const source = `${this.bucket}/${this.objectKey(from)}`.split('/').map(encodeURIComponent).join('/');
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(to),
          CopySource: source,
          CopySourceIfMatch: etag,
        }),
      );
      return true;
    } catch (error) {
      if (statusOf(error) === 412 || notFound(error)) return false;
      throw error;
    }
  }

  /** A key's ETag (as the server sends it, quoted); null when the key does not exist. */
  async etagOf(key: string): Promise<string | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      );
      return head.ETag ?? null;
    } catch (error) {
      if (notFound(error)) return null;
      throw error;
    }
  }

  async upload(key: string, localPath: string): Promise<void> {
    await this.put(key, createReadStream(localPath));
  }

  async download(key: string, localPath: string): Promise<boolean> {
    const body = await this.read(key);
    if (!body) return false;
    await writeFileAtomically(localPath, body);
    return true;
  }

  urlOf(key: string): string {
    return `s3://${this.bucket}/${this.objectKey(key)}`;
  }

  /**
   * When links made now stop working: after `seconds`, or sooner when the credentials signing them expire (an STS
   * session, SSO, an instance role): a presigned link dies with its session token.
   */
  async linksExpireAt(seconds: number, now = Date.now()): Promise<Date> {
    const asked = new Date(now + seconds * 1000);
    const provider = this.client.config.credentials;
    const identity = await provider().catch(() => undefined);
    const expiration = identity?.expiration;
    return expiration !== undefined && expiration.getTime() < asked.getTime() ? expiration : asked;
  }

  async presign(key: string, seconds: number): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }),
      {
        expiresIn: seconds,
      },
    );
  }

  async check(): Promise<void> {
    try {
      // A listing (not HEAD): its error body names the problem (InvalidAccessKeyId, NoSuchBucket…).
      await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1 }));
    } catch (error) {
      const { status, name, code } = s3ErrorOf(error);
      const reason =
        code === 'RequestTimeTooSkewed'
          ? CLOCK_SKEWED
          : status === 403 || status === 401 || /AccessKey|Signature|AccessDenied|UserNotFound/.test(code)
            ? 'the credentials were refused (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)'
            : status === 404 || code === 'NoSuchBucket'
              ? 'the bucket does not exist'
              : name === 'CredentialsProviderError'
                ? 'no credentials were found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)'
                : `the server cannot be reached (${name}: ${(error as Error).message})`;
      throw new StoreError(`TRACE_STORE_URL ${this.url}: ${reason}`);
    }
  }
}
