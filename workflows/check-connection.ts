import { log, proxyActivities } from '@temporalio/workflow';
import type { ApiAccountSummary } from '../activities/check-connection';
import type { Activities } from '../activities';

const { describeApiAccount } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
  },
});

/**
 * Smoke job and operator check: can the workers reach the API with their key? Reads the style types
 * and the rate-limit headers. No input; the result never holds the key.
 */
export async function checkConnection(): Promise<ApiAccountSummary> {
  const summary = await describeApiAccount();
  log.info('API connection checked', { baseUrl: summary.baseUrl, styleTypes: summary.styleTypes });
  return summary;
}
