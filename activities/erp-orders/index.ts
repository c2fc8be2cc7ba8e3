import { ApplicationFailure } from '@temporalio/common';
import { log } from '@temporalio/activity';
import { ExportMismatchError, ExportReadError, ProfileError } from '../../connectors/erp';
import { boundMessage, InputLimitError } from '../../connectors/input-limits';
import { StagingIntegrityError } from '../../connectors/staging';
import { toActivityFailure } from '../../connectors/traceability';
import type { ActivityDeps } from '../deps';
import { ApiCallCounter } from './api-calls';
import { applyBatch } from './apply-batch';
import { finishRun, type FinishOutput } from './finish';
import { PersonDirectory } from './persons';
import { prepareRun } from './prepare';
import { runKeyOf } from '../../connectors/staging';
import { OrderRunFolder } from './run-files';
import {
  applyBatchInputSchema,
  finishInputSchema,
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
function asFailure(error: unknown): unknown {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof InputLimitError) {
    return ApplicationFailure.nonRetryable(boundMessage(error.message), `ExportReadError:${error.code}`);
  }
  if (error instanceof ExportReadError && error.code !== 'unreadable_file') {
    return ApplicationFailure.nonRetryable(boundMessage(error.message), `${error.name}:${error.code}`);
  }
  if (
    error instanceof ProfileError ||
    error instanceof ExportReadError ||
    error instanceof ExportMismatchError
  ) {
    return ApplicationFailure.nonRetryable(boundMessage(error.message), error.name);
  }
  if (error instanceof StagingIntegrityError)
    return ApplicationFailure.nonRetryable(error.message, error.name);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
    return ApplicationFailure.nonRetryable((error as Error).message, `FileError:${code}`);
  }
  return toActivityFailure(error);
}

/**
 * Job 2's activities: the push (prepare, batches, finish). The pull (erp-pull.ts) and the inbox (inbox.ts) register
 * their own in activities/index.ts.
 */
export function createErpOrderActivities(deps: Pick<ActivityDeps, 'client' | 'config' | 'baseUrl'>) {
  const runFolder = (runKey: string) => new OrderRunFolder(deps.config.dataDir, runKey);
  // Kept for the worker's life: e-mail → user id mappings learned from the answers to our writes.
  const persons = new PersonDirectory();
  return {
    /** Reads, validates and stages the export; returns counts and the manifest reference only. */
    async prepareErpOrderPush(raw: PrepareInput): Promise<PrepareResult> {
      const input = prepareInputSchema.parse(raw);
      const api = new ApiCallCounter(deps.client);
      try {
        const result = await prepareRun(input, runFolder(runKeyOf(input.workflowId)), api);
        log.info('ERP export staged', {
          file: input.file,
          orders: result.orders,
          batches: result.batchCount,
          apiCalls: result.apiCalls,
        });
        return result;
      } catch (error) {
        throw asFailure(error);
      }
    },

    /** Makes the platform match one staged batch of orders; safe to run again at any point. */
    async applyErpOrderBatch(raw: ApplyBatchInput): Promise<BatchResult> {
      const input = applyBatchInputSchema.parse(raw);
      const api = new ApiCallCounter(deps.client);
      try {
        const result = await applyBatch(input, runFolder(input.runKey), api, persons);
        log.info('ERP order batch applied', {
          batch: input.batch,
          ...result.counts,
          apiCalls: result.apiCalls,
        });
        return result;
      } catch (error) {
        throw asFailure(error);
      }
    },

    /** Totals from the journals and the rejects file. */
    async finishErpOrderPush(raw: FinishInput): Promise<FinishOutput> {
      const input = finishInputSchema.parse(raw);
      try {
        return await finishRun(input, runFolder(input.runKey));
      } catch (error) {
        throw asFailure(error);
      }
    },
  };
}
