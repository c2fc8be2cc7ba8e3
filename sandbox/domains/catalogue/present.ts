import type { FileRecord } from '../files/store';
import type { CatalogueDeps } from './store';
import type {
  AuditStamp,
  InheritableField,
  ProductRecord,
  StylePropertyRecord,
  StyleTypeRecord,
} from './types';
import { INHERITABLE_FIELDS, PROPERTY_CATEGORIES } from './types';

/** How a product is being shown: a single read (full images) or a list item, with the `include` values asked for. */
export interface PresentOptions {
  origin: string;
  callerId: string;
  includes: ReadonlySet<string>;
  list: boolean;
}

type Json = Record<string, unknown>;

/** A field's value after inheritance: the product's own, else the nearest ancestor's. */
export function resolved<K extends InheritableField | 'styleLevelId'>(
  chain: readonly ProductRecord[],
  field: K,
): ProductRecord[K] | null {
  for (const product of chain) {
    const value = product[field];
    if (value !== null) return value;
  }
  return null;
}

export function chainOf(deps: CatalogueDeps, product: ProductRecord): ProductRecord[] {
  return product.parentId === null ? [product] : [product, ...deps.store().ancestors(product.id)];
}

function audit(prefix: 'createdBy' | 'updatedBy', stamp: AuditStamp): Json {
  return {
    [`${prefix}ImpersonateId`]: stamp.impersonateId,
    [`${prefix}UserId`]: stamp.userId,
    [`${prefix}CompanyId`]: stamp.companyId,
    [`${prefix}ApiKeyId`]: stamp.apiKeyId,
    [`${prefix}ApiKeyLabel`]: stamp.apiKeyLabel,
  };
}

function image(file: FileRecord, origin: string, skuShape: boolean): Json {
  const url = `${origin}/__storage/${file.id}`;
  const base = {
    id: file.id,
    url,
    previewUrl: url,
    fileType: file.fileType,
    name: file.name,
    contentType: file.fileType,
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
  };
  if (skuShape) return base;
  return {
    ...base,
    bucketName: file.bucketName,
    fileSize: file.fileSize,
    fileHash: file.fileHash,
    createdBy: file.createdByUserId,
    createdByCompanyId: file.createdByCompanyId,
    createdByImpersonateId: null,
    createdByImpersonateName: null,
    createdByUserId: file.createdByUserId,
    createdByApiKeyId: file.createdByApiKeyId,
    createdByApiKeyLabel: file.createdByApiKeyLabel,
    updatedByUserId: file.createdByUserId,
    updatedByUserName: null,
    updatedByCompanyId: file.createdByCompanyId,
    updatedByCompanyName: null,
    updatedByImpersonateId: null,
    updatedByImpersonateName: null,
    updatedByApiKeyId: file.createdByApiKeyId,
    updatedByApiKeyLabel: file.createdByApiKeyLabel,
  };
}

export function presentStyleType(type: StyleTypeRecord): Json {
  return {
    id: type.id,
    name: type.name,
    parentId: type.parentId,
    quantityUnits: type.quantityUnits,
    weightUnits: type.weightUnits,
    isWeightAvailable: type.isWeightAvailable,
    assetId: type.assetId,
    assetType: type.assetType,
    hierarchyLevel: type.hierarchyLevel,
    createdAt: type.createdAt,
    createdByUserId: null,
    createdByCompanyId: type.forCompanyId,
    updatedAt: type.updatedAt,
    updatedByUserId: null,
    updatedByCompanyId: type.forCompanyId,
  };
}

export function presentProperty(property: StylePropertyRecord): Json {
  return {
    id: property.id,
    forCompanyId: property.forCompanyId,
    value: property.value,
    category: property.category,
    createdAt: property.createdAt,
    updatedAt: property.updatedAt,
    ...audit('createdBy', {
      impersonateId: null,
      userId: null,
      companyId: property.forCompanyId,
      apiKeyId: null,
      apiKeyLabel: null,
    }),
    ...audit('updatedBy', {
      impersonateId: null,
      userId: null,
      companyId: property.forCompanyId,
      apiKeyId: null,
      apiKeyLabel: null,
    }),
  };
}

/** The product as the API shows it: inherited fields resolved, level-specific fields, and the asked-for includes. */
export function presentProduct(deps: CatalogueDeps, product: ProductRecord, options: PresentOptions): Json {
  const store = deps.store();
  const chain = chainOf(deps, product);
  const isChild = product.level !== 'style';
  const files = (product.imagesFileIds ?? [])
    .map((id) => deps.files().get(id))
    .filter((file) => file !== undefined);
  const images = files.map((file) => image(file, options.origin, product.level === 'sku'));
  const own: Json = isChild ? {} : (product as unknown as Json);
  if (isChild) for (const field of INHERITABLE_FIELDS) own[field] = resolved(chain, field);
  const tracing = store.tracingOf(product);
  const { includes } = options;

  const out: Json = {
    id: product.id,
    externalId: product.externalId,
    forCompanyId: product.forCompanyId,
    styleId: product.styleId,
    variantId: product.variantId,
    name: product.name,
    codes: product.codes.map((code) => ({ ...code })),
    description: own['description'],
    gender: own['gender'],
    styleLevelId: resolved(chain, 'styleLevelId'),
    styleTypeId: product.styleTypeId,
    productLevel: product.productLevel,
    color: product.color,
    dimension: product.dimension,
    brands: own['brands'],
    departments: own['departments'],
    seasons: own['seasons'],
    collections: own['collections'],
    claimIntentions: own['claimIntentions'],
    suppliers: own['suppliers'],
    vendors: own['vendors'],
    mainSupplier: own['mainSupplier'],
    customProperties: product.customProperties,
    imagesFileIds: product.imagesFileIds,
    featureImageUrl: (images[0]?.['url'] as string | undefined) ?? null,
    isComponent: product.isComponent,
    isStoryActive: product.isStoryActive,
    isArchived: product.isArchived,
    qrCodeUrl: product.qrCodeUrl,
    createdAt: product.createdAt,
    updatedAt: product.updatedAt,
    createdByImpersonateId: product.created.impersonateId,
    createdByUserId: product.created.userId,
    createdByCompanyId: product.created.companyId,
    createdByApiKeyId: product.created.apiKeyId,
    createdByApiKeyLabel: product.created.apiKeyLabel,
    updatedByImpersonateId: product.updated.impersonateId,
    updatedByUserId: product.updated.userId,
    updatedByCompanyId: product.updated.companyId,
    updatedByApiKeyId: product.updated.apiKeyId,
    updatedByApiKeyLabel: product.updated.apiKeyLabel,
    ecoFootPrint: product.ecoFootPrint,
    weight: own['weight'],
    tracingStory: null,
  };
  if (!options.list || (isChild && includes.has('images'))) out['images'] = images;
  if (isChild) {
    out['featuredImage'] = images[0] ?? null;
    out['isWeightAvailable'] = own['weight'] !== null;
    out['overriddenFlag'] = INHERITABLE_FIELDS.filter((field) => product[field] !== null);
  }
  if (product.level === 'variant') out['skuCount'] = store.children(product.id).length;

  if (includes.has('type')) {
    const type = store.styleType(product.forCompanyId, product.styleTypeId);
    out['type'] = type ? presentStyleType(type) : null;
  }
  if (includes.has('tracingStory') && tracing) {
    out['tracingStory'] = { ...tracing, isActive: product.isStoryActive };
  }
  if (includes.has('styleProperties')) {
    const properties: Json = {};
    for (const category of PROPERTY_CATEGORIES) {
      const ids = (own[category] as string[] | null) ?? [];
      properties[category] = ids
        .map((id) => store.property(product.forCompanyId, id))
        .filter((property) => property !== undefined)
        .map(presentProperty);
    }
    out['styleProperties'] = properties;
  }
  for (const name of ['bom', 'material'] as const) {
    if (includes.has(name)) out[name] = store.hooks.include.get(name)?.(product, options.callerId) ?? [];
  }
  const nested: PresentOptions = { ...options, includes: new Set(), list: true };
  if (isChild && includes.has('style') && product.styleId) {
    const style = store.get(product.styleId);
    out['style'] = style ? presentProduct(deps, style, nested) : null;
  }
  if (product.level === 'sku' && product.variantId) {
    const variant = store.get(product.variantId);
    if (includes.has('variant')) out['variant'] = variant ? presentProduct(deps, variant, nested) : null;
    if (includes.has('styleLink')) out['styleLink'] = [];
    if (includes.has('skuCount')) out['skuCount'] = store.children(product.variantId).length;
  }
  return out;
}
