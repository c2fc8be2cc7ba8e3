import type { Caller } from '../../core/context';
import { ApiError, badRequest, conflict, notFound } from '../../core/errors';
import { checkCodes } from './codes';
import type { CatalogueDeps } from './store';
import {
  checkCompanies,
  checkCustomProperties,
  checkImages,
  checkProperties,
  checkStyleLevel,
  checkStyleType,
  normaliseEcoFootPrint,
  normaliseWeight,
} from './references';
import type { CreateProductBody, UpdateProductBody } from './schemas';
import type { AuditStamp, ProductLevel, ProductRecord } from './types';
import { PROPERTY_CATEGORIES } from './types';

type SharedBody = CreateProductBody | UpdateProductBody;

export function auditOf(caller: Caller, companyId: string): AuditStamp {
  return {
    impersonateId: null,
    userId: caller.userId,
    companyId,
    apiKeyId: caller.apiKeyId,
    apiKeyLabel: caller.apiKeyLabel,
  };
}

/** Validates every reference the body carries, against the catalogue owner (and the caller for companies/files). */
function checkReferences(deps: CatalogueDeps, callerId: string, ownerId: string, body: SharedBody): void {
  for (const category of PROPERTY_CATEGORIES) checkProperties(deps, ownerId, category, body[category]);
  checkCompanies(deps, callerId, ownerId, 'suppliers', body.suppliers ?? []);
  checkCompanies(deps, callerId, ownerId, 'vendors', body.vendors ?? []);
  if (body.mainSupplier) checkCompanies(deps, callerId, ownerId, 'mainSupplier', [body.mainSupplier]);
  if (body.styleLevelId) checkStyleLevel(deps, ownerId, body.styleLevelId);
  checkImages(deps, callerId, body.imagesFileIds);
  checkCustomProperties(body.customProperties);
}

function checkExternalId(
  deps: CatalogueDeps,
  ownerId: string,
  externalId: string | null | undefined,
  selfId?: string,
): void {
  if (externalId === null || externalId === undefined) return;
  const owner = deps.store().externalIdOwner(ownerId, externalId);
  if (owner !== undefined && owner !== selfId) {
    throw conflict(
      'external_id_already_exists',
      `externalId '${externalId}' already belongs to another product`,
    );
  }
}

function levelBelow(parent: ProductRecord | undefined): ProductLevel {
  if (!parent) return 'style';
  if (parent.level === 'sku')
    throw badRequest('parentId: a SKU cannot have children', 'invalid_parent_level');
  return parent.level === 'style' ? 'variant' : 'sku';
}

/** POST /styles: level from `parentId`, level-specific requirements, codes, externalId and references. */
export function createProduct(
  deps: CatalogueDeps,
  caller: Caller,
  callerId: string,
  body: CreateProductBody,
): ProductRecord {
  const store = deps.store();
  const parent = body.parentId == null ? undefined : store.resolve(callerId, body.parentId);
  if (body.parentId != null && !parent)
    throw notFound(`parentId: no product '${body.parentId}'`, 'parent_not_found');
  const level = levelBelow(parent);

  let ownerId: string;
  let styleTypeId: string;
  if (!parent) {
    if (body.styleTypeId === undefined)
      throw badRequest('styleTypeId: required on a style', 'missing_style_type_id');
    if (body.isComponent === undefined)
      throw badRequest('isComponent: required on a style', 'missing_is_component');
    ownerId = body.forCompanyId ?? callerId;
    if (ownerId !== callerId && !deps.ctx.reaches(callerId, ownerId)) {
      throw badRequest(`forCompanyId: '${ownerId}' is not a company in the caller's network`);
    }
    styleTypeId = checkStyleType(deps, ownerId, body.styleTypeId).id;
  } else {
    ownerId = parent.forCompanyId;
    styleTypeId = parent.styleTypeId;
    if (body.forCompanyId !== undefined && body.forCompanyId !== ownerId) {
      throw badRequest("forCompanyId: a variant or SKU belongs to its style's company");
    }
    if (body.styleTypeId !== undefined && body.styleTypeId !== styleTypeId) {
      throw badRequest("styleTypeId: a variant or SKU takes its style's type");
    }
    if (level === 'variant' && !body.color) throw badRequest('color: required on a variant');
    if (level === 'sku' && !body.dimension) throw badRequest('dimension: required on a SKU');
  }

  checkCodes(store, ownerId, body.codes);
  checkExternalId(deps, ownerId, body.externalId);
  checkReferences(deps, callerId, ownerId, body);
  if (body.isStoryActive) {
    throw badRequest(
      'isStoryActive: a new product has no tracing data (for example a supply chain) yet',
      'tracing_data_required',
    );
  }

  const now = deps.ctx.nowIso();
  const audit = auditOf(caller, callerId);
  const record: ProductRecord = {
    id: deps.ctx.newId(`${level}_`),
    level,
    parentId: parent?.id ?? null,
    styleId: level === 'variant' ? (parent?.id ?? null) : level === 'sku' ? (parent?.styleId ?? null) : null,
    variantId: level === 'sku' ? (parent?.id ?? null) : null,
    forCompanyId: ownerId,
    externalId: body.externalId ?? null,
    name: body.name,
    codes: body.codes.map((code) => ({ ...code })),
    description: body.description ?? null,
    gender: body.gender ?? null,
    styleLevelId:
      body.styleLevelId ?? (parent ? null : (store.styleType(ownerId, styleTypeId)?.parentId ?? null)),
    styleTypeId,
    productLevel: body.productLevel ?? null,
    color: body.color ?? null,
    dimension: body.dimension ?? null,
    brands: body.brands ?? null,
    departments: body.departments ?? null,
    seasons: body.seasons ?? null,
    collections: body.collections ?? null,
    claimIntentions: body.claimIntentions ?? null,
    suppliers: body.suppliers ?? null,
    vendors: body.vendors ?? null,
    mainSupplier: body.mainSupplier ?? null,
    customProperties: body.customProperties ?? null,
    imagesFileIds: body.imagesFileIds ?? null,
    ecoFootPrint: normaliseEcoFootPrint(body.ecoFootPrint ?? null),
    weight: normaliseWeight(body.weight ?? null),
    isComponent: body.isComponent ?? parent?.isComponent ?? false,
    isStoryActive: false,
    isArchived: false,
    qrCodeUrl: null,
    tracing: null,
    createdAt: now,
    updatedAt: now,
    created: audit,
    updated: audit,
  };
  store.insert(record);
  return record;
}

function requireUnchanged(field: string, sent: unknown, current: unknown): void {
  if (sent !== undefined && sent !== current) throw badRequest(`${field}: cannot be changed after creation`);
}

/** PUT /styles/{id}: only sent fields change; codes replaced wholesale; null re-enables inheritance on children. */
export function updateProduct(
  deps: CatalogueDeps,
  caller: Caller,
  callerId: string,
  idOrExternalId: string,
  body: UpdateProductBody,
): ProductRecord {
  const store = deps.store();
  const product = store.resolve(callerId, idOrExternalId);
  if (!product) throw notFound(`No product '${idOrExternalId}'`);
  const ownerId = product.forCompanyId;

  if (body.parentId !== undefined) {
    const sentParent =
      body.parentId === null ? null : (store.resolve(callerId, body.parentId)?.id ?? body.parentId);
    requireUnchanged('parentId', sentParent, product.parentId);
  }
  requireUnchanged('isComponent', body.isComponent, product.isComponent);
  requireUnchanged('forCompanyId', body.forCompanyId, product.forCompanyId);
  if (product.level !== 'style') requireUnchanged('styleTypeId', body.styleTypeId, product.styleTypeId);
  else if (body.styleTypeId !== undefined) checkStyleType(deps, ownerId, body.styleTypeId);
  if (body.color === null && product.level === 'variant') throw badRequest('color: required on a variant');
  if (body.dimension === null && product.level === 'sku') throw badRequest('dimension: required on a SKU');
  if (body.codes) checkCodes(store, ownerId, body.codes, product.id);
  checkExternalId(deps, ownerId, body.externalId, product.id);
  checkReferences(deps, callerId, ownerId, body);
  if (body.isStoryActive && !product.isStoryActive && !store.tracingOf(product)) {
    throw new ApiError(
      400,
      'tracing_data_required',
      'isStoryActive: attach tracing data (for example a supply chain) first',
    );
  }

  const { parentId: _p, isComponent: _c, forCompanyId: _f, ecoFootPrint, weight, codes, ...plain } = body;
  const newWeight = weight === undefined ? undefined : normaliseWeight(weight);
  store.unindex(product);
  for (const [key, value] of Object.entries(plain)) {
    if (value !== undefined) (product as unknown as Record<string, unknown>)[key] = value;
  }
  if (codes) product.codes = codes.map((code) => ({ ...code }));
  if (ecoFootPrint !== undefined) product.ecoFootPrint = normaliseEcoFootPrint(ecoFootPrint);
  if (newWeight !== undefined) product.weight = newWeight;
  if (product.level === 'style' && body.styleTypeId !== undefined) {
    for (const child of store.descendants(product.id)) child.styleTypeId = body.styleTypeId;
  }
  product.updatedAt = deps.ctx.nowIso();
  product.updated = auditOf(caller, callerId);
  store.reindex(product);
  return product;
}
