import {
  isTraceabilityApiError,
  type BomHeader,
  type BomLine,
  type TraceabilityClient,
} from '../traceability';
import { snapshotSourceLines, type ForkSnapshotStore } from './fork-snapshots';
import { componentOf, keptKey, lacksComponent, type ComponentRef, type LineView } from './line-fields';
import { matchCopiedLines, type LineMatch } from './matching';
import { repairLineBody } from './put-body';
import { readHeaders, readLines } from './reads';
import {
  emptyProductResult,
  recordLine,
  type HeaderOutcome,
  type LineOutcome,
  type ProductRepairResult,
} from './results';
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
  /** Take a changed source line's current component instead of reporting the copy as ambiguous. */
  acceptCurrentSource?: boolean;
  /** Source snapshots the safe write path kept at fork time: used instead of the current source when present. */
  snapshots?: ForkSnapshotStore;
}

const ms = (time: string | null | undefined) => (time ? Date.parse(time) : Number.NaN);

/** The source line was changed by a write after the fork (or when the fork time is unknown, ever changed). */
function changedAfter(line: LineView & { updatedAt?: string | null }, forkMs: number): boolean {
  const updated = ms(line.updatedAt);
  const created = ms(line.createdAt);
  if (Number.isNaN(updated) || updated <= created) return false;
  return Number.isNaN(forkMs) || updated >= forkMs;
}

/** Lines that existed when the fork copied the source (a line created afterwards was never copied). */
function existedAt(line: LineView, forkMs: number): boolean {
  const created = ms(line.createdAt);
  return Number.isNaN(forkMs) || Number.isNaN(created) || created <= forkMs;
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
  basis: NonNullable<LineOutcome['basis']>;
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
    // Never guess: what a copy lost is what its source line held at fork time. A kept snapshot says so exactly;
    // otherwise the current source stands in only where no source line changed since the fork.
    const snapshot = options.snapshots ? await options.snapshots.find(candidate.id, pick.header.id) : null;
    const forkMs = ms(owned.createdAt);
    const current = snapshot
      ? []
      : (await cache.sourceLinesOf(pick.header.id)).filter((l) => existedAt(l, forkMs));
    const sourceLines: LineView[] = snapshot ? snapshotSourceLines(snapshot) : current;
    for (const match of matchCopiedLines(lines, sourceLines)) {
      if (match.kind !== 'match') {
        recordLine(result, {
          headerId: owned.id,
          lineId: match.lineId,
          outcome: match.kind,
          reason: match.reason,
        });
        continue;
      }
      const line = byId.get(match.lineId) as BomLine;
      if (snapshot) {
        planned.push({ line, match, basis: 'snapshot' });
        continue;
      }
      const changed = current.filter(
        (source) =>
          !lacksComponent(source) && keptKey(source) === keptKey(line) && changedAfter(source, forkMs),
      );
      if (changed.length === 0) planned.push({ line, match, basis: 'source' });
      else if (options.acceptCurrentSource) planned.push({ line, match, basis: 'current source, accepted' });
      else {
        const outcome: LineOutcome = {
          headerId: owned.id,
          lineId: line.id,
          outcome: 'ambiguous',
          reason:
            `source line ${changed.map((c) => c.id).join(', ')} changed at ${changed.map((c) => c.updatedAt ?? '?').join(', ')}, ` +
            `after the fork (${owned.createdAt ?? 'time unknown'}): its component at fork time is not known and no ` +
            `snapshot was kept; the current one is ${match.component.styleId}${match.component.isMainComponent ? ' (main)' : ''}. ` +
            'Left alone; run with acceptCurrentSource to take the current one',
          candidates: changed.flatMap((source) => [
            { basis: 'fork time' as const, component: null, sourceLineId: source.id },
            {
              basis: 'current source' as const,
              component: componentOf(source),
              sourceLineId: source.id,
              changedAt: source.updatedAt ?? null,
            },
          ]),
        };
        recordLine(result, outcome);
      }
    }
    if (options.dryRun) {
      for (const { match, basis } of planned) {
        recordLine(result, {
          headerId: owned.id,
          lineId: match.lineId,
          outcome: 'would_repair',
          component: match.component,
          sourceLineId: match.sourceLineId,
          basis,
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
    for (const { line, match, basis } of written) {
      const now = after.get(line.id);
      const problem = verifyRepaired(line, now, match.component);
      if (problem) allVerified = false;
      recordLine(result, {
        headerId: owned.id,
        lineId: line.id,
        outcome: problem ? 'failed' : 'repaired',
        component: match.component,
        sourceLineId: match.sourceLineId,
        basis,
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
