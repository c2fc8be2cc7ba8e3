import {
  parseExistingProducts,
  type ExistingProduct,
  type ProductDraft,
  type ProductLevel,
} from '../../connectors/plm-import';
import type { Page, Product } from '../../connectors/traceability';
import { forEachBounded, type ApiCalls } from '../batch-kit';
import type { CatalogueRead } from './types';

const LEVELS: readonly ProductLevel[] = ['style', 'variant', 'sku'];
const LOWER: Record<ProductLevel, ProductLevel | null> = { style: null, variant: 'style', sku: 'variant' };
/** Below this many products a list probe costs more than it can save: GET each one. */
const GET_ONLY_BELOW = 4;
const GET_LANES = 8;

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
    const levels = LEVELS.filter((_, bit) => (mask & (1 << bit)) !== 0);
    const cost =
      LEVELS.reduce(
        (sum, level) => sum + (levels.includes(level) ? remainingPages[level] : missing[level]),
        0,
      ) + (levels.length < 3 ? missing.unknown : 0);
    if (!best || cost < best.cost) best = { levels, cost };
  }
  return best?.levels ?? [...LEVELS];
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
 */
export async function readCatalogue(
  keys: ReadonlyMap<string, ProductLevel | null>,
  api: ApiCalls,
  progress: (read: number) => void,
  options: { withMaterial?: boolean } = {},
): Promise<{ products: ExistingProduct[]; read: CatalogueRead }> {
  const withMaterial = options.withMaterial ?? false;
  const include = withMaterial ? { include: ['material' as const] } : {};
  const found = new Map<string, Product & { level?: ProductLevel }>();
  const keep = (items: readonly Product[], level?: ProductLevel) => {
    for (const item of items) found.set(item.id, level ? { ...item, level } : item);
    progress(found.size);
  };
  const listPage = (level: ProductLevel, page: number, isArchived = false): Promise<Page<Product>> =>
    api.client.products.list({
      level,
      page,
      limit: 100,
      sort: 'createdAt',
      order: 'asc',
      ...include,
      ...(isArchived ? { isArchived } : {}),
    });
  const read: CatalogueRead = {
    strategy: 'none',
    listedLevels: [],
    listCalls: 0,
    getCalls: 0,
    pages: { style: null, variant: null, sku: null },
    productsRead: 0,
  };
  let toGet: string[] = [...keys.keys()];

  if (keys.size >= GET_ONLY_BELOW) {
    const firstPages = await Promise.all(LEVELS.map((level) => api.one(() => listPage(level, 1))));
    read.listCalls += LEVELS.length;
    const remainingPages = { style: 0, variant: 0, sku: 0 };
    LEVELS.forEach((level, index) => {
      const first = firstPages[index] as Page<Product>;
      keep(first.items, level);
      read.pages[level] = first.pagination.totalPages;
      remainingPages[level] = Math.max(0, first.pagination.totalPages - 1);
    });
    const seen = new Set([...found.values()].map((product) => product.externalId));
    const missing = { style: 0, variant: 0, sku: 0, unknown: 0 };
    for (const [externalId, level] of keys) if (!seen.has(externalId)) missing[level ?? 'unknown'] += 1;
    read.listedLevels = chooseLevelsToList(remainingPages, missing);
    for (const level of read.listedLevels) {
      const before = api.count;
      await api.remainingPages(
        firstPages[LEVELS.indexOf(level)] as Page<Product>,
        (page) => listPage(level, page),
        (items) => keep(items, level),
      );
      read.listCalls += api.count - before;
    }
    const listedAll = read.listedLevels.length === LEVELS.length;
    const known = new Set([...found.values()].map((product) => product.externalId));
    toGet = [...keys]
      .filter(([externalId, level]) => {
        if (known.has(externalId) || listedAll) return false;
        return level === null || !read.listedLevels.includes(level);
      })
      .map(([externalId]) => externalId);
    // Spec 01: "Archived products are excluded from default lists", yet their externalIds stay taken. A key the lists
    // did not find may be archived: read the archived products of that level (or GET the few keys, if cheaper).
    const unseen = [...keys].filter(
      ([externalId, level]) =>
        !known.has(externalId) && (level === null ? listedAll : read.listedLevels.includes(level)),
    );
    for (const level of read.listedLevels) {
      const mine = unseen
        .filter(([, keyLevel]) => keyLevel === level || keyLevel === null)
        .map(([externalId]) => externalId);
      if (mine.length === 0) continue;
      const first = await api.one(() => listPage(level, 1, true));
      read.listCalls += 1;
      keep(first.items, level);
      const remaining = Math.max(0, first.pagination.totalPages - 1);
      if (remaining <= mine.length) {
        const before = api.count;
        await api.remainingPages(
          first,
          (page) => listPage(level, page, true),
          (items) => keep(items, level),
        );
        read.listCalls += api.count - before;
      } else {
        const seenNow = new Set([...found.values()].map((product) => product.externalId));
        toGet.push(...mine.filter((externalId) => !seenNow.has(externalId) && !toGet.includes(externalId)));
      }
    }
  }

  await forEachBounded(toGet, GET_LANES, async (externalId) => {
    const product = await getByExternalId(api, externalId, withMaterial);
    read.getCalls += 1;
    if (product) keep([product]);
  });

  read.strategy =
    read.listCalls === 0 ? (read.getCalls === 0 ? 'none' : 'gets') : read.getCalls === 0 ? 'lists' : 'mixed';
  const products = parseExistingProducts([...found.values()]);
  read.productsRead = products.length;
  return { products, read };
}
