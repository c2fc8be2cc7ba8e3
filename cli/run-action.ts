import { exitWithError } from '../worker/logger';

/**
 * Runs a command's body and ends the process: 0 when it returns, and on failure one line on stderr
 * (exit 2 for a config error, 1 otherwise). Explicit exits matter: the Temporal runtime and open
 * sockets would otherwise keep a finished command alive.
 */
export async function runAction(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    exitWithError(error);
  }
  process.exit(process.exitCode ?? 0);
}
