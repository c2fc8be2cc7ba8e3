/** The repair of one product's forks (what each batch of the bom-repair job does per product). */
import type { RepairedLine } from './repair-records';
import { refusesRecord, type BomLine, type TraceabilityClient } from '../traceability';
import type { LineWrite } from './journal';
import {
  BomLinesUnsettledError,
  keptKey,
  lacksComponent,
  lineViewSchema,
  readLines,
  repairLineBody,
  type ComponentRef,
} from './lines';
import { planHeaderRepairs, RepairReadCache, type PlanOptions, type PlannedRepair } from './repair-plan';
import type {
  HeaderOutcome,
  LineOutcome,
  LineOutcomeKind,
  ProductRepairResult,
  RepairCandidate,
} from './repair-schemas';

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

export interface RepairOptions extends PlanOptions {
  dryRun: boolean;
  /** Line repairs an earlier attempt journalled for this product: reported and verified, not written again. */
  written?: readonly LineWrite[];
  /** Journals a line repair before its PUT (see `written`). */
  beforeWrite?: (write: LineWrite) => Promise<void>;
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
    const planned =
      copies.length === 0
        ? []
        : await planHeaderRepairs({ candidate, owned, lines, copies, header }, options, cache, (line) =>
            recordLine(result, line),
          );
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
        // A refused key (spec 01: 401, 403 `insufficient_rights`) is the worker's, not the line's: it fails the run.
        if (!refusesRecord(error)) throw error;
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
