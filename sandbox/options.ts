import { z } from 'zod';
import { faultConfigSchema } from './core/faults';

export const sandboxOptionsSchema = z.object({
  /** 0 picks a free port. */
  port: z.number().int().min(0).max(65535).default(4010),
  host: z.string().default('127.0.0.1'),
  /** JSON seed document; the built-in demo fixture when omitted. */
  seedFile: z.string().optional(),
  /** Allowance per key per rolling minute. */
  rateLimitPerMinute: z.number().int().positive().default(600),
  /**
   * Test-only, not the spec's behaviour: the rolling window's length (the allowance counts per this window, and
   * `X-RateLimit-Reset` follows it). The spec's, and the default, is a minute.
   */
  rateWindowMs: z.number().int().min(1000).max(60_000).default(60_000),
  /** Delay before BOM and material child links appear (the spec says "within a few seconds"). */
  childLinkDelayMs: z.number().int().min(0).default(2000),
  /** Delay before a new product's `qrCodeUrl` is set. */
  qrDelayMs: z.number().int().min(0).default(1000),
  /** When set, state is loaded from this JSON file at start (if it exists) and written to it on close. */
  snapshotFile: z.string().optional(),
  /** Faults active from the start (the CLI's fault flags); change them later through `/__sandbox/faults`. */
  faults: faultConfigSchema.optional(),
  /**
   * Order and order-line list pages hold at most this many items, below the limit asked (a real server may cap page
   * sizes; clients must follow `totalPages`). Unset: pages are as large as asked.
   */
  orderPageSizeCap: z.number().int().positive().optional(),
  /**
   * Network jitter: each API request waits a random 0..jitterMs before it is counted and answered,
   * and its answer as long again, so rate-limit clients are not measured against a perfectly quiet server.
   */
  jitterMs: z.number().int().min(0).default(0),
  /**
   * A fixed network delay each way, before the jitter: an API a continent away (100 ms each way, round trips of
   * 200 ms and more), where the client's answers come late and its replacements must not.
   */
  networkDelayMs: z.number().int().min(0).default(0),
  /** Log each request (pino through Fastify). */
  logRequests: z.boolean().default(false),
});
export type SandboxOptions = z.input<typeof sandboxOptionsSchema>;
export type ResolvedSandboxOptions = z.output<typeof sandboxOptionsSchema>;
