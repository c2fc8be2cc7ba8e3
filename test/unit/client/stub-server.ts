import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type StubHandler = (req: SeenRequest, res: ServerResponse, index: number) => void;

/** A throwaway HTTP server: records requests and lets each test script the answers. */
export async function startStub(
  handler: StubHandler,
): Promise<{ baseUrl: string; origin: string; seen: SeenRequest[]; close(): Promise<void> }> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(entry);
      handler(entry, res, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/api/v2`,
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const ok = (data: unknown) => ({ metadata: { success: true }, data });
export const page = (data: unknown[], p = 1, totalPages = 1) => ({
  metadata: { success: true, pagination: { page: p, limit: 100, total: data.length, totalPages } },
  data,
});
export const fail = (statusCode: number, code: string, message = code) => ({
  metadata: { success: false },
  statusCode,
  code,
  message,
});

export const rateHeaders = (remaining: number, limit = 600) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60),
});

export const product = (overrides: Record<string, unknown> = {}) => ({
  id: 'style_1',
  externalId: 'EXT-1',
  name: 'Jacket',
  codes: [{ codeId: 'PLM_ID', codeValue: 'P-1' }],
  isArchived: false,
  updatedAt: '2025-01-01T00:00:00.000Z',
  ...overrides,
});

export const order = (overrides: Record<string, unknown> = {}) => ({
  id: 'order_1',
  orderNumber: 'PO-1',
  orderType: 'PURCHASE_ORDER',
  buyerCompanyId: 'cmp_b',
  supplierCompanyId: 'cmp_s',
  isArchived: false,
  lines: [],
  ...overrides,
});
