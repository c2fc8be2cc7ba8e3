import { z } from 'zod';
import type { SandboxContext } from '../../core/context';
import type { SeedDocument } from '../../core/seed';
import type { ShortAudit } from '../v2-common/audit';
import { catalogueOf } from '../v2-common/catalogue';
import { MaterialStore, type MaterialLineRecord, type MaterialLinkRecord } from './model';

/**
 * The `materials` seed section: compositions owned by one product each, lines as a nested tree (ids, hierarchy and
 * positions are derived). Every descendant of the owner gets its inherited link at load.
 */
interface LineSeed {
  rawMaterialId: string;
  percentage: number;
  weights?: number | null;
  weightUnit?: string | null;
  countriesOfOrigin?: string[] | null;
  children?: LineSeed[];
}

const lineSeedSchema: z.ZodType<LineSeed> = z.lazy(() =>
  z.object({
    rawMaterialId: z.string(),
    percentage: z.number().min(0).max(100),
    weights: z.number().nullable().optional(),
    weightUnit: z.string().nullable().optional(),
    countriesOfOrigin: z.array(z.string().length(2)).nullable().optional(),
    children: z.array(lineSeedSchema).optional(),
  }),
);

export const materialSectionSchema = z.object({
  headers: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string().nullable().default(null),
        forCompanyId: z.string(),
        ownerProductId: z.string(),
        isMainMaterial: z.boolean().default(true),
        createdAt: z.string().optional(),
        lines: z.array(lineSeedSchema).default([]),
      }),
    )
    .default([]),
});
export type MaterialSection = z.input<typeof materialSectionSchema>;

export function loadMaterialSection(ctx: SandboxContext, seed: SeedDocument): MaterialStore {
  const section = materialSectionSchema.parse((seed as Record<string, unknown>)['materials'] ?? {});
  const store = new MaterialStore();
  for (const entry of section.headers) {
    const at = entry.createdAt ?? ctx.nowIso();
    const audit: ShortAudit = {
      createdAt: at,
      createdByUserId: null,
      createdByCompanyId: entry.forCompanyId,
      updatedAt: at,
      updatedByUserId: null,
      updatedByCompanyId: entry.forCompanyId,
    };
    const owner = catalogueOf(ctx).get(entry.ownerProductId);
    if (!owner)
      throw new Error(
        `Invalid sandbox seed: composition ${entry.id} names unknown product ${entry.ownerProductId}`,
      );
    store.headers.set(entry.id, {
      id: entry.id,
      name: entry.name,
      description: entry.description,
      forCompanyId: entry.forCompanyId,
      ...audit,
    });
    const link: MaterialLinkRecord = {
      id: `mtriallnk_${entry.id}_${owner.id}`,
      headerId: entry.id,
      productId: owner.id,
      isOwner: true,
      isMainMaterial: entry.isMainMaterial,
      createdAt: at,
    };
    store.links.add(link);
    for (const child of catalogueOf(ctx).descendants(owner.id)) {
      store.links.add({
        ...link,
        id: `mtriallnk_${entry.id}_${child.id}`,
        productId: child.id,
        isOwner: false,
      });
    }
    let counter = 0;
    const add = (lines: LineSeed[], parentId: string | null, hierarchy: number): void => {
      lines.forEach((line, index) => {
        const record: MaterialLineRecord = {
          id: `mtrialln_${entry.id.replace(/^mtrialhdr_/, '')}_${++counter}`,
          materialHeaderId: entry.id,
          rawMaterialId: line.rawMaterialId,
          percentage: line.percentage,
          weights: line.weights ?? null,
          weightUnit: line.weightUnit ?? null,
          parentId,
          hierarchy,
          position: (index + 1) * 100,
          countriesOfOrigin: line.countriesOfOrigin ?? null,
          ...audit,
        };
        store.lines.set(record.id, record);
        add(line.children ?? [], record.id, hierarchy + 1);
      });
    };
    add(entry.lines, null, 0);
  }
  return store;
}
