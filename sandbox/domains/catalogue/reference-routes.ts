import type { FastifyInstance } from 'fastify';
import { callerCompany } from '../../core/context';
import { sendPage } from '../../core/envelope';
import { badRequest } from '../../core/errors';
import { pageParams, str, type RawQuery } from '../../core/query';
import type { CatalogueDeps } from './store';
import { presentProperty, presentStyleType } from './present';
import type { ProductRecord, PropertyCategory } from './types';
import { PRODUCT_LEVELS, PROPERTY_CATEGORIES } from './types';

const countCache = new WeakMap<object, Map<string, { version: number; counts: Map<string, number> }>>();

/** Per-company usage counts, recomputed only after the company's products change. */
function cachedCounts(
  deps: CatalogueDeps,
  companyId: string,
  kind: string,
  compute: () => Map<string, number>,
): Map<string, number> {
  const store = deps.store();
  let cache = countCache.get(store);
  if (!cache) countCache.set(store, (cache = new Map()));
  const key = `${companyId}\u0000${kind}`;
  const hit = cache.get(key);
  if (hit && hit.version === store.version(companyId)) return hit.counts;
  const counts = compute();
  cache.set(key, { version: store.version(companyId), counts });
  return counts;
}

function forEachProduct(
  deps: CatalogueDeps,
  companyId: string,
  visit: (product: ProductRecord) => void,
): void {
  const store = deps.store();
  for (const level of PRODUCT_LEVELS) {
    for (const product of store.productsAt(companyId, level)) {
      if (!product.isArchived && product.forCompanyId === companyId) visit(product);
    }
  }
}

const byName = (a: string | null, b: string | null): number => (a ?? '').localeCompare(b ?? '');

/** GET /style-types and GET /style-properties: read-only, paginated, the caller's account only. */
export function registerReferenceRoutes(app: FastifyInstance, deps: CatalogueDeps): void {
  app.get<{ Querystring: RawQuery }>('/style-types', async (request, reply) => {
    const callerId = callerCompany(request);
    const { page, limit } = pageParams(request.query);
    const counts = cachedCounts(deps, callerId, 'styleTypes', () => {
      const counted = new Map<string, number>();
      forEachProduct(deps, callerId, (product) =>
        counted.set(product.styleTypeId, (counted.get(product.styleTypeId) ?? 0) + 1),
      );
      return counted;
    });
    const types = deps
      .store()
      .styleTypesFor(callerId)
      .sort((a, b) => byName(a.name, b.name) || byName(a.id, b.id))
      .map((type) => ({ ...presentStyleType(type), count: counts.get(type.id) ?? 0 }));
    return sendPage(reply, types, page, limit);
  });

  app.get<{ Querystring: RawQuery }>('/style-properties', async (request, reply) => {
    const callerId = callerCompany(request);
    const type = str(request.query, 'type');
    if (!type || !(PROPERTY_CATEGORIES as readonly string[]).includes(type)) {
      throw badRequest(`Query parameter 'type' must be one of ${PROPERTY_CATEGORIES.join(', ')}`);
    }
    const category = type as PropertyCategory;
    const { page, limit } = pageParams(request.query);
    const counts = cachedCounts(deps, callerId, category, () => {
      const counted = new Map<string, number>();
      forEachProduct(deps, callerId, (product) => {
        for (const id of product[category] ?? []) counted.set(id, (counted.get(id) ?? 0) + 1);
      });
      return counted;
    });
    const properties = deps
      .store()
      .propertiesFor(callerId)
      .filter((property) => property.category === category)
      .sort((a, b) => byName(a.value, b.value) || byName(a.id, b.id))
      .map((property) => ({ ...presentProperty(property), count: counts.get(property.id) ?? 0 }));
    return sendPage(reply, properties, page, limit);
  });
}
