import { systemClock, type Clock } from './clock';

/** What one answer's `X-RateLimit-*` headers said. */
export interface RateLimitObservation {
  limit: number;
  remaining: number;
  /** `X-RateLimit-Reset` converted to Unix milliseconds. */
  resetAtMs: number;
}

export interface RateLimiterOptions {
  clock?: Clock;
  /** Length of the server's rolling window. */
  windowMs?: number;
  /** Share of the allowance all clients of the key together aim to use (the rest is headroom). */
  targetUtilization?: number;
  /** Time constant with which this process's rate follows its target (others' rate changes). */
  responseTimeMs?: number;
  /** Longest single sleep before the limiter re-reads fresh headers. */
  maxSleepSliceMs?: number;
}

/** Handed out by `acquire`, returned with the answer's headers through `complete`. */
export interface RatePermit {
  readonly dispatchedAtMs: number;
}

interface Snapshot extends RateLimitObservation {
  dispatchedAtMs: number;
}

const BUCKET_MS = 1000;
const RING = 128;
const RATE_HORIZON_BUCKETS = 3;

/**
 * Paces counted calls of one process so that all processes sharing a key together use the rolling
 * window evenly, at `targetUtilization` of the allowance, without knowing how many they are.
 *
 * The headers say how many calls the whole key has in the window (`limit - remaining`); this process
 * knows which of them were its own, so the rest, O(t), belongs to the other processes. Their arrivals
 * per second are reconstructed as A(t) = O(t) - O(t-1s) + A(t-60s) (what leaves the window now came
 * in a minute ago), which gives their current rate within seconds. This process then steers its own
 * rate towards `target - othersRate`, smoothed, so N processes converge on the target together and a
 * survivor takes over within seconds when another stops. A brake slows down as `remaining` nears the
 * headroom, a gate waits for `X-RateLimit-Reset` at zero, and a 429 pauses for `Retry-After`.
 */
export class AdaptiveRateLimiter {
  private readonly clock: Clock;
  private readonly windowMs: number;
  private readonly target: number;
  private readonly responseTimeMs: number;
  private readonly sliceMs: number;
  /** Dispatch times of this process's counted calls, ascending; entries before `head` are pruned. */
  private own: number[] = [];
  private head = 0;
  private snapshot: Snapshot | undefined;
  private lastDispatchMs = Number.NEGATIVE_INFINITY;
  private blockedUntilMs = 0;
  /** After a 429, Retry-After (not a later X-RateLimit-Reset) decides when to probe again. */
  private retryAfterProbeAtMs: number | undefined;
  private probeInFlight = false;
  private queue: Promise<void> = Promise.resolve();
  /** This process's allowed rate (calls/ms); undefined until the allowance is known. */
  private ownRate: number | undefined;
  private lastRateUpdateMs = 0;
  /** Estimated arrivals of other processes per 1 s bucket (ring buffer). */
  private readonly othersArrivals = new Float64Array(RING);
  private lastBucket: number | undefined;
  private lastOthers = 0;

  constructor(options: RateLimiterOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.windowMs = options.windowMs ?? 60_000;
    this.target = options.targetUtilization ?? 0.95;
    this.responseTimeMs = options.responseTimeMs ?? 3_000;
    this.sliceMs = options.maxSleepSliceMs ?? 250;
  }

  /** Milliseconds before the next counted call may go out (0 = now). Does not change state. */
  delayMs(): number {
    const now = this.clock.now();
    if (now < this.blockedUntilMs) return this.blockedUntilMs - now;
    const s = this.snapshot;
    if (!s) return this.probeInFlight ? this.sliceMs : 0;
    const remaining = s.remaining - this.countOwn(s.dispatchedAtMs, Number.POSITIVE_INFINITY);
    if (remaining <= 0) {
      // Window full as far as we know: wait for the oldest call to leave it, then send one probe.
      const opensAt = Math.min(s.resetAtMs, this.retryAfterProbeAtMs ?? Number.POSITIVE_INFINITY);
      if (now < opensAt) return opensAt - now;
      return this.probeInFlight ? this.sliceMs : 0;
    }
    const intervalMs = 1 / this.ratePerMs(s, remaining);
    return Math.max(0, this.lastDispatchMs + intervalMs - now);
  }

  /** The rate (calls per second) this process currently allows itself; for reports and tests. */
  currentRatePerSecond(): number | undefined {
    const s = this.snapshot;
    if (!s) return undefined;
    const remaining = s.remaining - this.countOwn(s.dispatchedAtMs, Number.POSITIVE_INFINITY);
    return remaining <= 0 ? 0 : this.ratePerMs(s, remaining) * 1000;
  }

  /** Waits (FIFO) until a counted call may go out, and records it. */
  async acquire(signal?: AbortSignal): Promise<RatePermit> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous;
      for (let delay = this.delayMs(); delay > 0; delay = this.delayMs()) {
        await this.clock.sleep(Math.min(delay, this.sliceMs), signal);
      }
      return this.recordDispatch();
    } finally {
      release();
    }
  }

  /** Records a dispatch without waiting (used by `acquire`; public for simulations). */
  recordDispatch(): RatePermit {
    const now = this.clock.now();
    this.own.push(now);
    this.lastDispatchMs = now;
    const s = this.snapshot;
    if (!s || s.remaining - this.countOwn(s.dispatchedAtMs, Number.POSITIVE_INFINITY) < 0) this.probeInFlight = true;
    this.prune(now);
    return { dispatchedAtMs: now };
  }

  /** Feeds back an answer (headers may be missing, e.g. on a network fault). */
  complete(permit: RatePermit | undefined, observation: RateLimitObservation | undefined): void {
    this.probeInFlight = false;
    if (!observation) return;
    this.retryAfterProbeAtMs = undefined;
    const dispatchedAtMs = permit?.dispatchedAtMs ?? this.clock.now();
    // Answers arrive out of order under concurrency; keep the one describing the latest request.
    if (this.snapshot && this.snapshot.dispatchedAtMs > dispatchedAtMs) return;
    this.snapshot = { ...observation, dispatchedAtMs };
    this.trackOthers(dispatchedAtMs, observation);
    this.steer(observation);
  }

  /** Estimated calls per second of the other processes sharing the key; for reports and tests. */
  othersRatePerSecond(): number {
    if (this.lastBucket === undefined) return 0;
    let sum = 0;
    for (let j = 0; j < RATE_HORIZON_BUCKETS; j++) sum += this.arrivalsAt(this.lastBucket - j);
    return sum / ((RATE_HORIZON_BUCKETS * BUCKET_MS) / 1000);
  }

  /** A 429 told us to wait: every counted call of this process waits that long. */
  pauseFor(ms: number): void {
    this.blockedUntilMs = Math.max(this.blockedUntilMs, this.clock.now() + ms);
    this.retryAfterProbeAtMs = this.blockedUntilMs;
  }

  private ratePerMs(s: Snapshot, remaining: number): number {
    const base = this.baseRate(s.limit);
    const reserve = Math.max(1, (1 - this.target) * s.limit);
    const brake = Math.min(1, remaining / reserve);
    return Math.max((this.ownRate ?? base) * brake, 1 / this.windowMs);
  }

  private baseRate(limit: number): number {
    return (this.target * limit) / this.windowMs;
  }

  /** Moves the own rate towards what the others leave of the target (exponential smoothing). */
  private steer(observation: RateLimitObservation): void {
    const now = this.clock.now();
    const base = this.baseRate(observation.limit);
    const wanted = Math.min(base, Math.max(base * 0.02, base - this.othersRatePerSecond() / 1000));
    if (this.ownRate === undefined) {
      this.ownRate = wanted;
    } else {
      const alpha = 1 - Math.exp(-(now - this.lastRateUpdateMs) / this.responseTimeMs);
      this.ownRate = Math.min(base, this.ownRate + alpha * (wanted - this.ownRate));
    }
    this.lastRateUpdateMs = now;
  }

  private arrivalsAt(bucket: number): number {
    return this.othersArrivals[((bucket % RING) + RING) % RING] as number;
  }

  private setArrivals(bucket: number, value: number): void {
    this.othersArrivals[((bucket % RING) + RING) % RING] = value;
  }

  /** Reconstructs the other processes' arrivals per bucket from their count in the window. */
  private trackOthers(dispatchedAtMs: number, observation: RateLimitObservation): void {
    const counted = observation.limit - observation.remaining;
    const others = Math.max(0, counted - this.countOwn(dispatchedAtMs - this.windowMs, dispatchedAtMs));
    const bucket = Math.floor(dispatchedAtMs / BUCKET_MS);
    const windowBuckets = Math.round(this.windowMs / BUCKET_MS);
    const last = this.lastBucket;
    if (last === undefined || bucket - last > windowBuckets) {
      // No history: assume what is in the window arrived evenly over it.
      for (let j = bucket - windowBuckets + 1; j <= bucket; j++) this.setArrivals(j, others / windowBuckets);
    } else if (bucket > last) {
      let departed = 0;
      for (let j = last + 1; j <= bucket; j++) departed += this.arrivalsAt(j - windowBuckets);
      const arrived = Math.max(0, others - this.lastOthers + departed);
      for (let j = last + 1; j <= bucket; j++) this.setArrivals(j, arrived / (bucket - last));
    } else {
      return;
    }
    this.lastBucket = bucket;
    this.lastOthers = others;
  }

  /** Own dispatches with time in (fromMs, toMs]. */
  private countOwn(fromMs: number, toMs: number): number {
    return this.upperBound(toMs) - this.upperBound(fromMs);
  }

  private upperBound(t: number): number {
    let lo = this.head;
    let hi = this.own.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.own[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private prune(now: number): void {
    const horizon = now - 2 * this.windowMs;
    while (this.head < this.own.length && (this.own[this.head] as number) < horizon) this.head++;
    if (this.head > 1024 && this.head * 2 > this.own.length) {
      this.own = this.own.slice(this.head);
      this.head = 0;
    }
  }
}
