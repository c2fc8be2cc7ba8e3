import { z } from 'zod';

const productRef = z.strictObject({ styleId: z.string().min(1) });
const name = z.string().min(1).max(255);
const description = z.string().max(4000).nullable();
const nonNegative = z.number().min(0, 'must be non-negative').nullable();

export const createHeaderSchema = z.strictObject({
  name,
  description: description.optional(),
  link: z.strictObject({ styleId: z.string().min(1), isMainBom: z.boolean().optional() }),
});

/** All fields except `description` are required; an omitted description stays as it is. */
export const updateHeaderSchema = z.strictObject({
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

export const createLineSchema = z.strictObject({ bomHeaderId: z.string().min(1), ...lineFields });
export type CreateLineInput = z.infer<typeof createLineSchema>;

// "the other fields as on create": create's `bomHeaderId` may come along; the line's header is what counts.
export const updateLineSchema = z.strictObject({ bomHeaderId: z.string().min(1).optional(), ...lineFields });
export type UpdateLineInput = z.infer<typeof updateLineSchema>;

const idList = z.array(z.string().min(1)).min(1).max(100);

export const deleteLinesSchema = z.strictObject({ styleId: z.string().min(1), bomLineIds: idList });
export const deleteHeadersSchema = z.strictObject({ styleId: z.string().min(1), bomHeaderIds: idList });

/** POST /bom-placements (shape not shown by the spec; see sandbox/README.md). */
export const createPlacementSchema = z.strictObject({ value: z.string().trim().min(1).max(255) });
