import type { ComponentRef } from './line-fields';

/** Per line, what the repair did or would do. */
export type LineOutcomeKind = 'repaired' | 'would_repair' | 'ambiguous' | 'unmatched' | 'failed';

export interface LineOutcome {
  headerId: string;
  lineId: string;
  outcome: LineOutcomeKind;
  /** The reference put back (or that would be), for repaired and would_repair. */
  component?: ComponentRef;
  sourceLineId?: string;
  /** Why a line was left alone or failed; the API's code first when it refused the write. */
  reason?: string;
  /**
   * What the reference was taken from: `snapshot` (the source as the safe write saw it just before the fork),
   * `source` (the source's current lines, none changed since the fork), or `current source, accepted` (a source
   * line changed after the fork and `acceptCurrentSource` took its current component).
   */
  basis?: 'snapshot' | 'source' | 'current source, accepted';
  /** For a line left ambiguous: what it could get back, each with where it comes from. */
  candidates?: LineCandidate[];
}

export interface LineCandidate {
  /** `fork time`: what the source line held when the fork copied it; null when nobody kept it. */
  basis: 'fork time' | 'current source';
  component: ComponentRef | null;
  sourceLineId: string;
  /** When the source line last changed (after the fork). */
  changedAt?: string | null;
}

export interface HeaderOutcome {
  headerId: string;
  name: string;
  /** Lines of this owned header without a component reference when the run read it. */
  linesWithoutComponent: number;
  sourceHeaderId: string | null;
  /** The ancestor through which the source was found. */
  sourceProductId: string | null;
  /** Set when the whole header was left alone (no source name, no source, two candidate sources). */
  problem?: string;
}

export interface ProductRepairResult {
  productId: string;
  externalId: string | null;
  repaired: number;
  wouldRepair: number;
  ambiguous: number;
  unmatched: number;
  failed: number;
  /** After writes: the re-read showed every repaired line as intended and nothing else changed. */
  verified: boolean | null;
  /** Set when the product itself could not be handled (for example an id that is not in the catalogue). */
  problem?: string;
  headers: HeaderOutcome[];
  lines: LineOutcome[];
}

export function emptyProductResult(productId: string, externalId: string | null): ProductRepairResult {
  return {
    productId,
    externalId,
    repaired: 0,
    wouldRepair: 0,
    ambiguous: 0,
    unmatched: 0,
    failed: 0,
    verified: null,
    headers: [],
    lines: [],
  };
}

const COUNTERS: Record<LineOutcomeKind, 'repaired' | 'wouldRepair' | 'ambiguous' | 'unmatched' | 'failed'> = {
  repaired: 'repaired',
  would_repair: 'wouldRepair',
  ambiguous: 'ambiguous',
  unmatched: 'unmatched',
  failed: 'failed',
};

export function recordLine(result: ProductRepairResult, line: LineOutcome): void {
  result.lines.push(line);
  result[COUNTERS[line.outcome]] += 1;
}

/** Anything worth listing in a job result: a fork seen, or a problem. */
export function hasFindings(result: ProductRepairResult): boolean {
  return result.problem !== undefined || result.headers.length > 0;
}
