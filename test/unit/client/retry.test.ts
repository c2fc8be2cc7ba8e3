import { TraceabilityApiError } from '../../../connectors/traceability/errors';
import { decideRetry, fullJitterBackoffMs, type RetryPolicy } from '../../../connectors/traceability/retry';

const policy: RetryPolicy = {
  maxRetries: 3,
  maxRateLimitRetries: 5,
  maxInlineRetryAfterMs: 10_000,
  backoff: { baseMs: 100, capMs: 1_000 },
};

const apiError = (
  statusCode: number,
  retryable = statusCode === 429 || statusCode >= 500 || statusCode === 0,
): TraceabilityApiError =>
  new TraceabilityApiError({
    statusCode,
    code: `c${statusCode}`,
    message: 'm',
    method: 'POST',
    path: '/x',
    retryable,
  });

describe('fullJitterBackoffMs', () => {
  it('draws uniformly below base * 2^(n-1), capped', () => {
    expect(fullJitterBackoffMs(1, { baseMs: 100, random: () => 0.999 })).toBe(99);
    expect(fullJitterBackoffMs(4, { baseMs: 100, random: () => 0.5 })).toBe(400);
    expect(fullJitterBackoffMs(20, { baseMs: 100, capMs: 1_000, random: () => 0.5 })).toBe(500);
    expect(fullJitterBackoffMs(3, { baseMs: 100, random: () => 0 })).toBe(0);
  });
});

describe('decideRetry', () => {
  it('never retries other 4xx answers', () => {
    expect(
      decideRetry({ error: apiError(400), mayHaveReachedServer: true }, 'idempotent', 0, 0, policy),
    ).toEqual({ retry: false, reason: 'not_retryable' });
  });

  it('waits Retry-After on 429 for any method, even unsafe writes', () => {
    expect(
      decideRetry(
        { error: apiError(429), mayHaveReachedServer: false, retryAfterMs: 2_000 },
        'unsafe',
        0,
        0,
        policy,
      ),
    ).toEqual({
      retry: true,
      delayMs: 2_000,
      rateLimited: true,
    });
  });

  it('hands a Retry-After beyond the inline limit back to the caller', () => {
    expect(
      decideRetry(
        { error: apiError(429), mayHaveReachedServer: false, retryAfterMs: 30_000 },
        'idempotent',
        0,
        0,
        policy,
      ),
    ).toEqual({
      retry: false,
      reason: 'retry_after_too_long',
    });
  });

  it('does not repeat an unsafe write that may have reached the server', () => {
    expect(decideRetry({ error: apiError(0), mayHaveReachedServer: true }, 'unsafe', 0, 0, policy)).toEqual({
      retry: false,
      reason: 'unsafe_write',
    });
    expect(decideRetry({ error: apiError(502), mayHaveReachedServer: true }, 'unsafe', 0, 0, policy)).toEqual(
      { retry: false, reason: 'unsafe_write' },
    );
  });

  it('repeats an unsafe write that never left (connection refused)', () => {
    expect(
      decideRetry({ error: apiError(0), mayHaveReachedServer: false }, 'unsafe', 0, 0, {
        ...policy,
        backoff: { random: () => 0 },
      }),
    ).toEqual({
      retry: true,
      delayMs: 0,
      rateLimited: false,
    });
  });

  it('retries idempotent and guarded calls with backoff until the budget is spent', () => {
    const p = { ...policy, backoff: { baseMs: 100, random: () => 0.5 } };
    expect(decideRetry({ error: apiError(503), mayHaveReachedServer: true }, 'guarded', 2, 0, p)).toEqual({
      retry: true,
      delayMs: 200,
      rateLimited: false,
    });
    expect(decideRetry({ error: apiError(503), mayHaveReachedServer: true }, 'idempotent', 3, 0, p)).toEqual({
      retry: false,
      reason: 'exhausted',
    });
  });
});
