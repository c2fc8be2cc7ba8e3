import { ApplicationFailure } from '@temporalio/common';
import { isTraceabilityApiError } from './errors';

/**
 * Maps a client error to the failure an activity should throw:
 * - non-retryable API errors (4xx, bad input, schema mismatch) -> non-retryable failure;
 * - a Retry-After longer than the client sleeps inline -> retryable failure with `nextRetryDelay`,
 *   so Temporal waits instead of the activity holding a slot;
 * - other retryable errors -> retryable failure (Temporal's retry policy applies).
 * The failure type is `TraceabilityApiError:<code>` (usable in `nonRetryableErrorTypes`), and the
 * details carry the error's safe JSON form (never the key). Other errors are returned unchanged.
 */
export function toActivityFailure(error: unknown): unknown {
  if (!isTraceabilityApiError(error)) return error;
  const type = `TraceabilityApiError:${error.code}`;
  const details = [error.toJSON()];
  if (!error.retryable) return ApplicationFailure.nonRetryable(error.message, type, ...details);
  return ApplicationFailure.create({
    message: error.message,
    type,
    nonRetryable: false,
    details,
    ...(error.retryAfterMs !== undefined ? { nextRetryDelay: Math.ceil(error.retryAfterMs) } : {}),
  });
}
