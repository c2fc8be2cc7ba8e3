import { TraceabilityClient, type TraceabilityClientOptions } from '../../connectors/traceability';
import type { SandboxOptions } from '../../sandbox/options';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';

export const BRAND_KEY = 'sandbox-key-brand';
export const SUPPLIER_KEY = 'sandbox-key-supplier';
export const BRAND_ID = 'cmp_brand_nordic_threads';

export interface Harness {
  url: string;
  baseUrl: string;
  /** The brand's client with the harness's defaults. */
  client: TraceabilityClient;
  newClient(options?: Partial<TraceabilityClientOptions>): TraceabilityClient;
  control(method: 'PUT' | 'POST' | 'DELETE' | 'GET', path: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** One sandbox per test file (port 0); clients made through it are closed with it. */
export async function startHarness(
  options: { rateLimitPerMinute?: number; childLinkDelayMs?: number } = {},
): Promise<Harness> {
  // A generous allowance keeps functional tests fast; the resilience tests lower it.
  const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 6_000, ...options });
  const clients: TraceabilityClient[] = [];
  const newClient = (extra: Partial<TraceabilityClientOptions> = {}): TraceabilityClient => {
    const client = new TraceabilityClient({
      baseUrl: sandbox.baseUrl,
      apiKey: BRAND_KEY,
      backoffBaseMs: 20,
      backoffCapMs: 200,
      ...extra,
    });
    clients.push(client);
    return client;
  };
  return {
    url: sandbox.url,
    baseUrl: sandbox.baseUrl,
    client: newClient(),
    newClient,
    async control(method, path, body) {
      const res = await fetch(sandbox.url + path, {
        method,
        ...(body === undefined
          ? {}
          : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await sandbox.close();
    },
  };
}

/**
 * One sandbox for the calling test file: started in `beforeAll`, closed with its clients in `afterAll`. The
 * returned harness may be used only inside tests and hooks.
 */
export function sandboxForFile(options: Parameters<typeof startHarness>[0] = {}): Harness {
  let current: Harness | undefined;
  const started = (): Harness => {
    if (!current) throw new Error('the sandbox starts in beforeAll: use it inside a test or hook');
    return current;
  };
  beforeAll(async () => {
    current = await startHarness(options);
  });
  afterAll(async () => current?.close());
  return {
    get url() {
      return started().url;
    },
    get baseUrl() {
      return started().baseUrl;
    },
    get client() {
      return started().client;
    },
    newClient: (extra) => started().newClient(extra),
    control: (method, path, body) => started().control(method, path, body),
    close: async () => started().close(),
  };
}

/** Creates a style (not a component) through the client and answers its externalId, `<prefix>-...`. */
export async function newStyle(
  client: TraceabilityClient,
  prefix: string,
  styleTypeId: string,
): Promise<string> {
  const externalId = unique(prefix);
  await client.products.create({
    externalId,
    name: `${prefix} host`,
    codes: [{ codeId: 'PLM_ID', codeValue: externalId }],
    styleTypeId,
    isComponent: false,
  });
  return externalId;
}

export const unique = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;

/** The API's envelope, loosely typed: tests read whatever an answer carries. */
export interface Envelope<T> {
  metadata: {
    success: boolean;
    pagination?: { page: number; limit: number; total: number; totalPages: number };
  };
  data: T;
  statusCode?: number;
  code?: string;
  message?: string;
}

/** A style, its variants, and each variant's SKUs (platform ids). */
export interface ProductTree {
  style: string;
  variants: string[];
  skus: string[][];
}

export interface ApiAnswer<T> {
  status: number;
  body: Envelope<T>;
  headers: Headers;
}

/**
 * One sandbox for the calling conformance test file (started in `beforeAll`, closed in `afterAll`), and raw JSON
 * calls on it: `api` as the brand (or `key`: another key, or the headers to send), `control` on `/__sandbox/...`.
 */
export function sandboxPerFile(options: SandboxOptions = {}) {
  let current: RunningSandbox | undefined;
  const started = (): RunningSandbox => {
    if (!current) throw new Error('the sandbox starts in beforeAll: use it inside a test or hook');
    return current;
  };
  beforeAll(async () => {
    current = await startSandbox({ port: 0, ...options });
  });
  afterAll(async () => current?.close());
  const send = async (url: string, method: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(url, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, headers: response.headers };
  };
  let sequence = 0;
  const api = async <T>(
    method: string,
    path: string,
    body?: unknown,
    key: string | Record<string, string> = BRAND_KEY,
  ): Promise<ApiAnswer<T>> => {
    const headers = typeof key === 'string' ? { companyapikey: key } : key;
    const answer = await send(started().baseUrl + path, method, body, headers);
    return { ...answer, body: (answer.text ? JSON.parse(answer.text) : undefined) as Envelope<T> };
  };
  /** POST /styles as the brand with a fresh PLM code; answers the product's id. */
  const product = async (body: Record<string, unknown>): Promise<string> => {
    const response = await api<{ id: string }>('POST', '/styles', {
      codes: [{ codeId: 'PLM_ID', codeValue: `CODE-${Date.now()}-${++sequence}` }],
      ...body,
    });
    expect(response.status).toBe(201);
    return response.body.data.id;
  };
  return {
    get sandbox(): RunningSandbox {
      return started();
    },
    api,
    product,
    /** A new t-shirt style with variants Red and Blue, each with `skusPerVariant` SKUs (S, M, ...). */
    async tree(skusPerVariant: number): Promise<ProductTree> {
      const style = await product({
        name: `Style-${++sequence}`,
        styleTypeId: 'st_tshirts',
        isComponent: false,
      });
      const variants = [
        await product({ parentId: style, name: 'Red', color: 'Red' }),
        await product({ parentId: style, name: 'Blue', color: 'Blue' }),
      ];
      const skus: string[][] = [];
      for (const variant of variants) {
        const sizes: string[] = [];
        for (const size of ['S', 'M', 'L', 'XL'].slice(0, skusPerVariant))
          sizes.push(await product({ parentId: variant, name: size, dimension: size }));
        skus.push(sizes);
      }
      return { style, variants, skus };
    },
    async control(path: string, body?: unknown, method = 'PUT'): Promise<void> {
      const answer = await send(started().url + path, method, body, {});
      if (answer.status >= 400) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    },
  };
}
