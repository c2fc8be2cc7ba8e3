import { exitWithError } from '../worker/logger';

/** An ending that is no failure of the command and has its own exit code, so a script can tell it apart. */
export class OutcomeError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** `--wait` gave up (`--timeout`) while the run goes on: not a failure, and starting it again would run it twice. */
export class StillRunningError extends OutcomeError {
  /** As `timeout(1)` exits when its command outlives it. */
  static readonly EXIT_CODE = 124;
  constructor(message: string) {
    super(message, StillRunningError.EXIT_CODE);
  }
}

/** The run was cancelled or terminated by someone: a deliberate stop, not a crash. */
export class RunStoppedError extends OutcomeError {
  static readonly EXIT_CODE = 3;
  constructor(message: string) {
    super(message, RunStoppedError.EXIT_CODE);
  }
}

/** The run completed but wrote nothing: its plan was rejected, or nobody decided on it in time. */
export class PlanNotAppliedError extends OutcomeError {
  static readonly EXIT_CODE = 4;
  constructor(message: string) {
    super(message, PlanNotAppliedError.EXIT_CODE);
  }
}

/**
 * Runs a command's body and ends the process: 0 when it returns, and on failure one line on stderr
 * (exit 2 for a config error, an OutcomeError's own code, 1 otherwise). Explicit exits matter: the Temporal runtime
 * and open sockets would otherwise keep a finished command alive.
 */
export async function runAction(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof OutcomeError) {
      process.stderr.write(`trace-sync: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    exitWithError(error);
  }
  process.exit(process.exitCode ?? 0);
}
