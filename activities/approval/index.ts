import { log } from '@temporalio/activity';
import type { StagingRef } from '../../connectors/staging';
import type { ActivityDeps } from '../deps';
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

export type { Replanned } from '../../connectors/plm-import/approval-plan';
export type { ErpApprovalPlanFiles, HoldBackOrdersResult } from './erp-plan';

/**
 * Plan-then-approve activities of the ERP push: the plan a person reads, and the check that what is written is what
 * was approved. The PLM import's are in activities/plm-import.ts.
 */
export function createApprovalActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  return {
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
