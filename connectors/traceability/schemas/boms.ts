import { z } from 'zod';
import {
  idListSchema,
  nullishNumber,
  nullishString,
  pageQuerySchema,
  sortOrderSchema,
  unitSchema,
} from './common';

/** List/get reads carry `link`; the 201 create answer is flat (isMainBom at top level, no link). */
export const bomHeaderSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: nullishString,
  forCompanyId: nullishString,
  version: nullishNumber,
  effectiveStartDate: nullishString,
  effectiveEndDate: nullishString,
  isArchived: z.boolean().nullish(),
  isMainBom: z.boolean().nullish(),
  link: z
    .looseObject({ styleId: z.string(), isMainBom: z.boolean().nullish(), isOwner: z.boolean().nullish() })
    .nullish(),
  createdAt: nullishString,
  updatedAt: nullishString,
});
export type BomHeader = z.infer<typeof bomHeaderSchema>;

/** `styleId` is the COMPONENT; lines copied by a fork lose it (null) and their isMainComponent. */
export const bomLineSchema = z.looseObject({
  id: z.string().min(1),
  bomHeaderId: z.string(),
  placementId: nullishString,
  styleId: nullishString,
  quantity: nullishNumber,
  quantityUnit: nullishString,
  weight: nullishNumber,
  weightUnit: nullishString,
  countryOfOrigin: nullishString,
  isMainComponent: z.boolean().nullish(),
  createdAt: nullishString,
  updatedAt: nullishString,
});
export type BomLine = z.infer<typeof bomLineSchema>;

export const bomHeaderCreateSchema = z.strictObject({
  name: z.string().min(1).max(255),
  description: z.string().max(4000).nullish(),
  link: z.strictObject({ styleId: z.string().min(1), isMainBom: z.boolean().optional() }),
});
export type BomHeaderCreate = z.input<typeof bomHeaderCreateSchema>;

export const bomHeaderUpdateSchema = z.strictObject({
  styleId: z.string().min(1),
  name: z.string().min(1).max(255),
  description: z.string().max(4000).nullish(),
  isMainBom: z.boolean(),
});
export type BomHeaderUpdate = z.input<typeof bomHeaderUpdateSchema>;

export const bomHeaderListQuerySchema = pageQuerySchema.extend({
  styleId: z.string().min(1),
  sort: z
    .enum(['createdAt', 'updatedAt', 'name', 'version', 'effectiveStartDate', 'effectiveEndDate'])
    .optional(),
  order: sortOrderSchema.optional(),
  ids: z.array(z.string()).optional(),
  name: z.string().optional(),
  isArchived: z.boolean().optional(),
  isMainBom: z.boolean().optional(),
  version: z.number().int().optional(),
});
export type BomHeaderListQuery = z.input<typeof bomHeaderListQuerySchema>;

/** POST /bom-lines and the full-replace PUT /bom-lines/{id} (omitted optionals become null). */
export const bomLineWriteSchema = z.strictObject({
  bomHeaderId: z.string().min(1).optional(),
  entity: z.strictObject({ styleId: z.string().min(1) }),
  component: z.strictObject({ styleId: z.string().min(1) }),
  placementId: z.string().min(1).nullish(),
  quantity: z.number().min(0).nullish(),
  quantityUnit: unitSchema.nullish(),
  weight: z.number().min(0).nullish(),
  weightUnit: unitSchema.nullish(),
  countryOfOrigin: z.string().max(100).nullish(),
  isMainComponent: z.boolean().optional(),
});
export type BomLineWrite = z.input<typeof bomLineWriteSchema>;
export type BomLineCreate = BomLineWrite & { bomHeaderId: string };

export const bomLineListQuerySchema = pageQuerySchema.extend({
  bomHeaderId: z.string().optional(),
  styleId: z.string().optional(),
  placementId: z.string().optional(),
  countryOfOrigin: z.string().optional(),
  isMainComponent: z.boolean().optional(),
  include: z.array(z.enum(['entity', 'placement'])).optional(),
  sort: z.enum(['createdAt', 'updatedAt', 'quantity', 'weight']).optional(),
  order: sortOrderSchema.optional(),
});
export type BomLineListQuery = z.input<typeof bomLineListQuerySchema>;

export const bomLinesDeleteSchema = z.strictObject({ styleId: z.string().min(1), bomLineIds: idListSchema });
export const bomHeadersDeleteSchema = z.strictObject({
  styleId: z.string().min(1),
  bomHeaderIds: idListSchema,
});
