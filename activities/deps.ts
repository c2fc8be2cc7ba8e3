import type { TraceabilityClient } from '../connectors/traceability';
import type { ObservedRateLimiter } from '../worker/api-client';
import type { AppConfig } from '../worker/config';
import type { AppLogger } from '../worker/logger';

/** What activities need from the process; tests pass a client pointed at their own sandbox. */
export interface ActivityDeps {
  client: TraceabilityClient;
  /** The client's pacer, which remembers the last rate-limit headers. */
  rateLimits: Pick<ObservedRateLimiter, 'latest'>;
  /** The API base URL the client calls (reported by checks; the key never is). */
  baseUrl: string;
  config: AppConfig;
  logger: AppLogger;
}
