import { ConfigError } from './config';
import { createScrubber } from './logger';

/**
 * Ends the process on an error that reached the top: a config error is one line naming the
 * variables (exit 2, no stack trace); anything else is its message (exit 1), with the stack when
 * LOG_LEVEL is debug or trace. The API key is scrubbed from whatever is printed.
 */
export function exitWithError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`trace-sync: ${error.message}\n`);
    process.exit(2);
  }
  const scrub = createScrubber([process.env.TRACEABILITY_API_KEY, process.env.AWS_SECRET_ACCESS_KEY]);
  const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '');
  const text =
    error instanceof Error ? (verbose ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`trace-sync: ${scrub(text)}\n`);
  process.exit(1);
}
