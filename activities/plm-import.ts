import { log } from '@temporalio/activity';
import { applyBatch } from '../connectors/plm-import/apply';
import { finishRings, type FinishedRings } from '../connectors/plm-import/cancel-finish';
import { finishRun } from '../connectors/plm-import/finish';
import {
  writeApprovalPlan,
  writePlanInputSchema,
  type ApprovalPlanFiles,
  type WritePlanInput,
} from '../connectors/plm-import/approval-plan';
import {
  holdBackChangedSteps,
  holdBackInputSchema,
  type HoldBackInput,
  type HoldBackResult,
} from '../connectors/plm-import/changed-since-approval';
import { planRun } from '../connectors/plm-import/import-plan';
import { PlmInputError, readSheet } from '../connectors/plm-import/read-sheet';
import { PlmFileError } from '../connectors/plm-import/issues';
import {
  applyInputSchema,
  finishInputSchema,
  planInputSchema,
  plmRun,
  readInputSchema,
  type ApplyInput,
  type BatchResult,
  type FinishInput,
  type PlanInput,
  type PlanResult,
  type PlmImportResult,
  type ReadInput,
  type ReadResult,
} from '../connectors/plm-import/staged-run';
import { ApiCalls, runKeyOf } from '../connectors/staging';
import { failureMapper, guarded, inputLimit, invalidInput, nonRetryable, withHeartbeats } from './batch-kit';
import type { ActivityDeps } from './deps';

export type { FinishedRings } from '../connectors/plm-import/cancel-finish';
export type { ApprovalPlanFiles } from '../connectors/plm-import/approval-plan';
export type { HoldBackResult, Replanned } from '../connectors/plm-import/changed-since-approval';
export type {
  BatchCounts,
  BatchResult,
  PlanResult,
  PlmImportResult,
  ReadResult,
} from '../connectors/plm-import/staged-run';

/** Errors no retry can fix stop the run with their own message; API errors follow the client's retry rules. */
export const asActivityFailure = failureMapper(
  (error) => (error instanceof PlmFileError ? nonRetryable(error, `PlmFileError:${error.code}`) : undefined),
  invalidInput,
  inputLimit('PlmFileError'),
  (error) => (error instanceof PlmInputError ? nonRetryable(error) : undefined),
);

/**
 * Job 1's activities: read the sheet, plan against the catalogue, apply one batch, finish (rejects + result); with
 * approval, the plan a person reads and the hold-back of writes changed since it was approved.
 * Each is safe to run again: everything it keeps lives in the run folder, keyed by the workflow id.
 */
export function createPlmImportActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  const runFolder = (runKey: string) => plmRun(deps.config.dataDir, runKey);
  return {
    /** Parses the sheet with its profile (reference names resolved through the client's cache) and stages it. */
    readPlmSheet: guarded(asActivityFailure, async (raw: ReadInput): Promise<ReadResult> => {
      const input = readInputSchema.parse(raw);
      const result = await withHeartbeats(() =>
        readSheet(input, runFolder(runKeyOf(input.workflowId)), deps.client),
      );
      log.info('PLM sheet read', {
        file: input.file,
        rows: result.rows,
        products: result.products,
        rowIssues: result.rowIssues,
      });
      return result;
    }),

    /** Reads the catalogue for the sheet's keys, validates, classifies and stages the write batches. */
    planPlmImport: guarded(asActivityFailure, async (raw: PlanInput): Promise<PlanResult> => {
      const input = planInputSchema.parse(raw);
      const api = new ApiCalls(deps.client);
      const result = await withHeartbeats((progress) =>
        planRun(input, runFolder(input.runKey), api, progress),
      );
      log.info('PLM import planned', {
        ...result.counts,
        batches: result.batchCount,
        strategy: result.catalogue.strategy,
        apiCalls: result.apiCalls,
      });
      return result;
    }),

    /**
     * Writes one staged batch (creates and changed fields only); safe to run again at any point. A cancel stops it
     * before its next product (the ones under way are written and journalled) and reports it cancelled.
     */
    applyPlmBatch: guarded(asActivityFailure, async (raw: ApplyInput): Promise<BatchResult> => {
      const input = applyInputSchema.parse(raw);
      const api = new ApiCalls(deps.client);
      const result = await withHeartbeats((progress, stop) =>
        applyBatch(input, runFolder(input.runKey), api, progress, stop),
      );
      log.info('PLM batch applied', {
        batch: input.batch,
        ...result.counts,
        recovered: result.recovered,
        apiCalls: result.apiCalls,
      });
      return result;
    }),

    /**
     * A cancelled run's last writes: the rest of every ring (a swap) whose first write went out, from the batch the
     * cancel stopped (`batch`) on, so no product stays without the codes it gave up. Not cancellable: it is the cancel.
     */
    finishPlmRings: guarded(asActivityFailure, async (raw: ApplyInput): Promise<FinishedRings> => {
      const input = applyInputSchema.parse(raw);
      const api = new ApiCalls(deps.client);
      const result = await withHeartbeats((progress) =>
        finishRings(input, runFolder(input.runKey), api, progress),
      );
      log.info('PLM rings finished after a cancel', { rings: result.rings, apiCalls: result.apiCalls });
      return result;
    }),

    /** Totals, the rejects file and result.json. */
    finishPlmImport: guarded(asActivityFailure, async (raw: FinishInput): Promise<PlmImportResult> => {
      const input = finishInputSchema.parse(raw);
      return await withHeartbeats(() => finishRun(input, runFolder(input.runKey)));
    }),

    /** Plan, then approve: plan.html and plan.xlsx (creates, updates before → after, rejects), and the plan's snapshot. */
    writePlmApprovalPlan: guarded(
      asActivityFailure,
      async (raw: WritePlanInput): Promise<ApprovalPlanFiles> => {
        const result = await withHeartbeats(() =>
          writeApprovalPlan(writePlanInputSchema.parse(raw), deps.config.dataDir, deps.client),
        );
        log.info('PLM approval plan written', {
          htmlFile: result.htmlFile,
          creates: result.creates,
          updates: result.updates,
          rejects: result.rejects,
        });
        return result;
      },
    ),

    /** After approval: keeps only the writes that are still exactly as approved, and reports the others. */
    holdBackChangedPlmSteps: guarded(
      asActivityFailure,
      async (raw: HoldBackInput): Promise<HoldBackResult> => {
        const result = await withHeartbeats(() =>
          holdBackChangedSteps(holdBackInputSchema.parse(raw), deps.config.dataDir, deps.client),
        );
        if (result.replannedCount > 0)
          log.warn('Products changed on the platform since the approved plan: held back', {
            count: result.replannedCount,
            file: result.replannedFile,
          });
        return result;
      },
    ),
  };
}
