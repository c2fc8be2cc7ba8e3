import { defineQuery, log, proxyActivities } from '@temporalio/workflow';
import { z } from 'zod';
import type { Activities } from '../activities';
import type { PullOrdersResult } from '../activities/erp-pull';
import { invalidInput, setStatus, startJob, stepActivityOptions } from './batch-run';

/** Workflow input: `{}` (the high-water mark lives in `<dataDir>/exports/orders/high-water-mark.json`). */
export const pullPlatformOrdersInputSchema = z.strictObject({});
export type PullPlatformOrdersInput = z.infer<typeof pullPlatformOrdersInputSchema>;

export interface PullPlatformOrdersProgress {
  phase: 'pulling' | 'done';
  orders: number | null;
}

export const pullPlatformOrdersProgressQuery = defineQuery<PullPlatformOrdersProgress>('progress');

const { pullPlatformOrdersSinceMark } = proxyActivities<Activities>(stepActivityOptions);

/** The ERP reconciliation pull: orders changed on the platform since the last run, as NDJSON and CSV. */
export async function erpPull(input: PullPlatformOrdersInput = {}): Promise<PullOrdersResult> {
  const parsed = pullPlatformOrdersInputSchema.safeParse(input ?? {});
  if (!parsed.success) throw invalidInput('erpPull', parsed.error);
  const progress = startJob<PullPlatformOrdersProgress>({
    job: 'erp-pull',
    source: 'api',
    status: 'running',
    query: pullPlatformOrdersProgressQuery,
    progress: { phase: 'pulling', orders: null },
  });
  const result = await pullPlatformOrdersSinceMark();
  progress.phase = 'done';
  progress.orders = result.orders;
  setStatus(result.orders > 0 ? 'done' : 'done-nothing-new');
  log.info('Platform orders pulled', { orders: result.orders, apiCalls: result.apiCalls });
  return result;
}
