import { z } from 'zod';
import type { AuditStamp, ProductLevel, ProductRecord, StylePropertyRecord, StyleTypeRecord } from './types';
import { PROPERTY_CATEGORIES, TRACING_TYPES } from './types';

/**
 * The `catalogue` section of a seed document (also the shape `dump()` writes, so a state dump can be used as a seed).
 * Products list parents before or after children in any order; level, styleId, variantId, forCompanyId (of
 * children) and styleTypeId (of children) are derived from `parentId`.
 */
const nullableString = z.string().nullable().default(null);
const nullableStrings = z.array(z.string()).nullable().default(null);

const auditSchema = z.object({
  impersonateId: nullableString,
  userId: nullableString,
  companyId: nullableString,
  apiKeyId: nullableString,
  apiKeyLabel: nullableString,
});

export const styleTypeSeedSchema = z.object({
  id: z.string().min(1),
  forCompanyId: nullableString,
  name: z.string().min(1).max(255),
  parentId: nullableString,
  quantityUnits: nullableStrings,
  weightUnits: nullableStrings,
  isWeightAvailable: z.boolean().nullable().default(null),
  assetId: nullableString,
  assetType: z.string().max(4000).nullable().default(null),
  hierarchyLevel: z.number().nullable().default(null),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

export const stylePropertySeedSchema = z.object({
  id: z.string().min(1),
  forCompanyId: z.string().min(1),
  category: z.enum(PROPERTY_CATEGORIES),
  value: z.string().max(255).nullable().default(null),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

const tracingSeedSchema = z.object({
  id: z.string().optional(),
  tracingType: z.enum(TRACING_TYPES).default('SUPPLY_CHAINS'),
  tracingId: z.string().min(1),
  tracingName: nullableString,
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

export const productSeedSchema = z.object({
  id: z.string().min(1),
  parentId: nullableString,
  forCompanyId: z.string().optional(),
  externalId: nullableString,
  name: z.string().min(1).max(255),
  codes: z.array(z.object({ codeId: z.string(), codeValue: z.string().min(1) })).min(1),
  description: nullableString,
  gender: nullableString,
  styleLevelId: nullableString,
  styleTypeId: z.string().optional(),
  productLevel: nullableString,
  color: nullableString,
  dimension: nullableString,
  brands: nullableStrings,
  departments: nullableStrings,
  seasons: nullableStrings,
  collections: nullableStrings,
  claimIntentions: nullableStrings,
  suppliers: nullableStrings,
  vendors: nullableStrings,
  mainSupplier: nullableString,
  customProperties: nullableString,
  imagesFileIds: nullableStrings,
  ecoFootPrint: z.record(z.string(), z.unknown()).nullable().default(null),
  weight: z.object({ unit: z.string(), value: z.number() }).nullable().default(null),
  isComponent: z.boolean().default(false),
  isStoryActive: z.boolean().default(false),
  isArchived: z.boolean().default(false),
  /** Omitted: generated at load. Null: generation still pending (rescheduled at load). */
  qrCodeUrl: z.string().nullable().optional(),
  /** Tracing data attached to the product; needed before `isStoryActive` can be true. */
  tracing: tracingSeedSchema.nullable().default(null),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  created: auditSchema.optional(),
  updated: auditSchema.optional(),
});
export type ProductSeed = z.infer<typeof productSeedSchema>;

export const catalogueSectionSchema = z.object({
  styleTypes: z.array(styleTypeSeedSchema).default([]),
  styleProperties: z.array(stylePropertySeedSchema).default([]),
  products: z.array(productSeedSchema).default([]),
});
export type CatalogueSection = z.input<typeof catalogueSectionSchema>;

export interface LoadedCatalogue {
  styleTypes: StyleTypeRecord[];
  properties: StylePropertyRecord[];
  products: ProductRecord[];
  /** Products whose QR code is still pending. */
  pendingQr: string[];
}

export function parseCatalogueSection(raw: unknown, nowIso: string, qrUrl: () => string): LoadedCatalogue {
  const result = catalogueSectionSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `catalogue.${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid sandbox seed: ${issues.join('; ')}`);
  }
  const section = result.data;
  const styleTypes = section.styleTypes.map((type) => ({
    ...type,
    createdAt: type.createdAt ?? nowIso,
    updatedAt: type.updatedAt ?? type.createdAt ?? nowIso,
  }));
  const properties = section.styleProperties.map((property) => ({
    ...property,
    createdAt: property.createdAt ?? nowIso,
    updatedAt: property.updatedAt ?? property.createdAt ?? nowIso,
  }));
  const typeParents = new Map(styleTypes.map((type) => [type.id, type.parentId]));
  const seeds = new Map(section.products.map((product) => [product.id, product]));
  const built = new Map<string, ProductRecord>();
  const pendingQr: string[] = [];

  const build = (seed: ProductSeed): ProductRecord => {
    const existing = built.get(seed.id);
    if (existing) return existing;
    const parentSeed = seed.parentId === null ? undefined : seeds.get(seed.parentId);
    if (seed.parentId !== null && !parentSeed)
      throw new Error(`Invalid sandbox seed: product ${seed.id} has unknown parent`);
    const parent = parentSeed ? build(parentSeed) : undefined;
    const level: ProductLevel = !parent ? 'style' : parent.level === 'style' ? 'variant' : 'sku';
    if (parent?.level === 'sku')
      throw new Error(`Invalid sandbox seed: product ${seed.id} has a SKU as parent`);
    const forCompanyId = parent?.forCompanyId ?? seed.forCompanyId;
    const styleTypeId = parent?.styleTypeId ?? seed.styleTypeId;
    if (!forCompanyId || !styleTypeId) {
      throw new Error(`Invalid sandbox seed: style ${seed.id} needs forCompanyId and styleTypeId`);
    }
    const createdAt = seed.createdAt ?? nowIso;
    const created: AuditStamp = seed.created ?? { ...emptyAudit(), companyId: forCompanyId };
    // Every field written out in one order: records built by spreading parsed seeds end up in slow dictionary mode.
    const record: ProductRecord = {
      id: seed.id,
      level,
      parentId: seed.parentId,
      styleId:
        level === 'style' ? null : level === 'variant' ? (parent?.id ?? null) : (parent?.styleId ?? null),
      variantId: level === 'sku' ? (parent?.id ?? null) : null,
      forCompanyId,
      externalId: seed.externalId,
      name: seed.name,
      codes: seed.codes.map((code) => ({ codeId: code.codeId, codeValue: code.codeValue })),
      description: seed.description,
      gender: seed.gender,
      styleLevelId: seed.styleLevelId ?? (parent ? null : (typeParents.get(styleTypeId) ?? null)),
      styleTypeId,
      productLevel: seed.productLevel,
      color: seed.color,
      dimension: seed.dimension,
      brands: seed.brands,
      departments: seed.departments,
      seasons: seed.seasons,
      collections: seed.collections,
      claimIntentions: seed.claimIntentions,
      suppliers: seed.suppliers,
      vendors: seed.vendors,
      mainSupplier: seed.mainSupplier,
      customProperties: seed.customProperties,
      imagesFileIds: seed.imagesFileIds,
      ecoFootPrint: seed.ecoFootPrint as ProductRecord['ecoFootPrint'],
      weight: seed.weight,
      isComponent: seed.isComponent,
      isStoryActive: seed.isStoryActive,
      isArchived: seed.isArchived,
      qrCodeUrl: seed.qrCodeUrl === undefined ? qrUrl() : seed.qrCodeUrl,
      tracing: seed.tracing
        ? {
            id: seed.tracing.id ?? `tracing_${seed.id}`,
            tracingType: seed.tracing.tracingType,
            tracingId: seed.tracing.tracingId,
            tracingName: seed.tracing.tracingName,
            createdAt: seed.tracing.createdAt ?? createdAt,
            updatedAt: seed.tracing.updatedAt ?? createdAt,
          }
        : null,
      createdAt,
      updatedAt: seed.updatedAt ?? createdAt,
      created,
      updated: seed.updated ?? created,
    };
    if (record.qrCodeUrl === null) pendingQr.push(record.id);
    built.set(record.id, record);
    return record;
  };
  for (const seed of section.products) build(seed);
  return { styleTypes, properties, products: [...built.values()], pendingQr };
}

export function emptyAudit(): AuditStamp {
  return { impersonateId: null, userId: null, companyId: null, apiKeyId: null, apiKeyLabel: null };
}
