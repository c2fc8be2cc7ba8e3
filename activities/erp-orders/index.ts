import { log } from '@temporalio/activity';
import { ExportMismatchError, ExportReadError, ProfileError } from '../../connectors/erp-orders';
import { ApiCalls, failureMapper, guarded, inputLimit, nonRetryable } from '../batch-kit';
import type { ActivityDeps } from '../deps';
import { applyBatch } from './apply-batch';
import { finishRun, type FinishOutput } from './finish';
import { PersonDirectory } from './persons';
import { prepareRun } from './prepare';
import { runKeyOf } from '../../connectors/staging';
import {
  applyBatchInputSchema,
  finishInputSchema,
  orderRun,
  prepareInputSchema,
  type ApplyBatchInput,
  type BatchResult,
  type FinishInput,
  type PrepareInput,
  type PrepareResult,
} from './types';

export { runKeyOf } from '../../connectors/staging';
export type { BatchResult, FinishOutput, PrepareInput, PrepareResult };

/** Errors no retry can fix (a bad file, a bad profile, a missing column) stop the run with their own message. */
const asFailure = failureMapper(inputLimit('ExportReadError'), (error) => {
  if (error instanceof ExportReadError && error.code !== 'unreadable_file')
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
 * Job 2's activities: the push (prepare, batches, finish). The pull (erp-pull.ts) and the inbox (inbox.ts) register
 * their own in activities/index.ts.
 */
export function createErpOrderActivities(deps: Pick<ActivityDeps, 'client' | 'config' | 'baseUrl'>) {
  const runFolder = (runKey: string) => orderRun(deps.config.dataDir, runKey);
  // Kept for the worker's life: e-mail → user id mappings learned from the answers to our writes.
  const persons = new PersonDirectory();
  return {
    /** Reads, validates and stages the export; returns counts and the manifest reference only. */
    prepareErpOrderPush: guarded(asFailure, async (raw: PrepareInput): Promise<PrepareResult> => {
      const input = prepareInputSchema.parse(raw);
      const api = new ApiCalls(deps.client);
      const result = await prepareRun(input, runFolder(runKeyOf(input.workflowId)), api);
      log.info('ERP export staged', {
        file: input.file,
        orders: result.orders,
        batches: result.batchCount,
        apiCalls: result.apiCalls,
      });
      return result;
    }),

    /** Makes the platform match one staged batch of orders; safe to run again at any point. */
    applyErpOrderBatch: guarded(asFailure, async (raw: ApplyBatchInput): Promise<BatchResult> => {
      const input = applyBatchInputSchema.parse(raw);
      const api = new ApiCalls(deps.client);
      const result = await applyBatch(input, runFolder(input.runKey), api, persons);
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
      return await finishRun(input, runFolder(input.runKey));
    }),
  };
}
