/** The repair of one product's forks (what each batch of the bom-repair job does per product). */
import { ForkSnapshotStore, snapshotForFork } from './fork-snapshots';
import {
  isTraceabilityApiError,
  type BomHeader,
  type BomLine,
  type TraceabilityClient,
} from '../traceability';
import type { LineWrite } from './journal';
import {
  BomLinesUnsettledError,
  componentOf,
  keptKey,
  lacksComponent,
  lineViewSchema,
  matchCopiedLines,
  readHeaders,
  readLines,
  repairLineBody,
  timeMs,
  type ComponentRef,
  type LineMatch,
  type LineView,
} from './lines';
import type {
  HeaderOutcome,
  LineOutcome,
  LineOutcomeKind,
  ProductRepairResult,
  RepairCandidate,
} from './repair-schemas';
import { ancestorsNearestFirst, pickSourceHeader, sourceNameFor } from './source-header';

const COUNTERS = {
  repaired: 'repaired',
  would_repair: 'wouldRepair',
  ambiguous: 'ambiguous',
  unmatched: 'unmatched',
  failed: 'failed',
} as const satisfies Record<LineOutcomeKind, keyof ProductRepairResult>;

function recordLine(result: ProductRepairResult, line: LineOutcome): void {
  result.lines.push(line);
  result[COUNTERS[line.outcome]] += 1;
}

/** Anything worth listing in a job result: a fork seen, or a problem. */
export function hasFindings(result: ProductRepairResult): boolean {
  return result.problem !== undefined || result.headers.length > 0;
}

export interface RepairOptions {
  dryRun: boolean;
  /** Fork header name to source header name, for BOMs renamed at fork time. */
  sourceNames?: Readonly<Record<string, string>>;
  /** Take a changed source line's current component instead of reporting the copy as ambiguous. */
  acceptCurrentSource?: boolean;
  /** Source snapshots the safe write path kept: used instead of the current source when one is this fork's record. */
  snapshots?: ForkSnapshotStore;
  /** Line repairs an earlier attempt journalled for this product: reported and verified, not written again. */
  written?: readonly LineWrite[];
  /** Journals a line repair before its PUT (see `written`). */
  beforeWrite?: (write: LineWrite) => Promise<void>;
}

/** The source line was changed by a write after the fork (or when the fork time is unknown, ever changed). */
function changedAfter(line: LineView & { updatedAt?: string | null }, forkMs: number): boolean {
  const updated = timeMs(line.updatedAt);
  const created = timeMs(line.createdAt);
  if (Number.isNaN(updated) || updated <= created) return false;
  return Number.isNaN(forkMs) || updated >= forkMs;
}

/** Lines that existed when the fork copied the source (a line created afterwards was never copied). */
function existedAt(line: LineView, forkMs: number): boolean {
  const created = timeMs(line.createdAt);
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

interface PlannedRepair {
  line: LineView;
  match: Pick<Extract<LineMatch, { kind: 'match' }>, 'lineId' | 'sourceLineId' | 'component'>;
  basis: NonNullable<LineOutcome['basis']>;
}

/**
 * Finds the owned headers of one product whose lines lost their component, finds each one's source on the
 * nearest ancestor, matches the copies and repairs them with full-replace PUTs through the product's owner link,
 * then re-reads to verify. Lines that already hold a component are never touched, so a second run writes nothing.
 * A 4xx on one line is recorded and the rest go on; 429/5xx/network errors propagate for the activity to retry. A
 * BOM whose lines (or its source's) are never read whole leaves the product's `problem` naming it and the counts.
 */
export async function repairProductBoms(
  client: TraceabilityClient,
  candidate: RepairCandidate,
  options: RepairOptions,
  cache = new RepairReadCache(client),
): Promise<ProductRepairResult> {
  const result: ProductRepairResult = {
    productId: candidate.id,
    externalId: candidate.externalId,
    repaired: 0,
    wouldRepair: 0,
    ambiguous: 0,
    unmatched: 0,
    failed: 0,
    verified: null,
    headers: [],
    lines: [],
  };
  let wrote = false;
  let allVerified = true;
  for (const owned of candidate.ownedHeaders) {
    try {
      await repairHeader(owned);
    } catch (error) {
      if (!(error instanceof BomLinesUnsettledError)) throw error;
      // Retrying cannot make the list read whole: this product is left for a later run, its batch goes on.
      const header = result.headers.find((h) => h.headerId === owned.id);
      if (header) header.problem = error.message;
      const problem = `${candidate.externalId ?? '(no externalId)'} (${candidate.id}): ${error.message}`;
      result.problem = result.problem === undefined ? problem : `${result.problem}; ${problem}`;
    }
  }
  result.verified = wrote ? allVerified : null;
  return result;

  /** One owned header: its copies planned, repaired (unless dry) and verified. */
  async function repairHeader(owned: RepairCandidate['ownedHeaders'][number]): Promise<void> {
    const lines = await readLines(client, owned.id);
    const copies = lines.filter(lacksComponent);
    const broken = new Set(copies.map((line) => line.id));
    // Repairs an earlier attempt wrote (a line still without its component was not written: it is planned again).
    const earlier = new Map<string, LineWrite>();
    for (const write of options.written ?? [])
      if (write.headerId === owned.id && !broken.has(write.lineId)) earlier.set(write.lineId, write);
    if (copies.length === 0 && earlier.size === 0) return;
    const first = [...earlier.values()][0];
    const header: HeaderOutcome = {
      headerId: owned.id,
      name: owned.name,
      linesWithoutComponent: copies.length + earlier.size,
      sourceHeaderId: first?.sourceHeaderId ?? null,
      sourceProductId: first?.sourceProductId ?? null,
    };
    result.headers.push(header);
    const written: PlannedRepair[] = [...earlier.values()].map((write) => ({
      line: write.before,
      match: { lineId: write.lineId, sourceLineId: write.sourceLineId, component: write.component },
      basis: write.basis,
    }));
    if (written.length > 0) wrote = true;
    const planned = copies.length === 0 ? [] : await planHeader(owned, lines, copies, header);
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
      return;
    }

    for (const plan of planned) {
      await options.beforeWrite?.({
        kind: 'intent',
        productId: candidate.id,
        headerId: owned.id,
        sourceHeaderId: header.sourceHeaderId ?? '',
        sourceProductId: header.sourceProductId ?? '',
        lineId: plan.line.id,
        before: lineViewSchema.parse(plan.line),
        component: plan.match.component,
        sourceLineId: plan.match.sourceLineId,
        basis: plan.basis,
      });
      try {
        await client.boms.replaceLine(
          plan.line.id,
          repairLineBody(plan.line, candidate.id, plan.match.component),
        );
        written.push(plan);
        wrote = true;
      } catch (error) {
        if (!isTraceabilityApiError(error) || error.retryable) throw error;
        recordLine(result, {
          headerId: owned.id,
          lineId: plan.line.id,
          outcome: 'failed',
          component: plan.match.component,
          reason: `${error.code}: ${error.message}`,
        });
      }
    }
    if (written.length === 0) return;
    let reread: BomLine[];
    try {
      reread = await readLines(client, owned.id);
    } catch (error) {
      if (!(error instanceof BomLinesUnsettledError)) throw error;
      allVerified = false;
      for (const { line, match, basis } of written)
        recordLine(result, {
          headerId: owned.id,
          lineId: line.id,
          outcome: 'failed',
          component: match.component,
          sourceLineId: match.sourceLineId,
          basis,
          reason: `verification: written, but the re-read failed: ${error.message}`,
        });
      throw error;
    }
    const after = new Map(reread.map((line) => [line.id, line]));
    for (const { line, match, basis } of written) {
      const problem = verifyRepaired(line, after.get(line.id), match.component);
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

  /**
   * The repairs of one owned header's copies: its source found on the nearest ancestor, each copy matched. What
   * cannot be repaired (no source, an ambiguous one, a copy without a match) is recorded and left out.
   */
  async function planHeader(
    owned: RepairCandidate['ownedHeaders'][number],
    lines: readonly BomLine[],
    copies: readonly BomLine[],
    header: HeaderOutcome,
  ): Promise<PlannedRepair[]> {
    const leaveAll = (reason: string) => {
      header.problem = reason;
      for (const line of copies)
        recordLine(result, { headerId: owned.id, lineId: line.id, outcome: 'unmatched', reason });
    };

    const sourceName = sourceNameFor(owned.name, options.sourceNames);
    if (sourceName === null) {
      leaveAll(
        `'${owned.name}' has no ' (Copy)' suffix (renamed when it forked?): give its source name in sourceNames`,
      );
      return [];
    }
    const ancestors = (async function* () {
      for (const ancestorId of ancestorsNearestFirst(candidate))
        yield { ancestorId, headers: await cache.headersOf(ancestorId) };
    })();
    const pick = await pickSourceHeader(sourceName, ancestors, new Set([owned.id]));
    const forkMs = timeMs(owned.createdAt);
    if (pick.kind === 'ambiguous') {
      header.problem = `source ambiguous: ${pick.reason}`;
      header.sourceCandidates = pick.candidates;
      // Left alone, each copy with what every candidate source would give it, for the person who decides.
      const offers = new Map<string, NonNullable<LineOutcome['candidates']>>();
      for (const { headerId } of pick.candidates) {
        const candidateLines = (await cache.sourceLinesOf(headerId)).filter((l) => existedAt(l, forkMs));
        for (const match of matchCopiedLines(lines, candidateLines)) {
          if (match.kind !== 'match') continue;
          const offer = {
            basis: 'current source' as const,
            component: match.component,
            sourceLineId: match.sourceLineId,
            sourceHeaderId: headerId,
          };
          offers.set(match.lineId, [...(offers.get(match.lineId) ?? []), offer]);
        }
      }
      for (const line of copies) {
        const candidates = offers.get(line.id);
        recordLine(result, {
          headerId: owned.id,
          lineId: line.id,
          outcome: 'ambiguous',
          reason: header.problem,
          ...(candidates ? { candidates } : {}),
        });
      }
      return [];
    }
    if (pick.kind === 'not_found') {
      leaveAll(`source not found: ${pick.reason}`);
      return [];
    }
    header.sourceHeaderId = pick.header.id;
    header.sourceProductId = pick.ancestorId;

    const byId = new Map(lines.map((line) => [line.id, line]));
    const planned: PlannedRepair[] = [];
    // Never guess: what a copy lost is what its source line held at fork time. A snapshot that is this fork's
    // record says so exactly; otherwise the current source stands in only where no source line changed since.
    const sourceNow = await cache.sourceLinesOf(pick.header.id);
    const kept = options.snapshots ? await options.snapshots.find(candidate.id, pick.header.id) : null;
    const trust = kept ? snapshotForFork(kept, owned, sourceNow) : null;
    if (trust && !trust.use) header.snapshotSetAside = trust.reason;
    const snapshot = trust?.use ? trust.lines : null;
    const current = snapshot ? [] : sourceNow.filter((l) => existedAt(l, forkMs));
    const sourceLines: LineView[] = snapshot ?? current;
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
        recordLine(result, {
          headerId: owned.id,
          lineId: line.id,
          outcome: 'ambiguous',
          reason:
            `source line ${changed.map((c) => c.id).join(', ')} changed at ${changed.map((c) => c.updatedAt ?? '?').join(', ')}, ` +
            `after the fork (${owned.createdAt ?? 'time unknown'}): its component at fork time is not known and no ` +
            `snapshot of this fork was kept; the current one is ${match.component.styleId}${match.component.isMainComponent ? ' (main)' : ''}. ` +
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
        });
      }
    }
    return planned;
  }
}

/** The re-read line must carry the intended reference and the same kept values as before the write. */
function verifyRepaired(
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
