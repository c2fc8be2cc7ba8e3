import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Clock } from './clock';
import { lanesFor, Semaphore } from './concurrency';
import { errorFromAnswer, parseSuccess, type Pagination, type RequestContext } from './envelope';
import { ClientErrorCode, TraceabilityApiError, isRetryableStatus, type HttpMethod } from './errors';
import type { TraceabilityLogger } from './logger';
import type { ClientMetrics } from './metrics';
import type { AdaptiveRateLimiter, RateLimitObservation, RatePermit } from './rate-limiter';
import { decideRetry, type AttemptFailure, type RetryPolicy, type RetrySafety } from './retry';

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;

export interface RequestSpec<S extends z.ZodType | undefined> {
  method: HttpMethod;
  /** Endpoint template such as `/styles/{id}`: used in metrics, logs and error messages. */
  endpoint: string;
  /** Concrete path relative to the base URL, with path segments already encoded. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Schema of `data`; omit when the answer has no content (204). */
  dataSchema?: S;
  /** List endpoints: `metadata.pagination` is required and returned. */
  list?: boolean;
  safety: RetrySafety;
  /** POST /orders: not counted against the allowance, so not paced. */
  rateExempt?: boolean;
  signal?: AbortSignal;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  pagination?: Pagination;
  /**
   * A write answered on a retry after an earlier attempt may have committed (answer lost, 5xx): the answer describes
   * the state that attempt left, so ids it already deleted may be reported not found.
   */
  afterPossibleCommit?: boolean;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  minConcurrency: number;
  maxConcurrency: number;
  retry: RetryPolicy;
  clock: Clock;
  limiter: AdaptiveRateLimiter;
  metrics: ClientMetrics;
  logger: TraceabilityLogger;
  dispatcher?: Dispatcher;
}

type Attempt = { ok: true; response: ApiResponse<unknown> } | { ok: false; failure: AttemptFailure };

/** Errors that prove the request never left this machine, so any method may be re-sent. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * A connection made and then closed before the answer was whole (by the API, a proxy or a load balancer between): the
 * base URL is right, so the operator is not sent to check it. `undefined`: undici closed the socket without a code.
 */
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function errorCode(error: unknown): string | undefined {
  const direct = (error as { code?: unknown } | null)?.code;
  if (typeof direct === 'string') return direct;
  const nested = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof nested === 'string' ? nested : undefined;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function parseRateHeaders(
  headers: Record<string, string | string[] | undefined>,
  nowMs: number,
): RateLimitObservation | undefined {
  const limit = Number(header(headers, 'x-ratelimit-limit'));
  const remaining = Number(header(headers, 'x-ratelimit-remaining'));
  const reset = Number(header(headers, 'x-ratelimit-reset'));
  if (!Number.isFinite(limit) || !Number.isFinite(remaining) || limit <= 0) return undefined;
  // The spec says Unix seconds (the server's clock); a small value is read as delta seconds, as some gateways
  // send, from this host's clock.
  const onServerClock = Number.isFinite(reset) && reset > 1e9;
  const resetAtMs = !Number.isFinite(reset) ? nowMs : onServerClock ? reset * 1000 : nowMs + reset * 1000;
  const date = header(headers, 'date');
  const serverDateMs = date === undefined ? Number.NaN : Date.parse(date);
  return {
    limit,
    remaining: Math.max(0, remaining),
    resetAtMs,
    ...(onServerClock ? {} : { resetOnHostClock: true }),
    ...(Number.isNaN(serverDateMs) ? {} : { serverDateMs }),
  };
}

/** Retry-After is whole seconds or an HTTP date. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Whether a write whose attempt ended with this status may have been applied: no answer, a 5xx, or a 2xx. */
function mayHaveApplied(statusCode: number): boolean {
  return statusCode === 0 || statusCode >= 500 || (statusCode >= 200 && statusCode < 300);
}

/**
 * Whether a call's retry after this failed attempt is a warning: the first, then every RETRY_WARN_EVERY-th. In an
 * outage every call retries through the same answer; the others are at debug, and the call's last line
 * ("traceability api call failed") says how many attempts it made.
 */
const RETRY_WARN_EVERY = 5;
function warnsAtRetry(attempt: number): boolean {
  return attempt === 1 || attempt % RETRY_WARN_EVERY === 0;
}

/** HTTP transport: pacing, bounded concurrency, timeouts, envelope parsing and retries. */
export class Transport {
  // An ES private field: invisible to util.inspect, JSON.stringify and enumeration.
  readonly #apiKey: string;
  private readonly options: Omit<TransportOptions, 'apiKey'>;
  private readonly baseUrl: string;
  private readonly semaphore: Semaphore;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;

  constructor(options: TransportOptions) {
    const { apiKey, ...rest } = options;
    this.#apiKey = apiKey;
    this.options = rest;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.semaphore = new Semaphore(() => this.lanes(options.minConcurrency));
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ?? new Agent({ connections: options.maxConcurrency * 2, keepAliveTimeout: 4_000 });
  }

  /**
   * `base` lanes, or more where the key's allowance over this process's round trips keeps more calls in flight,
   * up to `maxConcurrency` (see `lanesFor`): the semaphore's width at `minConcurrency`, a job's at its own.
   */
  lanes(base: number): number {
    return lanesFor(base, this.options.limiter.callsInFlightToFill(), this.options.maxConcurrency);
  }

  async send<S extends z.ZodType | undefined>(
    spec: RequestSpec<S>,
  ): Promise<ApiResponse<S extends z.ZodType ? z.output<S> : undefined>> {
    const { clock, retry, logger, metrics, limiter } = this.options;
    let retries = 0;
    let rateLimitRetries = 0;
    let maybeCommitted = false;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(spec, attempt);
      if (outcome.ok) {
        const response = maybeCommitted
          ? { ...outcome.response, afterPossibleCommit: true }
          : outcome.response;
        return response as ApiResponse<S extends z.ZodType ? z.output<S> : undefined>;
      }
      const { failure } = outcome;
      const { error } = failure;
      if (spec.method !== 'GET' && failure.mayHaveReachedServer && mayHaveApplied(error.statusCode)) {
        maybeCommitted = true;
      }
      const decision = decideRetry(failure, spec.safety, retries, rateLimitRetries, retry);
      if (!decision.retry) throw this.finalError(spec, failure, attempt, maybeCommitted, decision.reason);
      metrics.recordRetry();
      if (decision.rateLimited) rateLimitRetries++;
      else retries++;
      logger[warnsAtRetry(attempt) ? 'warn' : 'debug'](
        {
          method: spec.method,
          path: spec.path,
          status: error.statusCode,
          code: error.code,
          attempt,
          delayMs: decision.delayMs,
        },
        'traceability api call will be retried',
      );
      if (decision.rateLimited && !spec.rateExempt) limiter.pauseFor(decision.delayMs);
      else if (!(await this.sleep(decision.delayMs, spec, clock))) {
        const aborted = { error: this.abortedError(spec), mayHaveReachedServer: false };
        throw this.finalError(spec, aborted, attempt, maybeCommitted, 'aborted');
      }
    }
  }

  /** The error `send` throws, with its bookkeeping (attempts, maybeCommitted) and one log line. */
  private finalError(
    spec: RequestSpec<z.ZodType | undefined>,
    failure: AttemptFailure,
    attempts: number,
    maybeCommitted: boolean,
    reason: string,
  ): TraceabilityApiError {
    const { error } = failure;
    const final = error.with({
      message: error.message + this.unreachableHint(error, failure.connection),
      attempts,
      maybeCommitted,
      ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
    });
    // A 404 or 409 is an answer the caller expects and acts on (planning asks for products that may not exist), and
    // so is the caller's own abort unless a write may have landed: debug, so the warnings stay for what an operator
    // must look at.
    const expected =
      error.statusCode === 404 ||
      error.statusCode === 409 ||
      (error.code === ClientErrorCode.aborted && !maybeCommitted);
    this.options.logger[expected ? 'debug' : 'warn'](
      {
        method: spec.method,
        path: spec.path,
        status: error.statusCode,
        code: error.code,
        attempts,
        reason,
        maybeCommitted,
      },
      'traceability api call failed',
    );
    return final;
  }

  /**
   * What the operator should check when the API gave no answer at all (refused, unknown host, dropped, timed out): the
   * base URL's host only, never the full URL (it may carry credentials) or the key.
   */
  private unreachableHint(error: TraceabilityApiError, connection: AttemptFailure['connection']): string {
    const host = new URL(this.baseUrl).host;
    if (error.code === ClientErrorCode.network && connection === 'dropped') {
      return `; the connection to ${host} dropped during the call; the API or a proxy between closed it`;
    }
    if (error.code === ClientErrorCode.network) {
      return `; the API at ${host} could not be reached: check TRACEABILITY_BASE_URL of the worker and that the API is up`;
    }
    if (error.code === ClientErrorCode.timeout) {
      return `; the API at ${host} did not answer in time: check that the API is up (TRACE_API_TIMEOUT_MS sets the wait)`;
    }
    return '';
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** PUT raw bytes to a pre-signed storage URL: no API key, no pacing (storage is not the API). */
  async putSigned(url: string, bytes: Uint8Array, contentType: string, signal?: AbortSignal): Promise<void> {
    const parsed = new URL(url);
    const ctxPath = `${parsed.origin}${parsed.pathname}`; // never the signature in the query string
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const res = await this.semaphore
      .run(() =>
        undiciRequest(url, {
          method: 'PUT',
          body: bytes,
          headers: { 'content-type': contentType, 'x-upload-content-type': contentType },
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          dispatcher: this.dispatcher,
        }),
      )
      .catch((cause: unknown) => {
        throw new TraceabilityApiError({
          statusCode: 0,
          code: timeout.aborted ? ClientErrorCode.timeout : ClientErrorCode.network,
          message: `PUT signed upload URL failed: ${errorCode(cause) ?? 'connection error'}`,
          method: 'PUT',
          path: ctxPath,
          retryable: true,
        });
      });
    await res.body.dump();
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw new TraceabilityApiError({
        statusCode: res.statusCode,
        code: `upload_${res.statusCode}`,
        message: `PUT signed upload URL answered ${res.statusCode} (expired URL or content-type mismatch)`,
        method: 'PUT',
        path: ctxPath,
        retryable: isRetryableStatus(res.statusCode),
      });
    }
  }

  /** False when the caller aborted the wait. */
  private async sleep(ms: number, spec: RequestSpec<z.ZodType | undefined>, clock: Clock): Promise<boolean> {
    try {
      await clock.sleep(ms, spec.signal);
      return true;
    } catch {
      return false;
    }
  }

  private abortedError(spec: RequestSpec<z.ZodType | undefined>): TraceabilityApiError {
    return new TraceabilityApiError({
      statusCode: 0,
      code: ClientErrorCode.aborted,
      message: `${spec.method} ${spec.endpoint} was aborted by the caller`,
      method: spec.method,
      path: spec.path,
      retryable: false,
    });
  }

  private async attempt(spec: RequestSpec<z.ZodType | undefined>, attempt: number): Promise<Attempt> {
    const { clock, limiter, metrics } = this.options;
    let permit: RatePermit | undefined;
    if (!spec.rateExempt) {
      const waitStart = clock.now();
      try {
        permit = await limiter.acquire(spec.signal);
      } catch {
        return { ok: false, failure: { error: this.abortedError(spec), mayHaveReachedServer: false } };
      }
      metrics.recordPacingWait(clock.now() - waitStart);
    }
    return this.semaphore.run(() => this.exchange(spec, attempt, permit));
  }

  private async exchange(
    spec: RequestSpec<z.ZodType | undefined>,
    attempt: number,
    permit: RatePermit | undefined,
  ): Promise<Attempt> {
    const { clock, limiter, metrics, logger, timeoutMs } = this.options;
    const apiKey = this.#apiKey;
    const ctx: RequestContext = { method: spec.method, endpoint: spec.endpoint, path: spec.path, apiKey };
    const started = clock.now();
    const timeout = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { companyapikey: apiKey, accept: 'application/json' };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      res = await undiciRequest(this.baseUrl + spec.path + buildQuery(spec.query), {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout,
        dispatcher: this.dispatcher,
      });
      text = await res.body.text();
    } catch (cause) {
      limiter.complete(permit, undefined);
      metrics.recordCall(spec.method, `${spec.method} ${spec.endpoint}`, 0);
      // The request may have reached the server before the caller gave up on it.
      if (spec.signal?.aborted) {
        return { ok: false, failure: { error: this.abortedError(spec), mayHaveReachedServer: true } };
      }
      const timedOut = timeout.aborted;
      metrics.recordFault(timedOut ? 'timeout' : 'network');
      const code = errorCode(cause);
      const notSent = code !== undefined && NOT_SENT_CODES.has(code);
      const error = new TraceabilityApiError({
        statusCode: 0,
        code: timedOut ? ClientErrorCode.timeout : ClientErrorCode.network,
        message: timedOut
          ? `${spec.method} ${spec.endpoint}: no answer within ${timeoutMs} ms`
          : `${spec.method} ${spec.endpoint}: connection failed (${code ?? 'socket closed'})`,
        method: spec.method,
        path: spec.path,
        retryable: true,
      });
      logger.debug(
        {
          method: spec.method,
          path: spec.path,
          status: 0,
          durationMs: clock.now() - started,
          attempt,
          code: error.code,
        },
        'traceability api call',
      );
      const dropped = !timedOut && (code === undefined || DROPPED_CODES.has(code));
      return {
        ok: false,
        failure: { error, mayHaveReachedServer: !notSent, connection: dropped ? 'dropped' : 'unreachable' },
      };
    }
    const now = clock.now();
    const status = res.statusCode;
    // A 429 was refused without being counted: it leaves the limiter's record of this process's calls.
    limiter.complete(permit, parseRateHeaders(res.headers, now), status !== 429);
    metrics.recordCall(spec.method, `${spec.method} ${spec.endpoint}`, status);
    logger.debug(
      { method: spec.method, path: spec.path, status, durationMs: now - started, attempt },
      'traceability api call',
    );
    if (status >= 200 && status < 300) {
      try {
        const parsed = parseSuccess(ctx, status, text, spec.dataSchema, spec.list ?? false);
        return { ok: true, response: { status, ...parsed } };
      } catch (error) {
        if (!(error instanceof TraceabilityApiError)) throw error;
        // The server answered success, so a write was applied even though its answer cannot be read.
        return { ok: false, failure: { error, mayHaveReachedServer: true } };
      }
    }
    // (A Retry-After given as a date is on the server's clock.)
    const retryAfterMs = parseRetryAfterMs(header(res.headers, 'retry-after'), limiter.serverTimeMs(now));
    const error = errorFromAnswer(ctx, status, text, isRetryableStatus(status), retryAfterMs);
    return {
      ok: false,
      failure: {
        error,
        mayHaveReachedServer: status !== 429,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
    };
  }
}
