import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callerCompany, type SandboxContext } from '../../core/context';
import { sendData } from '../../core/envelope';
import { ApiError, badRequest, forbidden, parseBody } from '../../core/errors';
import { extensionOf, isSupportedMime, MAX_FILE_SIZE, MIME_BY_EXTENSION } from './mime';
import { KEEP_BYTES_UP_TO, type FileRecord, type FilesStore } from './store';

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

export const STORAGE_PREFIX = '/__storage';
const BUCKET = 'trace-sandbox-uploads';

const createFileSchema = z.strictObject({
  filename: z.string().min(1).max(255),
  fileSize: z.number().int(),
  fileType: z.string().min(1),
});

/** `http://host:port` as the client reached us, so signed addresses work behind any port mapping. */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function presentFile(file: FileRecord, origin: string, signer: UrlSigner) {
  const signature = signer.sign(file.id, file.fileType, file.uploadUrlExpiresMs);
  return {
    id: file.id,
    name: file.name,
    fileType: file.fileType,
    contentType: file.fileType,
    fileSize: file.fileSize,
    bucketName: file.bucketName,
    url: `${origin}${STORAGE_PREFIX}/${file.id}?expires=${file.uploadUrlExpiresMs}&signature=${signature}`,
    urlExpiresAt: new Date(file.uploadUrlExpiresMs).toISOString(),
    isUploaded: file.uploadedAt !== null,
    fileHash: file.fileHash,
    forCompanyId: file.forCompanyId,
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
    createdByCompanyId: file.createdByCompanyId,
    createdByUserId: file.createdByUserId,
    createdByApiKeyId: file.createdByApiKeyId,
    createdByApiKeyLabel: file.createdByApiKeyLabel,
  };
}

export function registerFileApiRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  files: () => FilesStore,
  signer: UrlSigner,
): void {
  app.post('/files', async (request, reply) => {
    const companyId = callerCompany(request);
    const body = parseBody(createFileSchema, request.body);
    const extension = extensionOf(body.filename);
    const expected = extension === undefined ? undefined : MIME_BY_EXTENSION[extension];
    if (expected === undefined) throw badRequest(`filename: extension '${extension ?? ''}' is not supported`);
    if (!isSupportedMime(body.fileType))
      throw badRequest(`fileType: '${body.fileType}' is not a supported MIME type`);
    if (body.fileType !== expected) {
      throw badRequest(
        `fileType: '${body.fileType}' does not match the extension .${extension} (${expected})`,
      );
    }
    if (body.fileSize < 1 || body.fileSize > MAX_FILE_SIZE) {
      throw badRequest(`fileSize: must be between 1 and ${MAX_FILE_SIZE} bytes`);
    }
    const now = ctx.nowIso();
    const record: FileRecord = {
      id: ctx.newId('file_'),
      forCompanyId: companyId,
      name: body.filename,
      fileType: body.fileType,
      fileSize: body.fileSize,
      bucketName: BUCKET,
      uploadUrlExpiresMs: ctx.now() + UPLOAD_URL_VALIDITY_MS,
      uploadedAt: null,
      uploadedSize: null,
      fileHash: null,
      createdAt: now,
      updatedAt: now,
      createdByCompanyId: companyId,
      createdByUserId: request.caller.userId,
      createdByApiKeyId: request.caller.apiKeyId,
      createdByApiKeyLabel: request.caller.apiKeyLabel,
    };
    files().add(record);
    return sendData(reply, presentFile(record, requestOrigin(request), signer));
  });
}

interface UploadedBody {
  size: number;
  hash: string;
  bytes: Buffer | null;
}

const singleHeader = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** The storage side of the upload: PUT raw bytes to the signed address, outside /api/v2 and without the API key. */
export function registerStorageRoutes(
  root: FastifyInstance,
  ctx: SandboxContext,
  files: () => FilesStore,
  signer: UrlSigner,
): void {
  void root.register(async (storage) => {
    // Raw bytes of any type, streamed through a hash; only this plugin sees this parser.
    storage.removeAllContentTypeParsers();
    storage.addContentTypeParser('*', (_request, payload, done) => {
      const hash = createHash('sha256');
      const chunks: Buffer[] = [];
      let size = 0;
      payload.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
        if (size <= KEEP_BYTES_UP_TO) chunks.push(chunk);
        if (size > MAX_FILE_SIZE)
          payload.destroy(new ApiError(413, 'payload_too_large', 'Upload exceeds 1 GB'));
      });
      payload.on('error', (error) => done(error, undefined));
      payload.on('end', () => {
        const body: UploadedBody = {
          size,
          hash: hash.digest('hex'),
          bytes: size <= KEEP_BYTES_UP_TO ? Buffer.concat(chunks) : null,
        };
        done(null, body);
      });
    });

    storage.put<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
      `${STORAGE_PREFIX}/:id`,
      {
        bodyLimit: MAX_FILE_SIZE,
        // Checked before the body is read, so a refused upload does not stream its bytes first.
        onRequest: async (request) => {
          const file = files().get(request.params.id);
          const expires = Number(request.query.expires);
          const signature = request.query.signature ?? '';
          if (
            !file ||
            !Number.isFinite(expires) ||
            !signer.verify(file.id, file.fileType, expires, signature)
          ) {
            throw forbidden('The upload address signature is not valid', 'signature_does_not_match');
          }
          if (ctx.now() > expires)
            throw forbidden('The upload address has expired; POST /files again', 'request_expired');
          const contentType = singleHeader(request.headers['content-type']);
          const uploadType = singleHeader(request.headers['x-upload-content-type']);
          if (contentType !== file.fileType || uploadType !== file.fileType) {
            throw forbidden(
              `Content-Type and X-Upload-Content-Type must both be '${file.fileType}'`,
              'content_type_mismatch',
            );
          }
        },
      },
      async (request, reply) => {
        const file = files().get(request.params.id);
        const body = request.body as UploadedBody | undefined;
        if (file) {
          const now = ctx.nowIso();
          file.uploadedAt = now;
          file.updatedAt = now;
          file.uploadedSize = body?.size ?? 0;
          file.fileHash = body?.hash ?? null;
          if (body?.bytes) files().bytes.set(file.id, body.bytes);
          else files().bytes.delete(file.id);
        }
        return reply.code(200).send('');
      },
    );

    // Reading back an uploaded file (image `url`s point here); only small files keep their bytes.
    storage.get<{ Params: { id: string } }>(`${STORAGE_PREFIX}/:id`, async (request, reply) => {
      const file = files().get(request.params.id);
      const bytes = files().bytes.get(request.params.id);
      if (!file || !bytes) throw new ApiError(404, 'not_found', 'No stored bytes for this file');
      return reply.code(200).header('content-type', file.fileType).send(bytes);
    });
  });
}
