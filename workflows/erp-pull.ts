import {
  ActivityCancellationType,
  ActivityFailure,
  CancellationScope,
  CancelledFailure,
  defineQuery,
  isCancellation,
  log,
  patched,
  proxyActivities,
  upsertMemo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { Activities } from '../activities';
import type { PullOrdersResult } from '../activities/erp-pull';
import { explainedRun, invalidInput, setStatus, startJob, stepActivityOptions } from './batch-run';
import { showDetails } from './operator-view';

/** Workflow input: `{}` (the high-water mark lives in `<dataDir>/exports/orders/high-water-mark.json`). */
export const pullPlatformOrdersInputSchema = z.strictObject({});
export type PullPlatformOrdersInput = z.infer<typeof pullPlatformOrdersInputSchema>;

export interface PullPlatformOrdersProgress {
  phase: 'pulling' | 'done' | 'cancelled';
  orders: number | null;
}

export const pullPlatformOrdersProgressQuery = defineQuery<PullPlatformOrdersProgress>('progress');

const { pullPlatformOrdersSinceMark } = proxyActivities<Activities>(stepActivityOptions);

/** patched: pulls cancelled before a cancel waited for the pull to stop replay without the wait. */
const PULL_CANCEL_PATCH = 'erp-pull-cancel-waits-for-pull';

/** The ERP reconciliation pull: orders changed on the platform since the last run, as NDJSON and CSV. */
export async function erpPull(input: PullPlatformOrdersInput = {}): Promise<PullOrdersResult> {
  return explainedRun('ErpPullFailed', () => pull(input));
}

async function pull(input: PullPlatformOrdersInput): Promise<PullOrdersResult> {
  const parsed = pullPlatformOrdersInputSchema.safeParse(input ?? {}, { reportInput: true });
  if (!parsed.success)
    throw invalidInput('erpPull', { schema: pullPlatformOrdersInputSchema, error: parsed.error });
  const progress = startJob<PullPlatformOrdersProgress>({
    job: 'erp-pull',
    source: 'api',
    status: 'running',
    query: pullPlatformOrdersProgressQuery,
    progress: { phase: 'pulling', orders: null },
  });
  if (!patched(PULL_CANCEL_PATCH)) {
    const result = await pullPlatformOrdersSinceMark();
    return done(progress, result);
  }
  // A cancel waits until the pull has stopped (before its next page, never between its files and its mark), so the
  // run closes as cancelled only once nothing more is read or written.
  let result: PullOrdersResult;
  try {
    result = await pullPlatformOrdersSinceMark.executeWithOptions(
      { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED },
      [],
    );
  } catch (error) {
    if (!isCancellation(error)) throw error;
    cancelledRun(
      progress,
      'Cancelled while pulling: nothing was written and the mark has not moved; the next pull exports these orders.',
    );
    throw error instanceof ActivityFailure && error.cause instanceof CancelledFailure ? error.cause : error;
  }
  if (CancellationScope.current().consideredCancelled) {
    // Cancelled while the pull wrote its files: they and the mark are complete, and the run still closes as cancelled.
    cancelledRun(
      progress,
      `Cancelled once its export was written: ${result.orders} orders, and the mark moved past them.`,
      result.orders,
    );
    throw new CancelledFailure('Workflow cancelled');
  }
  return done(progress, result);
}

function done(progress: PullPlatformOrdersProgress, result: PullOrdersResult): PullOrdersResult {
  progress.phase = 'done';
  progress.orders = result.orders;
  setStatus(result.orders > 0 ? 'done' : 'done-nothing-new');
  log.info('Platform orders pulled', { orders: result.orders, apiCalls: result.apiCalls });
  return result;
}

function cancelledRun(progress: PullPlatformOrdersProgress, details: string, orders = 0): void {
  progress.phase = 'cancelled';
  progress.orders = orders;
  setStatus('cancelled');
  showDetails(details);
  upsertMemo({ cancelled: true, orders });
  log.info('Platform order pull cancelled', { orders });
}
