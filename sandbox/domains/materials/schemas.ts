import { z } from 'zod';

const name = z.string().min(1).max(255);
const description = z.string().max(4000).nullable();

export const createHeaderSchema = z.strictObject({
  name,
  description: description.optional(),
  link: z.strictObject({ styleId: z.string().min(1), isMainMaterial: z.boolean().optional() }),
});

export const updateHeaderSchema = z.strictObject({
  name,
  description: description.optional(),
  link: z.strictObject({ styleId: z.string().min(1), isMainMaterial: z.boolean().optional() }),
});

/** POST and PUT share the fields; PUT is a full replace (omitted optional fields become null). */
export const lineSchema = z.strictObject({
  styleId: z.string().min(1),
  materialHeaderId: z.string().min(1),
  parentId: z.string().min(1).nullable().optional(),
  rawMaterialId: z.string().min(1),
  percentage: z.number().min(0).max(100),
  weights: z.number().min(0).nullable().optional(),
  weightUnit: z.string().max(255).nullable().optional(),
  countriesOfOrigin: z
    .array(z.string().length(2, 'country codes have exactly 2 characters'))
    .nullable()
    .optional(),
  // Kept when omitted (PUT only).
  position: z.number().int().min(0).optional(),
  hierarchy: z.number().int().min(0).optional(),
});
export type LineInput = z.infer<typeof lineSchema>;

const idList = z.array(z.string().min(1)).min(1).max(100);

export const deleteLinesSchema = z.strictObject({ styleId: z.string().min(1), materialLineIds: idList });
export const deleteHeadersSchema = z.strictObject({ styleId: z.string().min(1), materialHeaderIds: idList });
