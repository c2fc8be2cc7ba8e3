import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Pre-signed upload addresses are valid for one hour (document 3). */
export const UPLOAD_URL_VALIDITY_MS = 60 * 60 * 1000;

/** HMAC signatures over the file id, its MIME type and the expiry; the secret lives as long as the process. */
export class UrlSigner {
  private readonly secret = randomBytes(32);

  sign(fileId: string, fileType: string, expiresMs: number): string {
    return createHmac('sha256', this.secret).update(`${fileId}\n${fileType}\n${expiresMs}`).digest('hex');
  }

  verify(fileId: string, fileType: string, expiresMs: number, signature: string): boolean {
    const expected = Buffer.from(this.sign(fileId, fileType, expiresMs), 'hex');
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
