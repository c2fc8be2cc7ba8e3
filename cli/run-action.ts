import { exitWithError } from '../worker/logger';

/** `--wait` gave up (`--timeout`) while the run goes on: not a failure, and starting it again would run it twice. */
export class StillRunningError extends Error {
  /** As `timeout(1)` exits when its command outlives it. */
  static readonly EXIT_CODE = 124;
}

/**
 * Runs a command's body and ends the process: 0 when it returns, and on failure one line on stderr
 * (exit 2 for a config error, 124 when the waiting gave up on a run that goes on, 1 otherwise). Explicit exits
 * matter: the Temporal runtime and open sockets would otherwise keep a finished command alive.
 */
export async function runAction(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof StillRunningError) {
      process.stderr.write(`trace-sync: ${error.message}\n`);
      process.exit(StillRunningError.EXIT_CODE);
    }
    exitWithError(error);
  }
  process.exit(process.exitCode ?? 0);
}
