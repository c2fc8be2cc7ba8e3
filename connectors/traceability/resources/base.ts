import { z } from 'zod';
import { describeIssues, toIssues } from '../envelope';
import { ClientErrorCode, TraceabilityApiError, type HttpMethod } from '../errors';
import type { QueryValue, RequestSpec, Transport } from '../http';
import { paginate, type Page } from '../pagination';
import type { RetrySafety } from '../retry';
import { bulkDeleteResultSchema, type BulkDeleteAnswer } from '../schemas/common';

export interface CallOptions {
  signal?: AbortSignal;
}

/** Encodes one path segment: ids may be externalIds holding `/`, spaces or `#`. */
export const seg = (id: string): string => encodeURIComponent(id);

/** Validates a request before it spends a call; a bad input is a non-retryable `invalid_request`. */
export function validateRequest<S extends z.ZodType>(
  schema: S,
  input: unknown,
  method: HttpMethod,
  endpoint: string,
  path: string,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = toIssues(parsed.error, 'request');
  throw new TraceabilityApiError({
    statusCode: 0,
    code: ClientErrorCode.invalidRequest,
    message: `${method} ${endpoint}: request rejected before sending: ${describeIssues(issues)}`,
    method,
    path,
    retryable: false,
    issues,
  });
}

/** Turns a parsed query object into query values; nested objects (filters) travel as JSON. */
export function toQuery(query: Record<string, unknown>): Record<string, QueryValue> {
  const out: Record<string, QueryValue> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) out[key] = value.map(String);
    else if (typeof value === 'object') out[key] = JSON.stringify(value);
    else out[key] = value as string | number | boolean;
  }
  return out;
}

/** Shared plumbing of a resource module. */
export abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  protected async listPage<S extends z.ZodType, Q extends z.ZodType>(
    endpoint: string,
    querySchema: Q,
    query: unknown,
    itemSchema: S,
    options: CallOptions = {},
  ): Promise<Page<z.output<S>>> {
    const parsed = validateRequest(querySchema, query, 'GET', endpoint, endpoint) as Record<string, unknown>;
    const res = await this.transport.send({
      method: 'GET',
      endpoint,
      path: endpoint,
      query: toQuery(parsed),
      dataSchema: z.array(itemSchema),
      list: true,
      safety: 'idempotent',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return {
      items: res.data,
      pagination: res.pagination ?? {
        page: 1,
        limit: res.data.length,
        total: res.data.length,
        totalPages: 1,
      },
    };
  }

  /** Every item of a list, page after page with limit 100. */
  protected iterateList<T>(
    list: (page: number, limit: number) => Promise<Page<T>>,
  ): AsyncGenerator<T, void, undefined> {
    return paginate(list, { limit: 100 });
  }

  protected async getOne<S extends z.ZodType>(
    endpoint: string,
    path: string,
    schema: S,
    query: Record<string, QueryValue> | undefined,
    options: CallOptions = {},
  ): Promise<z.output<S>> {
    const res = await this.transport.send({
      method: 'GET',
      endpoint,
      path,
      dataSchema: schema,
      safety: 'idempotent',
      ...(query ? { query } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return res.data as z.output<S>;
  }

  /** Sends one request and returns its data (undefined when no schema: 204 answers). */
  protected async call<S extends z.ZodType | undefined>(
    spec: Omit<RequestSpec<S>, 'signal'>,
    options: CallOptions = {},
  ): Promise<S extends z.ZodType ? z.output<S> : undefined> {
    const res = await this.transport.send<S>({
      ...spec,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return res.data;
  }

  /** Validates a write's body before it spends a call (`invalid_request`), then sends it and returns the data. */
  protected write<B extends z.ZodType, S extends z.ZodType>(
    spec: {
      method: HttpMethod;
      endpoint: string;
      /** The concrete path; the endpoint itself when it has no id in it. */
      path?: string;
      bodySchema: B;
      input: unknown;
      dataSchema: S;
      safety: RetrySafety;
    },
    options?: CallOptions,
  ): Promise<z.output<S>> {
    const path = spec.path ?? spec.endpoint;
    const body = validateRequest(spec.bodySchema, spec.input, spec.method, spec.endpoint, path);
    const { method, endpoint, dataSchema, safety } = spec;
    return this.call({ method, endpoint, path, body, dataSchema, safety }, options) as Promise<z.output<S>>;
  }
}

/** The value types of one header/line family; each is the output (or, for requests, the input) of its schema. */
export interface LinkedHeaderTypes {
  header: unknown;
  headerListQuery: { page?: number; limit?: number };
  headerCreate: unknown;
  headerUpdate: unknown;
  headersDelete: unknown;
  line: unknown;
  lineListQuery: { page?: number; limit?: number };
  lineCreate: unknown;
  lineReplace: unknown;
  linesDelete: unknown;
}

type Request<T> = z.ZodType<unknown, T>;

/**
 * One header/line family (`/{kind}-headers`, `/{kind}-lines`): its schemas, and the retry safety of the two
 * writes whose spec differs between BOMs and material compositions.
 */
export interface LinkedHeaderSpec<T extends LinkedHeaderTypes> {
  kind: 'bom' | 'material';
  header: z.ZodType<T['header']>;
  headerListQuery: Request<T['headerListQuery']>;
  headerCreate: Request<T['headerCreate']>;
  headerUpdate: Request<T['headerUpdate']>;
  headersDelete: Request<T['headersDelete']>;
  line: z.ZodType<T['line']>;
  lineListQuery: Request<T['lineListQuery']>;
  lineCreate: Request<T['lineCreate']>;
  lineReplace: Request<T['lineReplace']>;
  linesDelete: Request<T['linesDelete']>;
  updateHeaderSafety: RetrySafety;
  deleteLinesSafety: RetrySafety;
}

type Unpaged<Q> = Omit<Q, 'page' | 'limit'>;

/** Headers linked to products, and their lines: what BOMs and material compositions share. */
export abstract class LinkedHeaderResource<T extends LinkedHeaderTypes> extends Resource {
  private readonly headers: string;
  private readonly lines: string;

  protected constructor(
    transport: Transport,
    private readonly spec: LinkedHeaderSpec<T>,
  ) {
    super(transport);
    this.headers = `/${spec.kind}-headers`;
    this.lines = `/${spec.kind}-lines`;
  }

  listHeaders(query: T['headerListQuery'], options?: CallOptions): Promise<Page<T['header']>> {
    return this.listPage(this.headers, this.spec.headerListQuery, query, this.spec.header, options);
  }

  iterateHeaders(
    query: Unpaged<T['headerListQuery']>,
    options?: CallOptions,
  ): AsyncGenerator<T['header'], void, undefined> {
    return this.iterateList((page, limit) =>
      this.listHeaders({ ...query, page, limit } as T['headerListQuery'], options),
    );
  }

  getHeader(id: string, options?: CallOptions): Promise<T['header']> {
    return this.getOne(
      `${this.headers}/{id}`,
      `${this.headers}/${seg(id)}`,
      this.spec.header,
      undefined,
      options,
    );
  }

  createHeader(input: T['headerCreate'], options?: CallOptions): Promise<T['header']> {
    const { headerCreate: bodySchema, header: dataSchema } = this.spec;
    return this.write(
      { method: 'POST', endpoint: this.headers, bodySchema, input, dataSchema, safety: 'unsafe' },
      options,
    );
  }

  updateHeader(id: string, input: T['headerUpdate'], options?: CallOptions): Promise<T['header']> {
    const { headerUpdate: bodySchema, header: dataSchema, updateHeaderSafety: safety } = this.spec;
    const endpoint = `${this.headers}/{id}`;
    const path = `${this.headers}/${seg(id)}`;
    return this.write({ method: 'PUT', endpoint, path, bodySchema, input, dataSchema, safety }, options);
  }

  /** Retried after a lost answer (`guarded`); the answer says when an earlier attempt may have committed. */
  deleteHeaders(input: T['headersDelete'], options?: CallOptions): Promise<BulkDeleteAnswer> {
    return this.bulkDelete(`${this.headers}/delete`, this.spec.headersDelete, input, 'guarded', options);
  }

  listLines(query?: T['lineListQuery'], options?: CallOptions): Promise<Page<T['line']>> {
    return this.listPage(this.lines, this.spec.lineListQuery, query ?? {}, this.spec.line, options);
  }

  iterateLines(
    query: Unpaged<T['lineListQuery']>,
    options?: CallOptions,
  ): AsyncGenerator<T['line'], void, undefined> {
    return this.iterateList((page, limit) =>
      this.listLines({ ...query, page, limit } as T['lineListQuery'], options),
    );
  }

  createLine(input: T['lineCreate'], options?: CallOptions): Promise<T['line']> {
    const { lineCreate: bodySchema, line: dataSchema } = this.spec;
    return this.write(
      { method: 'POST', endpoint: this.lines, bodySchema, input, dataSchema, safety: 'unsafe' },
      options,
    );
  }

  /** PUT /{kind}-lines/{id} replaces the whole line. */
  replaceLine(id: string, input: T['lineReplace'], options?: CallOptions): Promise<T['line']> {
    const { lineReplace: bodySchema, line: dataSchema } = this.spec;
    const endpoint = `${this.lines}/{id}`;
    const path = `${this.lines}/${seg(id)}`;
    return this.write(
      { method: 'PUT', endpoint, path, bodySchema, input, dataSchema, safety: 'guarded' },
      options,
    );
  }

  deleteLines(input: T['linesDelete'], options?: CallOptions): Promise<BulkDeleteAnswer> {
    const { linesDelete, deleteLinesSafety } = this.spec;
    return this.bulkDelete(`${this.lines}/delete`, linesDelete, input, deleteLinesSafety, options);
  }

  private async bulkDelete(
    endpoint: string,
    bodySchema: z.ZodType,
    input: unknown,
    safety: RetrySafety,
    options: CallOptions = {},
  ): Promise<BulkDeleteAnswer> {
    const body: unknown = validateRequest(bodySchema, input, 'POST', endpoint, endpoint);
    const res = await this.transport.send({
      method: 'POST',
      endpoint,
      path: endpoint,
      body,
      dataSchema: bulkDeleteResultSchema,
      safety,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { ...res.data, earlierAttemptMayHaveCommitted: res.afterPossibleCommit === true };
  }
}
