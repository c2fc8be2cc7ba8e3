// A sandbox on a free port that records, by this host's clock, when it counted each API call and when it refused
// one with a 429: the rate benchmarks read the use of each window from it, not from what the workers believe.

import { buildSandboxApp } from '../sandbox/server';
import { sandboxOptionsSchema, type SandboxOptions } from '../sandbox/options';

export interface CountingSandbox {
  /** The API's base URL (`/api/v2`). */
  baseUrl: string;
  /** When each call the window counted came in. */
  counted: number[];
  /** When each 429 went out. */
  refusedAt: number[];
  close(): Promise<void>;
}

export async function startCountingSandbox(options: Omit<SandboxOptions, 'port'>): Promise<CountingSandbox> {
  const { app } = buildSandboxApp(sandboxOptionsSchema.parse({ ...options, port: 0 }));
  const counted: number[] = [];
  const refusedAt: number[] = [];
  // Runs after the sandbox's own onRequest hook, which answers 429 before this one runs.
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/api/v2')) counted.push(Date.now());
  });
  app.addHook('onResponse', async (request, reply) => {
    if (request.url.startsWith('/api/v2') && reply.statusCode === 429) refusedAt.push(Date.now());
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { baseUrl: `http://127.0.0.1:${port}/api/v2`, counted, refusedAt, close: () => app.close() };
}
