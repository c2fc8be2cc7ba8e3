import { z } from 'zod';

/** Request bodies of /styles. Level-specific requirements with their own codes are checked in the rules, not here. */

/** `boolean or number` in the spec: true/false, or 1/0. */
const flag = z
  .union([z.boolean(), z.literal(0), z.literal(1)])
  .transform((value) => value === true || value === 1);

const code = z.strictObject({
  codeId: z.string().min(1),
  codeValue: z.string().min(1).max(255),
});

const idList = z.array(z.string().min(1).max(255)).nullable();
const percentage = z.number().min(0).max(100).nullable();
const optionalFlag = z.boolean().nullable().optional();

const ecoFootPrint = z
  .strictObject({
    syntheticMaterialPercentage: percentage.optional(),
    recycledMaterialPercentage: percentage.optional(),
    hazardousMaterials: z
      .array(
        z.strictObject({ idx: z.number(), name: z.string().min(1), percentage: z.number().min(0).max(100) }),
      )
      .nullable()
      .optional(),
    recyclabilityAbsenceDisruptor: optionalFlag,
    recyclabilityCanBeSorted: optionalFlag,
    recyclabilityCanCollectAtScale: optionalFlag,
    recyclabilityIndustrialScale: optionalFlag,
    recyclabilityRate: z.number().nullable().optional(),
  })
  .nullable();
export type EcoFootPrintInput = z.output<typeof ecoFootPrint>;

/** `{unit, value}`; either part null stores null overall (document 1). */
const weight = z
  .strictObject({ unit: z.string().min(1).nullable(), value: z.number().min(0).nullable() })
  .nullable();

const commonFields = {
  externalId: z.string().min(1).max(255).nullable().optional(),
  description: z.string().max(4000).nullable().optional(),
  gender: z.string().max(50).nullable().optional(),
  styleLevelId: z.string().min(1).nullable().optional(),
  styleTypeId: z.string().min(1).optional(),
  productLevel: z.string().max(255).nullable().optional(),
  color: z.string().min(1).max(255).nullable().optional(),
  dimension: z.string().min(1).max(255).nullable().optional(),
  brands: idList.optional(),
  departments: idList.optional(),
  seasons: idList.optional(),
  collections: idList.optional(),
  claimIntentions: idList.optional(),
  suppliers: idList.optional(),
  vendors: idList.optional(),
  mainSupplier: z.string().min(1).max(36).nullable().optional(),
  customProperties: z.string().nullable().optional(),
  imagesFileIds: idList.optional(),
  ecoFootPrint: ecoFootPrint.optional(),
  weight: weight.optional(),
  isStoryActive: flag.optional(),
  isComponent: flag.optional(),
  forCompanyId: z.string().min(1).max(36).optional(),
  parentId: z.string().min(1).nullable().optional(),
};

export const createProductSchema = z.strictObject({
  ...commonFields,
  name: z.string().min(1).max(255),
  codes: z.array(code).min(1),
});
export type CreateProductBody = z.output<typeof createProductSchema>;

/** PUT takes the create fields, each optional; `parentId`, `isComponent` and `forCompanyId` only when unchanged. */
export const updateProductSchema = z.strictObject({
  ...commonFields,
  name: z.string().min(1).max(255).optional(),
  codes: z.array(code).min(1).optional(),
});
export type UpdateProductBody = z.output<typeof updateProductSchema>;

export const archiveSchema = z.strictObject({
  ids: z.array(z.string().min(1)).min(1).max(100),
});

export const unarchiveSchema = z.strictObject({
  ids: z.array(z.string().min(1)).min(1).max(100),
  shouldUnarchiveChildren: z.boolean().default(true),
});
