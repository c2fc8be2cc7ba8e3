/** Which products the bom-repair job looks at: the catalogue scan for forkable products, and the sinceLastRun mark. */
import { join } from 'node:path';
import { z } from 'zod';
import { readStoredJson, storeJson } from '../staging';
import {
  bomHeaderSchema,
  isTraceabilityApiError,
  type BomHeader,
  type Product,
  type ProductListQuery,
  type TraceabilityClient,
} from '../traceability';
import type { ProductSelector } from './job-input';
import { ownedHeaders, readHeaders } from './lines';
import type { RepairCandidate } from './repair-schemas';

/**
 * Forks happen only through inherited links, and only variants and SKUs inherit, so the scans list those two
 * levels (GET /styles answers styles unless `level` says otherwise). `include=bom` brings each product's headers
 * with their `isOwner` in the same page of 100, so products that own nothing cost no further call.
 */
const FORKABLE_LEVELS = ['variant', 'sku'] as const;

/**
 * GET /styles answers archived products only when asked (spec 01: `isArchived` "true returns only archived; false
 * (default) only non-archived"), yet "Archiving is reversible and keeps the record": a fork on a product archived
 * since lost its references all the same, so every listing is read in both states.
 */
const ARCHIVE_STATES = [false, true] as const;
const inBothArchiveStates = (query: ProductListQuery): ProductListQuery[] =>
  ARCHIVE_STATES.map((isArchived) => ({ ...query, isArchived }));

/** What a scan saw, for the run's result. */
export class ScanReport {
  /** Products looked at (every level listed, plus the ones named). */
  scanned = 0;
  /** Named products the catalogue does not hold. */
  notFound: string[] = [];
  /** Variants and SKUs whose link roles came from the `include=bom` headers on the product page. */
  includeUsed = 0;
  /** Products whose link roles were read with GET /bom-headers?styleId= because the include did not show them. */
  headerReads = 0;
  /** Why the include was not used, the first time it was not (null while it was usable). */
  includeProblem: string | null = null;
  /**
   * Listings that lost products between their pages on every read (see `LISTING_READS`): products after those may
   * have shifted onto pages already read and not been looked at.
   */
  listingsMoved: string[] = [];
}

/**
 * Whole reads of one product listing tried while it keeps losing products between its pages. A listing read by page
 * number that loses a product (archived, deleted) shifts every later one back a place, so one that crosses onto a
 * page already read is never met: archiving a style cascades to all its variants and SKUs (spec 01), so an operator
 * archiving a season while the scan runs moves hundreds at once. The listing is read again (the products met already
 * are not looked at twice) until a read sees no page's `total` below the one before it; products created meanwhile
 * land after the pages read (oldest first), shift nothing, and are no reason to read again.
 */
export const LISTING_READS = 3;

/** Only candidates with an owned header created or changed at or after this instant (ms), when set. */
type ScanFilter = {
  headersChangedSinceMs?: number;
  /** Products an earlier `sinceLastRun` run left unsettled (retry-list.ts): every owned header is looked at. */
  retryProductIds?: ReadonlySet<string>;
};

const includeSchema = z.array(bomHeaderSchema);

/**
 * The headers `include=bom` put on the product, when they show each link's role. The spec shows the include only
 * as "BOM headers": a missing include, or a header without a boolean `link.isOwner`, is not trusted (null), and
 * the caller reads GET /bom-headers?styleId= instead, whose answer the spec does show with `link`.
 */
export function trustedIncludedHeaders(product: Product): { headers: BomHeader[] } | { problem: string } {
  const raw = (product as Record<string, unknown>)['bom'];
  if (raw === undefined) return { problem: "the product list answered without the 'bom' include" };
  const parsed = includeSchema.safeParse(raw);
  if (!parsed.success)
    return {
      problem: `the 'bom' include is not a list of BOM headers (${parsed.error.issues[0]?.message ?? ''})`,
    };
  const unshown = parsed.data.find((header) => typeof header.link?.isOwner !== 'boolean');
  if (unshown) return { problem: `the 'bom' include shows header ${unshown.id} without link.isOwner` };
  return { headers: parsed.data };
}

function changedAtMs(header: BomHeader): number {
  const times = [header.createdAt, header.updatedAt]
    .map((t) => (t ? Date.parse(t) : Number.NaN))
    .filter((t) => !Number.isNaN(t));
  // A header whose times are unreadable is treated as changed: looking at it costs a read, missing it a fork.
  return times.length === 0 ? Number.POSITIVE_INFINITY : Math.max(...times);
}

async function candidateOf(
  client: TraceabilityClient,
  product: Product,
  report: ScanReport,
  filter: ScanFilter,
): Promise<RepairCandidate | undefined> {
  if (!product.styleId) return undefined;
  const included = trustedIncludedHeaders(product);
  const since = filter.retryProductIds?.has(product.id) ? undefined : filter.headersChangedSinceMs;
  let headers: BomHeader[];
  if ('headers' in included) {
    headers = included.headers;
    report.includeUsed += 1;
  } else {
    report.includeProblem ??= included.problem;
    // Without the link role the include still shows each header's times: when none changed since the mark, no
    // owned one did (a fork is a new header), and the read would be filtered to nothing.
    const shown = includeSchema.safeParse((product as Record<string, unknown>)['bom']);
    if (since !== undefined && shown.success && shown.data.every((header) => changedAtMs(header) < since))
      return undefined;
    report.headerReads += 1;
    headers = await readHeaders(client, product.id);
  }
  let owned = ownedHeaders(headers);
  if (since !== undefined) owned = owned.filter((header) => changedAtMs(header) >= since);
  if (owned.length === 0) return undefined;
  return {
    id: product.id,
    externalId: product.externalId ?? null,
    styleId: product.styleId,
    variantId: product.variantId ?? null,
    ownedHeaders: owned.map((header) => ({
      id: header.id,
      name: header.name,
      createdAt: header.createdAt ?? null,
    })),
  };
}

/**
 * The children of one product, listed by the parent filter the spec gives for their level (spec 01, GET /styles:
 * `styleId` "Parent filter when level=variant", `variantId` "Parent filter when level=sku"). A style's SKUs are
 * listed through its variants: no filter is promised for them. Each listed product must name the parent, or it is
 * dropped: a filter the API ignored would otherwise put the whole catalogue into a run for one product.
 */
interface ChildListing {
  query: ProductListQuery;
  parentField: 'styleId' | 'variantId';
  parentId: string;
}
const variantsOf = (styleId: string): ChildListing => ({
  query: { level: 'variant', styleId },
  parentField: 'styleId',
  parentId: styleId,
});
const skusOf = (variantId: string): ChildListing => ({
  query: { level: 'sku', variantId },
  parentField: 'variantId',
  parentId: variantId,
});

const describeListing = (query: ProductListQuery): string =>
  `GET /styles ${Object.entries(query)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join('&')}`;

async function getNamed(client: TraceabilityClient, id: string): Promise<Product | undefined> {
  try {
    return await client.products.get(id, { include: ['bom'] });
  } catch (error) {
    if (isTraceabilityApiError(error) && error.statusCode === 404) return undefined;
    throw error;
  }
}

/** Yields the variants and SKUs of the selection, archived or not, that own at least one BOM header (each once). */
export async function* scanRepairCandidates(
  client: TraceabilityClient,
  selector: ProductSelector,
  report: ScanReport,
  filter: ScanFilter = {},
): AsyncGenerator<RepairCandidate, void, undefined> {
  const seen = new Set<string>();
  const visit = async (product: Product): Promise<RepairCandidate | undefined> => {
    report.scanned += 1;
    if (seen.has(product.id)) return undefined;
    seen.add(product.id);
    return candidateOf(client, product, report, filter);
  };
  const pages = async function* (query: ProductListQuery) {
    const listing: ProductListQuery = { ...query, include: ['bom'], sort: 'createdAt', order: 'asc' };
    let shrank = '';
    for (let read = 1; read <= LISTING_READS; read++) {
      shrank = '';
      let total: number | undefined;
      for (let page = 1, last = 1; page <= last; page++) {
        const answer = await client.products.list({ ...listing, page, limit: 100 });
        const now = answer.pagination.total;
        if (total !== undefined && now < total) shrank ||= `its total went ${total} -> ${now} between pages`;
        total = now;
        last = answer.items.length === 0 ? 0 : answer.pagination.totalPages;
        for (const product of answer.items) if (read === 1 || !seen.has(product.id)) yield product;
      }
      if (!shrank) return;
    }
    report.listingsMoved.push(`${describeListing(query)}: ${shrank} on each of ${LISTING_READS} reads`);
  };
  const listed = async function* (queries: ProductListQuery[]) {
    for (const query of queries) {
      for await (const product of pages(query)) {
        const candidate = await visit(product);
        if (candidate) yield candidate;
      }
    }
  };
  const childrenOf = async function* ({ query, parentField, parentId }: ChildListing) {
    for (const state of inBothArchiveStates(query))
      for await (const product of pages(state)) if (product[parentField] === parentId) yield product;
  };

  if (selector.kind === 'products') {
    for (const id of selector.products) {
      const product = await getNamed(client, id);
      if (!product) {
        report.notFound.push(id);
        continue;
      }
      const candidate = await visit(product);
      if (candidate) yield candidate;
      if (product.variantId) continue;
      const variantIds = new Set(product.styleId ? [product.id] : []);
      if (!product.styleId) {
        for await (const variant of childrenOf(variantsOf(product.id))) {
          variantIds.add(variant.id);
          const found = await visit(variant);
          if (found) yield found;
        }
      }
      for (const variantId of variantIds) {
        for await (const sku of childrenOf(skusOf(variantId))) {
          const found = await visit(sku);
          if (found) yield found;
        }
      }
    }
    return;
  }
  // sinceLastRun lists every variant and SKU: a fork need not move the product's own updatedAt, so the filter is
  // on the headers' own times (ScanFilter), not on the product list.
  const window = selector.kind === 'updatedAfter' ? { updatedAfterUnixMs: selector.updatedAfterUnixMs } : {};
  yield* listed(FORKABLE_LEVELS.flatMap((level) => inBothArchiveStates({ level, ...window })));
}

/**
 * Where the scheduled repair (`sinceLastRun`) stopped: BOM headers created or changed at or after `sinceMs` are
 * looked at on the next run. One JSON document per mark name in the run-data store, replaced at once, only after a
 * run finished.
 */
const bomMarkSchema = z.strictObject({
  sinceMs: z.number().int().nonnegative(),
  storedAt: z.string(),
});

/**
 * How far before the scan's start the next mark is set. Forks made while the scan reads its pages, and a worker
 * clock ahead of the API's, must not fall behind the mark; looking at a fork twice costs reads, never a write.
 */
export const MARK_SAFETY_MS = 5 * 60_000;

export function bomMarkFile(dataDir: string, markName: string): string {
  return join(dataDir, 'bom-repair', `high-water-mark-${markName}.json`);
}

export class CorruptBomMarkError extends Error {}

/** The stored mark, or 0 (every header) before the first run. */
export async function readBomMark(file: string): Promise<number> {
  try {
    return (await readStoredJson(file, bomMarkSchema))?.sinceMs ?? 0;
  } catch (error) {
    if (!(error instanceof SyntaxError || error instanceof z.ZodError)) throw error;
    throw new CorruptBomMarkError(
      `the BOM repair high-water mark ${file} is not readable: restore it, or delete it to look at every BOM again`,
    );
  }
}

/** The mark after a run whose scan started at `scanStartedMs` (never moves back). */
export function nextBomMark(previousMs: number, scanStartedMs: number): number {
  return Math.max(previousMs, scanStartedMs - MARK_SAFETY_MS);
}

export async function storeBomMark(file: string, sinceMs: number, now = new Date()): Promise<void> {
  await storeJson(file, { sinceMs, storedAt: now.toISOString() });
}
