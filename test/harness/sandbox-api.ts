import type { TestStack } from './stack';

/**
 * The test's own window on the sandbox, beside the worker's client: `api` reads (or writes) the API as the brand and
 * returns the envelope's `data`; `control` calls a `/__sandbox/...` route (faults, config, tracing locks). `stackOf` is
 * called on each request, so the helpers can be made before `beforeAll` starts the stack.
 */
export function sandboxApi(stackOf: () => Pick<TestStack, 'sandbox' | 'apiKey'>) {
  const api = async <T>(pathAndQuery: string, init: RequestInit = {}): Promise<T> => {
    const stack = stackOf();
    const response = await fetch(`${stack.sandbox.baseUrl}${pathAndQuery}`, {
      ...init,
      headers: { companyapikey: stack.apiKey, 'content-type': 'application/json', ...init.headers },
    });
    const text = await response.text();
    return (text === '' ? undefined : (JSON.parse(text) as { data: T }).data) as T;
  };
  const control = (route: string, method: string, body?: unknown): Promise<Response> =>
    fetch(`${stackOf().sandbox.url}${route}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  return { api, control };
}
