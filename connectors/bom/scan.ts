import {
  isTraceabilityApiError,
  type Product,
  type ProductListQuery,
  type TraceabilityClient,
} from '../traceability';
import type { ProductSelector } from './job-input';
import { includedHeaders, ownedHeaders } from './reads';
import type { RepairCandidate } from './repair';

/**
 * Forks happen only through inherited links, and only variants and SKUs inherit, so the scans list those two
 * levels (GET /styles answers styles unless `level` says otherwise). `include=bom` brings each product's headers
 * with their `isOwner` in the same page of 100, so products that own nothing cost no further call.
 */
const FORKABLE_LEVELS = ['variant', 'sku'] as const;

export interface ScanReport {
  /** Products looked at (every level listed, plus the ones named). */
  scanned: number;
  /** Named products the catalogue does not hold. */
  notFound: string[];
}

function candidateOf(product: Product): RepairCandidate | undefined {
  if (!product.styleId) return undefined;
  const owned = ownedHeaders(includedHeaders(product));
  if (owned.length === 0) return undefined;
  return {
    id: product.id,
    externalId: product.externalId ?? null,
    styleId: product.styleId,
    variantId: product.variantId ?? null,
    ownedHeaders: owned.map((header) => ({ id: header.id, name: header.name })),
  };
}

/** The products a named one covers: itself, and for a style or variant the levels below it. */
function childQueries(product: Product): ProductListQuery[] {
  if (product.variantId) return [];
  if (product.styleId) return [{ level: 'sku', variantId: product.id }];
  return FORKABLE_LEVELS.map((level) => ({ level, styleId: product.id }));
}

async function getNamed(client: TraceabilityClient, id: string): Promise<Product | undefined> {
  try {
    return await client.products.get(id, { include: ['bom'] });
  } catch (error) {
    if (isTraceabilityApiError(error) && error.statusCode === 404) return undefined;
    throw error;
  }
}

/** Yields the variants and SKUs of the selection that own at least one BOM header (each once). */
export async function* scanRepairCandidates(
  client: TraceabilityClient,
  selector: ProductSelector,
  report: ScanReport,
): AsyncGenerator<RepairCandidate, void, undefined> {
  const seen = new Set<string>();
  const visit = (product: Product): RepairCandidate | undefined => {
    report.scanned += 1;
    if (seen.has(product.id)) return undefined;
    seen.add(product.id);
    return candidateOf(product);
  };
  const listed = async function* (queries: ProductListQuery[]) {
    for (const query of queries) {
      for await (const product of client.products.iterate({
        ...query,
        include: ['bom'],
        sort: 'createdAt',
        order: 'asc',
      })) {
        const candidate = visit(product);
        if (candidate) yield candidate;
      }
    }
  };

  if (selector.kind === 'products') {
    for (const id of selector.products) {
      const product = await getNamed(client, id);
      if (!product) {
        report.notFound.push(id);
        continue;
      }
      const candidate = visit(product);
      if (candidate) yield candidate;
      yield* listed(childQueries(product));
    }
    return;
  }
  const window = selector.kind === 'updatedAfter' ? { updatedAfterUnixMs: selector.updatedAfterUnixMs } : {};
  yield* listed(FORKABLE_LEVELS.map((level) => ({ level, ...window })));
}
