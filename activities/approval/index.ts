import { log } from '@temporalio/activity';
import type { StagingRef } from '../../connectors/staging';
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
} from './erp-plan';

export type { ApprovalPlanFiles, HoldBackResult, Replanned } from './plm-plan';
export type { ErpApprovalPlanFiles, HoldBackOrdersResult } from './erp-plan';

/** Plan-then-approve activities: the plan a person reads, and the check that what is written is what was approved. */
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

    /** ERP push: writes plan.html and plan.xlsx from the dry pass's outcomes (orders to create, update, reject). */
    async writeErpApprovalPlan(raw: WriteErpPlanInput): Promise<ErpApprovalPlanFiles> {
      const result = await writeErpApprovalPlan(writeErpPlanInputSchema.parse(raw), deps.config.dataDir);
      log.info('ERP approval plan written', {
        htmlFile: result.htmlFile,
        creates: result.creates,
        updates: result.updates,
        rejects: result.rejects,
      });
      return result;
    },

    /** ERP push, after approval: the batches with every order to be looked up afresh (for the second dry pass). */
    async freshErpLookupManifest(raw: FreshLookupInput): Promise<StagingRef> {
      return freshLookupManifest(freshLookupInputSchema.parse(raw), deps.config.dataDir);
    },

    /** ERP push, after approval: takes out of the batches the orders whose outcome changed since the plan. */
    async holdBackChangedErpOrders(raw: HoldBackOrdersInput): Promise<HoldBackOrdersResult> {
      const result = await holdBackChangedOrders(holdBackOrdersInputSchema.parse(raw), deps.config.dataDir);
      if (result.replanned.length > 0)
        log.warn('Orders changed on the platform since the approved plan: held back', {
          count: result.replanned.length,
        });
      return result;
    },
  };
}
