import {
  CancellationScope,
  defineQuery,
  log,
  patched,
  proxyActivities,
  upsertMemo,
  workflowInfo,
  type CancelledFailure,
} from '@temporalio/workflow';
import { z } from 'zod';
import { inputFileReference } from '../connectors/s3-reference';
import type { Activities } from '../activities';
import type { BatchCounts, PlanResult, PlmImportResult, ReadResult } from '../activities/plm-import';
import {
  approvalInputSchema,
  approvePlmPlan,
  makingPlan,
  PLM_PLANNING_CANCEL_PATCH,
  heldBackNote,
  listenForDecision,
  recordedApproval,
  withDecision,
  type ApprovalOutcome,
} from './approval';
import {
  baseName,
  batchActivityOptions,
  continueWithResume,
  explainer,
  parseJobInput,
  runStoppableBatches,
  setStatus,
  startJob,
  stepActivityOptions,
} from './batch-run';
import { batchSummary, showOutcome } from './operator-view';
import { finishedSaid } from '../connectors/plm-import/rings-said';

export type { PlmImportResult } from '../activities/plm-import';

/**
 * Workflow input, plain JSON (start it from the Web UI, `trace-sync plm-import`, an inbox or `trace-sync retry`),
 * for example `{"file": "/data/inbox/plm/ss25.xlsx", "profile": "flat"}`.
 */
export const plmImportInputSchema = z.strictObject({
  /** Absolute path of the sheet (xlsx, xls, csv) on the worker's file system. */
  file: inputFileReference,
  /** A built-in mapping profile (default `native`). */
  profile: z.enum(['native', 'flat']).optional(),
  /** A mapping profile JSON file on the worker's file system (instead of `profile`). */
  mappingFile: inputFileReference.optional(),
  /** Plan only: read the catalogue and report what would be written (plan.json), write nothing. */
  dryRun: z.boolean().optional(),
  /** The workflow id whose rejects file this run re-imports (set by `trace-sync retry`). */
  retryOf: z.string().min(1).optional(),
  /** Products per write batch (default 200). */
  batchSize: z.number().int().min(1).max(1000).optional(),
  /** Archived products the sheet names are unarchived (their children stay archived) and updated; default: rejected. */
  unarchive: z.boolean().optional(),
  /** xlsx/xls: the sheet to read (default: the mapping's `sheet`, else the first visible sheet with cells). */
  sheet: z.string().min(1).optional(),
  /** Plan, then wait for the signal `approve` or `reject` before writing (see workflows/approval.ts). */
  approval: approvalInputSchema.optional(),
});
export type PlmImportInput = z.infer<typeof plmImportInputSchema>;

export interface PlmImportProgress {
  phase:
    | 'reading sheet'
    | 'planning'
    | 'awaiting approval'
    | 'applying'
    | 'writing rejects'
    | 'done'
    | 'cancelled';
  /** Products the sheet describes (known once planned). */
  total: number | null;
  /** Products settled so far (unchanged and invalid ones count as soon as they are planned). */
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Archived products left alone (without `unarchive`). */
  archived: number;
  batchesDone: number;
  batchCount: number | null;
}

export const plmImportProgressQuery = defineQuery<PlmImportProgress>('progress');

/** What a run carries through continue-as-new: references and counters, never rows. */
interface ImportState {
  read: ReadResult;
  plan: PlanResult;
  nextBatch: number;
  applied: BatchCounts;
  applyCalls: number;
  applyMs: number;
  startedAtMs: number;
}

const { readPlmSheet, planPlmImport, finishPlmImport } = proxyActivities<Activities>(stepActivityOptions);
const { applyPlmBatch, finishPlmRings } = proxyActivities<Activities>(batchActivityOptions);

/** patched: runs cancelled before a cancel finished the rings (swaps) it had begun replay without that write. */
const CANCEL_FINISHES_RINGS_PATCH = 'plm-cancel-finishes-rings';
/** patched: runs cancelled before result.json named the rings a cancel finished replay without them in the finish. */
const RESULT_NAMES_RINGS_PATCH = 'plm-result-names-rings';
/** patched: runs cancelled before a cancel finished the code moves outside rings replay without them in the finish. */
const RESULT_NAMES_CHAINS_PATCH = 'plm-result-names-chains';

const explained = explainer('PlmImportFailed');

/** Job 1: import a PLM spreadsheet into the catalogue (styles, variants, SKUs), keyed by externalId. */
export async function plmImport(
  rawInput: PlmImportInput,
): Promise<PlmImportResult & { approval?: ApprovalOutcome }> {
  const input = parseJobInput<typeof plmImportInputSchema, ImportState>(
    'plmImport',
    plmImportInputSchema,
    rawInput,
    'read',
  );
  const info = workflowInfo();
  let dryRun = input.dryRun ?? false;
  let approval: ApprovalOutcome | undefined;
  const progress = startJob<PlmImportProgress>({
    job: 'plm-import',
    source: baseName(input.file),
    status: dryRun ? 'dry-run' : 'running',
    query: plmImportProgressQuery,
    progress: {
      phase: 'reading sheet',
      total: null,
      done: 0,
      created: 0,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      archived: 0,
      batchesDone: 0,
      batchCount: null,
    },
  });
  upsertMemo({
    file: input.file,
    profile: input.mappingFile ?? input.profile ?? 'native',
    dryRun,
    retryOf: input.retryOf ?? null,
  });

  // From the start, so a decision sent before the plan is written is seen as such.
  const signals = input.approval !== undefined && !dryRun && !input.resume ? listenForDecision() : undefined;

  const batchSize = input.batchSize ?? 200;
  const unarchive = input.unarchive ?? false;
  let state: ImportState;
  if (input.resume) {
    state = input.resume;
  } else {
    const startedAtMs = Date.now();
    const { file, profile, mappingFile, sheet, retryOf } = input;
    const read = await explained(
      readPlmSheet({ file, profile, mappingFile, sheet, retryOf, workflowId: info.workflowId }),
    );
    progress.phase = 'planning';
    const planning = () =>
      explained(planPlmImport({ runKey: read.runKey, sheet: read.sheet, batchSize, unarchive }));
    // A run that will await a decision and is cancelled now wrote nothing: it says so, as at the gate.
    const plan = signals ? await makingPlan(PLM_PLANNING_CANCEL_PATCH, planning) : await planning();
    state = {
      read,
      plan,
      nextBatch: 0,
      applied: { created: 0, updated: 0, unchanged: 0, rejected: 0 },
      applyCalls: 0,
      applyMs: 0,
      startedAtMs,
    };
    if (input.approval !== undefined && signals) {
      const gate = await explained(
        approvePlmPlan(input.approval, {
          read,
          plan,
          batchSize,
          unarchive,
          signals,
          setPhase: (phase) => (progress.phase = phase),
        }),
      );
      approval = gate.approval;
      input.approval = withDecision(input.approval, gate.approval);
      // Rejected: nothing is written; the run ends as a dry run would, with the plan as its report.
      if (gate.plan) state.plan = gate.plan;
      else dryRun = true;
    }
  }
  const { read, plan } = state;
  const showProgress = () => {
    const { counts } = plan;
    progress.total = counts.create + counts.update + counts.unchanged + counts.invalid + counts.archived;
    progress.created = state.applied.created;
    progress.updated = state.applied.updated;
    progress.unchanged = counts.unchanged + state.applied.unchanged;
    progress.rejected = counts.invalid + state.applied.rejected;
    progress.archived = counts.archived;
    progress.done =
      progress.created + progress.updated + progress.unchanged + progress.rejected + progress.archived;
    progress.batchesDone = state.nextBatch;
    progress.batchCount = plan.batchCount;
  };
  showProgress();

  let cancelled: CancelledFailure | undefined;
  if (!dryRun) {
    progress.phase = 'applying';
    cancelled = await runStoppableBatches({
      at: () => state.nextBatch,
      end: plan.batchCount,
      step: async (options) => {
        const batch = await explained(
          applyPlmBatch.executeWithOptions(
            { ...options, summary: batchSummary('apply', state.nextBatch, plan.batchCount) },
            [{ runKey: read.runKey, manifest: plan.manifest, batch: state.nextBatch }],
          ),
        );
        state.nextBatch += 1;
        for (const key of ['created', 'updated', 'unchanged', 'rejected'] as const)
          state.applied[key] += batch.counts[key];
        state.applyCalls += batch.apiCalls;
        state.applyMs += batch.durationMs;
        showProgress();
      },
      carry: () => continueWithResume(input, state),
    });
  }

  // A cancel between a ring's first write and its last: the ring's other writes first, as the running batch's are.
  let ringsFinished: string[][] = [];
  let chainsFinished: string[][] = [];
  if (cancelled && state.nextBatch < plan.batchCount && patched(CANCEL_FINISHES_RINGS_PATCH)) {
    const rings = await explained(
      CancellationScope.nonCancellable(() =>
        finishPlmRings({ runKey: read.runKey, manifest: plan.manifest, batch: state.nextBatch }),
      ),
    );
    ringsFinished = rings.rings;
    // Absent from the results of runs whose finish predates it (their history replays them as they were).
    chainsFinished = rings.chains ?? [];
    state.applyCalls += rings.apiCalls;
    state.applyMs += rings.durationMs;
  }

  approval ??= recordedApproval(input.approval);
  progress.phase = 'writing rejects';
  const namesRings = ringsFinished.length > 0 && patched(RESULT_NAMES_RINGS_PATCH);
  const namesChains = chainsFinished.length > 0 && patched(RESULT_NAMES_CHAINS_PATCH);
  // Cancelled: the totals (from the journals, so the stopped batch's writes too) are still written and shown.
  const finish = () =>
    finishPlmImport({
      runKey: read.runKey,
      manifest: plan.manifest,
      workflowId: info.workflowId,
      dryRun,
      retryOf: input.retryOf ?? null,
      rows: read.rows,
      skippedRows: read.skippedRows,
      sheetName: read.sheetName,
      ignoredSheets: read.ignoredSheets,
      startedAtMs: state.startedAtMs,
      apiCalls: { read: read.apiCalls, plan: plan.apiCalls, apply: state.applyCalls },
      durationsMs: { read: read.durationMs, plan: plan.durationMs, apply: state.applyMs },
      catalogue: plan.catalogue,
      warnings: read.warnings,
      ...(cancelled ? { cancelled: true } : {}),
      ...(namesRings ? { ringsFinished } : {}),
      ...(namesChains ? { chainsFinished } : {}),
    });
  const result = await explained(cancelled ? CancellationScope.nonCancellable(finish) : finish());
  const { created, updated, unchanged, rejected, archived } = result.products;
  Object.assign(progress, {
    phase: cancelled ? 'cancelled' : 'done',
    created,
    updated,
    unchanged,
    rejected,
    archived,
    done: created + updated + unchanged + rejected + archived,
  });
  if (cancelled) {
    setStatus('cancelled');
    const left = result.products.total - progress.done;
    const finished = finishedSaid(ringsFinished, namesChains ? chainsFinished : []);
    const whole =
      finished.said === '' ? '' : `; ${finished.said} ${finished.verb} written whole before the run stopped`;
    showOutcome(result.products, result.rejectsFile, {
      rejectedRows: result.rejectedRows,
      note: `cancelled: ${left} products not written${whole}; run the file again to write them`,
    });
    upsertMemo({
      products: result.products,
      rejectedRows: result.rejectedRows,
      rejectsFile: result.rejectsFile,
      resultFile: result.resultFile,
      cancelled: true,
      ...(ringsFinished.length > 0 ? { ringsFinished } : {}),
      // No patch: a replay compares the memo command, not the fields it holds.
      ...(namesChains ? { chainsFinished } : {}),
    });
    log.info('PLM import cancelled', { ...result.products, apiCalls: result.apiCalls.total });
    throw cancelled;
  }
  const status = dryRun
    ? 'dry-run-done'
    : result.products.rejected > 0 || result.rejectedRows > 0
      ? 'done-with-rejects'
      : 'done';
  setStatus(approval?.decision === 'rejected' ? 'rejected' : status);
  if (approval?.decision !== 'rejected') {
    const note = approval && heldBackNote(approval, 'products');
    showOutcome(result.products, result.rejectsFile, {
      dryRun,
      rejectedRows: result.rejectedRows,
      ...(note ? { note } : {}),
    });
  }
  upsertMemo({
    products: result.products,
    rejectedRows: result.rejectedRows,
    rejectsFile: result.rejectsFile,
    resultFile: result.resultFile,
  });
  log.info('PLM import done', { ...result.products, apiCalls: result.apiCalls.total });
  return approval ? { ...result, approval } : result;
}
