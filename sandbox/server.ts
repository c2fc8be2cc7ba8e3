import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SandboxContext, type Caller, type SandboxDomain } from './core/context';
import { errorBody, successBody } from './core/envelope';
import { ApiError, VALIDATION_ERROR } from './core/errors';
import { FaultInjector, faultConfigSchema } from './core/faults';
import { RollingRateLimiter, networkWay } from './core/rate-limit';
import { loadSeedFile, parseSeed, type SeedDocument } from './core/seed';
import { catalogueDomain } from './domains/catalogue';
import { filesDomain } from './domains/files';
import { bomsDomain } from './domains/boms';
import { materialsDomain } from './domains/materials';
import { certificatesDomain } from './domains/certificates';
import { networkDomain } from './domains/network';
import { ordersDomain } from './domains/orders';
import { sandboxOptionsSchema, type ResolvedSandboxOptions, type SandboxOptions } from './options';
import { buildDemoSeed } from './seed/demo';

/** Every slice of the API the sandbox serves; each owns its store, seed section and routes. */
const domains: SandboxDomain<unknown>[] = [
  filesDomain as SandboxDomain<unknown>,
  catalogueDomain as SandboxDomain<unknown>,
  bomsDomain as SandboxDomain<unknown>,
  materialsDomain as SandboxDomain<unknown>,
  ordersDomain as SandboxDomain<unknown>,
  certificatesDomain as SandboxDomain<unknown>,
  networkDomain as SandboxDomain<unknown>,
];

export const API_PREFIX = '/api/v2';

export interface RunningSandbox {
  /** Origin, for example http://127.0.0.1:4010 */
  url: string;
  /** Origin + /api/v2: what the connectors call `TRACEABILITY_BASE_URL`. */
  baseUrl: string;
  port: number;
  app: FastifyInstance;
  ctx: SandboxContext;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    dropAfterCommit?: boolean;
  }
}

const clockSchema = z.strictObject({ advanceMs: z.number().int().min(0) });

/** Answers counted by status, for `GET /__sandbox/stats` (API requests only). */
interface RequestStats {
  total: number;
  byStatus: Record<string, number>;
}

const configUpdateSchema = z
  .object({
    rateLimitPerMinute: z.number().int().positive().optional(),
    childLinkDelayMs: z.number().int().min(0).optional(),
    qrDelayMs: z.number().int().min(0).optional(),
    orderPageSizeCap: z.number().int().positive().nullable().optional(),
    bomIncludeShape: z.enum(['full', 'bare']).optional(),
    materialIncludeShape: z.enum(['full', 'bare']).optional(),
    certificateTies: z.enum(['stable', 'shuffled']).optional(),
    bomLineTies: z.enum(['stable', 'shuffled']).optional(),
    materialLineTies: z.enum(['stable', 'shuffled']).optional(),
    productTies: z.enum(['stable', 'shuffled']).optional(),
    bomLinesNeverWhole: z.array(z.string().min(1)).max(100).optional(),
  })
  .strict();

function isOrderCreation(request: FastifyRequest, apiPath: string): boolean {
  return request.method === 'POST' && apiPath === '/orders';
}

function isOrderEndpoint(apiPath: string): boolean {
  return apiPath.startsWith('/orders') || apiPath.startsWith('/order-lines');
}

function authenticate(
  ctx: SandboxContext,
  request: FastifyRequest,
  apiPath: string,
): { caller: Caller; rateKey: string } {
  const header = request.headers['companyapikey'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key) {
    const record = ctx.apiKeys.get(key);
    if (record) {
      return {
        caller: { companyId: record.companyId, apiKeyId: record.id, apiKeyLabel: record.label, userId: null },
        rateKey: `key:${record.id}`,
      };
    }
  }
  const authorization = request.headers.authorization;
  if (!key && authorization?.startsWith('Bearer ') && isOrderEndpoint(apiPath)) {
    const token = authorization.slice('Bearer '.length).trim();
    const user = [...ctx.users.values()].find((candidate) => candidate.bearerToken === token);
    if (user) {
      return {
        caller: { companyId: user.companyId, apiKeyId: null, apiKeyLabel: null, userId: user.id },
        rateKey: `user:${user.id}`,
      };
    }
  }
  throw new ApiError(401, 'token_or_api_key_invalid', 'Missing or invalid API key');
}

function loadState(ctx: SandboxContext, seed: SeedDocument, snapshot?: Record<string, unknown>): void {
  ctx.cancelScheduled();
  ctx.loadNetwork(seed);
  for (const domain of domains) {
    const saved = snapshot?.[domain.name];
    const store =
      saved !== undefined && domain.restore ? domain.restore(ctx, saved) : domain.createStore(ctx, seed);
    ctx.setStore(domain as SandboxDomain<unknown>, store);
  }
}

function dumpState(ctx: SandboxContext): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const domain of domains) state[domain.name] = domain.dump(ctx.store(domain as SandboxDomain<unknown>));
  return state;
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.statusCode).send(errorBody(error));
}

export function buildSandboxApp(options: ResolvedSandboxOptions): {
  app: FastifyInstance;
  ctx: SandboxContext;
} {
  // Tests move the clock forward (signed addresses expiring after an hour) with POST /__sandbox/clock.
  let clockOffsetMs = 0;
  const ctx = new SandboxContext(
    {
      rateLimitPerMinute: options.rateLimitPerMinute,
      childLinkDelayMs: options.childLinkDelayMs,
      qrDelayMs: options.qrDelayMs,
      orderPageSizeCap: options.orderPageSizeCap ?? null,
    },
    () => Date.now() + clockOffsetMs,
  );
  const seed = options.seedFile
    ? loadSeedFile(options.seedFile)
    : parseSeed(buildDemoSeed(ctx.now()), 'demo');
  const snapshot =
    options.snapshotFile && existsSync(options.snapshotFile)
      ? (JSON.parse(readFileSync(options.snapshotFile, 'utf8')) as Record<string, unknown>)
      : undefined;
  loadState(ctx, seed, snapshot);

  const limiter = new RollingRateLimiter(options.rateLimitPerMinute, ctx.now, options.rateWindowMs);
  const faults = new FaultInjector();
  if (options.faults) faults.set(options.faults);
  const stats: RequestStats = { total: 0, byStatus: {} };
  // Path ids may be externalIds of up to 255 characters (spec 01); percent-encoded, a character takes up to 12.
  const app = Fastify({
    logger: options.logRequests,
    bodyLimit: 50 * 1024 * 1024,
    routerOptions: { maxParamLength: 255 * 12 },
  });
  // Fastify refuses an empty body sent as JSON; clients (and `curl -X DELETE -H 'content-type: ...'`) do send
  // one. It reaches the handlers as no body, which their own validation then judges.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, VALIDATION_ERROR, 'Request body is not valid JSON'), undefined);
    }
  });

  // Fastify 5 forbids object defaults on request decorators; onRequest sets the caller on every API request.
  app.decorateRequest('caller', null as unknown as Caller);

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ApiError) return sendError(reply, error);
    const statusCode =
      typeof (error as { statusCode?: unknown }).statusCode === 'number'
        ? (error as { statusCode: number }).statusCode
        : 500;
    if (statusCode >= 400 && statusCode < 500) {
      return sendError(reply, new ApiError(statusCode, VALIDATION_ERROR, (error as Error).message));
    }
    reply.log.error(error);
    return sendError(reply, new ApiError(500, 'internal_server_error', 'Internal server error'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new ApiError(404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
    ),
  );

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (!path.startsWith(API_PREFIX + '/') && path !== API_PREFIX) return;
    const apiPath = path.slice(API_PREFIX.length) || '/';
    const { caller, rateKey } = authenticate(ctx, request, apiPath);
    request.caller = caller;

    await networkWay(options.networkDelayMs, options.jitterMs); // the request's way in
    const faultsApply = faults.matches(request.method, apiPath);
    if (faultsApply && faults.takeBurst429()) {
      const current = limiter.peek(rateKey);
      reply.header('X-RateLimit-Limit', String(current.limit));
      reply.header('X-RateLimit-Remaining', String(current.remaining));
      reply.header('X-RateLimit-Reset', String(current.resetUnixSeconds));
      reply.header('Retry-After', '1');
      throw new ApiError(429, 'too_many_requests', 'Rate allowance exceeded (injected burst)');
    }
    const decision = limiter.take(rateKey, isOrderCreation(request, apiPath));
    reply.header('X-RateLimit-Limit', String(decision.limit));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    reply.header('X-RateLimit-Reset', String(decision.resetUnixSeconds));
    if (!decision.allowed) {
      reply.header('Retry-After', String(decision.retryAfterSeconds));
      throw new ApiError(
        429,
        'too_many_requests',
        'Rate allowance exceeded; retry after the Retry-After delay',
      );
    }
    if (!faultsApply) return;
    if (faults.config.latencyMs > 0) {
      faults.counters.delayed += 1;
      await new Promise((resolve) => setTimeout(resolve, faults.config.latencyMs));
    }
    if (faults.rollServerError()) throw new ApiError(500, 'internal_server_error', 'Injected server error');
    request.dropAfterCommit = true;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith(API_PREFIX)) await networkWay(options.networkDelayMs, options.jitterMs); // the answer's way back
    if (request.dropAfterCommit && reply.statusCode < 300 && faults.rollDropAfterCommit(request.method)) {
      request.raw.socket.destroy();
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (!request.url.startsWith(API_PREFIX)) return;
    stats.total += 1;
    const status = String(reply.statusCode);
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
  });

  // Control endpoints for tests and demos, outside the API prefix and without authentication.
  app.get('/__sandbox/faults', async () => ({ config: faults.config, counters: faults.counters }));
  app.put('/__sandbox/faults', async (request, reply) => {
    const parsed = faultConfigSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw new ApiError(400, VALIDATION_ERROR, parsed.error.message);
    faults.set(parsed.data);
    return reply.send({ config: faults.config, counters: faults.counters });
  });
  app.delete('/__sandbox/faults', async () => {
    faults.clear();
    return { config: faults.config, counters: faults.counters };
  });
  app.put('/__sandbox/config', async (request) => {
    const parsed = configUpdateSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw new ApiError(400, VALIDATION_ERROR, parsed.error.message);
    const update = parsed.data;
    if (update.rateLimitPerMinute !== undefined) {
      limiter.limitPerMinute = update.rateLimitPerMinute;
      ctx.settings.rateLimitPerMinute = update.rateLimitPerMinute;
    }
    if (update.childLinkDelayMs !== undefined) ctx.settings.childLinkDelayMs = update.childLinkDelayMs;
    if (update.qrDelayMs !== undefined) ctx.settings.qrDelayMs = update.qrDelayMs;
    if (update.orderPageSizeCap !== undefined) ctx.settings.orderPageSizeCap = update.orderPageSizeCap;
    if (update.bomIncludeShape !== undefined) ctx.settings.bomIncludeShape = update.bomIncludeShape;
    if (update.materialIncludeShape !== undefined)
      ctx.settings.materialIncludeShape = update.materialIncludeShape;
    if (update.certificateTies !== undefined) ctx.settings.certificateTies = update.certificateTies;
    if (update.bomLineTies !== undefined) ctx.settings.bomLineTies = update.bomLineTies;
    if (update.materialLineTies !== undefined) ctx.settings.materialLineTies = update.materialLineTies;
    if (update.productTies !== undefined) ctx.settings.productTies = update.productTies;
    if (update.bomLinesNeverWhole !== undefined) ctx.settings.bomLinesNeverWhole = update.bomLinesNeverWhole;
    return ctx.settings;
  });
  app.post('/__sandbox/reset', async () => {
    loadState(ctx, seed);
    limiter.reset();
    faults.clear();
    stats.total = 0;
    stats.byStatus = {};
    Object.assign(faults.counters, { serverErrors: 0, delayed: 0, dropped: 0, burst429: 0 });
    clockOffsetMs = 0;
    return successBody({ reset: true });
  });
  app.get('/__sandbox/state', async () => dumpState(ctx));
  app.get('/__sandbox/stats', async () => ({ ...stats, faults: faults.counters }));
  app.get('/__sandbox/clock', async () => ({
    now: ctx.now(),
    nowIso: ctx.nowIso(),
    offsetMs: clockOffsetMs,
  }));
  app.post('/__sandbox/clock', async (request) => {
    const parsed = clockSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw new ApiError(400, VALIDATION_ERROR, parsed.error.message);
    clockOffsetMs += parsed.data.advanceMs;
    return { now: ctx.now(), nowIso: ctx.nowIso(), offsetMs: clockOffsetMs };
  });

  for (const domain of domains) domain.registerRootRoutes?.(app, ctx);
  void app.register(
    async (api) => {
      for (const domain of domains) domain.registerRoutes(api, ctx);
    },
    { prefix: API_PREFIX },
  );

  app.addHook('onClose', async () => {
    ctx.cancelScheduled();
    if (options.snapshotFile) writeFileSync(options.snapshotFile, JSON.stringify(dumpState(ctx)));
  });
  return { app, ctx };
}

export async function startSandbox(input: SandboxOptions = {}): Promise<RunningSandbox> {
  const options = sandboxOptionsSchema.parse(input);
  const { app, ctx } = buildSandboxApp(options);
  await app.listen({ port: options.port, host: options.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host}:${port}`;
  return { url, baseUrl: url + API_PREFIX, port, app, ctx, close: () => app.close() };
}
