import {
  CancellationScope,
  continueAsNew,
  defineQuery,
  log,
  patched,
  proxyActivities,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { BomRepairBatchResult, StagedBomRepairCandidates } from '../activities/bom-repair';
import {
  MAX_LINES_PER_PRODUCT,
  MAX_LISTED_LINES,
  problemsFirst,
  type ListedProductResult,
} from '../connectors/bom-repair/listing';
import { parseRepairBomInput, selectorLabel, type RepairBomInput } from '../connectors/bom-repair/job-input';
import {
  checkResume,
  explainedRun,
  invalidInput,
  resumeRunKey,
  runStoppableBatches,
  setStatus,
  startJob,
  stepActivityOptions,
} from './batch-run';
import { showDetails } from './operator-view';
import { bomRepairOutcomeDetails, bomRepairProgressDetails } from './bom-repair-view';

export type { RepairBomInput } from '../connectors/bom-repair/job-input';

/**
 * Products scanned, `candidates` (those owning a BOM header: only they can hold a fork), processed, with forks, failed
 * (not repaired for a problem of their own, which their `problem` names); lines.
 */
const TOTALS = [
  'productsScanned',
  'candidates',
  'productsProcessed',
  'productsWithForks',
  'productsFailed',
  'linesRepaired',
  'linesWouldRepair',
  'linesAmbiguous',
  'linesUnmatched',
  'linesFailed',
] as const;
export type RepairBomTotals = Record<(typeof TOTALS)[number], number>;

export interface RepairBomForksResult extends RepairBomTotals {
  selector: string;
  dryRun: boolean;
  /** Named products the catalogue does not hold (first 100). */
  notFound: string[];
  /**
   * Per product with a fork or a problem: lines repaired (or that would be), ambiguous, unmatched, with reasons. At
   * most 100 lines a product and 1,000 in all are listed, problems first; `linesOmitted` counts the rest.
   */
  products: ListedProduct[];
  /** Products with findings beyond the listed ones (the list is capped to keep the result small). */
  productsOmitted: number;
  /** Lines of listed products beyond the listed ones (their products' counts include them). */
  linesOmitted: number;
  continuedAsNew: number;
  /**
   * How link roles were found: `include=bom` (the product pages' headers showed `link.isOwner`), or
   * `GET /bom-headers?styleId=` for `headerReads` products whose include did not show it (`includeProblem` says why).
   */
  detection: {
    via: 'include=bom' | 'GET /bom-headers' | 'include=bom and GET /bom-headers';
    headerReads: number;
    includeProblem: string | null;
  };
  /**
   * `sinceLastRun`: BOM headers created or changed at or after `from` were looked at; `stored` is the next mark;
   * `file` is where the mark is kept (`s3://…` with an S3 run-data store, else its path).
   */
  highWaterMark: { file: string; from: string; stored: string | null } | null;
  /**
   * Product listings that lost products between their pages on every read (an archive or delete during the scan):
   * products after them may not have been looked at. Run again; a `sinceLastRun` mark did not move.
   */
  listingsMoved?: string[];
}

/**
 * A product's findings as the result lists them: `linesOmitted` lines are counted, not listed; `linesFile` (when its
 * batch left lines out) lists every line.
 */
export type ListedProduct = ListedProductResult;

export interface RepairBomProgress extends RepairBomTotals {
  phase: 'starting' | 'scanning products' | 'repairing' | 'done' | 'cancelled';
  selector: string;
  dryRun: boolean;
}

/** Carried across continue-as-new; not meant to be given by hand. */
export interface RepairBomResumeState {
  runKey: string;
  staged: StagedBomRepairCandidates;
  offset: number;
  result: RepairBomForksResult;
}

export const bomRepairProgressQuery = defineQuery<RepairBomProgress>('progress');

/**
 * What the result lists: it is a payload (an error at 2 MB) carried through every continue-as-new, and an ambiguous
 * line with its candidates is near 750 bytes. A dry run with `products` lists one product's remaining lines. Each
 * batch's activity result is capped the same way (connectors/bom-repair/batch-listing.ts).
 */
const MAX_LISTED_PRODUCTS = 500;

const runKeyPrefix = (workflowId: string) => `${workflowId}-`.replace(/[^A-Za-z0-9._-]/g, '_');

const { stageBomRepairCandidates, repairBomBatch, discardBomRepairStaging, storeBomRepairMark } =
  proxyActivities<Activities>(stepActivityOptions);

function emptyResult(selector: string, dryRun: boolean): RepairBomForksResult {
  return {
    selector,
    dryRun,
    ...(Object.fromEntries(TOTALS.map((key) => [key, 0])) as RepairBomTotals),
    notFound: [],
    products: [],
    productsOmitted: 0,
    linesOmitted: 0,
    continuedAsNew: 0,
    detection: { via: 'include=bom', headerReads: 0, includeProblem: null },
    highWaterMark: null,
  };
}

function detectionOf(staged: StagedBomRepairCandidates): RepairBomForksResult['detection'] {
  const via =
    staged.headerReads === 0
      ? 'include=bom'
      : staged.includeUsed === 0
        ? 'GET /bom-headers'
        : 'include=bom and GET /bom-headers';
  return { via, headerReads: staged.headerReads, includeProblem: staged.includeProblem };
}

function addProduct(result: RepairBomForksResult, product: ListedProduct): void {
  if (product.headers.length > 0) result.productsWithForks += 1;
  // (A result carried from a run before products could fail has no count yet.)
  if (product.problem !== undefined) result.productsFailed = (result.productsFailed ?? 0) + 1;
  result.linesRepaired += product.repaired;
  result.linesWouldRepair += product.wouldRepair;
  result.linesAmbiguous += product.ambiguous;
  result.linesUnmatched += product.unmatched;
  result.linesFailed += product.failed;
  if (result.products.length < MAX_LISTED_PRODUCTS) result.products.push(listed(result, product));
  else result.productsOmitted += 1;
}

/**
 * The product with as many of its lines as the result still has room for, problems first. Lines its batch already
 * left out (`linesOmitted` from the activity) are counted too.
 */
function listed(result: RepairBomForksResult, product: ListedProduct): ListedProduct {
  const listedLines = result.products.reduce((sum, p) => sum + p.lines.length, 0);
  const keep = Math.max(
    0,
    Math.min(product.lines.length, MAX_LINES_PER_PRODUCT, MAX_LISTED_LINES - listedLines),
  );
  const omitted = product.lines.length - keep;
  const cut = (product.linesOmitted ?? 0) + omitted;
  // A result carried from a run before lines were capped has no count yet.
  if (cut > 0) result.linesOmitted = (result.linesOmitted ?? 0) + cut;
  if (omitted === 0) return product;
  return { ...product, lines: problemsFirst(product.lines).slice(0, keep), linesOmitted: cut };
}

function totalsOf(result: RepairBomForksResult): RepairBomTotals {
  return Object.fromEntries(TOTALS.map((key) => [key, result[key]])) as RepairBomTotals;
}

/** How the run ended, in the words every job uses: `dry-run` is only ever a dry run still running. */
function statusOf(result: RepairBomForksResult): string {
  if (result.dryRun) return 'dry-run-done';
  const problems =
    result.linesAmbiguous + result.linesUnmatched + result.linesFailed + (result.productsFailed ?? 0);
  return problems + result.notFound.length + (result.listingsMoved?.length ?? 0) > 0
    ? 'done-with-problems'
    : 'done';
}

/**
 * Job 3: finds BOM forks whose copied lines lost their component (spec 02, "Copy fidelity caveat") and puts the
 * references back from the source BOM. Input examples: `{"products": ["PLM-TEE-001"]}`,
 * `{"updatedAfter": "2025-06-01T00:00:00Z", "dryRun": true}`, `{"all": true}`.
 */
export async function bomRepair(
  input: RepairBomInput,
  resume?: RepairBomResumeState,
): Promise<RepairBomForksResult> {
  return explainedRun('BomRepairFailed', () => repair(input, resume));
}

async function repair(input: RepairBomInput, resume?: RepairBomResumeState): Promise<RepairBomForksResult> {
  let parsed: ReturnType<typeof parseRepairBomInput>;
  try {
    parsed = parseRepairBomInput(input);
  } catch (error) {
    throw invalidInput('BOM repair', (error as Error).message);
  }
  // Its run key is `<workflowId>-<first runId>`.
  if (resume)
    checkResume('BOM repair', resumeRunKey(resume), (key, workflowId) =>
      key.startsWith(runKeyPrefix(workflowId)),
    );
  const label = selectorLabel(parsed.selector);
  const result = resume?.result ?? emptyResult(label, parsed.dryRun);
  const progress = startJob<RepairBomProgress>({
    job: 'bom-repair',
    source: 'api',
    status: parsed.dryRun ? 'dry-run' : 'running',
    query: bomRepairProgressQuery,
    progress: { ...totalsOf(result), phase: 'starting', selector: label, dryRun: parsed.dryRun },
  });
  const sync = (phase: RepairBomProgress['phase']) => {
    Object.assign(progress, totalsOf(result), { phase });
    if (phase === 'scanning products' || phase === 'repairing')
      showDetails(bomRepairProgressDetails(result, phase));
  };

  const info = workflowInfo();
  const runKey = resume?.runKey ?? `${info.workflowId}-${info.runId}`.replace(/[^A-Za-z0-9._-]/g, '_');
  let staged = resume?.staged;
  if (!staged) {
    sync('scanning products');
    staged = await stageBomRepairCandidates({ selector: parsed.selector, runKey });
    result.productsScanned = staged.scanned;
    result.candidates = staged.candidates.items;
    result.notFound = staged.notFound;
    result.detection = detectionOf(staged);
    if (staged.listingsMoved?.length) result.listingsMoved = staged.listingsMoved;
    if (staged.highWaterMark) {
      result.highWaterMark = {
        file: staged.highWaterMark.file,
        from: new Date(staged.highWaterMark.fromMs).toISOString(),
        stored: null,
      };
    }
  }

  const { candidates } = staged;
  let offset = resume?.offset ?? 0;
  const addBatch = (batch: BomRepairBatchResult) => {
    for (const product of batch.results) addProduct(result, product);
    result.productsProcessed += batch.processed;
  };
  const cancelled = await runStoppableBatches({
    at: () => offset,
    end: candidates.items,
    step: async (options) => {
      sync('repairing');
      const batch = await repairBomBatch.executeWithOptions(options, [
        {
          runKey,
          candidates,
          offset,
          limit: parsed.batchSize,
          dryRun: parsed.dryRun,
          sourceNames: parsed.sourceNames,
          acceptCurrentSource: parsed.acceptCurrentSource,
        },
      ]);
      addBatch(batch);
      offset += parsed.batchSize;
    },
    carry: () => {
      result.continuedAsNew += 1;
      return continueAsNew<typeof bomRepair>(input, { runKey, staged, offset, result });
    },
  });

  if (cancelled) {
    // The stopped batch's cancellation carries what its settled products did; the mark stays where it was.
    const stopped = cancelled.details[0] as Partial<BomRepairBatchResult> | undefined;
    if (stopped && Array.isArray(stopped.results) && typeof stopped.processed === 'number')
      addBatch({ processed: stopped.processed, results: stopped.results });
    await CancellationScope.nonCancellable(() => discardBomRepairStaging({ runKey }));
    sync('cancelled');
    setStatus('cancelled');
    showDetails(
      `Cancelled after ${result.productsProcessed} of ${result.candidates} products: ${result.linesRepaired} lines repaired; run again to repair the rest`,
    );
    upsertMemo({ cancelled: true, ...totalsOf(result) });
    log.info('BOM repair cancelled', totalsOf(result));
    throw cancelled;
  }
  await discardBomRepairStaging({ runKey });
  // The mark moves only after every batch finished, and not on a dry run (which repaired nothing).
  if (parsed.selector.kind === 'sinceLastRun' && staged.highWaterMark && !parsed.dryRun) {
    const stored = await storeBomRepairMark({
      markName: parsed.selector.markName,
      sinceMs: staged.highWaterMark.nextMs,
    });
    if (result.highWaterMark) result.highWaterMark.stored = new Date(stored.sinceMs).toISOString();
  }
  sync('done');
  const status = statusOf(result);
  setStatus(status);
  showDetails(bomRepairOutcomeDetails(result, status));
  // patched: runs from before the outcome was in the memo upserted none at their end.
  if (patched('bom-repair-outcome-memo')) upsertMemo({ status, ...totalsOf(result) });
  log.info('BOM repair done', {
    selector: label,
    repaired: result.linesRepaired,
    ambiguous: result.linesAmbiguous,
  });
  return result;
}
