import { z } from 'zod';
import {
  ClientErrorCode,
  TraceabilityApiError,
  formatIssuePath,
  redact,
  refusesKey,
  type HttpMethod,
  type SchemaIssue,
} from './errors';

export const paginationSchema = z.looseObject({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});
export type Pagination = z.infer<typeof paginationSchema>;

const successEnvelopeSchema = z.looseObject({
  metadata: z.looseObject({ success: z.literal(true), pagination: z.unknown().optional() }),
  data: z.unknown().optional(),
});

/**
 * Errors put statusCode/code/message at top level (spec) or inside metadata; accept both. Each field is read on its
 * own: a malformed `message` must not cost the `code` callers branch on.
 */
const errorFieldsSchema = z.looseObject({
  statusCode: z.number().optional().catch(undefined),
  code: z.string().optional().catch(undefined),
  message: z.unknown().optional(),
});
const errorEnvelopeSchema = errorFieldsSchema.extend({
  metadata: errorFieldsSchema.optional().catch(undefined),
});

const MAX_MESSAGE_CHARS = 300;

/** A server message as text: a string as sent; a list of strings joined, anything else as JSON, bounded. */
function messageText(value: unknown, apiKey: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  // Redacted before it is cut: a cut through the key would keep its first part.
  const text = redactKey(
    Array.isArray(value) && value.every((part) => typeof part === 'string')
      ? value.join('; ')
      : JSON.stringify(value),
    apiKey,
  );
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
}

export interface RequestContext {
  method: HttpMethod;
  /** Endpoint template such as `/styles/{id}`. */
  endpoint: string;
  /** Concrete path, no query string. */
  path: string;
  apiKey: string;
}

export function toIssues(error: z.ZodError, root: string): SchemaIssue[] {
  return error.issues.map((issue) => ({ path: formatIssuePath(issue.path, root), message: issue.message }));
}

export function describeIssues(issues: readonly SchemaIssue[]): string {
  const shown = issues.slice(0, 3).map((issue) => `${issue.path}: ${issue.message}`);
  const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}

function invalidResponse(
  ctx: RequestContext,
  statusCode: number,
  issues: SchemaIssue[],
  what: string,
): TraceabilityApiError {
  return new TraceabilityApiError({
    statusCode,
    code: ClientErrorCode.invalidResponse,
    message: redact(`${ctx.method} ${ctx.endpoint}: ${what}: ${describeIssues(issues)}`, ctx.apiKey),
    method: ctx.method,
    path: ctx.path,
    retryable: false,
    issues,
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * A body that is no JSON, as the message says it: an HTML page comes from something in front of the API (a proxy,
 * gateway or login page), so it names the setting to check and the page's first words.
 */
function notJsonBody(text: string, apiKey: string): string {
  // Redacted before it is cut: a page that echoes the request would otherwise keep the part of the key inside the cut.
  const start = redactKey(text.trim(), apiKey);
  if (start === '') return "an empty body, not the API's JSON";
  // eslint-disable-next-line no-control-regex
  const shown = start.slice(0, 60).replace(/[\u0000-\u001f]+/g, ' ');
  const quoted = `"${shown}${start.length > 60 ? '…' : ''}"`;
  return start.startsWith('<')
    ? 'an HTML page, not the API (a proxy, gateway or login page answered?): check TRACEABILITY_BASE_URL; ' +
        `the page begins ${quoted}`
    : `text that is not JSON, beginning ${quoted}`;
}

/** `text` without the key in any form an answer may echo it in (`keyForms`). */
function redactKey(text: string, apiKey: string): string {
  return keyForms(apiKey).reduce((redacted, form) => redact(redacted, form), text);
}

/** The key as a page may echo it: as sent, URL-encoded (either case), HTML-escaped. */
function keyForms(apiKey: string): string[] {
  const html = apiKey.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  const named = apiKey
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
  const encoded = encodeURIComponent(apiKey);
  const hex = apiKey.replace(/[&<>"']/g, (char) => `&#x${char.charCodeAt(0).toString(16)};`);
  return [
    ...new Set([
      apiKey,
      encoded,
      encoded.replace(/%[0-9A-F]{2}/g, (code) => code.toLowerCase()),
      html,
      hex,
      named,
    ]),
  ].filter((form) => form !== '');
}

export interface ParsedSuccess {
  data: unknown;
  pagination?: Pagination;
}

/**
 * Checks a 2xx body against the envelope and `dataSchema` (undefined = no content expected) and
 * returns the parsed data; throws an `invalid_response` error naming endpoint, JSON path and problem.
 */
export function parseSuccess(
  ctx: RequestContext,
  statusCode: number,
  text: string,
  dataSchema: z.ZodType | undefined,
  list: boolean,
): ParsedSuccess {
  if (!dataSchema) return { data: undefined };
  const json = parseJson(text);
  if (!json.ok) {
    return failWith(
      invalidResponse(
        ctx,
        statusCode,
        [{ path: '(root)', message: `the body is ${notJsonBody(text, ctx.apiKey)}` }],
        'malformed answer',
      ),
    );
  }
  const envelope = successEnvelopeSchema.safeParse(json.value);
  if (!envelope.success)
    throw invalidResponse(ctx, statusCode, toIssues(envelope.error, ''), 'answer is not a success envelope');
  let pagination: Pagination | undefined;
  if (list) {
    const parsed = paginationSchema.safeParse(envelope.data.metadata.pagination);
    if (!parsed.success) {
      throw invalidResponse(
        ctx,
        statusCode,
        toIssues(parsed.error, 'metadata.pagination'),
        'response does not match the schema',
      );
    }
    pagination = parsed.data;
  }
  const data = dataSchema.safeParse(envelope.data.data);
  if (!data.success)
    throw invalidResponse(
      ctx,
      statusCode,
      toIssues(data.error, 'data'),
      'response does not match the schema',
    );
  return pagination ? { data: data.data, pagination } : { data: data.data };
}

function failWith(error: TraceabilityApiError): never {
  throw error;
}

/**
 * A refused key (401, 403 `insufficient_rights`) is the worker's configuration, never the data: retrying or fixing rows
 * cannot help.
 */
const KEY_REFUSED_HINT =
  '; the API refused the key: check TRACEABILITY_API_KEY (and TRACEABILITY_BASE_URL) of the worker, then restart it';

/** Builds the error for a non-2xx answer from its envelope (or its status when the body is not one). */
export function errorFromAnswer(
  ctx: RequestContext,
  statusCode: number,
  text: string,
  retryable: boolean,
  retryAfterMs: number | undefined,
): TraceabilityApiError {
  const json = parseJson(text);
  const parsed = json.ok ? errorEnvelopeSchema.safeParse(json.value) : undefined;
  const body = parsed?.success ? parsed.data : undefined;
  const apiCode = body?.code ?? body?.metadata?.code;
  const code = apiCode ?? `http_${statusCode}`;
  const serverMessage =
    messageText(body?.message, ctx.apiKey) ??
    messageText(body?.metadata?.message, ctx.apiKey) ??
    (json.ok ? `HTTP ${statusCode}` : notJsonBody(text, ctx.apiKey));
  const keyRefused = refusesKey({ statusCode, code });
  // `http_502` is only the status again: said once.
  const status = apiCode === undefined ? `${statusCode}` : `${statusCode} ${apiCode}`;
  return new TraceabilityApiError({
    statusCode,
    code,
    message: redactKey(
      `${ctx.method} ${ctx.endpoint} failed with ${status}: ${serverMessage}${keyRefused ? KEY_REFUSED_HINT : ''}`,
      ctx.apiKey,
    ),
    method: ctx.method,
    path: ctx.path,
    retryable,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}
