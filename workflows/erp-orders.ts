import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  defineQuery,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { Activities } from '../activities';
import type { BatchResult, PrepareResult } from '../activities/erp-orders';
import { TraceJob, TraceSource, TraceStatus } from '../worker/search-attributes';
import { approvalInputSchema, approveErpPlan, recordedApproval, withDecision, type ApprovalOutcome } from './approval';
import { batchSummary, showOutcome } from './operator-view';

/**
 * Workflow input, plain JSON (start it from the Web UI or `trace-sync push-orders`), for example
 * `{"file": "/data/inbox/orders-2024-03.csv", "mappingFile": "/data/profiles/eu-erp.json"}`.
 */
export const pushErpOrdersInputSchema = z.strictObject({
  /** Absolute path of the export on the worker's file system (csv, xlsx, json, ndjson). */
  file: z.string().min(1),
  /** A built-in mapping profile by name (`default`). */
  profile: z.enum(['default']).optional(),
  /** A mapping profile JSON file on the worker's file system (instead of `profile`). */
  mappingFile: z.string().min(1).optional(),
  /** Plan only: report what would be created and patched, write nothing. */
  dryRun: z.boolean().optional(),
  /** The export lists every line of its orders: platform lines it lacks are deleted (overrides the profile). */
  complete: z.boolean().optional(),
  /**
   * Lines already sent to tracing (`tracingReflectionOrderId` set) may be deleted or renamed. Off by default: removing
   * such a line deletes the counterparty's tracing request, so without it the order is rejected and left as it is.
   */
  allowTracedLineRemoval: z.boolean().optional(),
  /** The workflow id this run re-pushes the rejects of (set by `trace-sync retry`). */
  retryOf: z.string().min(1).optional(),
  /** Orders per batch activity (default 250). */
  batchSize: z.number().int().min(1).max(1000).optional(),
  /** Plan (a dry pass), then wait for the signal `approve` or `reject` before writing (see workflows/approval.ts). */
  approval: approvalInputSchema.optional(),
});
export type PushErpOrdersInput = z.infer<typeof pushErpOrdersInputSchema>;

type Counts = BatchResult['counts'];
type LineCounts = BatchResult['lines'];
type Recoveries = BatchResult['recoveries'];

/** What a run carries through continue-as-new: the staged run and the counters so far, never the orders. */
interface PushState {
  prepared: Omit<PrepareResult, 'warnings'> & { warnings: string[] };
  nextBatch: number;
  counts: Counts;
  apiCallsApply: number;
  applyMs: number;
  startedAtMs: number;
}

/** Internal: the input of a continued run. */
type ContinuedInput = PushErpOrdersInput & { resume?: PushState };

export interface PushErpOrdersResult {
  workflowId: string;
  file: string;
  profile: string;
  dryRun: boolean;
  retryOf: string | null;
  orders: Counts & { total: number; rejectedAtRead: number };
  lines: LineCounts;
  recoveries: Recoveries;
  apiCalls: { prepare: number; apply: number; total: number };
  durationsMs: { prepare: number; apply: number; finish: number; total: number };
  /** Every row of each rejected order with `error_code` and `error_message`, in the export's format; null when none. */
  rejectsFile: string | null;
  rejectedRows: number;
  rejections: Array<{ orderNumber: string; code: string; message: string }>;
  warnings: string[];
}

export interface PushErpOrdersProgress {
  phase: 'reading export' | 'planning' | 'awaiting approval' | 'pushing orders' | 'writing rejects' | 'done';
  file: string;
  batchesDone: number;
  batchCount: number | null;
  counts: Counts;
  apiCalls: number;
}

export const pushErpOrdersProgressQuery = defineQuery<PushErpOrdersProgress>('progress');

const { prepareErpOrderPush, finishErpOrderPush } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
  },
});

const { applyErpOrderBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  // The batch heartbeats every few seconds, so a killed worker is noticed quickly and the batch resumes elsewhere.
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 25,
  },
});

/** The last path segment, for the Web UI's TraceSource column (no Node `path` in workflow code). */
export function baseName(file: string): string {
  return (
    file
      .split(/[\\/]/)
      .filter((part) => part.length > 0)
      .pop() ?? file
  );
}

/**
 * An activity's own failure (a bad file, a missing column, a missing mapping file...) becomes the workflow's failure
 * message, so the Web UI and `trace-sync push-orders --wait` say what went wrong instead of "Activity task failed".
 * The activity's failure stays the cause, with its type.
 */
async function explained<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
      throw ApplicationFailure.create({
        message: error.cause.message,
        type: error.cause.type ?? 'ErpOrderPushFailed',
        nonRetryable: true,
        cause: error,
      });
    }
    throw error;
  }
}

/** A non-retryable failure naming each bad field of a workflow input. */
export function invalidInput(workflow: string, error: z.ZodError): ApplicationFailure {
  const problems = error.issues.map((issue) => {
    const field =
      issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '(input)');
    return `${field}: ${issue.message}`;
  });
  return ApplicationFailure.nonRetryable(`Invalid ${workflow} input: ${problems.join('; ')}`, 'InvalidInput');
}

function validate(raw: unknown): ContinuedInput {
  const { resume, ...rest } = (raw ?? {}) as Record<string, unknown>;
  const parsed = pushErpOrdersInputSchema.safeParse(rest);
  if (!parsed.success) throw invalidInput('pushErpOrders', parsed.error);
  if (parsed.data.profile !== undefined && parsed.data.mappingFile !== undefined) {
    throw ApplicationFailure.nonRetryable(
      'Invalid pushErpOrders input: give either profile or mappingFile, not both',
      'InvalidInput',
    );
  }
  return { ...parsed.data, ...(resume ? { resume: resume as PushState } : {}) };
}

/** Job 2: make the platform's orders match an ERP export, idempotently by order number. */
export async function pushErpOrders(rawInput: PushErpOrdersInput): Promise<PushErpOrdersResult & { approval?: ApprovalOutcome }> {
  const input = validate(rawInput);
  const info = workflowInfo();
  const source = baseName(input.file);
  const progress: PushErpOrdersProgress = {
    phase: 'reading export',
    file: input.file,
    batchesDone: input.resume?.nextBatch ?? 0,
    batchCount: input.resume?.prepared.batchCount ?? null,
    counts: input.resume?.counts ?? { created: 0, patched: 0, unchanged: 0, rejected: 0 },
    apiCalls: 0,
  };
  setHandler(pushErpOrdersProgressQuery, () => progress);
  upsertSearchAttributes([
    { key: TraceJob, value: 'erp-orders' },
    { key: TraceSource, value: source },
    { key: TraceStatus, value: input.dryRun ? 'dry-run' : 'running' },
  ]);

  // Taken before the prepare: the total covers it.
  const startedAtMs = Date.now();
  const state: PushState = input.resume ?? {
    prepared: await explained(
      prepareErpOrderPush({
        file: input.file,
        ...(input.profile ? { profile: input.profile } : {}),
        ...(input.mappingFile ? { mappingFile: input.mappingFile } : {}),
        ...(input.complete !== undefined ? { complete: input.complete } : {}),
        ...(input.allowTracedLineRemoval ? { allowTracedLineRemoval: true } : {}),
        workflowId: info.workflowId,
        batchSize: input.batchSize ?? 250,
      }),
    ),
    nextBatch: 0,
    counts: { created: 0, patched: 0, unchanged: 0, rejected: 0 },
    apiCallsApply: 0,
    applyMs: 0,
    startedAtMs,
  };
  let approval = recordedApproval(input.approval);
  if (input.approval !== undefined && !input.resume && !input.dryRun) {
    const gate = await explained(approveErpPlan(input.approval, { ...state.prepared, setPhase: (phase) => (progress.phase = phase) }));
    approval = gate.approval;
    input.approval = withDecision(input.approval, gate.approval);
    // Approved: only the orders still as planned; rejected: no batch at all.
    state.prepared = { ...state.prepared, ...(gate.plan ?? { batchCount: 0 }) };
  }
  const { prepared } = state;
  progress.batchCount = prepared.batchCount;
  progress.apiCalls = prepared.apiCalls + state.apiCallsApply;
  progress.phase = 'pushing orders';

  while (state.nextBatch < prepared.batchCount) {
    const batch = await explained(
      applyErpOrderBatch.executeWithOptions({ summary: batchSummary('push', state.nextBatch, prepared.batchCount, undefined, 'orders') }, [{
        runKey: prepared.runKey,
        manifest: prepared.manifest,
        batch: state.nextBatch,
        dryRun: input.dryRun ?? false,
      }]),
    );
    state.nextBatch += 1;
    for (const key of ['created', 'patched', 'unchanged', 'rejected'] as const)
      state.counts[key] += batch.counts[key];
    state.apiCallsApply += batch.apiCalls;
    state.applyMs += batch.durationMs;
    progress.batchesDone = state.nextBatch;
    progress.counts = { ...state.counts };
    progress.apiCalls = prepared.apiCalls + state.apiCallsApply;
    if (state.nextBatch < prepared.batchCount && workflowInfo().continueAsNewSuggested) {
      log.info('Continuing as new', { nextBatch: state.nextBatch, of: prepared.batchCount });
      const { resume: _previous, ...original } = input;
      await continueAsNew<(input: ContinuedInput) => Promise<PushErpOrdersResult>>({
        ...original,
        resume: state,
      });
    }
  }

  progress.phase = 'writing rejects';
  const finished = await explained(
    finishErpOrderPush({ runKey: prepared.runKey, manifest: prepared.manifest }),
  );
  const counts = finished.totals.counts;
  const result: PushErpOrdersResult = {
    workflowId: info.workflowId,
    file: input.file,
    profile: input.mappingFile ?? input.profile ?? 'default',
    dryRun: input.dryRun ?? false,
    retryOf: input.retryOf ?? null,
    orders: {
      ...counts,
      total: counts.created + counts.patched + counts.unchanged + counts.rejected,
      rejectedAtRead: prepared.rejectedAtRead,
    },
    lines: finished.totals.lines,
    recoveries: finished.totals.recoveries,
    apiCalls: {
      prepare: prepared.apiCalls,
      apply: state.apiCallsApply,
      total: prepared.apiCalls + state.apiCallsApply,
    },
    durationsMs: {
      prepare: prepared.durationMs,
      apply: state.applyMs,
      finish: finished.durationMs,
      total: Date.now() - state.startedAtMs,
    },
    rejectsFile: finished.rejectsFile,
    rejectedRows: finished.rejectedRows,
    rejections: finished.sample,
    warnings: prepared.warnings,
  };
  progress.phase = 'done';
  progress.counts = { ...counts };
  upsertSearchAttributes([
    {
      key: TraceStatus,
      value: approval?.decision === 'rejected' ? 'rejected' : counts.rejected > 0 ? 'done-with-rejects' : input.dryRun ? 'dry-run-done' : 'done',
    },
  ]);
  if (approval?.decision !== 'rejected') showOutcome(counts, finished.rejectsFile, { dryRun: input.dryRun ?? false, noun: 'orders' });
  log.info('ERP order push done', { ...counts, apiCalls: result.apiCalls.total });
  return approval ? { ...result, approval } : result;
}
