import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request as undiciRequest } from 'undici';

/**
 * Slow answers the sandbox cannot make by itself. The sandbox's own `latencyMs` waits before the handler, and a
 * client that gives up meanwhile aborts the request, so nothing commits. The dangerous case is a write that
 * commits although the client already gave up; this proxy, between the worker and the sandbox, makes it:
 *
 * - `commitLate`: the request is held `delayMs` before it is forwarded, and forwarded even when the client has
 *   gone: the write commits after the client's timeout, possibly after the connector re-read and acted again.
 * - `answerLate`: the request is forwarded at once (it commits on time) and the answer is held `delayMs`: the
 *   client times out on a write that is already done.
 */
export interface SlowFaults {
  /** Share (0-1) of matching requests whose forwarding is held back (they commit late). */
  commitLateRate: number;
  /** Share (0-1) of matching requests whose answer is held back (they commit on time). */
  answerLateRate: number;
  /** How long a slow request or answer is held; set above the client's timeout. */
  delayMs: number;
  /** HTTP methods the faults apply to (upper case). */
  methods: readonly string[];
}

export interface SlowProxyCounters {
  forwarded: number;
  /** Requests forwarded that were not GETs (the writes the jobs spent). */
  writes: number;
  commitLate: number;
  answerLate: number;
  /** Slow requests whose client had gone by the time the sandbox answered (the answer was lost). */
  clientGaveUp: number;
}

export const NO_SLOW_FAULTS: SlowFaults = { commitLateRate: 0, answerLateRate: 0, delayMs: 0, methods: [] };

export interface SlowProxy {
  /** `http://127.0.0.1:<port>/api/v2`: give it to the worker as TRACEABILITY_BASE_URL. */
  baseUrl: string;
  counters: SlowProxyCounters;
  set(faults: SlowFaults): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
  'upgrade',
]);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A proxy on 127.0.0.1 in front of `upstreamOrigin` (the sandbox's `http://127.0.0.1:<port>`). */
export async function startSlowProxy(upstreamOrigin: string, random: () => number): Promise<SlowProxy> {
  let faults: SlowFaults = NO_SLOW_FAULTS;
  let forceCommitLate = false;
  let forceAnswerLate = false;
  const counters: SlowProxyCounters = {
    forwarded: 0,
    writes: 0,
    commitLate: 0,
    answerLate: 0,
    clientGaveUp: 0,
  };
  const agent = new Agent({ connections: 64, keepAliveTimeout: 4_000 });
  const pending = new Set<Promise<void>>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableFinished) clientGone = true;
    });
    const method = (req.method ?? 'GET').toUpperCase();
    const matches = faults.methods.includes(method);
    const commitLate = matches && (forceCommitLate || random() < faults.commitLateRate);
    const answerLate = !commitLate && matches && (forceAnswerLate || random() < faults.answerLateRate);
    if (commitLate) forceCommitLate = false;
    if (answerLate) forceAnswerLate = false;
    const delayMs = faults.delayMs;
    if (commitLate) {
      counters.commitLate += 1;
      await sleep(delayMs);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    counters.forwarded += 1;
    if (method !== 'GET') counters.writes += 1;
    let status: number;
    let answerHeaders: Record<string, string> = {};
    let answer: Buffer;
    try {
      const upstream = await undiciRequest(`${upstreamOrigin}${req.url ?? '/'}`, {
        method: method as 'GET',
        headers,
        body: body.length > 0 ? body : undefined,
        dispatcher: agent,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      status = upstream.statusCode;
      answer = Buffer.from(await upstream.body.arrayBuffer());
      for (const [name, value] of Object.entries(upstream.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name))
          answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
      }
    } catch {
      // The sandbox itself dropped the connection (its dropAfterCommit fault): pass the drop on.
      res.destroy();
      return;
    }
    if (answerLate) {
      counters.answerLate += 1;
      await sleep(delayMs);
    }
    if (clientGone || res.destroyed) {
      if (commitLate || answerLate) counters.clientGaveUp += 1;
      return;
    }
    answerHeaders = { ...answerHeaders, 'content-length': String(answer.length) };
    res.writeHead(status, answerHeaders);
    res.end(answer);
  };

  const server: Server = createServer((req, res) => {
    const work = handle(req, res).catch(() => {
      if (!res.destroyed) res.destroy();
    });
    pending.add(work);
    void work.finally(() => pending.delete(work));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    counters,
    set(next) {
      faults = next;
      // The first matching request of a phase is always slowed, so a phase with traffic never injects nothing.
      forceCommitLate = next.commitLateRate > 0;
      forceAnswerLate = next.answerLateRate > 0;
    },
    async close() {
      faults = NO_SLOW_FAULTS;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Held requests finish on their own (bounded by delayMs and the upstream timeouts).
      await Promise.race([Promise.allSettled([...pending]), sleep(15_000)]);
      await agent.close();
    },
  };
}
