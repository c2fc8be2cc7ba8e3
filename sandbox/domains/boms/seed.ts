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
  /** null: a line a fork copied without its component (spec 02, "Copy fidelity caveat"). */
  componentId: z.string().nullable(),
  placementId: z.string().nullable().default(null),
  quantity: z.number().nullable().default(null),
  quantityUnit: z.string().nullable().default(null),
  weight: z.number().nullable().default(null),
  weightUnit: z.string().nullable().default(null),
  countryOfOrigin: z.string().nullable().default(null),
  isMainComponent: z.boolean().default(false),
  /** A line changed after its header was made (default: the header's time). */
  updatedAt: z.string().optional(),
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
  /**
   * A fork made earlier through an inherited link of `ownerProductId` to this header: the owner's inherited link is
   * replaced by its owner link to this copy, and no child links are made (the owner's children keep the original).
   */
  forkOf: z.string().optional(),
  lines: z.array(lineSeedSchema).default([]),
});

export const bomSectionSchema = z.object({
  placements: z.array(z.object({ id: z.string(), value: z.string(), forCompanyId: z.string() })).default([]),
  headers: z.array(headerSeedSchema).default([]),
});
export type BomSection = z.input<typeof bomSectionSchema>;

function seedAudit(companyId: string, at: string): ShortAudit {
  return {
    createdAt: at,
    createdByUserId: null,
    createdByCompanyId: companyId,
    updatedAt: at,
    updatedByUserId: null,
    updatedByCompanyId: companyId,
  };
}

export function loadBomSection(ctx: SandboxContext, seed: SeedDocument): BomStore {
  const section = bomSectionSchema.parse((seed as Record<string, unknown>)['boms'] ?? {});
  const store = new BomStore();
  const now = ctx.nowIso();
  for (const placement of section.placements)
    store.placements.set(placement.id, { ...placement, ...seedAudit(placement.forCompanyId, now) });
  // Forks after the headers they were copied from, so the inherited link they replace exists.
  const ordered = [...section.headers.filter((h) => !h.forkOf), ...section.headers.filter((h) => h.forkOf)];
  for (const entry of ordered) {
    const at = entry.createdAt ?? now;
    const owner = catalogueOf(ctx).get(entry.ownerProductId);
    if (!owner)
      throw new Error(`Invalid sandbox seed: BOM ${entry.id} names unknown product ${entry.ownerProductId}`);
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
    if (entry.forkOf) {
      const inherited = store.links.find(owner.id, entry.forkOf);
      if (!inherited || inherited.isOwner)
        throw new Error(
          `Invalid sandbox seed: fork ${entry.id} needs ${entry.ownerProductId} to inherit ${entry.forkOf}`,
        );
      store.links.remove(inherited.id);
    }
    store.links.add(ownerLink);
    if (!entry.forkOf) {
      for (const child of catalogueOf(ctx).descendants(owner.id)) {
        store.links.add({
          ...ownerLink,
          id: `bomlnk_${entry.id}_${child.id}`,
          productId: child.id,
          isOwner: false,
        });
      }
    }
    entry.lines.forEach((line, index) => {
      const { componentId, updatedAt, ...values } = line;
      const id = line.id ?? `bom_line_${entry.id.replace(/^bomhdr_/, '')}_${index + 1}`;
      const audit = seedAudit(entry.forCompanyId, at);
      store.lines.set(id, {
        ...values,
        id,
        bomHeaderId: entry.id,
        styleId: componentId,
        ...audit,
        updatedAt: updatedAt ?? audit.updatedAt,
      });
    });
  }
  return store;
}
