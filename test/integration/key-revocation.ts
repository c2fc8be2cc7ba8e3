/**
 * The key-refused tests' shared part (spec 01, Errors: 401 `token_or_api_key_invalid`, "Missing or invalid key"): the
 * worker's key revoked in the sandbox at a moment a test's hook picks, as a key rotated on the platform mid-run, and
 * the checks on the run's failure.
 */
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { TestStack } from '../harness';

/**
 * `revoke`: the key deleted (401 `token_or_api_key_invalid`); `unbind`: the key kept but bound to no company
 * (403 `insufficient_rights`, "Credential not bound to a company").
 */
export function keyRevocation(stack: () => TestStack, how: 'revoke' | 'unbind' = 'revoke') {
  let armed = false;
  let restore: (() => void) | undefined;
  const putBack = (): void => {
    restore?.();
    restore = undefined;
  };
  return {
    /** Called from the test's hook at the moment chosen: revokes the key, once, while a run is `during` it. */
    fire(): void {
      if (!armed || restore) return;
      const { sandbox, apiKey } = stack();
      const record = sandbox.ctx.apiKeys.get(apiKey);
      if (!record) throw new Error('the worker key is not in the sandbox');
      if (how === 'revoke') sandbox.ctx.apiKeys.delete(apiKey);
      else sandbox.ctx.apiKeys.set(apiKey, { ...record, companyId: null });
      restore = () => sandbox.ctx.apiKeys.set(apiKey, record);
    },
    /** Runs `run` with the revocation armed, then puts the key back: its result, or the error it failed with. */
    async during(run: () => Promise<unknown>): Promise<unknown> {
      armed = true;
      try {
        return await run().then(
          (result) => result,
          (error: unknown) => error,
        );
      } finally {
        armed = false;
        putBack();
      }
    },
    /** Puts the key back (afterAll, should a test end between the revocation and its `during`'s end). */
    restore: putBack,
  };
}

/** The ApplicationFailures down a failure's cause chain, outermost first. */
export function applicationFailures(error: unknown): ApplicationFailure[] {
  const found: ApplicationFailure[] = [];
  for (let current = error; current instanceof Error; current = current.cause)
    if (current instanceof ApplicationFailure) found.push(current);
  return found;
}

/** `failed` is a run failed for the refused key: typed by its code, not retried, saying what to check, key unshown. */
export function expectKeyRefused(
  failed: unknown,
  apiKey: string,
  code: 'token_or_api_key_invalid' | 'insufficient_rights' = 'token_or_api_key_invalid',
): void {
  expect(failed).toBeInstanceOf(WorkflowFailedError);
  const failures = applicationFailures(failed);
  expect(failures.map((failure) => failure.type)).toContain(`TraceabilityApiError:${code}`);
  expect(failures.every((failure) => failure.nonRetryable)).toBe(true);
  const messages = failures.map((failure) => failure.message).join('\n');
  expect(messages).toContain('TRACEABILITY_API_KEY');
  expect(messages).not.toContain(apiKey);
}
