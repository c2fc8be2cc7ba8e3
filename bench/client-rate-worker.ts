// One benchmark worker process: a TraceabilityClient that always has work (cheap reads) on one key,
// from `go` until `stop`, then reports the dispatch time and outcome of every counted call it made and exits.
import { z } from 'zod';
import {
  AdaptiveRateLimiter,
  TraceabilityApiError,
  TraceabilityClient,
  type RateLimitObservation,
} from '../connectors/traceability';
import { shiftedClock, systemClock, type Clock } from '../connectors/traceability/clock';
import type { RatePermit } from '../connectors/traceability/rate-limiter';

const goSchema = z.object({
  type: z.literal('go'),
  baseUrl: z.string().url(),
  apiKey: z.string().min(1),
  /** This worker's clock that far ahead of the host's (and the sandbox's): a worker on another host. */
  clockSkewMs: z.number().int().default(0),
});
const stopSchema = z.object({ type: z.literal('stop') });

/**
 * The pacer, writing down each counted call: [dispatched at (ms, on the host's clock), counted by the server].
 */
class RecordingLimiter extends AdaptiveRateLimiter {
  readonly calls: Array<[number, boolean]> = [];

  constructor(
    clock: Clock,
    private readonly clockSkewMs: number,
  ) {
    super({ clock });
  }

  override complete(
    permit: RatePermit | undefined,
    observation: RateLimitObservation | undefined,
    counted = true,
  ): void {
    if (permit) this.calls.push([permit.dispatchedAtMs - this.clockSkewMs, counted]);
    super.complete(permit, observation, counted);
  }
}

/**
 * Calls in flight at once: enough that a process alone can use 3,000 calls a minute (50 a second)
 * even when a round trip takes 250 ms on a loaded machine, so the figures measure the pacer, not the lanes.
 */
const LANES = 16;

let stopping = false;
let limiter = new RecordingLimiter(systemClock, 0);
let startedAt = 0;

async function run(baseUrl: string, apiKey: string, clockSkewMs: number): Promise<void> {
  const clock = shiftedClock(systemClock, clockSkewMs);
  limiter = new RecordingLimiter(clock, clockSkewMs);
  const client = new TraceabilityClient({
    baseUrl,
    apiKey,
    clock,
    minConcurrency: LANES,
    maxConcurrency: LANES,
    rateLimiter: limiter,
    maxRateLimitRetries: 1_000,
    maxInlineRetryAfterMs: 120_000,
  });
  startedAt = Date.now();
  const lane = async (): Promise<void> => {
    while (!stopping) {
      try {
        await client.styleTypes.list({ limit: 5 });
      } catch (error) {
        // As a Temporal activity would be retried: wait as told (or a second) and go on.
        const waitMs = error instanceof TraceabilityApiError ? (error.retryAfterMs ?? 1_000) : 1_000;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
}

process.on('message', (message: unknown) => {
  const go = goSchema.safeParse(message);
  if (go.success) {
    run(go.data.baseUrl, go.data.apiKey, go.data.clockSkewMs).catch((error: unknown) => {
      process.send?.({ type: 'error', error: String(error) });
      process.exitCode = 1;
    });
  } else if (stopSchema.safeParse(message).success) {
    // The work is over: report at once (calls still waiting for a slot would only delay the cell).
    stopping = true;
    process.send?.({ type: 'done', startedAt, stoppedAt: Date.now(), calls: limiter.calls }, () =>
      process.exit(0),
    );
  }
});
process.send?.({ type: 'ready' });
