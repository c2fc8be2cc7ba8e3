import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  defineQuery,
  log,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { Activities } from '../activities';
import type { PlanResult, PlmImportResult, ReadResult } from '../activities/plm-import';
import { TraceJob, TraceSource, TraceStatus } from '../worker/search-attributes';
import { approvalInputSchema, approvePlmPlan, recordedApproval, withDecision, type ApprovalOutcome } from './approval';
import { batchSummary, showOutcome } from './operator-view';

export type { PlmImportResult } from '../activities/plm-import';

/**
 * Workflow input, plain JSON (start it from the Web UI, `trace-sync import-plm`, an inbox or `trace-sync retry`),
 * for example `{"file": "/data/inbox/plm/ss25.xlsx", "profile": "flat"}`.
 */
export const importPlmSpreadsheetInputSchema = z.strictObject({
  /** Absolute path of the sheet (xlsx, xls, csv) on the worker's file system. */
  file: z.string().min(1),
  /** A built-in mapping profile (default `native`). */
  profile: z.enum(['native', 'flat']).optional(),
  /** A mapping profile JSON file on the worker's file system (instead of `profile`). */
  mappingFile: z.string().min(1).optional(),
  /** Plan only: read the catalogue and report what would be written (plan.json), write nothing. */
  dryRun: z.boolean().optional(),
  /** The workflow id whose rejects file this run re-imports (set by `trace-sync retry`). */
  retryOf: z.string().min(1).optional(),
  /** Products per write batch (default 200). */
  batchSize: z.number().int().min(1).max(1000).optional(),
  /** Archived products the sheet names are unarchived (their children stay archived) and updated; default: rejected. */
  unarchive: z.boolean().optional(),
  /** xlsx/xls: the sheet to read (default: the mapping's `sheet`, else the first sheet with cells). */
  sheet: z.string().min(1).optional(),
  /** Plan, then wait for the signal `approve` or `reject` before writing (see workflows/approval.ts). */
  approval: approvalInputSchema.optional(),
});
export type ImportPlmSpreadsheetInput = z.infer<typeof importPlmSpreadsheetInputSchema>;

export interface PlmImportProgress {
  phase: 'reading sheet' | 'planning' | 'awaiting approval' | 'applying' | 'writing rejects' | 'done';
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

interface Counters {
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
}

/** What a run carries through continue-as-new: references and counters, never rows. */
interface ImportState {
  read: ReadResult;
  plan: PlanResult;
  nextBatch: number;
  applied: Counters;
  applyCalls: number;
  applyMs: number;
  startedAtMs: number;
}

type ContinuedInput = ImportPlmSpreadsheetInput & { resume?: ImportState };

const { readPlmSheet, planPlmImport, finishPlmImport } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  // They heartbeat every few seconds; the margin covers a large xlsx read by SheetJS, which holds the event loop.
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

const { applyPlmBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  // A batch only waits on the API, so its heartbeats are steady and a killed worker is noticed within 20 s.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 25 },
});

/** The last path segment, for the Web UI's TraceSource column (no Node `path` in workflow code). */
function baseName(file: string): string {
  return file.split(/[\\/]/).filter((part) => part.length > 0).pop() ?? file;
}

function invalidInput(problem: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`Invalid importPlmSpreadsheet input: ${problem}`, 'InvalidInput');
}

/**
 * An activity's own failure (a bad file, a missing mapping file...) becomes the workflow's failure message, so
 * the Web UI and `--wait` say what went wrong instead of "Activity task failed".
 */
async function explained<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      throw ApplicationFailure.create({ message: error.cause.message, type: error.cause.type ?? 'PlmImportFailed', nonRetryable: true, cause: error });
    }
    throw error;
  }
}

function validate(raw: unknown): ContinuedInput {
  const { resume, ...rest } = (raw ?? {}) as Record<string, unknown>;
  const parsed = importPlmSpreadsheetInputSchema.safeParse(rest);
  if (!parsed.success) {
    throw invalidInput(
      parsed.error.issues
        .map((issue) => {
          const field = issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '(input)');
          return `${field}: ${issue.message}`;
        })
        .join('; '),
    );
  }
  if (parsed.data.profile !== undefined && parsed.data.mappingFile !== undefined) {
    throw invalidInput('give either profile or mappingFile, not both');
  }
  return { ...parsed.data, ...(resume ? { resume: resume as ImportState } : {}) };
}

/** Job 1: import a PLM spreadsheet into the catalogue (styles, variants, SKUs), keyed by externalId. */
export async function importPlmSpreadsheet(rawInput: ImportPlmSpreadsheetInput): Promise<PlmImportResult & { approval?: ApprovalOutcome }> {
  const input = validate(rawInput);
  const info = workflowInfo();
  let dryRun = input.dryRun ?? false;
  let approval: ApprovalOutcome | undefined;
  const progress: PlmImportProgress = {
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
  };
  setHandler(plmImportProgressQuery, () => progress);
  // Set again after continue-as-new too: the Web UI then finds every run of the chain by job and file.
  upsertSearchAttributes([
    { key: TraceJob, value: 'plm-import' },
    { key: TraceSource, value: baseName(input.file) },
    { key: TraceStatus, value: dryRun ? 'dry-run' : 'running' },
  ]);
  upsertMemo({ file: input.file, profile: input.mappingFile ?? input.profile ?? 'native', dryRun, retryOf: input.retryOf ?? null });

  let state: ImportState;
  if (input.resume) {
    state = input.resume;
  } else {
    const startedAtMs = Date.now();
    const choice = {
      ...(input.profile !== undefined ? { profile: input.profile } : {}),
      ...(input.mappingFile !== undefined ? { mappingFile: input.mappingFile } : {}),
    };
    const read = await explained(
      readPlmSheet({ file: input.file, workflowId: info.workflowId, ...choice, ...(input.sheet !== undefined ? { sheet: input.sheet } : {}) }),
    );
    progress.phase = 'planning';
    const plan = await explained(
      planPlmImport({ runKey: read.runKey, sheet: read.sheet, batchSize: input.batchSize ?? 200, unarchive: input.unarchive ?? false }),
    );
    state = { read, plan, nextBatch: 0, applied: { created: 0, updated: 0, unchanged: 0, rejected: 0 }, applyCalls: 0, applyMs: 0, startedAtMs };
    if (input.approval !== undefined && !dryRun) {
      const gate = await explained(approvePlmPlan(input.approval, { read, plan, batchSize: input.batchSize ?? 200, unarchive: input.unarchive ?? false, setPhase: (phase) => (progress.phase = phase) }));
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
    progress.done = progress.created + progress.updated + progress.unchanged + progress.rejected + progress.archived;
    progress.batchesDone = state.nextBatch;
    progress.batchCount = plan.batchCount;
  };
  showProgress();

  if (!dryRun) {
    progress.phase = 'applying';
    while (state.nextBatch < plan.batchCount) {
      const batch = await explained(applyPlmBatch.executeWithOptions({ summary: batchSummary('apply', state.nextBatch, plan.batchCount) }, [{ runKey: read.runKey, manifest: plan.manifest, batch: state.nextBatch }]));
      state.nextBatch += 1;
      for (const key of ['created', 'updated', 'unchanged', 'rejected'] as const) state.applied[key] += batch.counts[key];
      state.applyCalls += batch.apiCalls;
      state.applyMs += batch.durationMs;
      showProgress();
      if (state.nextBatch < plan.batchCount && workflowInfo().continueAsNewSuggested) {
        log.info('Continuing as new', { nextBatch: state.nextBatch, of: plan.batchCount });
        const { resume: _previous, ...original } = input;
        await continueAsNew<(arg: ContinuedInput) => Promise<PlmImportResult>>({ ...original, resume: state });
      }
    }
  }

  approval ??= recordedApproval(input.approval);
  progress.phase = 'writing rejects';
  const result = await explained(finishPlmImport({
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
  }));
  progress.phase = 'done';
  progress.created = result.products.created;
  progress.updated = result.products.updated;
  progress.unchanged = result.products.unchanged;
  progress.rejected = result.products.rejected;
  progress.archived = result.products.archived;
  progress.done = progress.created + progress.updated + progress.unchanged + progress.rejected + progress.archived;
  const status = dryRun ? 'dry-run-done' : result.products.rejected > 0 || result.rejectedRows > 0 ? 'done-with-rejects' : 'done';
  upsertSearchAttributes([{ key: TraceStatus, value: approval?.decision === 'rejected' ? 'rejected' : status }]);
  if (approval?.decision !== 'rejected') showOutcome(result.products, result.rejectsFile, { dryRun });
  upsertMemo({ products: result.products, rejectsFile: result.rejectsFile, resultFile: result.resultFile });
  log.info('PLM import done', { ...result.products, apiCalls: result.apiCalls.total });
  return approval ? { ...result, approval } : result;
}
