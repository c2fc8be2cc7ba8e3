import {
  AdaptiveRateLimiter,
  TraceabilityClient,
  type RateLimitObservation,
} from '../connectors/traceability';
import type { ApiTarget } from './api-target';
import { apiTimeoutMsFromEnv } from './config';
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

export interface ApiClientOptions {
  /** Per-request timeout; TRACE_API_TIMEOUT_MS (default 30 s) when omitted. */
  timeoutMs?: number;
}

/** One client per process and key, shared by every activity (its pacer and caches live in it). */
export function createApiClient(
  target: ApiTarget,
  logger: AppLogger,
  options: ApiClientOptions = {},
): ApiClientBundle {
  const rateLimits = new ObservedRateLimiter();
  const client = new TraceabilityClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    timeoutMs: options.timeoutMs ?? apiTimeoutMsFromEnv(),
    rateLimiter: rateLimits,
    logger: logger.child({ component: 'traceability-client' }),
  });
  return { client, rateLimits };
}
