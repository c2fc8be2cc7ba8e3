import { badRequest } from '../../core/errors';
import {
  bool,
  list,
  pageParams,
  shuffleTies,
  sortParams,
  str,
  updatedWindow,
  type PageParams,
  type RawQuery,
  type SortOrder,
} from '../../core/query';
import { seededRandom } from '../../core/prng';
import type { CatalogueDeps } from './store';
import { chainOf, resolved } from './present';
import type { CatalogueStore } from './store';
import type { InheritableArrayField, ProductLevel, ProductRecord } from './types';
import { INHERITABLE_ARRAY_FIELDS, PRODUCT_LEVELS } from './types';

export const STYLE_SORT_COLUMNS = [
  'createdAt',
  'updatedAt',
  'name',
  'gender',
  'typeName',
  'color',
  'styleId',
  'dimension',
  'variantId',
] as const;
type SortColumn = (typeof STYLE_SORT_COLUMNS)[number];

// The spec's include list; the client's copy (connectors/traceability/schemas/products.ts) stays apart on purpose.
export const INCLUDE_VALUES = [
  'type',
  'material',
  'bom',
  'styleProperties',
  'tracingStory',
  'images',
  'style',
  'variant',
  'styleLink',
  'skuCount',
] as const;

type Predicate = (product: ProductRecord) => boolean;

export interface StyleListQuery {
  /** Identifies the filter and sort (not the page), to reuse a match list while paging. */
  cacheKey: string;
  level: ProductLevel;
  page: PageParams;
  sort: SortColumn;
  order: SortOrder;
  includes: Set<string>;
  predicates: Predicate[];
  /** A filter names a product that does not exist: the answer is an empty page. */
  matchesNothing: boolean;
}

export function parseIncludes(query: RawQuery): Set<string> {
  const values = list(query, 'include') ?? [];
  for (const value of values) {
    if (!(INCLUDE_VALUES as readonly string[]).includes(value)) {
      throw badRequest(`Query parameter 'include' takes ${INCLUDE_VALUES.join(', ')}; got '${value}'`);
    }
  }
  return new Set(values);
}

// Every inherited array field is a GET /styles filter but claimIntentions.
const ARRAY_FILTERS: readonly InheritableArrayField[] = INHERITABLE_ARRAY_FIELDS.filter(
  (field) => field !== 'claimIntentions',
);

/** Parses GET /styles' query: level, paging, sort, include, and one predicate per filter given. */
export function parseStyleListQuery(deps: CatalogueDeps, callerId: string, query: RawQuery): StyleListQuery {
  const level = (str(query, 'level') ?? 'style') as ProductLevel;
  if (!PRODUCT_LEVELS.includes(level))
    throw badRequest(`Query parameter 'level' must be style, variant or sku`);
  const page = pageParams(query);
  const { sort, order } = sortParams(query, STYLE_SORT_COLUMNS, 'createdAt');
  const includes = parseIncludes(query);
  const predicates: Predicate[] = [];
  let matchesNothing = false;
  const inherited = (product: ProductRecord) => chainOf(deps, product);

  const archived = bool(query, 'isArchived') ?? false;
  predicates.push((product) => product.isArchived === archived);
  for (const name of ['isComponent', 'isStoryActive'] as const) {
    const wanted = bool(query, name);
    if (wanted !== undefined) predicates.push((product) => product[name] === wanted);
  }
  const createdForMe = bool(query, 'createdForMe');
  if (createdForMe !== undefined) {
    predicates.push(
      (product) =>
        (product.forCompanyId === callerId && product.created.companyId !== callerId) === createdForMe,
    );
  }
  const inWindow = updatedWindow(query);
  if (str(query, 'updatedAfterUnixMs') !== undefined || str(query, 'updatedBeforeUnixMs') !== undefined) {
    predicates.push((product) => inWindow(product.updatedAt));
  }

  const name = str(query, 'name');
  if (name) predicates.push((product) => product.name.includes(name));
  const nameOrCode = str(query, 'nameOrCode')?.toLowerCase();
  if (nameOrCode) {
    predicates.push(
      (product) =>
        product.name.toLowerCase().includes(nameOrCode) ||
        product.codes.some((code) => code.codeValue.toLowerCase().includes(nameOrCode)),
    );
  }
  const codeId = str(query, 'codeId');
  const codeValue = str(query, 'codeValue');
  if (codeId !== undefined || codeValue !== undefined) {
    predicates.push((product) =>
      product.codes.some(
        (code) =>
          (codeId === undefined || code.codeId === codeId) &&
          (codeValue === undefined || code.codeValue === codeValue),
      ),
    );
  }
  const description = str(query, 'description');
  if (description)
    predicates.push((product) => resolved(inherited(product), 'description')?.includes(description) ?? false);
  const gender = str(query, 'gender');
  if (gender !== undefined) predicates.push((product) => resolved(inherited(product), 'gender') === gender);
  const styleTypeId = str(query, 'styleTypeId');
  if (styleTypeId !== undefined) predicates.push((product) => product.styleTypeId === styleTypeId);
  const styleLevelId = str(query, 'styleLevelId');
  if (styleLevelId !== undefined)
    predicates.push((product) => resolved(inherited(product), 'styleLevelId') === styleLevelId);
  for (const field of ARRAY_FILTERS) {
    const wanted = list(query, field);
    if (wanted && wanted.length > 0) {
      predicates.push((product) =>
        (resolved(inherited(product), field) ?? []).some((id) => wanted.includes(id)),
      );
    }
  }
  const mainSupplier = str(query, 'mainSupplier');
  if (mainSupplier !== undefined)
    predicates.push((product) => resolved(inherited(product), 'mainSupplier') === mainSupplier);
  const companyId = str(query, 'companyId');
  if (companyId !== undefined) predicates.push((product) => product.forCompanyId === companyId);
  // The spec gives these "when level=variant" / "when level=sku" only; at another level they are ignored, as an
  // unknown parameter is (spec 03), so no client comes to rely on a filter the API does not promise.
  const color = level === 'variant' ? str(query, 'color') : undefined;
  if (color !== undefined) predicates.push((product) => product.color === color);
  const dimension = level === 'sku' ? str(query, 'dimension') : undefined;
  if (dimension !== undefined) predicates.push((product) => product.dimension === dimension);

  for (const [field, at] of [
    ['styleId', 'variant'],
    ['variantId', 'sku'],
  ] as const) {
    const value = level === at ? str(query, field) : undefined;
    if (value === undefined) continue;
    const target = deps.store().resolve(callerId, value);
    if (!target) matchesNothing = true;
    else predicates.push((product) => product[field] === target.id);
  }
  const filterParams = Object.entries(query)
    .filter(([key]) => key !== 'page' && key !== 'limit' && key !== 'include')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const cacheKey = `${callerId}\u0000${JSON.stringify(filterParams)}`;
  return { cacheKey, level, page, sort, order, includes, predicates, matchesNothing };
}

type SortKey = string | null;

function sortKeyOf(deps: CatalogueDeps, column: SortColumn): (product: ProductRecord) => SortKey {
  const store = deps.store();
  switch (column) {
    case 'gender':
      return (product) => resolved(chainOf(deps, product), 'gender');
    case 'typeName':
      return (product) => store.styleType(product.forCompanyId, product.styleTypeId)?.name ?? null;
    case 'createdAt':
    case 'updatedAt':
    case 'name':
    case 'color':
    case 'styleId':
    case 'dimension':
    case 'variantId':
      return (product) => product[column];
  }
}

interface SortedProducts {
  version: number;
  products: readonly ProductRecord[];
}
const sortCache = new WeakMap<CatalogueStore, Map<string, SortedProducts>>();

/** The company's products at one level in ascending `column` order (nulls last), cached until its next write. */
export function sortedProducts(
  deps: CatalogueDeps,
  companyId: string,
  level: ProductLevel,
  column: SortColumn,
): readonly ProductRecord[] {
  const store = deps.store();
  const base = store.productsAt(companyId, level);
  if (column === 'createdAt') return base;
  let cache = sortCache.get(store);
  if (!cache) sortCache.set(store, (cache = new Map()));
  const cacheKey = `${companyId}\u0000${level}\u0000${column}`;
  const version = store.version(companyId);
  const hit = cache.get(cacheKey);
  if (hit && hit.version === version) return hit.products;
  const keyOf = sortKeyOf(deps, column);
  const keyed = base.map((product, index) => ({ product, index, key: keyOf(product) }));
  keyed.sort((a, b) => {
    if (a.key !== b.key) {
      if (a.key === null) return 1;
      if (b.key === null) return -1;
      return a.key < b.key ? -1 : 1;
    }
    return a.index - b.index;
  });
  const products = keyed.map((entry) => entry.product);
  cache.set(cacheKey, { version, products });
  return products;
}

function matchesAll(predicates: readonly Predicate[], product: ProductRecord): boolean {
  for (const predicate of predicates) if (!predicate(product)) return false;
  return true;
}

interface CachedMatches {
  version: number;
  matches: readonly ProductRecord[];
}
const MATCH_CACHE_SIZE = 64;
// Repeatable dice for `productTies: 'shuffled'`: a new order on every query, the same run on every start.
const productTieOrder = seededRandom(0x5717e5);
const matchCache = new WeakMap<CatalogueStore, Map<string, CachedMatches>>();

/**
 * Filters the sorted products; returns the page's records and the total that matched. The match list is kept
 * (a few dozen, until the company's next write) so paging through one filter costs one scan, not one per page.
 */
export function runStyleList(
  deps: CatalogueDeps,
  callerId: string,
  query: StyleListQuery,
): { items: ProductRecord[]; total: number } {
  if (query.matchesNothing) return { items: [], total: 0 };
  const store = deps.store();
  let cache = matchCache.get(store);
  if (!cache) matchCache.set(store, (cache = new Map()));
  const version = store.version(callerId);
  let matches = cache.get(query.cacheKey);
  if (!matches || matches.version !== version) {
    const products = sortedProducts(deps, callerId, query.level, query.sort);
    const found: ProductRecord[] = [];
    const descending = query.order === 'desc';
    const { predicates } = query;
    for (let i = 0; i < products.length; i++) {
      const product = products[descending ? products.length - 1 - i : i] as ProductRecord;
      if (matchesAll(predicates, product)) found.push(product);
    }
    matches = { version, matches: found };
    cache.delete(query.cacheKey);
    cache.set(query.cacheKey, matches);
    if (cache.size > MATCH_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  const { page, limit } = query.page;
  const start = (page - 1) * limit;
  const listed =
    deps.ctx.settings.productTies === 'shuffled'
      ? shuffleTies(matches.matches, sortKeyOf(deps, query.sort), productTieOrder)
      : matches.matches;
  return { items: listed.slice(start, start + limit), total: listed.length };
}
