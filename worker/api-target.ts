import type { AppConfig } from './config';

/** The demo key of the embedded sandbox's seed (brand "Nordic Threads"). */
export const SANDBOX_API_KEY = 'sandbox-key-brand';

export interface ApiTarget {
  baseUrl: string;
  apiKey: string;
  /** True when this is the local sandbox, not a configured API. */
  sandbox: boolean;
}

/** The configured API, or the local sandbox on TRACE_SANDBOX_PORT with its demo key. */
export function apiTarget(config: AppConfig, sandboxBaseUrl?: string): ApiTarget {
  if (config.traceabilityBaseUrl && config.traceabilityApiKey) {
    return { baseUrl: config.traceabilityBaseUrl, apiKey: config.traceabilityApiKey, sandbox: false };
  }
  return {
    baseUrl: sandboxBaseUrl ?? `http://127.0.0.1:${config.sandboxPort}/api/v2`,
    apiKey: SANDBOX_API_KEY,
    sandbox: true,
  };
}
