import {
  CancellationScope,
  defineQuery,
  log,
  patched,
  proxyActivities,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import { inputFileReference } from '../connectors/s3-reference';
import type { Activities } from '../activities';
import type { BatchResult, PrepareResult } from '../activities/erp-orders';
import { moreReadWarnings } from '../connectors/erp-orders/read-warnings';
import {
  approvalInputSchema,
  approveErpPlan,
  heldBackNote,
  listenForDecision,
  recordedApproval,
  withDecision,
  type ApprovalOutcome,
  type ErpGateResume,
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

/**
 * Workflow input, plain JSON (start it from the Web UI or `trace-sync erp-orders`), for example
 * `{"file": "/data/inbox/orders-2024-03.csv", "mappingFile": "/data/profiles/eu-erp.json"}`.
 */
export const pushErpOrdersInputSchema = z.strictObject({
  /** Absolute path of the export on the worker's file system (csv, xlsx, json, ndjson). */
  file: inputFileReference,
  /** A built-in mapping profile by name (`default`). */
  profile: z.enum(['default']).optional(),
  /** A mapping profile JSON file on the worker's file system (instead of `profile`). */
  mappingFile: inputFileReference.optional(),
  /** Plan only: report what would be created and patched, write nothing. */
  dryRun: z.boolean().optional(),
  /** The export lists every line of its orders: platform lines it lacks are deleted (overrides the profile). */
  complete: z.boolean().optional(),
  /**
   * Lines already sent to tracing (`tracingReflectionOrderId` set) may be deleted or renamed. Off by default: removing
   * such a line deletes the counterparty's tracing request, so without it the order is rejected and left as it is.
   */
  allowTracedLineRemoval: z.boolean().optional(),
  /**
   * Orders the export names that are archived on the platform (hidden in its UI) are unarchived and updated. Off by
   * default: they are rejected as `order_archived` and left as they are.
   */
  unarchive: z.boolean().optional(),
  /** The workflow id this run re-pushes the rejects of (set by `trace-sync retry`). */
  retryOf: z.string().min(1).optional(),
  /** Orders per batch activity (default 250). */
  batchSize: z.number().int().min(1).max(1000).optional(),
  /** Plan (a dry pass), then wait for the signal `approve` or `reject` before writing (see workflows/approval.ts). */
  approval: approvalInputSchema.optional(),
});
export type PushErpOrdersInput = z.infer<typeof pushErpOrdersInputSchema>;

type Counts = BatchResult['counts'];

/** A dry run's TraceStatus is `dry-run-done`, rejects or not: `done-with-rejects` is a run that wrote. */
const DRY_RUN_STATUS_PATCH = 'erp-dry-run-status';

/** What a run carries through continue-as-new: the staged run and the counters so far, never the orders. */
interface PushState {
  prepared: PrepareResult;
  nextBatch: number;
  counts: Counts;
  apiCallsApply: number;
  applyMs: number;
  startedAtMs: number;
  /** A run that continued as new in the middle of the approval gate's dry passes: where the gate goes on. */
  gate?: ErpGateResume;
}

export interface PushErpOrdersResult {
  workflowId: string;
  file: string;
  profile: string;
  dryRun: boolean;
  retryOf: string | null;
  orders: Counts & { total: number; rejectedAtRead: number };
  lines: BatchResult['lines'];
  recoveries: BatchResult['recoveries'];
  apiCalls: { prepare: number; apply: number; total: number };
  durationsMs: { prepare: number; apply: number; finish: number; total: number };
  /**
   * Every row of each rejected order with `error_code` and `error_message`, in the export's format, where it is found:
   * `s3://…` with an S3 run-data store, else the run folder's path; null when none.
   */
  rejectsFile: string | null;
  /** The rejected orders' rows in the export (an order of two lines is two rows): the rejects file's rows. */
  rejectedExportRows: number;
  /** The same number as `rejectedExportRows`, kept for readers of older results; `orders.rejected` counts orders. */
  rejectedRows: number;
  /** The first rejected orders (one each, however many rows), the rejects file has them all. */
  rejections: Array<{ orderNumber: string; code: string; message: string }>;
  warnings: string[];
}

export interface PushErpOrdersProgress {
  phase:
    | 'reading export'
    | 'planning'
    | 'awaiting approval'
    | 'pushing orders'
    | 'writing rejects'
    | 'done'
    | 'cancelled';
  file: string;
  batchesDone: number;
  batchCount: number | null;
  counts: Counts;
  apiCalls: number;
}

export const pushErpOrdersProgressQuery = defineQuery<PushErpOrdersProgress>('progress');

const { prepareErpOrderPush, finishErpOrderPush } = proxyActivities<Activities>(stepActivityOptions);
const { applyErpOrderBatch } = proxyActivities<Activities>(batchActivityOptions);
const explained = explainer('ErpOrderPushFailed');

/** Job 2: make the platform's orders match an ERP export, idempotently by order number. */
export async function erpOrders(
  rawInput: PushErpOrdersInput,
): Promise<PushErpOrdersResult & { approval?: ApprovalOutcome }> {
  const input = parseJobInput<typeof pushErpOrdersInputSchema, PushState>(
    'erpOrders',
    pushErpOrdersInputSchema,
    rawInput,
    'prepared',
  );
  const info = workflowInfo();
  const progress = startJob<PushErpOrdersProgress>({
    job: 'erp-orders',
    source: baseName(input.file),
    status: input.dryRun ? 'dry-run' : 'running',
    query: pushErpOrdersProgressQuery,
    progress: {
      phase: 'reading export',
      file: input.file,
      batchesDone: input.resume?.nextBatch ?? 0,
      batchCount: input.resume?.prepared.batchCount ?? null,
      counts: input.resume?.counts ?? { created: 0, patched: 0, unchanged: 0, rejected: 0 },
      apiCalls: 0,
    },
  });

  // From the start, so a decision sent before the plan is written is seen as such (and in a run that continued as
  // new while it planned: the decision is still to come).
  const signals =
    input.approval !== undefined && (!input.resume || input.resume.gate?.pass === 'plan') && !input.dryRun
      ? listenForDecision()
      : undefined;

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
        ...(input.unarchive ? { unarchive: true } : {}),
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
  const { approval: approvalInput } = input;
  if (approvalInput !== undefined && (signals || state.gate)) {
    const gate = await explained(
      approveErpPlan(approvalInput, {
        ...state.prepared,
        signals,
        setPhase: (phase) => (progress.phase = phase),
        resume: state.gate,
        carry: (at) => continueWithResume<typeof input, PushState>(input, { ...state, gate: at }),
      }),
    );
    delete state.gate;
    approval = gate.approval;
    input.approval = withDecision(approvalInput, gate.approval);
    // Approved: only the orders still as planned; rejected: no batch at all.
    state.prepared = { ...state.prepared, ...(gate.plan ?? { batchCount: 0 }) };
  }
  const { prepared } = state;
  progress.batchCount = prepared.batchCount;
  progress.apiCalls = prepared.apiCalls + state.apiCallsApply;
  progress.phase = 'pushing orders';

  const cancelled = await runStoppableBatches({
    at: () => state.nextBatch,
    end: prepared.batchCount,
    step: async (options) => {
      const batch = await explained(
        applyErpOrderBatch.executeWithOptions(
          {
            ...options,
            summary: batchSummary('push', state.nextBatch, prepared.batchCount, undefined, 'orders'),
          },
          [
            {
              runKey: prepared.runKey,
              manifest: prepared.manifest,
              batch: state.nextBatch,
              dryRun: input.dryRun ?? false,
            },
          ],
        ),
      );
      state.nextBatch += 1;
      for (const key of ['created', 'patched', 'unchanged', 'rejected'] as const)
        state.counts[key] += batch.counts[key];
      state.apiCallsApply += batch.apiCalls;
      state.applyMs += batch.durationMs;
      progress.batchesDone = state.nextBatch;
      progress.counts = { ...state.counts };
      progress.apiCalls = prepared.apiCalls + state.apiCallsApply;
    },
    carry: () => continueWithResume(input, state),
  });

  progress.phase = 'writing rejects';
  // Cancelled: the totals (from the journals, so the stopped batch's orders too) are still written and shown.
  const finish = () => finishErpOrderPush({ runKey: prepared.runKey, manifest: prepared.manifest });
  const finished = await explained(cancelled ? CancellationScope.nonCancellable(finish) : finish());
  const counts = finished.totals.counts;
  if (cancelled) {
    progress.phase = 'cancelled';
    progress.counts = { ...counts };
    setStatus('cancelled');
    const settled = counts.created + counts.patched + counts.unchanged + counts.rejected;
    showOutcome(counts, finished.rejectsFile, {
      noun: 'orders',
      rejectedRows: finished.rejectedRows,
      rowsOfRejected: true,
      note: `cancelled: ${Math.max(0, prepared.orders - settled)} orders not pushed; push the file again to push them`,
    });
    upsertMemo({ orders: counts, rejectsFile: finished.rejectsFile, cancelled: true });
    log.info('ERP order push cancelled', { ...counts });
    throw cancelled;
  }
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
    rejectedExportRows: finished.rejectedRows,
    rejectedRows: finished.rejectedRows,
    rejections: finished.sample,
    warnings: [
      ...prepared.warnings,
      ...moreReadWarnings(prepared.moreWarnings),
      ...(finished.warnings ?? []),
    ],
  };
  progress.phase = 'done';
  progress.counts = { ...counts };
  // patched: dry runs with rejects that ended before a dry run always said `dry-run-done` replay with the former one.
  const dryRunDone = input.dryRun === true && patched(DRY_RUN_STATUS_PATCH);
  setStatus(
    approval?.decision === 'rejected'
      ? 'rejected'
      : dryRunDone
        ? 'dry-run-done'
        : counts.rejected > 0
          ? 'done-with-rejects'
          : input.dryRun
            ? 'dry-run-done'
            : 'done',
  );
  if (approval?.decision !== 'rejected') {
    const note = approval && heldBackNote(approval, 'orders');
    showOutcome(counts, finished.rejectsFile, {
      dryRun: input.dryRun ?? false,
      noun: 'orders',
      rejectedRows: finished.rejectedRows,
      rowsOfRejected: true,
      ...(note ? { note } : {}),
    });
  }
  log.info('ERP order push done', { ...counts, apiCalls: result.apiCalls.total });
  return approval ? { ...result, approval } : result;
}
