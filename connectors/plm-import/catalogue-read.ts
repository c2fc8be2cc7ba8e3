import { z } from 'zod';
import type { ApiCalls } from '../staging';
import { forEachBounded } from '../staging';
import { readList, type Page, type Product, type ProductListQuery } from '../traceability';
import { parseExistingProducts, type ExistingProduct } from './catalogue';
import type { ProductDraft, ProductLevel } from './draft';
import { productLevels } from './profiles/schema';
import type { CatalogueRead } from './staged-run';

/**
 * The read of the existing catalogue for a sheet: the API products the planner compares, in as few calls as the
 * sheet's size allows (GETs for a few keys; else each level's list, read again in another sort when ties hid some,
 * the archived lists, then GETs of the keys still unfound).
 */

const LOWER: Record<ProductLevel, ProductLevel | null> = { style: null, variant: 'style', sku: 'variant' };
/** Below this many products a list probe costs more than it can save: GET each one. */
const GET_ONLY_BELOW = 4;
const GET_LANES = 8;
/**
 * The sorts of the further reads of a level whose list missed products (ties of `createdAt`): each read is unioned by
 * id with the ones before, and at most this many are made before the keys still unfound are read by GET.
 */
const REREAD_SORTS: ReadonlyArray<NonNullable<ProductListQuery['sort']>> = ['name', 'updatedAt', 'createdAt'];

/**
 * Every externalId planning must know about (the sheet's products and the parents they name), with the level
 * the sheet implies, or null when only the catalogue can tell (a parent outside the sheet, say).
 */
export function sheetKeys(drafts: readonly ProductDraft[]): Map<string, ProductLevel | null> {
  const byId = new Map(drafts.map((draft) => [draft.externalId, draft]));
  const levelOf = (draft: ProductDraft, depth = 0): ProductLevel | null => {
    if (draft.level !== null) return draft.level;
    if (draft.parentExternalId === null) return 'style';
    const parent = byId.get(draft.parentExternalId);
    if (!parent || depth > 3) return null;
    const parentLevel = levelOf(parent, depth + 1);
    return parentLevel === 'style' ? 'variant' : parentLevel === 'variant' ? 'sku' : null;
  };
  const keys = new Map<string, ProductLevel | null>();
  for (const draft of drafts) keys.set(draft.externalId, levelOf(draft));
  for (const draft of drafts) {
    if (draft.parentExternalId === null || keys.has(draft.parentExternalId)) continue;
    const own = keys.get(draft.externalId) ?? null;
    keys.set(draft.parentExternalId, own === null ? null : LOWER[own]);
  }
  return keys;
}

/**
 * Which levels to list in full, given what the first page of each level left to find: listing a level costs its
 * remaining pages; not listing it costs one GET per product of that level still missing (and per product whose
 * level is unknown, unless all three levels are listed). Ties go to listing, which also reveals code clashes.
 */
export function chooseLevelsToList(
  remainingPages: Record<ProductLevel, number>,
  missing: Record<ProductLevel | 'unknown', number>,
): ProductLevel[] {
  let best: { levels: ProductLevel[]; cost: number } | undefined;
  for (let mask = 7; mask >= 0; mask--) {
    const levels = productLevels.filter((_, bit) => (mask & (1 << bit)) !== 0);
    const cost =
      productLevels.reduce(
        (sum, level) => sum + (levels.includes(level) ? remainingPages[level] : missing[level]),
        0,
      ) + (levels.length < 3 ? missing.unknown : 0);
    if (!best || cost < best.cost) best = { levels, cost };
  }
  return best?.levels ?? [...productLevels];
}

const ownershipSchema = z.looseObject({
  forCompanyId: z.string().nullish(),
  createdByCompanyId: z.string().nullish(),
});

/**
 * The key's company as listed products show it: one a company made for itself (`forCompanyId` equal to
 * `createdByCompanyId`). Spec 01: "one company cannot read another company's records unless a rule below says so",
 * so such a product is readable only with its owner's key.
 */
export function ownCompanyOf(listed: readonly unknown[]): string | undefined {
  for (const item of listed) {
    const parsed = ownershipSchema.safeParse(item);
    if (!parsed.success) continue;
    const { forCompanyId, createdByCompanyId } = parsed.data;
    if (forCompanyId && forCompanyId === createdByCompanyId) return forCompanyId;
  }
  return undefined;
}

/**
 * The key's company: from the listed products, else from an order (spec 03: "Every order belongs to exactly one
 * company, the one that created it"; the counterparty's copy "is not readable with the caller's key"), else
 * undefined (the key owns no order and made no product of those listed).
 */
async function ownCompany(api: ApiCalls, listed: readonly unknown[]): Promise<string | undefined> {
  const fromProducts = ownCompanyOf(listed);
  if (fromProducts !== undefined || listed.length === 0) return fromProducts;
  const orders = await api.one(() => api.client.orders.list({ limit: 1 }));
  return orders.items[0]?.forCompanyId ?? undefined;
}

/** GET by externalId; 404 (or a platform id that merely looks the same) is "not in the catalogue". */
async function getByExternalId(
  api: ApiCalls,
  externalId: string,
  withMaterial: boolean,
): Promise<Product | undefined> {
  const product = await api.found(() =>
    api.client.products.get(externalId, withMaterial ? { include: ['material'] } : {}),
  );
  return product?.externalId === externalId ? product : undefined;
}

/**
 * Reads what the catalogue holds for the sheet's keys in as few calls as it can: one GET per product for a tiny
 * sheet; otherwise page 1 of each level (which also gives each level's size), then per level either the
 * remaining pages of 100 or a GET per product still missing, whichever is cheaper. Pages are read oldest first,
 * so products created meanwhile land on later pages instead of shifting earlier ones.
 *
 * Lists also hold products the key created for another company (`forCompanyId`, spec 01); those are the other
 * company's, whose externalIds and codes are not the key's (externalIds are "resolved only within the catalogue of
 * the account whose key is used"), so only the key's own company's products are kept, as a GET by externalId
 * would find. When the key's company cannot be told, nothing listed is kept and every key is read by GET.
 */
export async function readCatalogue(
  keys: ReadonlyMap<string, ProductLevel | null>,
  api: ApiCalls,
  progress: (read: number) => void,
  options: { withMaterial?: boolean } = {},
): Promise<{ products: ExistingProduct[]; read: CatalogueRead }> {
  const reading = startReading(keys, api, progress, options.withMaterial ?? false);
  const callsBefore = api.count;
  const toGet = keys.size >= GET_ONLY_BELOW ? await readLists(reading) : [...keys.keys()];
  reading.read.listCalls = api.count - callsBefore;
  await getEach(reading, toGet);
  if (reading.withMaterial) await readLinkRoles(reading.found, keys, api);
  return finished(reading);
}

/** The catalogue read as it goes, shared by its steps. */
interface Reading {
  keys: ReadonlyMap<string, ProductLevel | null>;
  api: ApiCalls;
  progress: (read: number) => void;
  withMaterial: boolean;
  /** The products found so far, by platform id; those found by a list carry its level. */
  found: Map<string, Product & { level?: ProductLevel }>;
  read: CatalogueRead;
}

function startReading(
  keys: ReadonlyMap<string, ProductLevel | null>,
  api: ApiCalls,
  progress: (read: number) => void,
  withMaterial: boolean,
): Reading {
  const read: CatalogueRead = {
    strategy: 'none',
    listedLevels: [],
    listCalls: 0,
    getCalls: 0,
    pages: { style: null, variant: null, sku: null },
    productsRead: 0,
  };
  return { keys, api, progress, withMaterial, found: new Map(), read };
}

function keep(reading: Reading, items: readonly Product[], level?: ProductLevel): void {
  for (const item of items) reading.found.set(item.id, level ? { ...item, level } : item);
  reading.progress(reading.found.size);
}

function foundExternalIds(reading: Reading): Set<string | null | undefined> {
  return new Set([...reading.found.values()].map((product) => product.externalId));
}

/** Page `page` of a level's list, oldest first unless `sort` says otherwise; archived products only if asked. */
function listPage(
  reading: Reading,
  level: ProductLevel,
  page: number,
  isArchived = false,
  sort: NonNullable<ProductListQuery['sort']> = 'createdAt',
): Promise<Page<Product>> {
  return reading.api.client.products.list({
    level,
    page,
    limit: 100,
    sort,
    order: 'asc',
    ...(reading.withMaterial ? { include: ['material' as const] } : {}),
    ...(isArchived ? { isArchived } : {}),
  });
}

/** The read by lists (a sheet of GET_ONLY_BELOW keys or more), once page 1 of each level is in. */
interface ListsReading extends Reading {
  firstPages: Record<ProductLevel, Page<Product>>;
  /** The key's company, asked once listed products need telling apart; null when it cannot be told. */
  own: string | null | undefined;
  /**
   * Every id the default lists showed, per level: fewer than page 1's `total` means some were missed (spec 01 gives
   * no order among equal `createdAt` values, so a read by page number may meet a product twice and miss another).
   */
  listedIds: Record<ProductLevel, Set<string>>;
}

/** The lists' part of the read, in its order; the keys it leaves to GET. */
async function readLists(reading: Reading): Promise<string[]> {
  const lists = await readFirstPages(reading);
  lists.read.listedLevels = lists.own === null ? [] : levelsToList(lists);
  await readRemainingPages(lists);
  const missedSome = await rereadShortLevels(lists);
  const toGet = keysToGet(lists, missedSome);
  await readArchived(lists, toGet);
  return toGet;
}

/** Page 1 of each level, its products kept (the key's company's only) and its page count noted. */
async function readFirstPages(reading: Reading): Promise<ListsReading> {
  const [style, variant, sku] = await Promise.all(
    productLevels.map((level) => reading.api.one(() => listPage(reading, level, 1))),
  );
  const firstPages = { style, variant, sku } as Record<ProductLevel, Page<Product>>;
  const listed = productLevels.flatMap((level) => firstPages[level].items);
  const own = listed.length === 0 ? undefined : ((await ownCompany(reading.api, listed)) ?? null);
  const lists: ListsReading = {
    ...reading,
    firstPages,
    own,
    listedIds: { style: new Set(), variant: new Set(), sku: new Set() },
  };
  for (const level of productLevels) {
    keepListed(lists, firstPages[level].items, level);
    lists.read.pages[level] = firstPages[level].pagination.totalPages;
  }
  return lists;
}

/** Keeps the key's own company's products of a list (none while the company cannot be told). */
function keepOwn(lists: ListsReading, items: readonly Product[], level: ProductLevel): void {
  const { own } = lists;
  keep(
    lists,
    items.filter((item) => typeof own === 'string' && (item.forCompanyId ?? own) === own),
    level,
  );
}

/** Products of a default list: their ids counted against the level's total, the key's company's kept. */
function keepListed(lists: ListsReading, items: readonly Product[], level: ProductLevel): void {
  for (const item of items) lists.listedIds[level].add(item.id);
  keepOwn(lists, items, level);
}

/** The levels whose remaining pages cost fewer calls than GETting what page 1 left missing (chooseLevelsToList). */
function levelsToList(lists: ListsReading): ProductLevel[] {
  const remainingPages = { style: 0, variant: 0, sku: 0 };
  for (const level of productLevels)
    remainingPages[level] = Math.max(0, lists.firstPages[level].pagination.totalPages - 1);
  const seen = foundExternalIds(lists);
  const missing = { style: 0, variant: 0, sku: 0, unknown: 0 };
  for (const [externalId, level] of lists.keys) if (!seen.has(externalId)) missing[level ?? 'unknown'] += 1;
  return chooseLevelsToList(remainingPages, missing);
}

/** Pages 2.. of each level chosen to be listed. */
async function readRemainingPages(lists: ListsReading): Promise<void> {
  for (const level of lists.read.listedLevels)
    await lists.api.remainingPages(
      lists.firstPages[level],
      (page) => listPage(lists, level, page),
      (items) => keepListed(lists, items, level),
    );
}

/** Each listed level's default list read again while short (stillShort); the levels still short after. */
async function rereadShortLevels(lists: ListsReading): Promise<ProductLevel[]> {
  const missedSome: ProductLevel[] = [];
  for (const level of lists.read.listedLevels) {
    // The level's keys still unfound, and those of unknown level.
    const gets = () => {
      const known = foundExternalIds(lists);
      return [...lists.keys].filter(
        ([externalId, keyLevel]) => !known.has(externalId) && (keyLevel ?? level) === level,
      ).length;
    };
    const short = await stillShort(lists, {
      level,
      isArchived: false,
      first: lists.firstPages[level],
      ids: lists.listedIds[level],
      keepItems: (items) => keepListed(lists, items, level),
      gets,
    });
    if (short) missedSome.push(level);
  }
  return missedSome;
}

/** A list read once, which stillShort reads again while it is short. */
interface ReadOnce {
  level: ProductLevel;
  isArchived: boolean;
  first: Page<Product>;
  /** The distinct ids read of it so far, the re-reads' added by `keepItems`. */
  ids: ReadonlySet<string>;
  keepItems: (items: readonly Product[]) => void;
  /** The GETs its keys still unfound would cost. */
  gets: () => number;
}

/**
 * A list that showed fewer distinct products (`ids`) than page 1's `total` is read again in another sort, unioned by
 * id, while the keys it would leave to GET (one call each) are more than another read's pages. Whether it is still
 * short (a count that changed between reads counts as short: the union no longer tells what was missed). A read per
 * sort rather than one readList of several reads: whether another read pays is weighed before each, against the GETs
 * left then, which other lists' reads (and keys of unknown level) change.
 */
async function stillShort(
  lists: ListsReading,
  { level, isArchived, first, ids, keepItems, gets }: ReadOnce,
): Promise<boolean> {
  const { total, totalPages } = first.pagination;
  let changed = false;
  for (const sort of REREAD_SORTS) {
    if (changed || ids.size >= total || gets() <= totalPages) break;
    const again = await readList(
      async (page) => {
        const answer = await lists.api.one(() => listPage(lists, level, page, isArchived, sort));
        if (answer.pagination.total !== total) changed = true;
        return answer;
      },
      { schedule: (pages, readPage) => forEachBounded(pages, lists.api.lanes(4), readPage) },
    );
    keepItems(again.items);
  }
  return changed || ids.size < total;
}

/** The keys the lists did not find and cannot say are new: those of a level not listed, or listed short. */
function keysToGet(lists: ListsReading, missedSome: readonly ProductLevel[]): string[] {
  const known = foundExternalIds(lists);
  const { listedLevels } = lists.read;
  const listedAll = listedLevels.length === productLevels.length;
  return [...lists.keys]
    .filter(([externalId, level]) => {
      if (known.has(externalId)) return false;
      // A key of a level whose list was not read whole is read by GET: the lists cannot say it is new.
      if (level === null ? missedSome.length > 0 : missedSome.includes(level)) return true;
      if (listedAll) return false;
      return level === null || !listedLevels.includes(level);
    })
    .map(([externalId]) => externalId);
}

/**
 * Spec 01: "Archived products are excluded from default lists", yet their externalIds stay taken. A key the lists
 * did not find may be archived: read the archived products of that level (or GET the few keys, if cheaper), adding
 * to `toGet` the keys still unfound that way.
 */
async function readArchived(lists: ListsReading, toGet: string[]): Promise<void> {
  const known = foundExternalIds(lists);
  const gotten = new Set(toGet);
  const { listedLevels } = lists.read;
  const listedAll = listedLevels.length === productLevels.length;
  const unseen = [...lists.keys].filter(
    ([externalId, level]) =>
      !known.has(externalId) &&
      !gotten.has(externalId) &&
      (level === null ? listedAll : listedLevels.includes(level)),
  );
  for (const level of listedLevels) {
    const mine = unseen
      .filter(([, keyLevel]) => keyLevel === level || keyLevel === null)
      .map(([externalId]) => externalId);
    if (mine.length > 0) await readArchivedOfLevel(lists, level, mine, toGet);
  }
}

/** The archived list of one level, for its keys `mine` no default list showed; or their GETs, if fewer calls. */
async function readArchivedOfLevel(
  lists: ListsReading,
  level: ProductLevel,
  mine: readonly string[],
  toGet: string[],
): Promise<void> {
  const unfound = () => {
    const seenNow = foundExternalIds(lists);
    return mine.filter((externalId) => !seenNow.has(externalId));
  };
  const getUnfound = () => {
    toGet.push(...unfound().filter((externalId) => !toGet.includes(externalId)));
  };
  const first = await lists.api.one(() => listPage(lists, level, 1, true));
  if (lists.own === undefined && first.items.length > 0)
    lists.own = (await ownCompany(lists.api, first.items)) ?? null;
  const archivedIds = new Set<string>();
  const keepArchived = (items: readonly Product[]) => {
    for (const item of items) archivedIds.add(item.id);
    keepOwn(lists, items, level);
  };
  keepArchived(first.items);
  if (lists.own === null || first.pagination.totalPages - 1 > mine.length) {
    getUnfound();
    return;
  }
  await lists.api.remainingPages(first, (page) => listPage(lists, level, page, true), keepArchived);
  const short = await stillShort(lists, {
    level,
    isArchived: true,
    first,
    ids: archivedIds,
    keepItems: keepArchived,
    gets: () => unfound().length,
  });
  if (short) getUnfound();
}

/** One GET per key, a few at a time. */
async function getEach(reading: Reading, toGet: readonly string[]): Promise<void> {
  await forEachBounded(toGet, reading.api.lanes(GET_LANES), async (externalId) => {
    const product = await getByExternalId(reading.api, externalId, reading.withMaterial);
    reading.read.getCalls += 1;
    if (product) keep(reading, [product]);
  });
}

/** The products found, parsed, and how they were read. */
function finished({ found, read }: Reading): { products: ExistingProduct[]; read: CatalogueRead } {
  read.strategy =
    read.listCalls === 0 ? (read.getCalls === 0 ? 'none' : 'gets') : read.getCalls === 0 ? 'lists' : 'mixed';
  const products = parseExistingProducts([...found.values()]);
  read.productsRead = products.length;
  return { products, read };
}

const includedMaterialSchema = z.array(z.unknown()).nullish();
const roleShownSchema = z.looseObject({ link: z.looseObject({ isOwner: z.boolean() }) });

/**
 * Spec 01 shows `include=material` only as "material composition headers"; spec 02 shows `link.isOwner` on GET
 * /material-headers, "compositions linked to a product (owned and inherited)". A sheet product whose included
 * headers lack the role gets them from there (one read each, only then), so its own composition is never taken
 * for an inherited one. Headers of products outside the sheet are only used without their roles.
 */
async function readLinkRoles(
  found: Map<string, Product>,
  keys: ReadonlyMap<string, ProductLevel | null>,
  api: ApiCalls,
): Promise<void> {
  const unshown = [...found.values()].filter((product) => {
    if (product.externalId === null || product.externalId === undefined || !keys.has(product.externalId))
      return false;
    const included = includedMaterialSchema.safeParse((product as Record<string, unknown>)['material']);
    return (
      included.success && (included.data ?? []).some((header) => !roleShownSchema.safeParse(header).success)
    );
  });
  await forEachBounded(unshown, api.lanes(GET_LANES), async (product) => {
    const headers = await api.all(`GET /material-headers?styleId=${product.id}`, (page, limit) =>
      api.client.materials.listHeaders({ styleId: product.id, page, limit }),
    );
    const unclear = headers.find((header) => typeof header.link?.isOwner !== 'boolean');
    if (unclear)
      throw new Error(
        `GET /material-headers?styleId=${product.id} (${product.externalId ?? ''}) shows header ${unclear.id} without link.isOwner`,
      );
    found.set(product.id, { ...product, material: headers });
  });
}
