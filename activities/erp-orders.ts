import { activityInfo, log } from '@temporalio/activity';
import { ExportMismatchError } from '../connectors/erp-orders/orders/export-needs';
import { ProfileError } from '../connectors/erp-orders/profile';
import { ExportReadError } from '../connectors/erp-orders/read/types';
import {
  applyBatch,
  applyBatchInputSchema,
  type ApplyBatchInput,
} from '../connectors/erp-orders/apply-batch';
import {
  finishInputSchema,
  finishRun,
  type FinishInput,
  type FinishOutput,
} from '../connectors/erp-orders/finish-run';
import {
  ExportFileError,
  prepareInputSchema,
  prepareRun,
  type PrepareInput,
  type PrepareResult,
} from '../connectors/erp-orders/prepare-run';
import { orderRun, type BatchResult } from '../connectors/erp-orders/push-run';
import { PersonDirectory } from '../connectors/erp-orders/persons';
import {
  freshLookupInputSchema,
  freshLookupManifest,
  holdBackChangedOrders,
  holdBackOrdersInputSchema,
  writeErpApprovalPlan,
  writeErpPlanInputSchema,
  type ErpApprovalPlanFiles,
  type FreshLookupInput,
  type HoldBackOrdersInput,
  type HoldBackOrdersResult,
  type WriteErpPlanInput,
} from '../connectors/erp-orders/approval-plan';
import { ApiCalls, runKeyOf, type StagingRef } from '../connectors/staging';
import { failureMapper, guarded, inputLimit, nonRetryable, withHeartbeats } from './batch-kit';
import type { ActivityDeps } from './deps';

export type { BatchResult, FinishOutput, PrepareInput, PrepareResult };

/**
 * Heartbeats go out on a timer, not only per order: one order may wait out a long Retry-After, and a batch that
 * stopped heartbeating would be retried while this attempt still writes.
 */
const HEARTBEAT_EVERY_MS = 5_000;

/** Errors no retry can fix (a bad file, a bad profile, a missing column) stop the run with their own message. */
const asFailure = failureMapper(inputLimit('ExportReadError'), (error) => {
  if (
    (error instanceof ExportReadError && error.code !== 'unreadable_file') ||
    error instanceof ExportFileError
  )
    return nonRetryable(error, `${error.name}:${error.code}`);
  if (
    error instanceof ProfileError ||
    error instanceof ExportReadError ||
    error instanceof ExportMismatchError
  )
    return nonRetryable(error);
  return undefined;
});

/**
 * The ERP push's activities (prepare, one batch, finish; the approval plan and its checks): Temporal wrappers around
 * connectors/erp-orders/prepare-run.ts, apply-batch.ts, finish-run.ts and approval-plan.ts that parse the input, count API calls, heartbeat and map
 * failures.
 */
export function createErpOrderActivities(deps: Pick<ActivityDeps, 'client' | 'config' | 'baseUrl'>) {
  const runFolder = (runKey: string) => orderRun(deps.config.dataDir, runKey);
  // Kept for the worker's life: e-mail → user id mappings learned from the answers to our writes; each batch also
  // takes in, and adds to, those the run-data store keeps for every worker (persons-store.ts).
  const persons = new PersonDirectory();
  return {
    /** Reads, validates and stages the export; returns counts and the manifest reference only. */
    prepareErpOrderPush: guarded(asFailure, async (raw: PrepareInput): Promise<PrepareResult> => {
      const input = prepareInputSchema.parse(raw);
      const api = new ApiCalls(deps.client);
      const run = runFolder(runKeyOf(input.workflowId));
      const result = await withHeartbeats((progress) => prepareRun(input, run, api, progress));
      log.info('ERP export staged', { file: input.file, orders: result.orders, batches: result.batchCount });
      return result;
    }),

    /**
     * Makes the platform match one staged batch of orders; safe to run again at any point. A cancel stops it before
     * its next order (the ones under way finish and are journalled) and reports it cancelled.
     */
    applyErpOrderBatch: guarded(asFailure, async (raw: ApplyBatchInput): Promise<BatchResult> => {
      const input = applyBatchInputSchema.parse(raw);
      const api = new ApiCalls(deps.client);
      const retry = activityInfo().attempt > 1;
      const result = await withHeartbeats(
        (progress, stop) =>
          applyBatch(input, runFolder(input.runKey), api, persons, { retry, progress, stop }),
        HEARTBEAT_EVERY_MS,
      );
      log.info('ERP order batch applied', {
        batch: input.batch,
        ...result.counts,
        apiCalls: result.apiCalls,
      });
      return result;
    }),

    /** Totals from the journals and the rejects file. */
    finishErpOrderPush: guarded(asFailure, async (raw: FinishInput): Promise<FinishOutput> => {
      const input = finishInputSchema.parse(raw);
      return await withHeartbeats(() => finishRun(input, runFolder(input.runKey)));
    }),

    /** Plan, then approve: plan.html and plan.xlsx from the dry pass's outcomes (orders to create, update, reject). */
    writeErpApprovalPlan: guarded(
      asFailure,
      async (raw: WriteErpPlanInput): Promise<ErpApprovalPlanFiles> => {
        const result = await withHeartbeats(() =>
          writeErpApprovalPlan(writeErpPlanInputSchema.parse(raw), deps.config.dataDir),
        );
        const { htmlFile, creates, updates, rejects } = result;
        log.info('ERP approval plan written', { htmlFile, creates, updates, rejects });
        return result;
      },
    ),

    /** After approval: the batches with every order to be looked up afresh (for the second dry pass). */
    freshErpLookupManifest: guarded(asFailure, async (raw: FreshLookupInput): Promise<StagingRef> => {
      return await withHeartbeats(() =>
        freshLookupManifest(freshLookupInputSchema.parse(raw), deps.config.dataDir),
      );
    }),

    /** After approval: takes out of the batches the orders whose outcome changed since the plan. */
    holdBackChangedErpOrders: guarded(
      asFailure,
      async (raw: HoldBackOrdersInput): Promise<HoldBackOrdersResult> => {
        const result = await withHeartbeats(() =>
          holdBackChangedOrders(holdBackOrdersInputSchema.parse(raw), deps.config.dataDir),
        );
        if (result.replannedCount > 0)
          log.warn('Orders changed on the platform since the approved plan: held back', {
            count: result.replannedCount,
            file: result.replannedFile,
          });
        return result;
      },
    ),
  };
}
