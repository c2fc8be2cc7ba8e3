import {
  AdaptiveRateLimiter,
  TraceabilityClient,
  type RateLimitObservation,
} from '../connectors/traceability';
import type { ApiTarget } from './api-target';
import type { AppLogger } from './logger';

/** The client's pacer, remembering the last `X-RateLimit-*` headers it was fed. */
export class ObservedRateLimiter extends AdaptiveRateLimiter {
  private last: RateLimitObservation | undefined;

  override complete(...args: Parameters<AdaptiveRateLimiter['complete']>): void {
    if (args[1]) this.last = args[1];
    super.complete(...args);
  }

  /** What the latest answer's rate-limit headers said, if any answer carried them. */
  latest(): RateLimitObservation | undefined {
    return this.last;
  }
}

export interface ApiClientBundle {
  client: TraceabilityClient;
  rateLimits: ObservedRateLimiter;
}

/** One client per process and key, shared by every activity (its pacer and caches live in it). */
export function createApiClient(target: ApiTarget, logger: AppLogger): ApiClientBundle {
  const rateLimits = new ObservedRateLimiter();
  const client = new TraceabilityClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    rateLimiter: rateLimits,
    logger: logger.child({ component: 'traceability-client' }),
  });
  return { client, rateLimits };
}
