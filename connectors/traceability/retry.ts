import type { TraceabilityApiError } from './errors';

/**
 * Whether a request may be sent again after it may have reached the server.
 * - `idempotent`: repeating it leaves the same state (GET, PUT, DELETE, archive, PATCH without new lines).
 * - `guarded`: a repeat cannot duplicate because the server rejects it by a natural key (POST /styles:
 *   externalId 409 / codes_not_unique); retried, and a failed retry is flagged `maybeCommitted`.
 * - `unsafe`: a repeat may create a duplicate (POST /orders, /bom-lines, /material-lines, /files,
 *   header creates, line deletes that fork); never retried once the request may have arrived.
 * A 429 answer and a refused connection are always safe to retry: the server did nothing.
 */
export type RetrySafety = 'idempotent' | 'guarded' | 'unsafe';

export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
  random?: () => number;
}

/** Full-jitter exponential backoff: uniform in [0, min(cap, base * 2^(retry-1))). */
export function fullJitterBackoffMs(retryNumber: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 250;
  const cap = options.capMs ?? 10_000;
  const random = options.random ?? Math.random;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, retryNumber - 1));
  return Math.floor(random() * ceiling);
}

/** How a failed attempt ended, as far as retrying is concerned. */
export interface AttemptFailure {
  error: TraceabilityApiError;
  /** False only when we know the request never reached the server (connection refused, 429). */
  mayHaveReachedServer: boolean;
  /** Retry-After from the answer, in ms. */
  retryAfterMs?: number;
  /** A network failure: whether the connection was never made, or made and then closed during the call. */
  connection?: 'unreachable' | 'dropped';
}

export interface RetryPolicy {
  maxRetries: number;
  /** 429 retries have their own budget: waiting out a full window is normal, not a fault. */
  maxRateLimitRetries: number;
  /** Longest Retry-After slept through inline; longer ones are thrown with `retryAfterMs`. */
  maxInlineRetryAfterMs: number;
  backoff: BackoffOptions;
}

export type RetryDecision =
  | { retry: true; delayMs: number; rateLimited: boolean }
  | { retry: false; reason: 'not_retryable' | 'unsafe_write' | 'exhausted' | 'retry_after_too_long' };

/**
 * Decides whether to retry after a failed attempt. `retriesSoFar` and `rateLimitRetriesSoFar`
 * count earlier retries of the same call.
 */
export function decideRetry(
  failure: AttemptFailure,
  safety: RetrySafety,
  retriesSoFar: number,
  rateLimitRetriesSoFar: number,
  policy: RetryPolicy,
): RetryDecision {
  const { error } = failure;
  if (!error.retryable) return { retry: false, reason: 'not_retryable' };
  if (error.statusCode === 429) {
    const wait = failure.retryAfterMs ?? fullJitterBackoffMs(rateLimitRetriesSoFar + 1, policy.backoff);
    if (wait > policy.maxInlineRetryAfterMs) return { retry: false, reason: 'retry_after_too_long' };
    if (rateLimitRetriesSoFar >= policy.maxRateLimitRetries) return { retry: false, reason: 'exhausted' };
    return { retry: true, delayMs: wait, rateLimited: true };
  }
  if (failure.mayHaveReachedServer && safety === 'unsafe') return { retry: false, reason: 'unsafe_write' };
  if (retriesSoFar >= policy.maxRetries) return { retry: false, reason: 'exhausted' };
  const backoff = fullJitterBackoffMs(retriesSoFar + 1, policy.backoff);
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxInlineRetryAfterMs) {
    return { retry: false, reason: 'retry_after_too_long' };
  }
  return { retry: true, delayMs: Math.max(backoff, failure.retryAfterMs ?? 0), rateLimited: false };
}
