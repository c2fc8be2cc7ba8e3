import { z } from 'zod';

const productRef = z.object({ styleId: z.string().min(1) });
const name = z.string().min(1).max(255);
const description = z.string().max(4000).nullable();
const nonNegative = z.number().min(0, 'must be non-negative').nullable();

export const createHeaderSchema = z.object({
  name,
  description: description.optional(),
  link: z.object({ styleId: z.string().min(1), isMainBom: z.boolean().optional() }),
});

/** All fields except `description` are required; an omitted description stays as it is. */
export const updateHeaderSchema = z.object({
  styleId: z.string().min(1),
  name,
  description: description.optional(),
  isMainBom: z.boolean(),
});

const lineFields = {
  entity: productRef,
  component: productRef,
  placementId: z.string().min(1).nullable().optional(),
  quantity: nonNegative.optional(),
  quantityUnit: z.string().nullable().optional(),
  weight: nonNegative.optional(),
  weightUnit: z.string().nullable().optional(),
  countryOfOrigin: z.string().max(100).nullable().optional(),
  isMainComponent: z.boolean().optional(),
};

export const createLineSchema = z.object({ bomHeaderId: z.string().min(1), ...lineFields });
export type CreateLineInput = z.infer<typeof createLineSchema>;

export const updateLineSchema = z.object(lineFields);
export type UpdateLineInput = z.infer<typeof updateLineSchema>;

const idList = z.array(z.string().min(1)).min(1).max(100);

export const deleteLinesSchema = z.object({ styleId: z.string().min(1), bomLineIds: idList });
export const deleteHeadersSchema = z.object({ styleId: z.string().min(1), bomHeaderIds: idList });

/** POST /bom-placements (shape not shown by the spec; see sandbox/README.md). */
export const createPlacementSchema = z.object({ value: z.string().trim().min(1).max(255) });
