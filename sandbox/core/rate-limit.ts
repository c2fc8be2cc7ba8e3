export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds (rounded up) when the oldest counted call leaves the window. */
  resetUnixSeconds: number;
  /** Whole seconds until a slot frees, when refused. */
  retryAfterSeconds: number;
}

/** Spec 01: "Each key has its own allowance per rolling minute". */
export const SPEC_WINDOW_MS = 60_000;

/** Call times of one key, oldest first, from `head` on (entries before `head` have left the window). */
interface CallWindow {
  times: number[];
  head: number;
}

/**
 * Rolling one-minute allowance per key, shared by every endpoint. `windowMs` is a test-only option (see
 * `rateWindowMs` in options.ts): a shorter window lets a test wait one out quickly; the spec's is the minute.
 */
export class RollingRateLimiter {
  private readonly calls = new Map<string, CallWindow>();

  constructor(
    public limitPerMinute: number,
    private readonly now: () => number,
    private readonly windowMs: number = SPEC_WINDOW_MS,
  ) {}

  /** Counts a call unless `exempt`; refuses it (without counting) when the window is full. */
  take(key: string, exempt = false): RateDecision {
    const now = this.now();
    const window = this.prune(key, now);
    const decision = this.decide(window, now);
    if (decision.allowed && !exempt) {
      window.times.push(now);
      const oldest = window.times[window.head] ?? now;
      return {
        ...decision,
        remaining: decision.remaining - 1,
        resetUnixSeconds: Math.ceil((oldest + this.windowMs) / 1000),
      };
    }
    // An exempt call (order creation) is answered even when the window is full.
    return exempt ? { ...decision, allowed: true, retryAfterSeconds: 0 } : decision;
  }

  /** The decision `take` would give, without counting anything (for answers refused before the limiter runs). */
  peek(key: string): RateDecision {
    const now = this.now();
    return this.decide(this.prune(key, now), now);
  }

  reset(): void {
    this.calls.clear();
  }

  private decide(window: CallWindow, now: number): RateDecision {
    const count = window.times.length - window.head;
    const oldest = window.times[window.head];
    const freesAt = oldest === undefined ? now : oldest + this.windowMs;
    const full = count >= this.limitPerMinute;
    return {
      allowed: !full,
      limit: this.limitPerMinute,
      remaining: Math.max(0, this.limitPerMinute - count),
      resetUnixSeconds: Math.ceil(freesAt / 1000),
      retryAfterSeconds: full ? Math.max(1, Math.ceil((freesAt - now) / 1000)) : 0,
    };
  }

  private prune(key: string, now: number): CallWindow {
    let window = this.calls.get(key);
    if (!window) this.calls.set(key, (window = { times: [], head: 0 }));
    while (window.head < window.times.length && (window.times[window.head] ?? 0) <= now - this.windowMs)
      window.head++;
    // Compact now and then instead of shifting the array on every call.
    if (window.head > 1024 && window.head * 2 > window.times.length) {
      window.times = window.times.slice(window.head);
      window.head = 0;
    }
    return window;
  }
}

/**
 * One way over the sandbox's network: `delayMs` and a random 0..jitterMs more (none when both are 0), see
 * `networkDelayMs` and `jitterMs` in options.ts.
 */
export function networkWay(delayMs: number, jitterMs: number): Promise<void> | undefined {
  if (delayMs <= 0 && jitterMs <= 0) return undefined;
  return new Promise((resolve) => setTimeout(resolve, delayMs + Math.random() * jitterMs));
}
