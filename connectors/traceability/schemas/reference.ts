import { z } from 'zod';
import { nullishNumber, nullishString, nullishStringArray, pageQuerySchema } from './common';

export const styleTypeSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  parentId: nullishString,
  quantityUnits: nullishStringArray,
  weightUnits: nullishStringArray,
  isWeightAvailable: z.boolean().nullish(),
  hierarchyLevel: nullishNumber,
  count: nullishNumber,
});
export type StyleType = z.infer<typeof styleTypeSchema>;

export const stylePropertyCategorySchema = z.enum(['brands', 'departments', 'seasons', 'collections']);
export type StylePropertyCategory = z.infer<typeof stylePropertyCategorySchema>;

export const stylePropertySchema = z.looseObject({
  id: z.string().min(1),
  value: nullishString,
  category: z.string(),
  forCompanyId: nullishString,
  count: nullishNumber,
});
export type StyleProperty = z.infer<typeof stylePropertySchema>;

export const stylePropertyListQuerySchema = pageQuerySchema.extend({
  type: stylePropertyCategorySchema.optional(),
});

/** Field names beyond id, name and parent are not shown in the spec; the rest passes through. */
export const facilityProcessSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  productionProcessId: nullishString,
});
export type FacilityProcess = z.infer<typeof facilityProcessSchema>;

export const productionProcessSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  depthLevel: nullishNumber,
});
export type ProductionProcess = z.infer<typeof productionProcessSchema>;

export const placementSchema = z.looseObject({
  id: z.string().min(1),
  value: nullishString,
  forCompanyId: nullishString,
});
export type Placement = z.infer<typeof placementSchema>;

/** POST /bom-placements: the request shape is not shown in the spec; `value` is the display name. */
export const placementCreateSchema = z.object({ value: z.string().min(1).max(255) });
export type PlacementCreate = z.input<typeof placementCreateSchema>;

/** Company record: the spec shows ids and the filter keys only. */
export const companySchema = z.looseObject({
  id: z.string().min(1),
  internalCompanyCode: nullishString,
  name: nullishString,
  officialName: nullishString,
  city: nullishString,
  country: nullishString,
});
export type Company = z.infer<typeof companySchema>;

export const companyFilterSchema = z.strictObject({
  internalCompanyCode: z.string().optional(),
  name: z.string().optional(),
  officialName: z.string().optional(),
  city: z.string().optional(),
  country: z.string().optional(),
});
export type CompanyFilter = z.input<typeof companyFilterSchema>;
