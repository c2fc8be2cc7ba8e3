/**
 * What the push reads from the platform before it plans: the caller's company, company codes, facility processes,
 * product ids, and a snapshot of the export's orders (the pull reuses the line listing).
 */

import { foldCompanyCode } from '../companies';
import type { ApiCalls } from '../staging';
import { forEachBounded } from '../staging';
import { readList, type Order, type OrderLine, type Page, type Product } from '../traceability';
import type { OrderType } from '../traceability/schemas/orders';
import type { BuildContext } from './orders/build';
import { productRefKey, type OrderDraft, type ProductRef } from './orders/draft';
import { companyResolverFromDirectory, type CompanyDirectoryEntry } from './orders/lookups';
import { existingOrderSchema, type ExistingOrder } from './reconcile';

/** The caller's company, per client (one client per key), for the life of the worker: a key never changes company. */
const ownCompanyCache = new WeakMap<object, string>();

/**
 * Which company the key belongs to: the API has no "who am I", but every readable order is the caller's own
 * (`forCompanyId`), and a product of the caller's catalogue that the caller created names it too.
 */
export async function ownCompanyId(api: ApiCalls): Promise<string> {
  const cached = ownCompanyCache.get(api.client);
  if (cached !== undefined) return cached;
  const orders = await api.one(() => api.client.orders.list({ limit: 1 }));
  let id = orders.items[0]?.forCompanyId ?? undefined;
  if (!id) {
    const products = await api.one(() => api.client.products.list({ limit: 100 }));
    id =
      products.items.find(
        (product) => product.forCompanyId && product.forCompanyId === product['createdByCompanyId'],
      )?.forCompanyId ?? undefined;
  }
  if (!id) {
    throw new Error(
      'cannot tell which company the API key belongs to (it owns no order and created no product); ' +
        'create one order or product with this key, or give buyer and supplier ids in the mapping profile',
    );
  }
  ownCompanyCache.set(api.client, id);
  return id;
}

/**
 * Company codes → ids. The API's code filter is a substring match, one call per code; when the whole network fits
 * in fewer pages than there are codes, or every id is needed anyway (`wholeNetwork`), reading it once is cheaper.
 */
export async function companyDirectory(
  api: ApiCalls,
  codes: readonly string[],
  wholeNetwork = false,
): Promise<{ entries: CompanyDirectoryEntry[]; ids?: Set<string>; nameless?: Map<string, string> }> {
  if (codes.length === 0 && !wholeNetwork) return { entries: [] };
  const fetchPage = (page: number, limit: number) => api.client.companies.list({ page, limit });
  const first = await api.one(() => fetchPage(1, 100));
  if (wholeNetwork || first.pagination.totalPages <= codes.length) {
    const all = await api.all('GET /companies', fetchPage, first);
    const entries = all.flatMap((company) =>
      company.internalCompanyCode
        ? [{ id: company.id, code: company.internalCompanyCode, name: company.name ?? undefined }]
        : [],
    );
    if (!wholeNetwork) return { entries };
    const nameless = new Map(
      all.flatMap((company) =>
        !company.internalCompanyCode && company.name ? [[company.id, company.name]] : [],
      ),
    );
    return { entries, ids: new Set(all.map((company) => company.id)), nameless };
  }
  // The filter is a case-insensitive substring: keep what the whole-network read would keep for the code (every
  // company whose code is the same, case aside), so a code resolves the same way however the network was read.
  const entries = new Map<string, CompanyDirectoryEntry>();
  for (const code of codes) {
    const found = await api.all(`GET /companies?filter[internalCompanyCode]=${code}`, (page, limit) =>
      api.client.companies.list({ filter: { internalCompanyCode: code }, page, limit }),
    );
    for (const company of found) {
      const own = company.internalCompanyCode;
      if (own && foldCompanyCode(own) === foldCompanyCode(code))
        entries.set(company.id, { id: company.id, code: own, name: company.name ?? undefined });
    }
  }
  return { entries: [...entries.values()] };
}

/** Own company, company codes (and every id when the export gives ids), facility processes. */
export async function buildContext(
  api: ApiCalls,
  codes: readonly string[],
  checkIds = false,
): Promise<BuildContext> {
  const [own, directory, processes] = await Promise.all([
    ownCompanyId(api),
    companyDirectory(api, codes, checkIds),
    api.all('GET /facility-processes', (page, limit) => api.client.processes.listFacility({ page, limit })),
  ]);
  return {
    ownCompanyId: own,
    companies: companyResolverFromDirectory(directory.entries),
    facilityProcesses: processes.map(({ id, name }) => ({ id, name })),
    companyCodes: new Map([
      ...(directory.nameless ?? []),
      ...directory.entries.map((entry) => [entry.id, entry.code] as const),
    ]),
    ...(directory.ids ? { knownCompanyIds: directory.ids } : {}),
  };
}

/** Every product ref of the drafts: the run resolves them all, so a dry run refuses what the real run would. */
export function refsToResolve(drafts: readonly OrderDraft[]): Map<string, ProductRef> {
  const refs = new Map<string, ProductRef>();
  for (const draft of drafts) {
    for (const line of draft.lines) refs.set(productRefKey(line.productRef), line.productRef);
  }
  return refs;
}

export interface ProductResolution {
  resolved: Map<string, string>;
  unresolved: string[];
  /** Refs whose product is archived (resolved too: an existing line may hold one). */
  archived: string[];
}

/** Calls one ref costs looked up alone: one GET by externalId; a code, up to one list per level and archive state. */
const LOOKUP_COST = { externalId: 1, code: 6 } as const;
const LEVELS = ['style', 'variant', 'sku'] as const;

/**
 * Spec 03, Order line.styleId: "A non-archived product owned by the caller". The caller's lists also show products it
 * created for another company (spec 01, POST /styles `forCompanyId`), whose codes may repeat the caller's own (codes
 * are unique per owner): those are never a line's product. `owner` undefined (a run staged before it was known)
 * takes any.
 */
function ownedBy(owner: string | undefined): (product: Pick<Product, 'forCompanyId'>) => boolean {
  return (product) => owner === undefined || !product.forCompanyId || product.forCompanyId === owner;
}

/**
 * Platform ids of product refs, the cheapest way: one GET per externalId and codes level by level, or, when the
 * catalogue has fewer pages than that would cost, the catalogue read in pages of 100 (non-archived levels first,
 * archived ones only for refs still missing). Never one call per line: refs are distinct products. Only products
 * `owner` (the caller's company) owns count.
 */
export async function resolveProducts(
  api: ApiCalls,
  refs: ReadonlyMap<string, ProductRef>,
  owner: string | undefined,
): Promise<ProductResolution> {
  const cost = [...refs.values()].reduce(
    (sum, ref) => sum + ('externalId' in ref ? LOOKUP_COST.externalId : LOOKUP_COST.code),
    0,
  );
  // Reading the catalogue costs at least one page per level: not worth asking below that.
  const owned = ownedBy(owner);
  if (cost <= LEVELS.length) return oneByOne(api, refs, owned);
  const firstPages = await Promise.all(
    LEVELS.map((level) =>
      api.one(() => api.client.products.list({ level, isArchived: false, page: 1, limit: 100 })),
    ),
  );
  const pages = firstPages.reduce((sum, page) => sum + Math.max(1, page.pagination.totalPages), 0);
  return pages < cost ? fromCatalogue(api, refs, firstPages, owned) : oneByOne(api, refs, owned);
}

type Owned = ReturnType<typeof ownedBy>;

async function oneByOne(
  api: ApiCalls,
  refs: ReadonlyMap<string, ProductRef>,
  owned: Owned,
): Promise<ProductResolution> {
  const result: ProductResolution = { resolved: new Map(), unresolved: [], archived: [] };
  await forEachBounded([...refs.entries()], api.lanes(4), async ([key, ref]) => {
    const found =
      'externalId' in ref
        ? await byExternalId(api, ref.externalId, owned)
        : await byCode(api, ref.codeId, ref.codeValue, owned);
    if (found === undefined) result.unresolved.push(key);
    else {
      result.resolved.set(key, found.id);
      if (found.isArchived) result.archived.push(key);
    }
  });
  return { ...result, unresolved: result.unresolved.sort(), archived: result.archived.sort() };
}

async function fromCatalogue(
  api: ApiCalls,
  refs: ReadonlyMap<string, ProductRef>,
  firstPages: ReadonlyArray<Page<Product>>,
  owned: Owned,
): Promise<ProductResolution> {
  const result: ProductResolution = { resolved: new Map(), unresolved: [], archived: [] };
  const missing = new Map(refs);
  const keysOf = (product: Product): string[] => [
    ...(product.externalId ? [productRefKey({ externalId: product.externalId })] : []),
    ...product.codes.map((code) => productRefKey({ codeId: code.codeId, codeValue: code.codeValue })),
  ];
  for (const [index, level] of LEVELS.entries()) {
    for (let page = 1; missing.size > 0; page++) {
      const known = page === 1 ? firstPages[index] : undefined;
      const answer =
        known ??
        (await api.one(() => api.client.products.list({ level, isArchived: false, page, limit: 100 })));
      for (const product of answer.items.filter(owned)) {
        for (const key of keysOf(product)) {
          if (!missing.delete(key)) continue;
          result.resolved.set(key, product.id);
        }
      }
      if (answer.items.length === 0 || page >= answer.pagination.totalPages) break;
    }
  }
  // What the active catalogue lacks is archived or unknown, usually a few: looked up one by one (archived included).
  const rest = await oneByOne(api, missing, owned);
  for (const [key, id] of rest.resolved) result.resolved.set(key, id);
  return { resolved: result.resolved, unresolved: rest.unresolved, archived: rest.archived };
}

async function byExternalId(
  api: ApiCalls,
  externalId: string,
  owned: Owned,
): Promise<{ id: string; isArchived: boolean } | undefined> {
  const product = await api.one(() => api.client.naturalKeys.findProductByExternalId(externalId));
  return product && owned(product) ? { id: product.id, isArchived: product.isArchived === true } : undefined;
}

async function byCode(
  api: ApiCalls,
  codeId: string,
  codeValue: string,
  owned: Owned,
): Promise<{ id: string; isArchived: boolean } | undefined> {
  for (const isArchived of [false, true]) {
    for (const level of ['style', 'variant', 'sku'] as const) {
      const found = await api.all(
        `GET /styles?level=${level}&codeId=${codeId}&codeValue=${codeValue}&isArchived=${isArchived}`,
        (page, limit) => api.client.products.list({ level, codeId, codeValue, isArchived, page, limit }),
      );
      const match = found.find(
        (product) =>
          owned(product) &&
          product.codes.some((code) => code.codeId === codeId && code.codeValue === codeValue),
      );
      if (match) return { id: match.id, isArchived };
    }
  }
  return undefined;
}

/** `orderType` + `orderNumber`: the natural key (numbers are unique per company and order type). */
export const naturalKey = (orderType: string, orderNumber: string): string =>
  `${orderType}\u0000${orderNumber}`;

/** An order from the API as the reconciliation reads it (list answers carry no lines). */
export function toExisting(order: Order, lines: readonly OrderLine[] = order.lines ?? []): ExistingOrder {
  return existingOrderSchema.parse({ ...order, lines: [...lines].sort((a, b) => a.lineNo - b.lineNo) });
}

export interface Snapshot {
  mode: 'listed' | 'lookup';
  /** listed mode: the platform's orders with the export's numbers, by natural key (lines filled when `linesListed`). */
  existing: Map<string, { order: ExistingOrder; linesKnown: boolean }>;
  /** listed mode: the types the platform holds each of the export's numbers under (absent: none). */
  typesByNumber: Map<string, OrderType[]>;
  linesListed: boolean;
}

/**
 * What the platform holds for the export's orders, read the cheapest way: when all the caller's orders fit in fewer
 * list pages than there are drafts, they are listed (100 a page) and matched locally; otherwise each batch looks its
 * orders up by number. Lines likewise: every order line listed, or one GET per existing order later.
 * The snapshot decides "unchanged" and, in listed mode, that a number is new (its create is not preceded by a read:
 * an order created with that number since is met by the create's 400 `order_number_already_existing` within its
 * type, and not seen in another type); a patch is planned on a fresh read.
 */
export async function takeSnapshot(api: ApiCalls, drafts: readonly OrderDraft[]): Promise<Snapshot> {
  const snapshot: Snapshot = {
    mode: 'lookup',
    existing: new Map(),
    typesByNumber: new Map(),
    linesListed: false,
  };
  if (drafts.length === 0) return snapshot;
  const wanted = new Set(drafts.map((draft) => naturalKey(draft.orderType, draft.orderNumber)));
  const numbers = new Set(drafts.map((draft) => draft.orderNumber));
  // Sorted by creation, so orders created while we read land on later pages instead of shifting earlier ones.
  const fetchOrders = (page: number, limit: number) =>
    api.client.orders.list({ sort: 'createdAt', order: 'ASC', page, limit });
  const first = await api.one(() => fetchOrders(1, 100));
  if (first.pagination.totalPages >= drafts.length) return snapshot;
  // Read oldest first, an order added meanwhile lands after the pages read; one deleted shifts later orders back a
  // page, and the one that slid onto a page already read is never seen (its number would look free of other types).
  // The list's total says so at no cost: read again once, and if it still moves, let each batch look its orders up.
  const listed = await readList((page, limit) => api.one(() => fetchOrders(page, limit)), {
    first,
    moved: 'shrink',
    reads: 2,
  });
  if (listed.moved !== undefined) return snapshot;
  snapshot.mode = 'listed';
  const matched = new Map<string, Order>();
  for (const order of listed.items) {
    const key = naturalKey(order.orderType, order.orderNumber);
    if (wanted.has(key)) matched.set(key, order);
    if (numbers.has(order.orderNumber) && !order.isArchived) {
      const types = snapshot.typesByNumber.get(order.orderNumber) ?? [];
      if (!types.includes(order.orderType))
        snapshot.typesByNumber.set(order.orderNumber, [...types, order.orderType]);
    }
  }
  const linesByOrder = await listedLines(api, [...matched.values()]);
  if (linesByOrder) snapshot.linesListed = true;
  for (const [key, order] of matched) {
    const noLines = order.lineCount === 0;
    const listed = linesByOrder?.get(order.id);
    snapshot.existing.set(key, {
      order: toExisting(order, listed ?? []),
      // A line count that disagrees with the lines listed means the order changed while we read: read it again later.
      linesKnown: noLines || (listed !== undefined && listed.length === order.lineCount),
    });
  }
  return snapshot;
}

/**
 * The types a number lives under on the platform, for the order_type_changed check. Spec 03: a number is "Unique
 * within the owner company for the same order type" and "archived orders still block number reuse" within that type
 * only, so an archived order of another type does not stand in the way (archiving it is what the rejection advises).
 */
export function blockingTypes(orders: readonly Pick<Order, 'orderType' | 'isArchived'>[]): OrderType[] {
  return [...new Set(orders.filter((order) => !order.isArchived).map((order) => order.orderType))];
}

/**
 * Every line of these orders by listing all lines (100 a page), when that takes fewer pages than one read per order
 * (and at least `atLeast` orders have lines); undefined otherwise. The list is "Always ordered by ascending `lineNo`"
 * (spec 03) and most lines share a lineNo with another order's, in no stated order: between two page reads a line
 * may show twice and another not at all. A line shown again counts once, so such an order holds fewer lines than
 * its `lineCount` and the caller reads it whole.
 */
export async function listedLines(
  api: ApiCalls,
  orders: readonly Order[],
  atLeast = 1,
): Promise<Map<string, OrderLine[]> | undefined> {
  const needing = orders.filter((order) => (order.lineCount ?? 1) > 0);
  if (needing.length < atLeast) return undefined;
  const fetchLines = (page: number, limit: number) => api.client.orderLines.list({ page, limit });
  const first = await api.one(() => fetchLines(1, 100));
  if (first.pagination.totalPages >= needing.length) return undefined;
  const wanted = new Set(needing.map((order) => order.id));
  const byOrder = new Map<string, OrderLine[]>();
  // Whether the list moved is left to each order's lineCount, read by the caller.
  const { items } = await readList((page, limit) => api.one(() => fetchLines(page, limit)), { first });
  for (const line of items)
    if (line.orderId && wanted.has(line.orderId))
      byOrder.set(line.orderId, [...(byOrder.get(line.orderId) ?? []), line]);
  return byOrder;
}
