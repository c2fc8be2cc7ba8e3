import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { TraceabilityApiError } from '../../connectors/traceability';

/** What `promise` rejects with, which must be a TraceabilityApiError; anything else fails the test. */
export async function caught(promise: Promise<unknown>): Promise<TraceabilityApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TraceabilityApiError) return error;
    throw error;
  }
  throw new Error('expected a TraceabilityApiError');
}

/** What `run` throws, which must be a `type`; anything else fails the test. */
export function thrown<E extends Error>(type: new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}

/** Awaits a run that must end cancelled: its result fails with a WorkflowFailedError caused by a CancelledFailure. */
export async function expectCancelledRun(handle: { result(): Promise<unknown> }): Promise<void> {
  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
}

/** The messages of a failure and its causes, outermost first, joined (a failed run wraps its activity's failure). */
export function failureText(error: unknown, separator = ' | '): string {
  const messages: string[] = [];
  for (let at = error as { message?: string; cause?: unknown } | undefined; at; at = at.cause as typeof at)
    messages.push(at.message ?? '');
  return messages.join(separator);
}

/** What a run started by `run` fails with; undefined when it completes. */
export function failureOf(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (error: unknown) => error,
  );
}
