import type { Clock } from '../../../connectors/traceability/clock';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/** A manual clock: `sleep` resolves only when the test advances time past it. */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('aborted'));
      const onAbort = (): void => {
        this.timers = this.timers.filter((candidate) => candidate !== timer);
        reject(new Error('aborted'));
      };
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Lets every resolved promise chain run until it blocks again. */
  static async flush(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Moves time to the earliest timer and fires it; false when none is pending. */
  async step(): Promise<boolean> {
    await FakeClock.flush();
    if (this.timers.length === 0) return false;
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = this.timers.shift() as Timer;
    this.t = Math.max(this.t, next.at);
    next.resolve();
    await FakeClock.flush();
    return true;
  }

  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await FakeClock.flush();
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > target) break;
      await this.step();
    }
    this.t = target;
    await FakeClock.flush();
  }
}

/** The server's rolling-window allowance, as the spec and the sandbox describe it. */
export class RollingWindowModel {
  private calls: number[] = [];
  accepted = 0;
  refused = 0;

  constructor(
    public limit: number,
    private readonly now: () => number,
    private readonly windowMs = 60_000,
  ) {}

  take(): {
    allowed: boolean;
    limit: number;
    remaining: number;
    resetAtMs: number;
    retryAfterMs: number;
    /** The answer's `Date` header: the server's clock, whole seconds. */
    serverDateMs: number;
  } {
    const now = this.now();
    const serverDateMs = Math.floor(now / 1000) * 1000;
    this.calls = this.calls.filter((t) => t > now - this.windowMs);
    if (this.calls.length >= this.limit) {
      this.refused++;
      const freesAt = (this.calls[0] as number) + this.windowMs;
      return {
        allowed: false,
        limit: this.limit,
        remaining: 0,
        resetAtMs: Math.ceil(freesAt / 1000) * 1000,
        retryAfterMs: Math.max(1, Math.ceil((freesAt - now) / 1000)) * 1000,
        serverDateMs,
      };
    }
    this.calls.push(now);
    this.accepted++;
    const oldest = this.calls[0] as number;
    return {
      allowed: true,
      limit: this.limit,
      remaining: this.limit - this.calls.length,
      resetAtMs: Math.ceil((oldest + this.windowMs) / 1000) * 1000,
      retryAfterMs: 0,
      serverDateMs,
    };
  }
}
