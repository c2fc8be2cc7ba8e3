import {
  isTraceabilityApiError,
  type BomHeader,
  type BomLine,
  type TraceabilityClient,
} from '../traceability';
import { keptKey, lacksComponent, type ComponentRef } from './line-fields';
import { matchCopiedLines, type LineMatch } from './matching';
import { repairLineBody } from './put-body';
import { readHeaders, readLines } from './reads';
import { emptyProductResult, recordLine, type HeaderOutcome, type ProductRepairResult } from './results';
import {
  ancestorsNearestFirst,
  pickSourceHeader,
  sourceNameFor,
  type HeaderRef,
  type ProductLineage,
  type SourcePick,
} from './source-discovery';

/** A product that owns BOM headers and might hold a fork (from the detection scan). */
export interface RepairCandidate extends ProductLineage {
  externalId: string | null;
  ownedHeaders: HeaderRef[];
}

export interface RepairOptions {
  dryRun: boolean;
  /** Fork header name to source header name, for BOMs renamed at fork time. */
  sourceNames?: Readonly<Record<string, string>>;
}

/** Reads shared between the products of one batch: siblings share parents and sources. */
export class RepairReadCache {
  private readonly headers = new Map<string, Promise<BomHeader[]>>();
  private readonly lines = new Map<string, Promise<BomLine[]>>();

  constructor(private readonly client: TraceabilityClient) {}

  headersOf(productId: string): Promise<BomHeader[]> {
    return this.memo(this.headers, productId, () => readHeaders(this.client, productId));
  }

  /** Source lines only: they are not written by the repair, so caching them is safe within a batch. */
  sourceLinesOf(headerId: string): Promise<BomLine[]> {
    return this.memo(this.lines, headerId, () => readLines(this.client, headerId));
  }

  private memo<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let value = map.get(key);
    if (!value) {
      value = load();
      value.catch(() => map.delete(key));
      map.set(key, value);
    }
    return value;
  }
}

async function findSource(
  cache: RepairReadCache,
  candidate: RepairCandidate,
  sourceName: string,
  forkId: string,
): Promise<SourcePick> {
  const ancestors = ancestorsNearestFirst(candidate);
  for (const ancestorId of ancestors) {
    const pick = pickSourceHeader(
      sourceName,
      [{ ancestorId, headers: await cache.headersOf(ancestorId) }],
      new Set([forkId]),
    );
    if (pick.kind !== 'not_found') return pick;
  }
  return {
    kind: 'not_found',
    reason: `no BOM named '${sourceName}' on ${ancestors.join(', ') || 'a parent (the product has none)'}`,
  };
}

interface PlannedRepair {
  line: BomLine;
  match: Extract<LineMatch, { kind: 'match' }>;
}

function refused(error: unknown): string | undefined {
  if (isTraceabilityApiError(error) && !error.retryable) return `${error.code}: ${error.message}`;
  return undefined;
}

/**
 * Finds the owned headers of one product whose lines lost their component, finds each one's source on the
 * nearest ancestor, matches the copies and repairs them with full-replace PUTs through the product's owner link,
 * then re-reads to verify. Lines that already hold a component are never touched, so a second run writes nothing.
 * A 4xx on one line is recorded and the rest go on; 429/5xx/network errors propagate for the activity to retry.
 */
export async function repairProductBoms(
  client: TraceabilityClient,
  candidate: RepairCandidate,
  options: RepairOptions,
  cache = new RepairReadCache(client),
): Promise<ProductRepairResult> {
  const result = emptyProductResult(candidate.id, candidate.externalId);
  let wrote = false;
  let allVerified = true;
  for (const owned of candidate.ownedHeaders) {
    const lines = await readLines(client, owned.id);
    const copies = lines.filter(lacksComponent);
    if (copies.length === 0) continue;
    const header: HeaderOutcome = {
      headerId: owned.id,
      name: owned.name,
      linesWithoutComponent: copies.length,
      sourceHeaderId: null,
      sourceProductId: null,
    };
    result.headers.push(header);
    const leaveAll = (outcome: 'ambiguous' | 'unmatched', reason: string) => {
      header.problem = reason;
      for (const line of copies) recordLine(result, { headerId: owned.id, lineId: line.id, outcome, reason });
    };

    const sourceName = sourceNameFor(owned.name, options.sourceNames);
    if (sourceName === null) {
      leaveAll(
        'unmatched',
        `'${owned.name}' has no ' (Copy)' suffix (renamed when it forked?): give its source name in sourceNames`,
      );
      continue;
    }
    const pick = await findSource(cache, candidate, sourceName, owned.id);
    if (pick.kind === 'not_found') {
      leaveAll('unmatched', `source not found: ${pick.reason}`);
      continue;
    }
    if (pick.kind === 'ambiguous') {
      leaveAll('ambiguous', `source ambiguous: ${pick.reason}`);
      continue;
    }
    header.sourceHeaderId = pick.header.id;
    header.sourceProductId = pick.ancestorId;

    const byId = new Map(lines.map((line) => [line.id, line]));
    const planned: PlannedRepair[] = [];
    for (const match of matchCopiedLines(lines, await cache.sourceLinesOf(pick.header.id))) {
      if (match.kind === 'match') planned.push({ line: byId.get(match.lineId) as BomLine, match });
      else
        recordLine(result, {
          headerId: owned.id,
          lineId: match.lineId,
          outcome: match.kind,
          reason: match.reason,
        });
    }
    if (options.dryRun) {
      for (const { match } of planned) {
        recordLine(result, {
          headerId: owned.id,
          lineId: match.lineId,
          outcome: 'would_repair',
          component: match.component,
          sourceLineId: match.sourceLineId,
        });
      }
      continue;
    }

    const written: PlannedRepair[] = [];
    for (const plan of planned) {
      try {
        await client.boms.replaceLine(
          plan.line.id,
          repairLineBody(plan.line, candidate.id, plan.match.component),
        );
        written.push(plan);
        wrote = true;
      } catch (error) {
        const reason = refused(error);
        if (reason === undefined) throw error;
        recordLine(result, {
          headerId: owned.id,
          lineId: plan.line.id,
          outcome: 'failed',
          component: plan.match.component,
          reason,
        });
      }
    }
    if (written.length === 0) continue;
    const after = new Map((await readLines(client, owned.id)).map((line) => [line.id, line]));
    for (const { line, match } of written) {
      const now = after.get(line.id);
      const problem = verifyRepaired(line, now, match.component);
      if (problem) allVerified = false;
      recordLine(result, {
        headerId: owned.id,
        lineId: line.id,
        outcome: problem ? 'failed' : 'repaired',
        component: match.component,
        sourceLineId: match.sourceLineId,
        ...(problem ? { reason: `verification: ${problem}` } : {}),
      });
    }
  }
  result.verified = wrote ? allVerified : null;
  return result;
}

/** The re-read line must carry the intended reference and the same kept values as before the write. */
export function verifyRepaired(
  before: BomLine,
  after: BomLine | undefined,
  component: ComponentRef,
): string | undefined {
  if (!after) return 'the line is gone';
  if (after.styleId !== component.styleId)
    return `component is ${after.styleId ?? 'null'}, expected ${component.styleId}`;
  if ((after.isMainComponent === true) !== component.isMainComponent)
    return `isMainComponent is ${String(after.isMainComponent)}`;
  if (keptKey(after) !== keptKey(before)) return 'placement, quantity, weight or country changed';
  return undefined;
}
