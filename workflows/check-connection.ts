import { defineQuery, log, proxyActivities } from '@temporalio/workflow';
import type { ApiAccountSummary } from '../activities/check-connection';
import type { Activities } from '../activities';
import { explainedRun, setStatus, startJob } from './batch-run';

export interface CheckConnectionProgress {
  phase: 'starting' | 'checking' | 'done';
}

export const checkConnectionProgressQuery = defineQuery<CheckConnectionProgress>('progress');

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
 * and the rate-limit headers. No input; the result never holds the key. Answers the `progress` query and sets
 * TraceJob `check-connection`, TraceSource `api`, TraceStatus `running` then `done` itself.
 */
export async function checkConnection(): Promise<ApiAccountSummary> {
  return explainedRun('CheckConnectionFailed', checkConnectionRun);
}

async function checkConnectionRun(): Promise<ApiAccountSummary> {
  const progress = startJob<CheckConnectionProgress>({
    job: 'check-connection',
    source: 'api',
    status: 'running',
    query: checkConnectionProgressQuery,
    progress: { phase: 'starting' },
  });

  progress.phase = 'checking';
  const summary = await describeApiAccount();
  progress.phase = 'done';
  setStatus('done');
  log.info('API connection checked', { baseUrl: summary.baseUrl, styleTypes: summary.styleTypes });
  return summary;
}
