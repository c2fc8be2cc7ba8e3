export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds (rounded up) when the oldest counted call leaves the window. */
  resetUnixSeconds: number;
  /** Whole seconds until a slot frees, when refused. */
  retryAfterSeconds: number;
}

const WINDOW_MS = 60_000;

/** Rolling one-minute allowance per key, shared by every endpoint. */
export class RollingRateLimiter {
  private readonly calls = new Map<string, number[]>();

  constructor(
    public limitPerMinute: number,
    private readonly now: () => number,
  ) {}

  /** Counts a call unless `exempt`; refuses it (without counting) when the window is full. */
  take(key: string, exempt = false): RateDecision {
    const now = this.now();
    const window = this.prune(key, now);
    if (!exempt && window.length >= this.limitPerMinute) {
      const oldest = window[0] ?? now;
      const freesAt = oldest + WINDOW_MS;
      return {
        allowed: false,
        limit: this.limitPerMinute,
        remaining: 0,
        resetUnixSeconds: Math.ceil(freesAt / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)),
      };
    }
    if (!exempt) window.push(now);
    const oldest = window[0];
    return {
      allowed: true,
      limit: this.limitPerMinute,
      remaining: Math.max(0, this.limitPerMinute - window.length),
      resetUnixSeconds: Math.ceil((oldest === undefined ? now : oldest + WINDOW_MS) / 1000),
      retryAfterSeconds: 0,
    };
  }

  reset(): void {
    this.calls.clear();
  }

  private prune(key: string, now: number): number[] {
    let window = this.calls.get(key);
    if (!window) {
      window = [];
      this.calls.set(key, window);
    }
    let expired = 0;
    while (expired < window.length && (window[expired] ?? 0) <= now - WINDOW_MS) expired++;
    if (expired > 0) window.splice(0, expired);
    return window;
  }
}
