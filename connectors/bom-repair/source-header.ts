/** Which BOM a fork was copied from: found by name on the product's ancestors. */
import type { RepairCandidate } from './repair-schemas';

/** How a fork's source BOM is found: by name on the ancestors (see `pickSourceHeader`). */
export const COPY_SUFFIX = ' (Copy)';
type HeaderRef = Pick<RepairCandidate['ownedHeaders'][number], 'id' | 'name'>;

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
export function ancestorsNearestFirst(
  product: Pick<RepairCandidate, 'id' | 'styleId' | 'variantId'>,
): string[] {
  const ids = [product.variantId, product.styleId].filter(
    (id): id is string => typeof id === 'string' && id.length > 0,
  );
  return [...new Set(ids)].filter((id) => id !== product.id);
}

export interface SourceCandidate {
  headerId: string;
  /** The ancestor holding it (the nearest, when several link it). */
  productId: string;
}

export type SourcePick =
  | { kind: 'found'; header: HeaderRef; ancestorId: string }
  | { kind: 'not_found'; reason: string }
  | { kind: 'ambiguous'; reason: string; headerIds: string[]; candidates: SourceCandidate[] };

/**
 * The header named exactly `sourceName` that the ancestors hold gives the source. Every ancestor is read: a header
 * several of them link (a variant inheriting its style's) counts once, through the nearest. Two different headers
 * of that name, on one ancestor or on two, are ambiguous and never picked between: a variant's own header of the
 * name may be its fork renamed back, which its SKUs never inherited (spec 02: a fork "creates no child links, so the
 * product's SKUs keep the original"), and the API shows nothing that tells which one a SKU's fork was copied from.
 */
export async function pickSourceHeader(
  sourceName: string,
  ancestors:
    | Iterable<{ ancestorId: string; headers: readonly HeaderRef[] }>
    | AsyncIterable<{ ancestorId: string; headers: readonly HeaderRef[] }>,
  excludeHeaderIds: ReadonlySet<string> = new Set(),
): Promise<SourcePick> {
  const looked: string[] = [];
  const held = new Map<string, { header: HeaderRef; ancestorId: string }>();
  for await (const { ancestorId, headers } of ancestors) {
    looked.push(ancestorId);
    const named = headers.filter((header) => header.name === sourceName && !excludeHeaderIds.has(header.id));
    if (named.length > 1) {
      return {
        kind: 'ambiguous',
        reason: `${ancestorId} has ${named.length} BOMs named '${sourceName}'`,
        headerIds: named.map((header) => header.id).sort(),
        candidates: named.map((header) => ({ headerId: header.id, productId: ancestorId })),
      };
    }
    for (const header of named) if (!held.has(header.id)) held.set(header.id, { header, ancestorId });
  }
  const found = [...held.values()];
  const only = found[0];
  if (found.length === 1 && only) return { kind: 'found', ...only };
  if (found.length > 1) {
    return {
      kind: 'ambiguous',
      reason:
        `'${sourceName}' is held by ${found.map((f) => `${f.ancestorId} (${f.header.id})`).join(' and ')}; a ` +
        "variant's own BOM of that name may be its fork, which its SKUs do not inherit, and nothing the API " +
        'shows says which one this fork was copied from',
      headerIds: found.map((f) => f.header.id).sort(),
      candidates: found.map((f) => ({ headerId: f.header.id, productId: f.ancestorId })),
    };
  }
  const where = looked.join(', ') || 'a parent (the product has none)';
  return { kind: 'not_found', reason: `no BOM named '${sourceName}' on ${where}` };
}
