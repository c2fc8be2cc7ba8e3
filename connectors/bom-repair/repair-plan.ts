/**
 * The plan of one owned header's repair: its source found on the nearest ancestor, each copy matched to the source
 * line it came from, and what cannot be told safely left alone with the reason (repair.ts writes and verifies).
 */
import type { BomHeader, BomLine, TraceabilityClient } from '../traceability';
import { snapshotForFork, type ForkSnapshotStore } from './fork-snapshots';
import { changedAfter, existedAt, madeByHeaderEdit, writtenAtFork } from './fork-evidence';
import {
  componentOf,
  describeKept,
  keptKey,
  matchCopiedLines,
  readHeaders,
  readLines,
  timeMs,
  type LineMatch,
  type LineView,
} from './lines';
import type { RepairRecordStore } from './repair-records';
import type { HeaderOutcome, LineOutcome, RepairCandidate } from './repair-schemas';
import { ancestorsNearestFirst, pickSourceHeader, sourceNameFor } from './source-header';

export interface PlanOptions {
  /** Fork header name to source header name, for BOMs renamed at fork time. */
  sourceNames?: Readonly<Record<string, string>>;
  /** Take the source as it stands now when a line of it changed after the fork, instead of leaving the copies. */
  acceptCurrentSource?: boolean;
  /** Source snapshots the safe write path kept: used instead of the current source when one is this fork's record. */
  snapshots?: ForkSnapshotStore;
  /** Where the lines this job repaired are recorded: a repair of a source line is no change after a fork of it. */
  repairs?: RepairRecordStore;
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

export interface PlannedRepair {
  line: LineView;
  match: Pick<Extract<LineMatch, { kind: 'match' }>, 'lineId' | 'sourceLineId' | 'component'>;
  basis: NonNullable<LineOutcome['basis']>;
}

/** One owned header to plan: its lines as read, the copies among them (lines without their component). */
export interface HeaderToPlan {
  candidate: RepairCandidate;
  owned: RepairCandidate['ownedHeaders'][number];
  lines: readonly BomLine[];
  copies: readonly BomLine[];
  header: HeaderOutcome;
}

/**
 * The repairs of one owned header's copies: its source found on the nearest ancestor, each copy matched. What
 * cannot be repaired (no source, an ambiguous one, a copy without a match) is recorded and left out.
 */
export async function planHeaderRepairs(
  { candidate, owned, lines, copies, header }: HeaderToPlan,
  options: PlanOptions,
  cache: RepairReadCache,
  /** Records a copy left alone (unmatched or ambiguous) in the product's result. */
  leave: (line: LineOutcome) => void,
): Promise<PlannedRepair[]> {
  const leaveAll = (reason: string) => {
    header.problem = reason;
    for (const line of copies) leave({ headerId: owned.id, lineId: line.id, outcome: 'unmatched', reason });
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
      leave({
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
    leave({
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
    for (const line of copies) leave({ headerId: owned.id, lineId: line.id, outcome: 'ambiguous', reason });
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
      leave({
        headerId: owned.id,
        lineId: line.id,
        outcome: 'ambiguous',
        reason:
          `source line ${changedList} changed after the fork (${when}): what it held when the fork copied it, ` +
          'values and component, is not known, so it may be the source of this copy or of any other, and no ' +
          'snapshot of this fork was kept. Left alone; run again with --accept-current-source ' +
          '(acceptCurrentSource in the input) to take the source as it stands now',
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
      'may be the source of any copy, even taking the source as it stands now (--accept-current-source, ' +
      'acceptCurrentSource in the input). Left alone: give these copies their components by hand';
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
