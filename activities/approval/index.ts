import { log } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { asActivityFailure } from '../plm-import';
import { guarded, withHeartbeats } from '../batch-kit';
import {
  holdBackChangedSteps,
  holdBackInputSchema,
  writeApprovalPlan,
  writePlanInputSchema,
  type ApprovalPlanFiles,
  type HoldBackInput,
  type HoldBackResult,
  type WritePlanInput,
} from './plm-plan';

export type { ApprovalPlanFiles, HoldBackResult, Replanned } from './plm-plan';

/**
 * The PLM import's plan-then-approve activities: the plan a person reads, and the check that what is written is what
 * was approved (the ERP push's are in activities/erp-orders.ts).
 */
export function createApprovalActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  return {
    /** Writes plan.html and plan.xlsx (creates, updates before → after, deletes, rejects) and snapshots the plan. */
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
        if (result.replanned.length > 0)
          log.warn('Products changed on the platform since the approved plan: held back', {
            count: result.replanned.length,
          });
        return result;
      },
    ),
  };
}
