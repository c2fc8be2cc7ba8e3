import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config';

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

export interface LoggerOptions {
  level: LogLevel;
  /** Values that must never appear in output (the API key, test keys). */
  secrets?: readonly (string | undefined)[];
  /** A file descriptor (2 = stderr), a file path (appended, folder created) or a stream; stdout when omitted. */
  destination?: number | string | DestinationStream;
  /** Fields added to every line. */
  base?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions): AppLogger {
  const destination = options.destination ?? 1;
  const target =
    typeof destination === 'object'
      ? destination
      : pino.destination({
          dest: destination,
          sync: true,
          ...(typeof destination === 'string' ? { mkdir: true } : {}),
        });
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, ...options.base },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    scrubbingDestination(target, options.secrets ?? []),
  );
}
