import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Companies, keys and users: what authentication and every domain need. Domains parse their own sections. */
export const companySeedSchema = z.object({
  id: z.string().min(1).max(36),
  name: z.string().min(1),
  officialName: z.string().nullable().default(null),
  internalCompanyCode: z.string().nullable().default(null),
  city: z.string().nullable().default(null),
  country: z.string().length(2).nullable().default(null),
  /** Companies this one reaches in its network (may be named as order parties, hold visible certificates). */
  network: z.array(z.string()).default([]),
});
export type CompanySeed = z.infer<typeof companySeedSchema>;

export const apiKeySeedSchema = z.object({
  key: z.string().min(1),
  /** null: a credential that resolves to no company (403 `insufficient_rights` on order endpoints). */
  companyId: z.string().nullable(),
  label: z.string().default('sandbox key'),
  id: z.string().max(36).optional(),
});
export type ApiKeySeed = z.infer<typeof apiKeySeedSchema>;

export const userSeedSchema = z.object({
  id: z.string().min(1).max(36),
  email: z.string().email(),
  name: z.string(),
  companyId: z.string(),
  /** Platform bearer token accepted on order endpoints in place of the key. */
  bearerToken: z.string().optional(),
});
export type UserSeed = z.infer<typeof userSeedSchema>;

export const seedDocumentSchema = z
  .object({
    companies: z.array(companySeedSchema).min(1),
    apiKeys: z.array(apiKeySeedSchema).min(1),
    users: z.array(userSeedSchema).default([]),
  })
  .loose();
export type SeedDocument = z.infer<typeof seedDocumentSchema>;

export function parseSeed(raw: unknown, source: string): SeedDocument {
  const result = seedDocumentSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new Error(`Invalid sandbox seed ${source}: ${issues.join('; ')}`);
  }
  return result.data;
}

export function loadSeedFile(path: string): SeedDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read sandbox seed ${path}: ${(error as Error).message}`);
  }
  return parseSeed(raw, path);
}
