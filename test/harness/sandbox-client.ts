import {
  TraceabilityApiError,
  TraceabilityClient,
  type TraceabilityClientOptions,
} from '../../connectors/traceability';
import { startSandbox } from '../../sandbox/server';

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

export async function caught(promise: Promise<unknown>): Promise<TraceabilityApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TraceabilityApiError) return error;
    throw error;
  }
  throw new Error('expected a TraceabilityApiError');
}

export const unique = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
