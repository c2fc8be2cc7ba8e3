import { z } from 'zod';
import {
  boolish,
  nullishNumber,
  nullishString,
  nullishStringArray,
  pageQuerySchema,
  sortOrderSchema,
} from './common';

export const productLevelSchema = z.enum(['style', 'variant', 'sku']);
export type ProductLevel = z.infer<typeof productLevelSchema>;

export const productCodeSchema = z.object({ codeId: z.string().min(1), codeValue: z.string().min(1) });
export type ProductCode = z.infer<typeof productCodeSchema>;

const weightSchema = z.object({ unit: z.string().min(1), value: z.number() });

export const productSchema = z.looseObject({
  id: z.string().min(1),
  externalId: z.string().nullish(),
  forCompanyId: nullishString,
  styleId: nullishString,
  variantId: nullishString,
  name: z.string(),
  codes: z.array(z.looseObject({ codeId: z.string(), codeValue: z.string() })),
  description: nullishString,
  gender: nullishString,
  styleLevelId: nullishString,
  styleTypeId: nullishString,
  color: nullishString,
  dimension: nullishString,
  brands: nullishStringArray,
  departments: nullishStringArray,
  seasons: nullishStringArray,
  collections: nullishStringArray,
  claimIntentions: nullishStringArray,
  suppliers: nullishStringArray,
  vendors: nullishStringArray,
  mainSupplier: nullishString,
  customProperties: nullishString,
  imagesFileIds: nullishStringArray,
  isComponent: boolish.nullish(),
  isStoryActive: boolish.nullish(),
  isArchived: z.boolean(),
  qrCodeUrl: nullishString,
  weight: z.looseObject({ unit: z.string(), value: z.number() }).nullish(),
  skuCount: nullishNumber,
  createdAt: nullishString,
  updatedAt: nullishString,
});
export type Product = z.infer<typeof productSchema>;

const ecoFootPrintSchema = z.object({
  syntheticMaterialPercentage: z.number().min(0).max(100).nullish(),
  recycledMaterialPercentage: z.number().min(0).max(100).nullish(),
  hazardousMaterials: z
    .array(z.object({ idx: z.number(), name: z.string().min(1), percentage: z.number().min(0).max(100) }))
    .nullish(),
  recyclabilityAbsenceDisruptor: z.boolean().nullish(),
  recyclabilityCanBeSorted: z.boolean().nullish(),
  recyclabilityCanCollectAtScale: z.boolean().nullish(),
  recyclabilityIndustrialScale: z.boolean().nullish(),
  recyclabilityRate: z.number().nullish(),
});

const writableFields = {
  externalId: z.string().min(1).nullish(),
  name: z.string().min(1).max(255),
  codes: z.array(productCodeSchema).min(1),
  description: z.string().max(4000).nullish(),
  gender: z.string().max(50).nullish(),
  styleTypeId: z.string().min(1),
  color: z.string().min(1).max(255).nullish(),
  dimension: z.string().min(1).max(255).nullish(),
  brands: z.array(z.string()).nullish(),
  departments: z.array(z.string()).nullish(),
  seasons: z.array(z.string()).nullish(),
  collections: z.array(z.string()).nullish(),
  suppliers: z.array(z.string()).nullish(),
  vendors: z.array(z.string()).nullish(),
  mainSupplier: z.string().nullish(),
  claimIntentions: z.array(z.string()).nullish(),
  weight: weightSchema.nullish(),
  customProperties: z.string().nullish(),
  imagesFileIds: z.array(z.string()).nullish(),
  ecoFootPrint: ecoFootPrintSchema.nullish(),
  isStoryActive: z.boolean().optional(),
};

/** POST /styles. Level follows `parentId`: none = style, style id = variant, variant id = SKU. */
export const productCreateSchema = z
  .strictObject({
    ...writableFields,
    styleTypeId: z.string().min(1).optional(),
    parentId: z.string().min(1).optional(),
    isComponent: z.boolean().optional(),
    forCompanyId: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.parentId === undefined) {
      if (!value.styleTypeId)
        ctx.addIssue({ code: 'custom', path: ['styleTypeId'], message: 'a style needs styleTypeId' });
      if (value.isComponent === undefined)
        ctx.addIssue({ code: 'custom', path: ['isComponent'], message: 'a style needs isComponent' });
    }
  });
export type ProductCreate = z.input<typeof productCreateSchema>;

/** PUT /styles/{id}: only sent fields change; `codes` replaces the whole set; null re-enables inheritance. */
export const productUpdateSchema = z
  .strictObject(writableFields)
  .partial()
  .extend({ styleLevelId: z.string().min(1).optional() });
export type ProductUpdate = z.input<typeof productUpdateSchema>;

export const productListQuerySchema = pageQuerySchema.extend({
  level: productLevelSchema.optional(),
  sort: z
    .enum([
      'createdAt',
      'updatedAt',
      'name',
      'gender',
      'typeName',
      'color',
      'styleId',
      'dimension',
      'variantId',
    ])
    .optional(),
  order: sortOrderSchema.optional(),
  name: z.string().optional(),
  nameOrCode: z.string().optional(),
  codeId: z.string().optional(),
  codeValue: z.string().optional(),
  description: z.string().optional(),
  gender: z.string().optional(),
  styleTypeId: z.string().optional(),
  styleLevelId: z.string().optional(),
  brands: z.array(z.string()).optional(),
  departments: z.array(z.string()).optional(),
  seasons: z.array(z.string()).optional(),
  collections: z.array(z.string()).optional(),
  suppliers: z.array(z.string()).optional(),
  vendors: z.array(z.string()).optional(),
  mainSupplier: z.string().optional(),
  companyId: z.string().optional(),
  isComponent: z.boolean().optional(),
  isStoryActive: z.boolean().optional(),
  createdForMe: z.boolean().optional(),
  isArchived: z.boolean().optional(),
  updatedAfterUnixMs: z.number().int().optional(),
  updatedBeforeUnixMs: z.number().int().optional(),
  styleId: z.string().optional(),
  color: z.string().optional(),
  variantId: z.string().optional(),
  dimension: z.string().optional(),
  // The spec's include list; the sandbox keeps its own copy on purpose (it is the oracle, sharing no code).
  include: z
    .array(
      z.enum([
        'type',
        'material',
        'bom',
        'styleProperties',
        'tracingStory',
        'images',
        'style',
        'variant',
        'styleLink',
        'skuCount',
      ]),
    )
    .optional(),
});
export type ProductListQuery = z.input<typeof productListQuerySchema>;

export const archiveRequestSchema = z.strictObject({ ids: z.array(z.string().min(1)).min(1).max(100) });
export const unarchiveRequestSchema = archiveRequestSchema.extend({
  shouldUnarchiveChildren: z.boolean().optional(),
});
