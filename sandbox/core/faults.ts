import { z } from 'zod';
import { seededRandom } from './prng';

export const faultConfigSchema = z
  .object({
    /** Share (0-1) of matching requests answered 500 before the handler runs (nothing committed). */
    serverErrorRate: z.number().min(0).max(1).default(0),
    /** Delay added before matching requests are handled. */
    latencyMs: z.number().int().min(0).default(0),
    /** Share (0-1) of matching writes (POST/PUT/PATCH/DELETE) whose socket is destroyed after the write committed. */
    dropAfterCommitRate: z.number().min(0).max(1).default(0),
    /** The next N matching requests are answered 429 `too_many_requests` with `Retry-After: 1`. */
    burst429: z.number().int().min(0).default(0),
    /** Restrict faults to these HTTP methods (upper case); all when omitted. */
    methods: z.array(z.string()).optional(),
    /** Restrict faults to paths under /api/v2 starting with this prefix (for example `/orders`). */
    pathPrefix: z.string().optional(),
    /** Seed of the fault dice, for repeatable runs. */
    seed: z.number().int().optional(),
  })
  .strict();
export type FaultConfig = z.infer<typeof faultConfigSchema>;

export interface FaultCounters {
  serverErrors: number;
  delayed: number;
  dropped: number;
  burst429: number;
}

export class FaultInjector {
  config: FaultConfig = faultConfigSchema.parse({});
  readonly counters: FaultCounters = { serverErrors: 0, delayed: 0, dropped: 0, burst429: 0 };
  private random: () => number = Math.random;

  set(config: FaultConfig): void {
    this.config = config;
    this.random = config.seed === undefined ? Math.random : seededRandom(config.seed);
  }

  clear(): void {
    this.set(faultConfigSchema.parse({}));
  }

  matches(method: string, apiPath: string): boolean {
    const { methods, pathPrefix } = this.config;
    if (methods && !methods.map((m) => m.toUpperCase()).includes(method.toUpperCase())) return false;
    return pathPrefix === undefined || apiPath.startsWith(pathPrefix);
  }

  takeBurst429(): boolean {
    if (this.config.burst429 <= 0) return false;
    this.config.burst429 -= 1;
    this.counters.burst429 += 1;
    return true;
  }

  rollServerError(): boolean {
    const hit = this.config.serverErrorRate > 0 && this.random() < this.config.serverErrorRate;
    if (hit) this.counters.serverErrors += 1;
    return hit;
  }

  rollDropAfterCommit(method: string): boolean {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase())) return false;
    const hit = this.config.dropAfterCommitRate > 0 && this.random() < this.config.dropAfterCommitRate;
    if (hit) this.counters.dropped += 1;
    return hit;
  }
}
