import { z } from 'zod';
import { idListSchema, nullishNumber, nullishString, pageQuerySchema, sortOrderSchema } from './common';

export const materialHeaderSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: nullishString,
  forCompanyId: nullishString,
  link: z
    .looseObject({
      styleId: z.string(),
      isMainMaterial: z.boolean().nullish(),
      isOwner: z.boolean().nullish(),
    })
    .nullish(),
  createdAt: nullishString,
  updatedAt: nullishString,
});
export type MaterialHeader = z.infer<typeof materialHeaderSchema>;

export const materialLineSchema = z.looseObject({
  id: z.string().min(1),
  materialHeaderId: z.string(),
  rawMaterialId: z.string(),
  percentage: z.number(),
  weights: nullishNumber,
  weightUnit: nullishString,
  parentId: z.string().nullable(),
  hierarchy: nullishNumber,
  position: nullishNumber,
  countriesOfOrigin: z.array(z.string()).nullish(),
  createdAt: nullishString,
  updatedAt: nullishString,
});
export type MaterialLine = z.infer<typeof materialLineSchema>;

const headerBody = {
  name: z.string().min(1).max(255),
  description: z.string().max(4000).nullish(),
  link: z.strictObject({ styleId: z.string().min(1), isMainMaterial: z.boolean().optional() }),
};
export const materialHeaderCreateSchema = z.strictObject(headerBody);
export type MaterialHeaderCreate = z.input<typeof materialHeaderCreateSchema>;
export const materialHeaderUpdateSchema = z.strictObject(headerBody);
export type MaterialHeaderUpdate = z.input<typeof materialHeaderUpdateSchema>;

export const materialHeaderListQuerySchema = pageQuerySchema.extend({
  styleId: z.string().min(1),
  sort: z.enum(['createdAt', 'name', 'styleId', 'updatedAt']).optional(),
  order: sortOrderSchema.optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  isMainMaterial: z.boolean().optional(),
  isOwner: z.boolean().optional(),
});
export type MaterialHeaderListQuery = z.input<typeof materialHeaderListQuerySchema>;

/** POST /material-lines and the full-replace PUT /material-lines/{id}: always send the whole line. */
export const materialLineWriteSchema = z.strictObject({
  styleId: z.string().min(1),
  materialHeaderId: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  rawMaterialId: z.string().min(1),
  percentage: z.number().min(0).max(100),
  weights: z.number().min(0).nullish(),
  weightUnit: z.string().max(255).nullish(),
  countriesOfOrigin: z.array(z.string().length(2)).nullish(),
});
export type MaterialLineWrite = z.input<typeof materialLineWriteSchema>;

export const materialLineListQuerySchema = pageQuerySchema.extend({
  materialHeaderId: z.string().optional(),
  rawMaterialId: z.string().optional(),
  parentId: z.string().optional(),
  countriesOfOrigin: z.string().optional(),
  include: z.array(z.enum(['rawMaterials', 'countriesOfOrigin'])).optional(),
  // The spec's sorts; the sandbox keeps its own list on purpose (it is the oracle, sharing no code).
  sort: z
    .enum([
      'createdAt',
      'materialHeaderId',
      'rawMaterialId',
      'percentage',
      'hierarchy',
      'position',
      'updatedAt',
    ])
    .optional(),
  order: sortOrderSchema.optional(),
});
export type MaterialLineListQuery = z.input<typeof materialLineListQuerySchema>;

export const materialLinesDeleteSchema = z.strictObject({
  styleId: z.string().min(1),
  materialLineIds: idListSchema,
});
export const materialHeadersDeleteSchema = z.strictObject({
  styleId: z.string().min(1),
  materialHeaderIds: idListSchema,
});
