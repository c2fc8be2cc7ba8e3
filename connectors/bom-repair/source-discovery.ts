/** How a fork's source BOM is found: by name on the nearest ancestor that still links it. */

export const COPY_SUFFIX = ' (Copy)';

export interface HeaderRef {
  id: string;
  name: string;
  /** When the header was made: for a fork, the fork time (what the source looked like then is what was copied). */
  createdAt?: string | null;
}

export interface ProductLineage {
  id: string;
  /** The parent style of a variant or SKU (null on a style). */
  styleId?: string | null;
  /** The parent variant of a SKU (null otherwise). */
  variantId?: string | null;
}

/**
 * The name the source had: given explicitly for a fork renamed at fork time (`sourceNames[forkName]`), else the
 * fork's name without one ` (Copy)` suffix. A fork renamed at fork time without a mapping has no derivable name.
 */
export function sourceNameFor(
  forkName: string,
  sourceNames: Readonly<Record<string, string>> = {},
): string | null {
  const explicit = sourceNames[forkName];
  if (explicit !== undefined) return explicit;
  return forkName.endsWith(COPY_SUFFIX) ? forkName.slice(0, -COPY_SUFFIX.length) : null;
}

/** Parents that may hold the source, nearest first: a SKU's variant then style; a variant's style; none for a style. */
export function ancestorsNearestFirst(product: ProductLineage): string[] {
  const ids = [product.variantId, product.styleId].filter(
    (id): id is string => typeof id === 'string' && id.length > 0,
  );
  return [...new Set(ids)].filter((id) => id !== product.id);
}

export type SourcePick =
  | { kind: 'found'; header: HeaderRef; ancestorId: string }
  | { kind: 'not_found'; reason: string }
  | { kind: 'ambiguous'; reason: string; headerIds: string[] };

/**
 * The nearest ancestor holding a header named exactly `sourceName` gives the source; two such headers on that
 * ancestor are ambiguous (never picked between).
 */
export function pickSourceHeader(
  sourceName: string,
  ancestors: ReadonlyArray<{ ancestorId: string; headers: readonly HeaderRef[] }>,
  excludeHeaderIds: ReadonlySet<string> = new Set(),
): SourcePick {
  for (const { ancestorId, headers } of ancestors) {
    const named = headers.filter((header) => header.name === sourceName && !excludeHeaderIds.has(header.id));
    const only = named[0];
    if (named.length === 1 && only) return { kind: 'found', header: only, ancestorId };
    if (named.length > 1) {
      return {
        kind: 'ambiguous',
        reason: `${ancestorId} has ${named.length} BOMs named '${sourceName}'`,
        headerIds: named.map((header) => header.id).sort(),
      };
    }
  }
  const where = ancestors.map((a) => a.ancestorId).join(', ') || 'no parent product';
  return { kind: 'not_found', reason: `no BOM named '${sourceName}' on ${where}` };
}
