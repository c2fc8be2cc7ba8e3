import { z } from 'zod';
import type { SandboxContext, SandboxDomain } from '../../core/context';
import type { SeedDocument } from '../../core/seed';
import { registerFileApiRoutes, registerStorageRoutes, UrlSigner } from './routes';
import { FilesStore, type FileRecord } from './store';

export { FilesStore, type FileRecord } from './store';
export { MIME_BY_EXTENSION, MAX_FILE_SIZE } from './mime';

const nullable = z.string().nullable().default(null);

/** The `files` seed section (and dump shape): registered files, uploaded or not. Bytes are never persisted. */
const fileSeedSchema = z.object({
  id: z.string().min(1),
  forCompanyId: z.string().min(1),
  name: z.string().min(1),
  fileType: z.string().min(1),
  fileSize: z.number().int().min(1),
  bucketName: z.string().default('trace-sandbox-uploads'),
  uploadUrlExpiresMs: z.number().default(0),
  uploadedAt: nullable,
  uploadedSize: z.number().nullable().default(null),
  fileHash: nullable,
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  createdByCompanyId: nullable,
  createdByUserId: nullable,
  createdByApiKeyId: nullable,
  createdByApiKeyLabel: nullable,
});
export type FileSeed = z.input<typeof fileSeedSchema>;

function load(ctx: SandboxContext, raw: unknown): FilesStore {
  const parsed = z.array(fileSeedSchema).safeParse(raw ?? []);
  if (!parsed.success) throw new Error(`Invalid sandbox seed: files: ${parsed.error.message}`);
  const now = ctx.nowIso();
  const records: FileRecord[] = parsed.data.map((file) => ({
    ...file,
    createdAt: file.createdAt ?? now,
    updatedAt: file.updatedAt ?? file.createdAt ?? now,
  }));
  return new FilesStore(records);
}

const signers = new WeakMap<SandboxContext, UrlSigner>();
function signerFor(ctx: SandboxContext): UrlSigner {
  let signer = signers.get(ctx);
  if (!signer) signers.set(ctx, (signer = new UrlSigner()));
  return signer;
}

/** The two-step upload of document 3: POST /files, then PUT to the signed storage address. */
export const filesDomain: SandboxDomain<FilesStore> = {
  name: 'files',
  createStore: (ctx: SandboxContext, seed: SeedDocument) =>
    load(ctx, (seed as Record<string, unknown>)['files']),
  restore: (ctx, snapshot) => load(ctx, snapshot),
  registerRoutes: (app, ctx) => registerFileApiRoutes(app, ctx, () => ctx.store(filesDomain), signerFor(ctx)),
  registerRootRoutes: (app, ctx) =>
    registerStorageRoutes(app, ctx, () => ctx.store(filesDomain), signerFor(ctx)),
  dump: (store) => [...store.files.values()],
};
