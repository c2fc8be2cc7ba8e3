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
  client(options?: Partial<TraceabilityClientOptions>): TraceabilityClient;
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
  return {
    url: sandbox.url,
    baseUrl: sandbox.baseUrl,
    client(extra = {}) {
      const client = new TraceabilityClient({
        baseUrl: sandbox.baseUrl,
        apiKey: BRAND_KEY,
        backoffBaseMs: 20,
        backoffCapMs: 200,
        ...extra,
      });
      clients.push(client);
      return client;
    },
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
