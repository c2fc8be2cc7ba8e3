import { log } from '@temporalio/activity';
import { guarded, toActivityFailure } from './batch-kit';
import type { ActivityDeps } from './deps';

export interface ApiAccountSummary {
  baseUrl: string;
  /** How many style types the account has (a read every valid key can do). */
  styleTypes: number;
  /** From the answer's X-RateLimit-* headers; null when the API sent none. */
  rateLimit: { limit: number | null; remaining: number | null };
}

export function createCheckConnectionActivities(
  deps: Pick<ActivityDeps, 'client' | 'rateLimits' | 'baseUrl'>,
) {
  return {
    /** Reads one page of style types: proves the URL, the key and the account, and shows the allowance. */
    describeApiAccount: guarded<void, ApiAccountSummary>(toActivityFailure, async () => {
      const page = await deps.client.styleTypes.list({ page: 1, limit: 100 });
      const observed = deps.rateLimits.latest();
      const summary: ApiAccountSummary = {
        baseUrl: deps.baseUrl,
        styleTypes: page.pagination.total ?? page.items.length,
        rateLimit: { limit: observed?.limit ?? null, remaining: observed?.remaining ?? null },
      };
      log.info('API account described', { styleTypes: summary.styleTypes, rateLimit: summary.rateLimit });
      return summary;
    }),
  };
}
