/**
 * The activity side of the batch-job kit: failure mapping and heartbeats, the same for every job. The run folder,
 * journal, bounded lanes and API-call counting (`ApiCalls`) have no Temporal in them: they are in connectors/staging.
 */
import { cancellationSignal, heartbeat } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { boundMessage, InputLimitError } from '../connectors/input-limits';
import { StagingIntegrityError, type Progress } from '../connectors/staging';
import { InputRefusedError } from '../connectors/storage';
import { isTraceabilityApiError } from '../connectors/traceability';

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

/** A job's own rule: the failure for an error it recognises, undefined for the others. */
export type FailureRule = (error: unknown) => ApplicationFailure | undefined;

/** A failure no retry can fix, with the error's message bounded (it may quote input). */
export function nonRetryable(error: Error, type: string = error.name): ApplicationFailure {
  return ApplicationFailure.nonRetryable(boundMessage(error.message), type);
}

/** Invalid activity input (a zod error): no retry can fix it. */
export const invalidInput: FailureRule = (error) => {
  if (!(error instanceof z.ZodError)) return undefined;
  const issue = error.issues[0];
  return ApplicationFailure.nonRetryable(
    `invalid activity input: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
    'InvalidInput',
  );
};

/** An input over a size limit, typed `<prefix>:<code>` as the job's own file errors are. */
export function inputLimit(prefix: string): FailureRule {
  return (error) =>
    error instanceof InputLimitError ? nonRetryable(error, `${prefix}:${error.code}`) : undefined;
}

/**
 * The failure mapper of a batch job: the job's own rules first, then what every job shares (staged data that is
 * unusable, a file that is missing or unreadable: not retried), then the API client's errors (`toActivityFailure`).
 */
export function failureMapper(...rules: FailureRule[]): (error: unknown) => unknown {
  return (error) => {
    if (error instanceof ApplicationFailure) return error;
    for (const rule of rules) {
      const failure = rule(error);
      if (failure) return failure;
    }
    if (error instanceof StagingIntegrityError) return nonRetryable(error);
    if (error instanceof InputRefusedError)
      return ApplicationFailure.nonRetryable(error.message, 'InputRefused');
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
      return ApplicationFailure.nonRetryable((error as Error).message, `FileError:${code}`);
    }
    return toActivityFailure(error);
  };
}

/** An activity whose errors leave it as the failures `mapFailure` makes of them. */
export function guarded<I, O>(
  mapFailure: (error: unknown) => unknown,
  work: (input: I) => Promise<O>,
): (input: I) => Promise<O> {
  return async (input) => {
    try {
      return await work(input);
    } catch (error) {
      throw mapFailure(error);
    }
  };
}

/**
 * Heartbeats every few seconds while `work` runs, with the latest details, so a killed worker is noticed within the
 * heartbeat timeout and a slow but live attempt (one waiting out a long Retry-After, say) is not mistaken for a dead
 * one and retried while it still writes. A cancel reaches an activity only in the answer to a heartbeat; `stop` is
 * the activity's cancellation signal, for a write loop to stop at (the loop throws its reason, a CancelledFailure,
 * which reports the activity cancelled). `first`: the details of the first heartbeat, for a next attempt to find even
 * when this one dies before the next heartbeat.
 */
export async function withHeartbeats<T>(
  work: (progress: Progress, stop: AbortSignal) => Promise<T>,
  everyMs = 3000,
  first: Record<string, unknown> = {},
): Promise<T> {
  // `first` goes out at once; later details reach the server throttled (80% of the heartbeat timeout).
  let details: Record<string, unknown> = first;
  const timer = setInterval(() => heartbeat(details), everyMs);
  try {
    heartbeat(details);
    return await work((next) => {
      details = next;
    }, cancellationSignal());
  } finally {
    clearInterval(timer);
  }
}
