import { z } from 'zod';
import type { RowIssue } from './issues';
import { productLevels, type ProductLevel } from './profiles/schema';

export type { ProductLevel } from './profiles/schema';

/** Parents first: styles, then variants, then SKUs. */
export const levelOrder = (level: ProductLevel): number => productLevels.indexOf(level);

/** One material header of a product's composition (spec 02), with its root lines. */
const draftCompositionSchema = z.object({
  name: z.string(),
  lines: z.array(z.object({ material: z.string(), rawMaterialId: z.string(), percentage: z.number() })),
});
export type DraftComposition = z.infer<typeof draftCompositionSchema>;

const draftCodeSchema = z.object({
  codeId: z.string(),
  codeValue: z.string(),
  /** Header of the column the code came from (null for a constant or template). */
  column: z.string().nullable(),
  rowNumber: z.number().int(),
  /**
   * A `byDigits` source: every code type it can give. The cell is the product's one barcode, so giving it gives all
   * of them: a current code of another of these types is an old barcode, replaced (spec 01: "`codes` is replaced
   * wholesale").
   */
  givesTypes: z.array(z.string()).optional(),
});
export type DraftCode = z.infer<typeof draftCodeSchema>;

/** Product fields as the sheet gives them, already converted (ids resolved, numbers parsed). Absent = blank cell. */
export const draftFieldsSchema = z.object({
  name: z.string().optional(),
  codes: z.array(draftCodeSchema).optional(),
  description: z.string().optional(),
  gender: z.string().optional(),
  color: z.string().optional(),
  dimension: z.string().optional(),
  styleTypeId: z.string().optional(),
  styleLevelId: z.string().optional(),
  isComponent: z.boolean().optional(),
  brands: z.array(z.string()).optional(),
  seasons: z.array(z.string()).optional(),
  collections: z.array(z.string()).optional(),
  departments: z.array(z.string()).optional(),
  suppliers: z.array(z.string()).optional(),
  vendors: z.array(z.string()).optional(),
  claimIntentions: z.array(z.string()).optional(),
  mainSupplier: z.string().optional(),
  weight: z.object({ unit: z.string(), value: z.number() }).optional(),
  customProperties: z.string().optional(),
  /** Goes to the material composition API (document 2), not to the product record. */
  composition: z.array(draftCompositionSchema).optional(),
});
export type DraftFields = z.infer<typeof draftFieldsSchema>;
export type DraftFieldName = keyof DraftFields;

const fieldOriginSchema = z.object({
  column: z.string().nullable(),
  rowNumber: z.number().int(),
  /**
   * isComponent: the value is the mapping's constant or default, not a cell's. Spec 01: isComponent is "Fixed after
   * creation", so such a value is sent when creating and never held against an existing product.
   */
  fromMapping: z.literal(true).optional(),
});
export type FieldOrigin = z.infer<typeof fieldOriginSchema>;

/** One product as read from the sheet, before validation (staged as NDJSON between activities, re-parsed on read). */
export const productDraftSchema = z.object({
  externalId: z.string(),
  /** From a level column or the flat layout; null when it must be inferred from the parent chain. */
  level: z.enum(productLevels).nullable(),
  parentExternalId: z.string().nullable(),
  /** Rows that describe this product (several in the flat layout), in sheet order. */
  rowNumbers: z.array(z.number().int()),
  fields: draftFieldsSchema,
  origins: z.partialRecord(draftFieldsSchema.keyof(), fieldOriginSchema),
  externalIdColumn: z.string().nullable(),
  parentColumn: z.string().nullable(),
  /**
   * Flat layout: every row naming this product gives only its key, no data of its own (a fixed rejects
   * file re-run for one SKU, say). Such a product must already exist; it is never written.
   */
  referenceOnly: z.boolean(),
});
export type ProductDraft = z.infer<typeof productDraftSchema>;

export interface MappedSheet {
  drafts: ProductDraft[];
  issues: RowIssue[];
  warnings: string[];
  /** Data rows read (blank rows not counted), skipped ones included. */
  rowCount: number;
  /** Rows that hold no product: those the mapping's `skipRows` names, and repeats of the header row. */
  skippedRows: number;
  /** Column (or template) that feeds each field per level, to name it when the value is missing. */
  fieldColumns: Record<ProductLevel, Partial<Record<DraftFieldName, string>>>;
}

/**
 * What a message calls each field: the sheet's words, never the API's name (`styleTypeId`), which the operator never
 * wrote; the message names the column beside it.
 */
export const fieldWords: Record<DraftFieldName, string> = {
  name: 'name',
  codes: 'code',
  description: 'description',
  gender: 'gender',
  color: 'colour',
  dimension: 'dimension (size)',
  styleTypeId: 'style type',
  styleLevelId: 'style level',
  isComponent: 'component flag (yes or no)',
  brands: 'brands',
  seasons: 'seasons',
  collections: 'collections',
  departments: 'departments',
  suppliers: 'suppliers',
  vendors: 'vendors',
  claimIntentions: 'claim intentions',
  mainSupplier: 'main supplier',
  weight: 'weight',
  customProperties: 'custom properties',
  composition: 'composition',
};

/** Fields only some levels take; every other field is taken by every level. A value for another level's field is ignored. */
const levelOnlyFields: Record<ProductLevel, readonly DraftFieldName[]> = {
  style: ['styleTypeId', 'styleLevelId', 'isComponent'],
  variant: ['color'],
  sku: ['color', 'dimension'],
};
const sharedFields = draftFieldsSchema
  .keyof()
  .options.filter((field) => !Object.values(levelOnlyFields).some((fields) => fields.includes(field)));

export const levelFields: Record<ProductLevel, ReadonlySet<DraftFieldName>> = {
  style: new Set([...sharedFields, ...levelOnlyFields.style]),
  variant: new Set([...sharedFields, ...levelOnlyFields.variant]),
  sku: new Set([...sharedFields, ...levelOnlyFields.sku]),
};

/** Fields a variant or SKU inherits from its parent while its own value is null (spec: Inheritance). */
export const inheritableFields: ReadonlySet<DraftFieldName> = new Set<DraftFieldName>([
  'description',
  'gender',
  'brands',
  'departments',
  'seasons',
  'collections',
  'suppliers',
  'mainSupplier',
  'vendors',
  'claimIntentions',
  'weight',
]);

/**
 * Code types a product may carry at most once (spec 01, "Code types"). The sandbox's codes.ts keeps its own list on
 * purpose: it is the oracle the connectors are tested against, so it shares no code with them.
 */
export const singleUseCodeTypes: ReadonlySet<string> = new Set([
  'ERP_ID',
  'PLM_ID',
  'MAIN_SUPPLIERS_ID',
  'PIM_ID',
  'UPC_GTIN_12',
  'EAN_GTIN_13',
  'MARKETPLACE_ID',
  'CATALOG_PROVIDER_ID',
]);

/** Multi-use code types: the caller assigns a numeric suffix, e.g. OTHER_ID1. */
const MULTI_USE = /^(ALTERNATIVE_SUPPLIERS_ID|OTHER_ID)(\d*)$/;

export type CodeTypeCheck = { ok: true } | { ok: false; reason: string };

export function checkCodeType(codeId: string): CodeTypeCheck {
  if (singleUseCodeTypes.has(codeId)) return { ok: true };
  const multi = MULTI_USE.exec(codeId);
  if (multi) {
    return multi[2]
      ? { ok: true }
      : { ok: false, reason: `code type ${codeId} needs a numeric suffix, e.g. ${codeId}1` };
  }
  return {
    ok: false,
    reason: `unknown code type '${codeId}' (known: ${[...singleUseCodeTypes].join(', ')}, ALTERNATIVE_SUPPLIERS_ID<N>, OTHER_ID<N>)`,
  };
}

/** The code type a column header names (PLM_ID, ean_gtin_13, OTHER_ID2, even a bare OTHER_ID), or null. */
export function codeTypeOfHeader(header: string): string | null {
  const upper = header.trim().toUpperCase();
  if (singleUseCodeTypes.has(upper) || MULTI_USE.test(upper)) return upper;
  return null;
}
