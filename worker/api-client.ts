import { Context } from '@temporalio/activity';
import {
  AdaptiveRateLimiter,
  TraceabilityClient,
  type RateLimitObservation,
  type TraceabilityLogger,
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

export interface ApiClientOptions {
  /** Per-request timeout in ms: the config's `apiTimeoutMs` (TRACE_API_TIMEOUT_MS). */
  timeoutMs: number;
}

/** The ids of the activity this code runs in, or undefined outside one. Never the task token. */
function activityFields(): Record<string, unknown> | undefined {
  let info: Context['info'];
  try {
    info = Context.current().info;
  } catch {
    return undefined; // Not inside an activity (worker start-up, tests, a CLI).
  }
  return {
    workflowId: info.workflowExecution?.workflowId,
    workflowType: info.workflowType,
    activityId: info.activityId,
    activityType: info.activityType,
    attempt: info.attempt,
  };
}

/**
 * The client's logger: every line emitted inside an activity carries the activity's `workflowId`,
 * `workflowType`, `activityId`, `activityType` and `attempt` (read from the activity context, so one client
 * shared by every activity still tells them apart). The client's own per-request `attempt` is written as
 * `requestAttempt` so it never clobbers, nor is clobbered by, the activity attempt. Lines still go through
 * `logger`, so its redaction and secret scrubbing apply.
 */
export function activityAwareLogger(logger: AppLogger): TraceabilityLogger {
  const emit =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (obj: Record<string, unknown>, msg?: string): void => {
      if (!logger.isLevelEnabled(level)) return;
      const { attempt: requestAttempt, ...fields } = obj;
      const line: Record<string, unknown> =
        requestAttempt === undefined ? fields : { ...fields, requestAttempt };
      const ids = activityFields();
      logger[level](ids ? { ...line, ...ids } : line, msg);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** One client per process and key, shared by every activity (its pacer and caches live in it). */
export function createApiClient(
  target: ApiTarget,
  logger: AppLogger,
  options: ApiClientOptions,
): ApiClientBundle {
  const rateLimits = new ObservedRateLimiter();
  const client = new TraceabilityClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    timeoutMs: options.timeoutMs,
    rateLimiter: rateLimits,
    logger: activityAwareLogger(logger.child({ component: 'traceability-client' })),
  });
  return { client, rateLimits };
}
