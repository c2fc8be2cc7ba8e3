import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_STAGING_RETENTION_DAYS } from '../connectors/staging/retention';
import type { StoreSettings } from '../connectors/storage';
import { repoRoot } from './paths';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one JSON object per line, for machines. `pretty`: pino-pretty's coloured lines, for humans. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where a variable matters: `worker` for every process that runs jobs, `embedded` for the local stack only. */
export type EnvVarScope = 'worker' | 'embedded';

export interface EnvVarDoc {
  name: string;
  scope: EnvVarScope;
  default: string;
  description: string;
}

/** Every variable the project reads; the README table and docker-compose.yml are checked against it. */
export const ENV_VARS: readonly EnvVarDoc[] = [
  {
    name: 'TEMPORAL_ADDRESS',
    scope: 'worker',
    default: '(unset: embedded dev server)',
    description: 'Temporal frontend `host:port`. Unset: `trace-sync start` runs a local dev server.',
  },
  { name: 'TEMPORAL_NAMESPACE', scope: 'worker', default: 'default', description: 'Temporal namespace.' },
  {
    name: 'TRACE_TASK_QUEUE',
    scope: 'worker',
    default: 'trace-connectors',
    description: 'Task queue the worker polls and the CLI starts jobs on.',
  },
  {
    name: 'TRACEABILITY_BASE_URL',
    scope: 'worker',
    default: '(unset: embedded sandbox)',
    description: 'API base URL including `/api/v2`. Unset: `trace-sync start` runs the sandbox.',
  },
  {
    name: 'TRACEABILITY_API_KEY',
    scope: 'worker',
    default: '(required with TRACEABILITY_BASE_URL)',
    description: 'API key sent as the `companyapikey` header. Never logged.',
  },
  {
    name: 'TRACE_DATA_DIR',
    scope: 'worker',
    default: '`<repo>/.data`',
    description: 'Local state: dev-server SQLite file, sandbox snapshot, staging files, reports.',
  },
  {
    name: 'LOG_LEVEL',
    scope: 'worker',
    default: 'info',
    description: `pino level: ${LOG_LEVELS.join(', ')}.`,
  },
  {
    name: 'LOG_FORMAT',
    scope: 'worker',
    default: 'pretty when stderr is a terminal, else json',
    description: `${LOG_FORMATS.join(' or ')}: one JSON object per line, or one readable line per entry.`,
  },
  {
    name: 'TRACE_MAX_ACTIVITIES_PER_SECOND',
    scope: 'worker',
    default: '(unset: no limit)',
    description:
      'Task-queue-wide activity rate limit enforced by the Temporal server (set the same on every worker).',
  },
  {
    name: 'TRACE_METRICS_ADDRESS',
    scope: 'worker',
    default: '(unset: no metrics endpoint)',
    description:
      'host:port where the worker serves the Temporal SDK metrics in Prometheus format (`/metrics`), e.g. `0.0.0.0:9464`.',
  },
  {
    name: 'TRACE_API_TIMEOUT_MS',
    scope: 'worker',
    default: '30000',
    description:
      'Per-request timeout of the API client in ms (100 to 600000). A write that times out may still commit: the jobs re-read before acting again.',
  },
  {
    name: 'TRACE_STAGING_RETENTION_DAYS',
    scope: 'worker',
    default: '7',
    description:
      "Days an ended run's staged data (batches, journals) stays before the worker's hourly sweep removes it (1 to 3650), or `off`: kept until removed by hand.",
  },
  {
    name: 'TRACE_STORE_URL',
    scope: 'worker',
    default: '(unset: the data folder)',
    description:
      'Where run data lives (inputs, staged batches, journals, rejects, reports, exports, inbox): `file:///path` or `s3://bucket/prefix`.',
  },
  {
    name: 'AWS_ENDPOINT_URL_S3',
    scope: 'worker',
    default: '(unset: AWS_ENDPOINT_URL, then AWS S3)',
    description:
      'S3-compatible server (MinIO, versitygw) for an `s3://` store, e.g. `http://minio:9000`; path-style addressing.',
  },
  {
    name: 'AWS_ENDPOINT_URL',
    scope: 'worker',
    default: '(unset: AWS)',
    description: "The AWS SDK's endpoint for every service; used for S3 when AWS_ENDPOINT_URL_S3 is unset.",
  },
  {
    name: 'AWS_REGION',
    scope: 'worker',
    default: 'us-east-1',
    description: 'Region of the bucket (S3-compatible servers accept us-east-1).',
  },
  {
    name: 'AWS_ACCESS_KEY_ID',
    scope: 'worker',
    default: "(unset: the SDK's other credential sources)",
    description: 'Access key of an `s3://` store, read by the AWS SDK. Never logged.',
  },
  {
    name: 'AWS_SECRET_ACCESS_KEY',
    scope: 'worker',
    default: '(required with AWS_ACCESS_KEY_ID)',
    description: 'Secret key of an `s3://` store, read by the AWS SDK. Never logged.',
  },
  {
    name: 'TRACE_SANDBOX_PORT',
    scope: 'embedded',
    default: '4010',
    description: 'Port of the embedded sandbox (`0` picks a free one).',
  },
  {
    name: 'TEMPORAL_PORT',
    scope: 'embedded',
    default: '7233',
    description: 'gRPC port of the embedded dev server (`0` picks a free one).',
  },
  {
    name: 'TEMPORAL_UI_PORT',
    scope: 'embedded',
    default: '8233',
    description: 'Web UI port of the embedded dev server (`0` picks a free one).',
  },
  {
    name: 'TEMPORAL_CLI_PATH',
    scope: 'embedded',
    default: '(unset: search, then install)',
    description: 'Path of a `temporal` CLI binary to use for the embedded dev server.',
  },
];

export class ConfigError extends Error {
  constructor(readonly problems: readonly { variable: string; message: string }[]) {
    super(`Invalid configuration: ${problems.map((p) => `${p.variable} ${p.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * A configuration file a command was given (a schedules file) that it cannot use: like a config error, one line
 * saying what is wrong, exit code 2.
 */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

/**
 * What the worker needs from its surroundings is not there (a Temporal namespace without the project's search
 * attributes...): like a config error, one line saying what to do, exit code 2.
 */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupError';
  }
}

const blankToUndefined = (value: unknown): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

function optionalText(message: string) {
  return z.preprocess(blankToUndefined, z.string({ error: message }).trim().optional());
}

function textWithDefault(fallback: string, message: string) {
  return z.preprocess(
    blankToUndefined,
    z.string({ error: message }).trim().min(1, { error: message }).default(fallback),
  );
}

function port(fallback: number) {
  const message = 'must be a port number from 0 to 65535';
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d{1,5}$/, { error: message })
      .transform(Number)
      .pipe(z.number().max(65535, { error: message }))
      .default(fallback),
  );
}

/** Default per-request timeout of the API client (the client's own default). */
export const DEFAULT_API_TIMEOUT_MS = 30_000;

const apiTimeoutMessage = 'must be a whole number of milliseconds from 100 to 600000';
const apiTimeoutSchema = z.preprocess(
  blankToUndefined,
  z
    .string()
    .trim()
    .regex(/^\d{1,6}$/, { error: apiTimeoutMessage })
    .transform(Number)
    .pipe(z.number().min(100, { error: apiTimeoutMessage }).max(600_000, { error: apiTimeoutMessage }))
    .default(DEFAULT_API_TIMEOUT_MS),
);

export const logFormatSchema = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() !== '' ? value.trim().toLowerCase() : undefined),
  // No default here: unset, the format follows where the log goes (see logFormatFromEnv).
  z.enum(LOG_FORMATS, { error: `must be one of ${LOG_FORMATS.join(', ')}` }).optional(),
);

const addressPattern = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/;

export const MAX_STAGING_RETENTION_DAYS = 3650;

/** A whole number of days, or `off` (null: never sweep); the value given is named back, as it is no secret. */
const stagingRetentionSchema = z.unknown().transform((value, ctx): number | null => {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (text === '') return DEFAULT_STAGING_RETENTION_DAYS;
  if (text === 'off') return null;
  const days = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (days >= 1 && days <= MAX_STAGING_RETENTION_DAYS) return days;
  ctx.addIssue({
    code: 'custom',
    message: `must be a whole number of days from 1 to ${MAX_STAGING_RETENTION_DAYS}, or off to keep staged data until removed by hand (got ${JSON.stringify(String(value).slice(0, 40))})`,
  });
  return z.NEVER;
});

const envSchema = z
  .object({
    TEMPORAL_ADDRESS: z.preprocess(
      blankToUndefined,
      z.string().regex(addressPattern, { error: 'must be host:port, for example temporal:7233' }).optional(),
    ),
    TEMPORAL_NAMESPACE: textWithDefault('default', 'must not be empty'),
    TRACE_TASK_QUEUE: textWithDefault('trace-connectors', 'must not be empty'),
    TRACEABILITY_BASE_URL: z.preprocess(
      blankToUndefined,
      z
        .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://api.example.com/api/v2' })
        .transform((url) => url.replace(/\/+$/, ''))
        .optional(),
    ),
    TRACEABILITY_API_KEY: optionalText('must be text'),
    TRACE_DATA_DIR: optionalText('must be a folder path'),
    LOG_LEVEL: z.preprocess(
      (value) =>
        typeof blankToUndefined(value) === 'string' ? String(value).trim().toLowerCase() : undefined,
      z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    ),
    LOG_FORMAT: logFormatSchema,
    TRACE_MAX_ACTIVITIES_PER_SECOND: z.preprocess(
      blankToUndefined,
      z
        .string()
        .regex(/^\d+(\.\d+)?$/, { error: 'must be a positive number' })
        .transform(Number)
        .pipe(z.number().positive({ error: 'must be a positive number' }))
        .optional(),
    ),
    TRACE_METRICS_ADDRESS: z.preprocess(
      blankToUndefined,
      z.string().regex(addressPattern, { error: 'must be host:port, for example 0.0.0.0:9464' }).optional(),
    ),
    TRACE_API_TIMEOUT_MS: apiTimeoutSchema,
    TRACE_STAGING_RETENTION_DAYS: stagingRetentionSchema,
    TRACE_STORE_URL: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .regex(/^(file:\/\/\/.*|s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?)$/, {
          error: 'must be file:///path or s3://bucket/prefix',
        })
        .optional(),
    ),
    AWS_ENDPOINT_URL_S3: z.preprocess(
      blankToUndefined,
      z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://minio:9000' }).optional(),
    ),
    AWS_ENDPOINT_URL: z.preprocess(
      blankToUndefined,
      z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://minio:9000' }).optional(),
    ),
    AWS_REGION: optionalText('must be a region name'),
    AWS_ACCESS_KEY_ID: optionalText('must be text'),
    AWS_SECRET_ACCESS_KEY: optionalText('must be text'),
    TRACE_SANDBOX_PORT: port(4010),
    TEMPORAL_PORT: port(7233),
    TEMPORAL_UI_PORT: port(8233),
    TEMPORAL_CLI_PATH: optionalText('must be a file path'),
  })
  .superRefine((env, ctx) => {
    if (env.TRACEABILITY_BASE_URL && !env.TRACEABILITY_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRACEABILITY_API_KEY'],
        message: 'is required when TRACEABILITY_BASE_URL is set',
      });
    }
    if (Boolean(env.AWS_ACCESS_KEY_ID) !== Boolean(env.AWS_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.AWS_ACCESS_KEY_ID ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID'],
        message: 'must be set together with the other AWS key variable',
      });
    }
  });

export interface AppConfig {
  /** Unset: the embedded dev server (`trace-sync start`) or 127.0.0.1:temporalPort for clients. */
  temporalAddress?: string;
  temporalNamespace: string;
  taskQueue: string;
  /** Unset: the embedded sandbox. */
  traceabilityBaseUrl?: string;
  traceabilityApiKey?: string;
  dataDir: string;
  logLevel: LogLevel;
  maxActivitiesPerSecond?: number;
  /** Where the SDK's Prometheus metrics are served; unset: none. */
  metricsAddress?: string;
  /** Per-request timeout of the API client (TRACE_API_TIMEOUT_MS). */
  apiTimeoutMs: number;
  /** Days an ended run's staged data stays before the worker sweeps it; null: never (TRACE_STAGING_RETENTION_DAYS). */
  stagingRetentionDays: number | null;
  sandboxPort: number;
  temporalPort: number;
  temporalUiPort: number;
  temporalCliPath?: string;
  /**
   * Where run data lives (TRACE_STORE_URL and the AWS SDK's variables). Credentials are left to the SDK's own
   * chain; only tests put them here.
   */
  store?: StoreSettings;
}

/** Reads and validates the configuration; throws {@link ConfigError} naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const input = Object.fromEntries(ENV_VARS.map(({ name }) => [name, env[name]]));
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => ({
      variable: String(issue.path[0] ?? 'environment'),
      // A value is never echoed: it may be a secret.
      message: issue.message,
    }));
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  return {
    temporalAddress: e.TEMPORAL_ADDRESS,
    temporalNamespace: e.TEMPORAL_NAMESPACE,
    taskQueue: e.TRACE_TASK_QUEUE,
    traceabilityBaseUrl: e.TRACEABILITY_BASE_URL,
    traceabilityApiKey: e.TRACEABILITY_API_KEY,
    dataDir: path.resolve(e.TRACE_DATA_DIR ?? path.join(repoRoot(), '.data')),
    logLevel: e.LOG_LEVEL,
    maxActivitiesPerSecond: e.TRACE_MAX_ACTIVITIES_PER_SECOND,
    metricsAddress: e.TRACE_METRICS_ADDRESS,
    apiTimeoutMs: e.TRACE_API_TIMEOUT_MS,
    stagingRetentionDays: e.TRACE_STAGING_RETENTION_DAYS,
    sandboxPort: e.TRACE_SANDBOX_PORT,
    temporalPort: e.TEMPORAL_PORT,
    temporalUiPort: e.TEMPORAL_UI_PORT,
    temporalCliPath: e.TEMPORAL_CLI_PATH,
    store: {
      url: e.TRACE_STORE_URL,
      endpoint: e.AWS_ENDPOINT_URL_S3 ?? e.AWS_ENDPOINT_URL,
      region: e.AWS_REGION,
    },
  };
}

/**
 * TRACE_API_TIMEOUT_MS alone, for code that builds a config without the whole environment (the test harness);
 * throws {@link ConfigError} for a bad value, like `loadConfig`.
 */
export function apiTimeoutMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const parsed = apiTimeoutSchema.safeParse(env.TRACE_API_TIMEOUT_MS);
  if (!parsed.success)
    throw new ConfigError([{ variable: 'TRACE_API_TIMEOUT_MS', message: apiTimeoutMessage }]);
  return parsed.data;
}

/** The address clients use: the configured one, or the embedded dev server's. */
export function temporalClientAddress(config: AppConfig): string {
  return config.temporalAddress ?? `127.0.0.1:${config.temporalPort}`;
}

/**
 * The address a process that only connects (a CLI command, `trace-sync worker`) reaches Temporal at; a ConfigError
 * (exit 2) when that is port 0, which only `npm start` can resolve, to the free port its dev server picked.
 */
export function connectableTemporalAddress(config: AppConfig): string {
  if (config.temporalAddress === undefined && config.temporalPort === 0)
    throw new ConfigError([
      {
        variable: 'TEMPORAL_PORT',
        message:
          'is 0: TEMPORAL_PORT=0 means "any free port" for `npm start` only, and nothing can be reached on port 0; set TEMPORAL_ADDRESS to the address the stack printed (its "Start a job" line starts with TEMPORAL_ADDRESS=...)',
      },
    ]);
  return temporalClientAddress(config);
}
