import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { LocalStore } from './local-store';
import { StoreError, type ObjectStore } from './object-store';
import { parseS3Url, S3Store } from './s3-store';

/** How to reach the store: TRACE_STORE_URL and the AWS SDK's standard variables (credentials stay with the SDK). */
export interface StoreSettings {
  /** `file:///path` or `s3://bucket/prefix`; unset: the data folder. */
  url?: string | undefined;
  /** AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL: an S3-compatible server (MinIO, versitygw); path-style is used. */
  endpoint?: string | undefined;
  /** AWS_REGION (default us-east-1, which S3-compatible servers accept). */
  region?: string | undefined;
  /** Given by tests; otherwise the SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles…). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

const clients = new Map<string, S3Client>();

/** One SDK client per endpoint, region and key id (a client keeps its connections). */
export function s3ClientFor(settings: StoreSettings): S3Client {
  const id = [settings.endpoint ?? '', settings.region ?? '', settings.credentials?.accessKeyId ?? ''].join(
    '|',
  );
  let client = clients.get(id);
  if (!client) {
    // The SDK's own switch for its note that releases after January 2027 will need Node 22: the locked version
    // runs on Node 20 (package.json engines), and the note would land on every CLI's stderr and worker log.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    client = new S3Client({
      region: settings.region ?? 'us-east-1',
      ...(settings.endpoint !== undefined ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
      ...(settings.credentials !== undefined ? { credentials: settings.credentials } : {}),
      // S3-compatible servers may not know the newer checksum headers; send them only when an operation needs one.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 5,
    });
    clients.set(id, client);
  }
  return client;
}

/** The store named by `settings.url`, or the data folder when there is none. */
export function openStore(settings: StoreSettings, dataDir: string): ObjectStore {
  const url = settings.url;
  if (url === undefined) return new LocalStore(dataDir);
  if (url.startsWith('file://')) return new LocalStore(fileURLToPath(url));
  if (url.startsWith('s3://')) {
    const { bucket, key } = parseS3Url(url);
    return new S3Store(s3ClientFor(settings), bucket, key);
  }
  throw new StoreError(`TRACE_STORE_URL must be file:///path or s3://bucket/prefix`);
}
