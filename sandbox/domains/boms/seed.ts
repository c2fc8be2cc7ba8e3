import { z } from 'zod';
import type { SandboxContext } from '../../core/context';
import type { SeedDocument } from '../../core/seed';
import type { ShortAudit } from '../v2-common/audit';
import { catalogueOf } from '../v2-common/catalogue';
import { BomStore, type BomLinkRecord } from './model';

/**
 * The `boms` seed section: placements, and headers owned by one product each. Seeds describe a settled state, so
 * every descendant of the owner gets its inherited link at load (no delay).
 */
const lineSeedSchema = z.object({
  id: z.string().optional(),
  componentId: z.string(),
  placementId: z.string().nullable().default(null),
  quantity: z.number().nullable().default(null),
  quantityUnit: z.string().nullable().default(null),
  weight: z.number().nullable().default(null),
  weightUnit: z.string().nullable().default(null),
  countryOfOrigin: z.string().nullable().default(null),
  isMainComponent: z.boolean().default(false),
});

const headerSeedSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable().default(null),
  forCompanyId: z.string(),
  ownerProductId: z.string(),
  isMainBom: z.boolean().default(true),
  isArchived: z.boolean().default(false),
  createdAt: z.string().optional(),
  lines: z.array(lineSeedSchema).default([]),
});

export const bomSectionSchema = z.object({
  placements: z.array(z.object({ id: z.string(), value: z.string(), forCompanyId: z.string() })).default([]),
  headers: z.array(headerSeedSchema).default([]),
});
export type BomSection = z.input<typeof bomSectionSchema>;

function seedAudit(companyId: string, at: string): ShortAudit {
  return { createdAt: at, createdByUserId: null, createdByCompanyId: companyId, updatedAt: at, updatedByUserId: null, updatedByCompanyId: companyId };
}

export function loadBomSection(ctx: SandboxContext, seed: SeedDocument): BomStore {
  const section = bomSectionSchema.parse((seed as Record<string, unknown>)['boms'] ?? {});
  const store = new BomStore();
  const now = ctx.nowIso();
  for (const placement of section.placements) store.placements.set(placement.id, { ...placement, ...seedAudit(placement.forCompanyId, now) });
  for (const entry of section.headers) {
    const at = entry.createdAt ?? now;
    const owner = catalogueOf(ctx).get(entry.ownerProductId);
    if (!owner) throw new Error(`Invalid sandbox seed: BOM ${entry.id} names unknown product ${entry.ownerProductId}`);
    store.headers.set(entry.id, {
      id: entry.id,
      name: entry.name,
      description: entry.description,
      forCompanyId: entry.forCompanyId,
      isArchived: entry.isArchived,
      ...seedAudit(entry.forCompanyId, at),
    });
    const ownerLink: BomLinkRecord = {
      id: `bomlnk_${entry.id}_${owner.id}`,
      headerId: entry.id,
      productId: owner.id,
      isOwner: true,
      isMainBom: entry.isMainBom,
      version: 1,
      effectiveStartDate: at,
      effectiveEndDate: null,
      createdAt: at,
    };
    store.links.add(ownerLink);
    for (const child of catalogueOf(ctx).descendants(owner.id)) {
      store.links.add({ ...ownerLink, id: `bomlnk_${entry.id}_${child.id}`, productId: child.id, isOwner: false });
    }
    entry.lines.forEach((line, index) => {
      const { componentId, ...values } = line;
      const id = line.id ?? `bom_line_${entry.id.replace(/^bomhdr_/, '')}_${index + 1}`;
      store.lines.set(id, { ...values, id, bomHeaderId: entry.id, styleId: componentId, ...seedAudit(entry.forCompanyId, at) });
    });
  }
  return store;
}
