/** Records held by the catalogue store. Stored values are the product's OWN values; inheritance is resolved on read. */

export type ProductLevel = 'style' | 'variant' | 'sku';
export const PRODUCT_LEVELS: readonly ProductLevel[] = ['style', 'variant', 'sku'];

export interface ProductCode {
  codeId: string;
  codeValue: string;
}

export interface ProductWeight {
  unit: string;
  value: number;
}

export interface HazardousMaterial {
  idx: number;
  name: string;
  percentage: number;
}

export interface EcoFootPrint {
  syntheticMaterialPercentage: number | null;
  recycledMaterialPercentage: number | null;
  hazardousMaterials: HazardousMaterial[] | null;
  recyclabilityAbsenceDisruptor: boolean | null;
  recyclabilityCanBeSorted: boolean | null;
  recyclabilityCanCollectAtScale: boolean | null;
  recyclabilityIndustrialScale: boolean | null;
  recyclabilityRate: number | null;
}

export const TRACING_TYPES = [
  'SUPPLY_CHAINS',
  'SUPPLY_CHAIN_MAPPINGS',
  'CASCADE_MAPPINGS',
  'TRACING_PURCHASE_ORDERS',
  'TRACING_SALES_ORDERS',
] as const;
export type TracingType = (typeof TRACING_TYPES)[number];

/** Tracing data attached to a product (seeded, or supplied by another domain through `setTracingProvider`). */
export interface TracingLink {
  id: string;
  tracingType: TracingType;
  tracingId: string;
  tracingName: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The created/updated audit set of a product (`createdBy*`, `updatedBy*`). */
export interface AuditStamp {
  impersonateId: string | null;
  userId: string | null;
  companyId: string | null;
  apiKeyId: string | null;
  apiKeyLabel: string | null;
}

export const INHERITABLE_ARRAY_FIELDS = [
  'brands',
  'departments',
  'seasons',
  'collections',
  'suppliers',
  'vendors',
  'claimIntentions',
] as const;
export type InheritableArrayField = (typeof INHERITABLE_ARRAY_FIELDS)[number];

/** Fields a variant or SKU takes from its parent whenever its own value is null (document 1, Inheritance). */
export const INHERITABLE_FIELDS = [
  'description',
  'gender',
  ...INHERITABLE_ARRAY_FIELDS,
  'mainSupplier',
  'weight',
] as const;
export type InheritableField = (typeof INHERITABLE_FIELDS)[number];

export const PROPERTY_CATEGORIES = ['brands', 'departments', 'seasons', 'collections'] as const;
export type PropertyCategory = (typeof PROPERTY_CATEGORIES)[number];

export interface ProductRecord {
  id: string;
  level: ProductLevel;
  /** Direct parent: null for a style, the style for a variant, the variant for a SKU. */
  parentId: string | null;
  /** The style of a variant or SKU; null on a style. */
  styleId: string | null;
  /** The variant of a SKU; null otherwise. */
  variantId: string | null;
  /** The catalogue (company) the product belongs to. Children always share their style's. */
  forCompanyId: string;
  externalId: string | null;
  name: string;
  codes: ProductCode[];
  description: string | null;
  gender: string | null;
  /** Own value; variants and SKUs without one show their style's. */
  styleLevelId: string | null;
  /** Held on every level: children carry their style's type (kept in step when the style's type changes). */
  styleTypeId: string;
  productLevel: string | null;
  color: string | null;
  dimension: string | null;
  brands: string[] | null;
  departments: string[] | null;
  seasons: string[] | null;
  collections: string[] | null;
  claimIntentions: string[] | null;
  suppliers: string[] | null;
  vendors: string[] | null;
  mainSupplier: string | null;
  customProperties: string | null;
  imagesFileIds: string[] | null;
  ecoFootPrint: EcoFootPrint | null;
  weight: ProductWeight | null;
  isComponent: boolean;
  isStoryActive: boolean;
  isArchived: boolean;
  qrCodeUrl: string | null;
  /** Tracing data seeded on the product (the sandbox's stand-in for an attached supply chain). */
  tracing: TracingLink | null;
  createdAt: string;
  updatedAt: string;
  created: AuditStamp;
  updated: AuditStamp;
}

export interface StyleTypeRecord {
  id: string;
  /** null: a platform-wide type every company sees; otherwise the one company whose account holds it. */
  forCompanyId: string | null;
  name: string;
  /** The style level id (`APPAREL_END_CONSUMER_FINISHED_GOODS`, `FABRICS`, ...). */
  parentId: string | null;
  quantityUnits: string[] | null;
  weightUnits: string[] | null;
  isWeightAvailable: boolean | null;
  assetId: string | null;
  assetType: string | null;
  hierarchyLevel: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface StylePropertyRecord {
  id: string;
  forCompanyId: string;
  category: PropertyCategory;
  value: string | null;
  createdAt: string;
  updatedAt: string;
}
