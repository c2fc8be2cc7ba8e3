import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { CorruptHighWaterMarkError, pullOrders, type PullOrdersResult } from '../connectors/erp-pull/pull';
import { ApiCalls } from '../connectors/staging';
import { failureMapper, withHeartbeats } from './batch-kit';
import type { ActivityDeps } from './deps';

export type { PullOrdersResult };

const asFailure = failureMapper((error) =>
  error instanceof CorruptHighWaterMarkError
    ? ApplicationFailure.nonRetryable(error.message, 'CorruptHighWaterMark')
    : undefined,
);

export function createErpPullActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  return {
    /**
     * Orders changed on the platform since the stored high-water mark, as NDJSON and CSV (connectors/erp-pull).
     * Heartbeats on a timer the whole time: a pull paced by the key's allowance lists and reads lines for minutes.
     */
    async pullPlatformOrdersSinceMark(): Promise<PullOrdersResult> {
      try {
        const result = await withHeartbeats((progress, stop) =>
          pullOrders(new ApiCalls(deps.client), deps.config.dataDir, progress, stop),
        );
        log.info('Platform orders pulled', { orders: result.orders, apiCalls: result.apiCalls });
        if (result.deletedBeforeRead.count > 0)
          log.warn('Orders deleted on the platform while the pull read them: not exported', {
            ...result.deletedBeforeRead,
          });
        return result;
      } catch (error) {
        throw asFailure(error);
      }
    },
  };
}
