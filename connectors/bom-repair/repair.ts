/** The repair of one product's forks (what each batch of the bom-repair job does per product). */
import { ForkSnapshotStore, snapshotForFork } from './fork-snapshots';
import type { RepairedLine, RepairRecordStore } from './repair-records';
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
  describeKept,
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
import { ancestorsNearestFirst, COPY_SUFFIX, pickSourceHeader, sourceNameFor } from './source-header';

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
  /** Take the source as it stands now when a line of it changed after the fork, instead of leaving the copies. */
  acceptCurrentSource?: boolean;
  /** Source snapshots the safe write path kept: used instead of the current source when one is this fork's record. */
  snapshots?: ForkSnapshotStore;
  /** Where the lines this job repaired are recorded: a repair of a source line is no change after a fork of it. */
  repairs?: RepairRecordStore;
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

/**
 * How long after the fork's header a line the forking write made may be stamped: one request writes both, but the
 * header and the line take their own instants (the sandbox's differ by a millisecond now and then).
 */
const FORKING_WRITE_MS = 2000;

/**
 * Lines the write that forked wrote (POST and PUT /bom-lines keep the values sent, component included): the fork's
 * lines from its creation holding a component and not changed since. A line repaired or edited after the fork is not
 * one; a fork made by a header edit or a line delete holds none.
 */
export function writtenAtFork(
  lines: readonly (LineView & { updatedAt?: string | null })[],
  forkMs: number,
): number {
  const madeBy = forkMs + FORKING_WRITE_MS;
  return lines.filter(
    (line) => existedAt(line, madeBy) && !lacksComponent(line) && !changedAfter(line, madeBy),
  ).length;
}

/**
 * The fork's header shows a header edit made it (spec 02, PUT /bom-headers changing name or description: "header
 * duplicated (name suffixed ` (Copy)` unless a new name was supplied), lines copied"): its name is not the source's
 * with ` (Copy)`, which a line write's copy always gets, or its description is not the source's, which such a copy
 * keeps. Only when neither header changed since the fork: a later rename or description would look the same.
 */
function madeByHeaderEdit(
  fork: BomHeader | undefined,
  source: BomHeader | undefined,
  sourceName: string,
): boolean {
  if (!fork || !source) return false;
  const made = timeMs(fork.createdAt);
  const forkEdited = timeMs(fork.updatedAt);
  const sourceEdited = timeMs(source.updatedAt);
  if ([made, forkEdited, sourceEdited].some(Number.isNaN)) return false;
  if (forkEdited > made || sourceEdited >= made) return false;
  return (
    fork.name !== `${sourceName}${COPY_SUFFIX}` || (fork.description ?? null) !== (source.description ?? null)
  );
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
    const recorded: RepairedLine[] = [];
    // Written as planned, but on a pairing the platform cannot confirm (`unverifiable` says why).
    if (header.unverifiable !== undefined) allVerified = false;
    for (const { line, match, basis } of written) {
      const now = after.get(line.id);
      const problem = verifyRepaired(line, now, match.component);
      if (problem) allVerified = false;
      else if (now?.updatedAt)
        recorded.push({ lineId: line.id, updatedAt: now.updatedAt, kept: keptKey(now) });
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
    await options.repairs?.add(owned.id, recorded);
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
    const leaveLine = (match: Exclude<LineMatch, { kind: 'match' }>) =>
      recordLine(result, {
        headerId: owned.id,
        lineId: match.lineId,
        outcome: match.kind,
        reason: match.reason,
      });
    // Never guess: what a copy lost is what its source line held at fork time. A snapshot that is this fork's
    // record says so exactly; otherwise the current source stands in only where no source line changed since.
    const sourceNow = await cache.sourceLinesOf(pick.header.id);
    const kept = options.snapshots ? await options.snapshots.find(candidate.id, pick.header.id) : null;
    const trust = kept ? snapshotForFork(kept, owned, sourceNow) : null;
    if (trust && !trust.use) header.snapshotSetAside = trust.reason;
    const snapshot = trust?.use ? trust.lines : null;
    if (snapshot) {
      for (const match of matchCopiedLines(lines, snapshot)) {
        if (match.kind === 'match')
          planned.push({ line: byId.get(match.lineId) as BomLine, match, basis: 'snapshot' });
        else leaveLine(match);
      }
      return planned;
    }
    const current = sourceNow.filter((l) => existedAt(l, forkMs));
    const when = owned.createdAt ?? 'time unknown';
    const leaveCopies = (reason: string) => {
      for (const line of copies)
        recordLine(result, { headerId: owned.id, lineId: line.id, outcome: 'ambiguous', reason });
    };
    // A source line changed after the fork may have held any values (and component) when it was copied, so it may
    // be the source of any copy, whatever it holds now (its values now may even equal another copy's).
    // A source line this job repaired after the fork (a fork of an unrepaired fork) kept the values it was copied
    // with: its repair put back what it lacked, and that is what its copy here lacks too.
    const repairedOnly = options.repairs
      ? await options.repairs.lastWrittenByRepair(pick.header.id)
      : () => false;
    const changed = current.filter((source) => changedAfter(source, forkMs) && !repairedOnly(source));
    if (changed.length > 0 && !options.acceptCurrentSource) {
      const changedList = changed.map((c) => `${c.id} (at ${c.updatedAt ?? '?'})`).join(', ');
      const offers = new Map<string, string[]>();
      for (const match of matchCopiedLines(lines, current))
        if (match.kind !== 'unmatched')
          offers.set(
            match.lineId,
            match.kind === 'match' ? [match.sourceLineId] : match.candidateSourceLineIds,
          );
      for (const line of copies) {
        const sameValues = (offers.get(line.id) ?? [])
          .map((id) => current.find((source) => source.id === id))
          .filter((source): source is BomLine => source !== undefined && !changed.includes(source));
        recordLine(result, {
          headerId: owned.id,
          lineId: line.id,
          outcome: 'ambiguous',
          reason:
            `source line ${changedList} changed after the fork (${when}): what it held when the fork copied it, ` +
            'values and component, is not known, so it may be the source of this copy or of any other, and no ' +
            'snapshot of this fork was kept. Left alone; run with acceptCurrentSource to take the source as it ' +
            'stands now',
          candidates: [
            ...sameValues.map((source) => ({
              basis: 'current source' as const,
              component: componentOf(source),
              sourceLineId: source.id,
            })),
            ...changed.flatMap((source) => [
              { basis: 'fork time' as const, component: null, sourceLineId: source.id },
              {
                basis: 'current source' as const,
                component: componentOf(source),
                sourceLineId: source.id,
                changedAt: source.updatedAt ?? null,
              },
            ]),
          ],
        });
      }
      return planned;
    }
    // Taking the changed lines as they stand now cannot place one whose values match no line of the fork: the
    // values it was copied with are gone, so the copy it made may be any of the others.
    const forkKeys = new Set(lines.map(keptKey));
    const moved = changed.filter((source) => !forkKeys.has(keptKey(source)));
    if (moved.length > 0) {
      const reason =
        `source line ${moved.map((m) => `${m.id} (now ${describeKept(m)})`).join(', ')} changed after the fork ` +
        `(${when}) and no line of the fork has its values now: the values it was copied with are not known, so it ` +
        'may be the source of any copy, even taking the source as it stands now (acceptCurrentSource). Left ' +
        'alone: give these copies their components by hand';
      leaveCopies(reason);
      return planned;
    }
    // A source line deleted after the fork leaves no trace (and moves no `updatedAt`): only counts can show it. The
    // fork's lines from the fork time are the source's lines then, one more when the forking write added a line.
    const forkMade = lines.filter((line) => existedAt(line, forkMs)).length;
    const gone = Number.isNaN(forkMs) ? 0 : forkMade - current.length - 1;
    if (gone > 0) {
      const reason =
        `the fork holds ${forkMade} lines from when it was made (${when}) but the source only ${current.length} ` +
        `that existed then: at least ${gone} source line(s) were deleted after the fork, and which copies came ` +
        'from them cannot be told. Left alone: give these copies their components by hand';
      leaveCopies(reason);
      return planned;
    }
    const basis = changed.length > 0 ? 'current source, accepted' : 'source';
    for (const match of matchCopiedLines(lines, current)) {
      if (match.kind === 'match') planned.push({ line: byId.get(match.lineId) as BomLine, match, basis });
      else leaveLine(match);
    }
    if (planned.length > 0 && Number.isNaN(forkMs))
      header.unverifiable =
        'the fork time is not known, so a source line deleted after the fork (which the platform does not show) ' +
        "cannot be ruled out by counting lines; if one was, a copy may have been given another line's component: " +
        'check these repairs';
    else if (gone === 0 && planned.length > 0)
      header.unverifiable =
        `the fork holds ${forkMade} lines from when it was made (${when}), one more than the ${current.length} ` +
        'source lines that existed then: either the write that forked it added that line, or a source line was ' +
        'deleted after the fork, which the platform does not show. If one was, a copy with the values that line ' +
        "had may have been given another line's component: check these repairs";
    else if (
      gone < 0 &&
      planned.length > 0 &&
      writtenAtFork(lines, forkMs) === 0 &&
      !madeByHeaderEdit(
        (await cache.headersOf(candidate.id)).find((h) => h.id === owned.id),
        (await cache.headersOf(pick.ancestorId)).find((h) => h.id === pick.header.id),
        sourceName,
      )
    )
      header.unverifiable =
        `the fork holds no line written by the write that made it (${when}) and its header does not show a header ` +
        'edit (a new name or description, neither header changed since), so a line delete may have made it. If it ' +
        'was made by a line delete (spec 02: "deletion yields a copy without the deleted lines"), it ' +
        'holds fewer lines than the source did then, and a source line deleted after the fork, which the platform ' +
        'does not show, leaves the counts looking whole: a copy with the values that line had may have been given ' +
        'the component of a line the delete dropped. Check these repairs';
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
