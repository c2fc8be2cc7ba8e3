import { inspect } from 'node:util';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One problem found while validating a response (or a request) against its schema. */
export interface SchemaIssue {
  /** JSON path such as `data[3].codes[0].codeId`. */
  path: string;
  message: string;
}

export interface TraceabilityApiErrorInit {
  /** HTTP status; 0 when no answer was received (network fault, timeout, client-side validation). */
  statusCode: number;
  /** The API's stable error code, or a client code such as `network_error`, `timeout`, `invalid_response`. */
  code: string;
  message: string;
  method: HttpMethod;
  /** Request path relative to the base URL, without query string. */
  path: string;
  retryable: boolean;
  /** Server-requested wait (Retry-After) when it was too long to sleep through inline. */
  retryAfterMs?: number;
  /**
   * True when a non-idempotent write may have been applied although no readable success answer arrived
   * (lost answer, 5xx, a 2xx whose body breaks the schema, the caller's abort after sending, or a retry that
   * then failed). Re-read by natural key before trying again.
   */
  maybeCommitted?: boolean;
  attempts?: number;
  issues?: readonly SchemaIssue[];
}

/** Client-side error codes (the API's own codes pass through unchanged). */
export const ClientErrorCode = {
  network: 'network_error',
  timeout: 'timeout',
  aborted: 'aborted',
  invalidResponse: 'invalid_response',
  invalidRequest: 'invalid_request',
} as const;

/**
 * The single error type thrown by the Traceability client. It never holds the API key, request
 * headers, query strings or the underlying socket error object.
 */
export class TraceabilityApiError extends Error {
  override readonly name = 'TraceabilityApiError';
  readonly statusCode: number;
  readonly code: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly maybeCommitted: boolean;
  readonly attempts: number;
  readonly issues: readonly SchemaIssue[];

  constructor(init: TraceabilityApiErrorInit) {
    super(init.message);
    this.statusCode = init.statusCode;
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.maybeCommitted = init.maybeCommitted ?? false;
    this.attempts = init.attempts ?? 1;
    this.issues = init.issues ?? [];
  }

  /** A copy with some fields changed (errors are immutable once thrown). */
  with(changes: Partial<TraceabilityApiErrorInit>): TraceabilityApiError {
    const next = new TraceabilityApiError({ ...this.toJSON(), ...changes });
    next.stack = this.stack;
    return next;
  }

  toJSON(): TraceabilityApiErrorInit & { name: string } {
    return {
      name: this.name,
      statusCode: this.statusCode,
      code: this.code,
      message: this.message,
      method: this.method,
      path: this.path,
      retryable: this.retryable,
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      maybeCommitted: this.maybeCommitted,
      attempts: this.attempts,
      ...(this.issues.length > 0 ? { issues: this.issues } : {}),
    };
  }

  [inspect.custom](): string {
    return `TraceabilityApiError ${JSON.stringify(this.toJSON())}`;
  }
}

export function isTraceabilityApiError(error: unknown): error is TraceabilityApiError {
  return error instanceof TraceabilityApiError;
}

/**
 * Spec 01, Errors: 401 ("Missing or invalid key") and 403 `insufficient_rights` ("Credential not bound to a company")
 * answer for the worker's key, not for the record sent: no row's fix can help, so a job stops rather than reject rows.
 */
export function refusesKey(error: Pick<TraceabilityApiError, 'statusCode' | 'code'>): boolean {
  return error.statusCode === 401 || (error.statusCode === 403 && error.code === 'insufficient_rights');
}

/**
 * An API answer that refuses the record sent (a 4xx: bad data, not found, a restricted record), the record's own
 * rejection: not one worth retrying, and not a refused key (`refusesKey`), which answers for the worker and fails the
 * run rather than reject this record and every one after it.
 */
export function refusesRecord(error: unknown): error is TraceabilityApiError {
  return isTraceabilityApiError(error) && !error.retryable && !refusesKey(error);
}

/** Retry verdict by HTTP status: 429 and 5xx are worth another attempt, other 4xx are not. */
export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 429 || statusCode >= 500;
}

/** Formats a zod-style issue path as `data[3].codes[0].codeId`. */
export function formatIssuePath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

/** Replaces every occurrence of `secret` in `text` (defence in depth for server-echoed values). */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join('[REDACTED]');
}
