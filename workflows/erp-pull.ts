import { defineQuery, log, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { z } from 'zod';
import type { Activities } from '../activities';
import type { PullOrdersResult } from '../activities/erp-pull';
import { TraceJob, TraceSource, TraceStatus } from '../worker/search-attributes';
import { invalidInput } from './erp-orders';

/** Workflow input: `{}` (the high-water mark lives in `<dataDir>/exports/orders/high-water-mark.json`). */
export const pullPlatformOrdersInputSchema = z.strictObject({});
export type PullPlatformOrdersInput = z.infer<typeof pullPlatformOrdersInputSchema>;

export interface PullPlatformOrdersProgress {
  phase: 'pulling' | 'done';
  orders: number | null;
}

export const pullPlatformOrdersProgressQuery = defineQuery<PullPlatformOrdersProgress>('progress');

const { pullPlatformOrdersSinceMark } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
  },
});

/** The ERP reconciliation pull: orders changed on the platform since the last run, as NDJSON and CSV. */
export async function pullPlatformOrders(input: PullPlatformOrdersInput = {}): Promise<PullOrdersResult> {
  const parsed = pullPlatformOrdersInputSchema.safeParse(input ?? {});
  if (!parsed.success) throw invalidInput('pullPlatformOrders', parsed.error);
  const progress: PullPlatformOrdersProgress = { phase: 'pulling', orders: null };
  setHandler(pullPlatformOrdersProgressQuery, () => progress);
  upsertSearchAttributes([
    { key: TraceJob, value: 'erp-pull' },
    { key: TraceSource, value: 'api' },
    { key: TraceStatus, value: 'running' },
  ]);
  const result = await pullPlatformOrdersSinceMark();
  progress.phase = 'done';
  progress.orders = result.orders;
  upsertSearchAttributes([{ key: TraceStatus, value: result.orders > 0 ? 'done' : 'done-nothing-new' }]);
  log.info('Platform orders pulled', { orders: result.orders, apiCalls: result.apiCalls });
  return result;
}
