import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Signed download addresses of certificate documents are valid for one hour and never reused. */
export const DOWNLOAD_URL_VALIDITY_MS = 60 * 60 * 1000;
export const DOWNLOAD_PATH = '/__sandbox/storage/certificates';

const secret = randomBytes(32);
let nonce = 0;

function signature(fileId: string, expiresMs: number, issued: number): string {
  return createHmac('sha256', secret).update(`${fileId}\n${expiresMs}\n${issued}`).digest('hex');
}

/** A fresh signed address on every read (a nonce makes two reads in the same millisecond differ). */
export function signedDownloadUrl(origin: string, fileId: string, nowMs: number): string {
  const expires = nowMs + DOWNLOAD_URL_VALIDITY_MS;
  const issued = ++nonce;
  return `${origin}${DOWNLOAD_PATH}/${encodeURIComponent(fileId)}?expires=${expires}&n=${issued}&signature=${signature(fileId, expires, issued)}`;
}

export function verifyDownload(
  fileId: string,
  expiresMs: number,
  issued: number,
  given: string,
  nowMs: number,
): 'ok' | 'expired' | 'invalid' {
  const expected = Buffer.from(signature(fileId, expiresMs, issued), 'hex');
  const actual = Buffer.from(given, 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return 'invalid';
  return nowMs > expiresMs ? 'expired' : 'ok';
}
