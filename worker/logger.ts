import { Writable } from 'node:stream';
import { isatty } from 'node:tty';
import pino, { type DestinationStream, type Logger } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import {
  ConfigError,
  ConfigFileError,
  logFormatSchema,
  SetupError,
  type LogFormat,
  type LogLevel,
} from './config';

export type AppLogger = Logger;

export const REDACTED = '[REDACTED]';

/** Structured places a key is known to sit; the value scrub below catches it anywhere else. */
export const REDACT_PATHS: readonly string[] = [
  'companyapikey',
  'headers.companyapikey',
  '*.headers.companyapikey',
  'req.headers.companyapikey',
  'request.headers.companyapikey',
  'headers.authorization',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'traceabilityApiKey',
  '*.traceabilityApiKey',
  'TRACEABILITY_API_KEY',
  '*.TRACEABILITY_API_KEY',
];

/** Keys shorter than this are not scrubbed by value: replacing them would shred ordinary text. */
const MIN_SECRET_LENGTH = 6;

/** Every spelling a secret can take in a JSON log line: raw, JSON-escaped, URL-encoded. */
function spellings(secret: string): string[] {
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];
}

/** Replaces every occurrence of any secret in a text with [REDACTED]. */
export function createScrubber(secrets: readonly (string | undefined)[]): (text: string) => string {
  const needles = [...new Set(secrets.filter((s): s is string => !!s && s.length >= MIN_SECRET_LENGTH))]
    .flatMap(spellings)
    .sort((a, b) => b.length - a.length);
  if (needles.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    return out;
  };
}

/** Wraps a destination so no written line contains a secret, whatever path it took into the log. */
export function scrubbingDestination(
  destination: DestinationStream,
  secrets: readonly (string | undefined)[],
): DestinationStream {
  const scrub = createScrubber(secrets);
  return { write: (line: string) => destination.write(scrub(line)) };
}

export { LOG_FORMATS, type LogFormat } from './config';

/**
 * LOG_FORMAT from the environment; unset (or blank), the format follows where the log goes: `pretty` for a person
 * at a terminal, `json` for anything else (Docker, systemd, a file, CI). A wrong value is a config error naming it.
 */
export function logFormatFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  where: { terminal: boolean } = { terminal: false },
): LogFormat {
  const parsed = logFormatSchema.safeParse(env.LOG_FORMAT);
  if (!parsed.success)
    throw new ConfigError([
      { variable: 'LOG_FORMAT', message: parsed.error.issues[0]?.message ?? 'is invalid' },
    ]);
  return parsed.data ?? (where.terminal ? 'pretty' : 'json');
}

/** Stack frames kept in a logged error: where it was thrown, not the whole SDK beneath it. */
const STACK_FRAMES = 4;
const MAX_MESSAGE = 500;
const MAX_CAUSES = 3;

export interface CompactError {
  type: string;
  message: string;
  stack?: string;
  cause?: CompactError;
}

interface ErrorRecord {
  name?: unknown;
  type?: unknown;
  message?: unknown;
  stack?: unknown;
  cause?: unknown;
  nonRetryable?: unknown;
}

/**
 * The class an error was constructed as, from its stack's first line ("ApplicationFailure: ..."): a workflow's
 * failure reaches the worker's logger as a structured clone, named "Error" and without its own properties.
 */
function constructedAs(record: ErrorRecord): string | undefined {
  if (typeof record.stack !== 'string') return typeof record.name === 'string' ? record.name : undefined;
  return /^([A-Za-z_$][\w$]*)(?::|$)/.exec(record.stack)?.[1];
}

/** The failure type an activity gives the API client's errors (activities/batch-kit.ts toActivityFailure). */
const API_FAILURE_TYPE = /^TraceabilityApiError:/;

/**
 * Whether an error is, or wraps, a failure whose type and message already say what happened, so frames add nothing:
 * - a failure a job raised on purpose (bad input, a file fault, a refused key): an ApplicationFailure the code
 *   created, not retryable (a clone has lost the flag; a workflow's failure is final). The SDK's failure made of a
 *   thrown Error keeps that error's stack, so its first line names the Error's class;
 * - the API client's error (TraceabilityApiError), or the failure an activity made of it, retryable or not: its
 *   message holds the call, the status and code, and the attempt is on the line. During an outage every attempt
 *   logs one; its stack is the SDK's and the client's, the same each time.
 */
function isKnownFailure(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > MAX_CAUSES) return false;
  const record = error as ErrorRecord;
  const name = constructedAs(record);
  if (record.name === 'TraceabilityApiError' || name === 'TraceabilityApiError') return true;
  if (name === 'ApplicationFailure') {
    if (record.nonRetryable !== false) return true;
    if (typeof record.type === 'string' && API_FAILURE_TYPE.test(record.type)) return true;
  }
  return isKnownFailure(record.cause, depth + 1);
}

/**
 * An error as a log line should hold it: its type, message and the first few stack frames, and the messages of
 * a few causes (a workflow failure wraps the activity's, which wraps the API's). Not the SDK's encoded failure,
 * nor every frame: a failed workflow's line stays a few hundred bytes instead of kilobytes. A failure raised on
 * purpose or by the API (isKnownFailure) has no frames; an unexpected error (a bug) keeps them.
 */
export function compactError(error: unknown, depth = 0): CompactError {
  if (typeof error !== 'object' || error === null)
    return { type: typeof error, message: String(error).slice(0, MAX_MESSAGE) };
  const record = error as ErrorRecord;
  const ownName = typeof record.name === 'string' ? record.name : 'Error';
  const name = ownName === 'Error' ? (constructedAs(record) ?? ownName) : ownName;
  const type = typeof record.type === 'string' && record.type ? `${name}(${record.type})` : name;
  const message = (typeof record.message === 'string' ? record.message : String(error)).slice(0, MAX_MESSAGE);
  const frames =
    typeof record.stack === 'string' && !isKnownFailure(error)
      ? record.stack
          .split('\n')
          .filter((line) => line.trimStart().startsWith('at '))
          .slice(0, STACK_FRAMES)
          .map((line) => line.trim())
      : [];
  return {
    type,
    message,
    ...(frames.length > 0 ? { stack: frames.join('\n') } : {}),
    ...(record.cause !== undefined && record.cause !== null && depth < MAX_CAUSES
      ? { cause: compactError(record.cause, depth + 1) }
      : {}),
  };
}

export interface LoggerOptions {
  level: LogLevel;
  /** Values that must never appear in output (the API key, test keys). */
  secrets?: readonly (string | undefined)[];
  /** A file descriptor (2 = stderr), a file path (appended, folder created) or a stream; stdout when omitted. */
  destination?: number | string | DestinationStream;
  /** Fields added to every line. */
  base?: Record<string, unknown>;
  /** LOG_FORMAT by default, else pretty when the destination is a terminal's file descriptor, else json. */
  format?: LogFormat;
}

export function createLogger(options: LoggerOptions): AppLogger {
  const destination = options.destination ?? 1;
  const raw =
    typeof destination === 'object'
      ? destination
      : pino.destination({
          dest: destination,
          sync: true,
          ...(typeof destination === 'string' ? { mkdir: true } : {}),
        });
  // Pretty printing runs in this process (a stream, not a worker-thread transport) so the scrubber below still
  // sees every line before it is written, and lines are not lost when a command exits.
  const terminal = typeof destination === 'number' && isatty(destination);
  const target: DestinationStream =
    (options.format ?? logFormatFromEnv(process.env, { terminal })) === 'pretty'
      ? prettyStream({
          // pino-pretty pipes into a Node stream; a plain `{ write }` destination (tests) is wrapped in one.
          destination: new Writable({
            write(chunk: Buffer | string, _encoding, done) {
              raw.write(chunk.toString());
              done();
            },
          }),
          sync: true,
          colorize: terminal,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
          singleLine: true,
        })
      : raw;
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, ...options.base },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      // Errors are serialized by pino; an already compact error (compactError) is written as it is.
      serializers: {
        err: (value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value),
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    scrubbingDestination(target, options.secrets ?? []),
  );
}

/**
 * Ends the process on an error that reached the top: a config error is one line naming the
 * variables, or the file (a schedules file), that are wrong (exit 2, no stack trace); anything else is its message (exit 1), with the stack when
 * LOG_LEVEL is debug or trace. The API key is scrubbed from whatever is printed.
 */
export function exitWithError(error: unknown): never {
  const scrub = createScrubber([process.env.TRACEABILITY_API_KEY, process.env.AWS_SECRET_ACCESS_KEY]);
  if (error instanceof ConfigError || error instanceof SetupError) {
    process.stderr.write(`trace-sync: ${error.message}\n`);
    process.exit(2);
  }
  // A file's parse error quotes a piece of the file, which may hold a pasted key.
  if (error instanceof ConfigFileError) {
    process.stderr.write(`trace-sync: ${scrub(error.message)}\n`);
    process.exit(2);
  }
  const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '');
  const text =
    error instanceof Error
      ? verbose
        ? (error.stack ?? error.message)
        : withInnermostCause(error)
      : String(error);
  process.stderr.write(`trace-sync: ${scrub(text)}\n`);
  process.exit(1);
}

/**
 * An error's message and, when it wraps others, the innermost one's: the SDK's "Failed to start Workflow" says
 * nothing, its gRPC cause says why ("no mapping defined for search attribute TraceJob"), on the same line, bounded.
 */
export function withInnermostCause(error: Error): string {
  let innermost: unknown = error;
  for (let depth = 0; depth < 10 && innermost instanceof Error && innermost.cause !== undefined; depth++)
    innermost = innermost.cause;
  const cause = (innermost instanceof Error ? innermost.message : String(innermost)).trim();
  if (innermost === error || cause === '' || error.message.includes(cause)) return error.message;
  return `${error.message}: ${cause.replace(/\s*\n\s*/g, ' ').slice(0, MAX_MESSAGE)}`;
}
