/** A minimal JSON client for the sandbox, used by its conformance tests and benchmark. Not the connectors' client. */
export interface SandboxResponse<T = SandboxBody> {
  status: number;
  headers: Headers;
  body: T;
}

/** The envelope's fields, loosely typed so tests can read whatever an answer carries. */
export interface SandboxBody {
  metadata: {
    success: boolean;
    pagination?: { page: number; limit: number; total: number; totalPages: number };
  };
  data?: unknown;
  statusCode?: number;
  code?: string;
  message?: string;
  [key: string]: unknown;
}

export interface SandboxClient {
  get(path: string): Promise<SandboxResponse>;
  post(path: string, body?: unknown): Promise<SandboxResponse>;
  put(path: string, body?: unknown): Promise<SandboxResponse>;
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<SandboxResponse>;
}

/** `baseUrl` is the origin + /api/v2; `key` goes in `companyapikey` (omit for unauthenticated calls). */
export function sandboxClient(baseUrl: string, key?: string): SandboxClient {
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const allHeaders: Record<string, string> = { ...headers };
    if (key !== undefined) allHeaders['companyapikey'] = key;
    if (body !== undefined) allHeaders['content-type'] = 'application/json';
    const response = await fetch(baseUrl + path, {
      method,
      headers: allHeaders,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed =
      text.length > 0
        ? (JSON.parse(text) as SandboxBody)
        : ({ metadata: { success: response.ok } } as SandboxBody);
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body),
    put: (path, body) => request('PUT', path, body),
    request,
  };
}
