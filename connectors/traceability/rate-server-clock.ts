/**
 * The server's clock against this host's. `X-RateLimit-Reset` is "Unix time in seconds" (spec, "Rate limit"):
 * the server's clock, and every rule that waits for the window's oldest call to leave compares it with this
 * host's. Workers on different hosts share nothing but the API, and where nothing syncs their clocks they
 * are off by seconds: unconverted, four processes whose clocks were 0.8-1.5 s off either way took 429s for
 * 11% of their calls at 30/min and split 120/min 275/78 (fake clock; 0 and even with one clock).
 *
 * Each answer's `Date` header (the server's clock, whole seconds) was stamped between this host's send and the
 * answer's arrival, so it bounds the offset `server - host` to `[Date - answered, Date + 1 s - sent]`. The
 * bounds of successive answers are intersected: answers fall at every phase of a second, and within a few
 * dozen the bound is about a round trip wide. They widen by `DRIFT_PER_MS` as time passes (clocks drift). Two
 * answers in a row outside them by more than `STEP_MS`, agreeing with each other, start them afresh (a clock
 * stepped, by NTP or by hand; one alone may be a stale copy); one outside by less (a server's cached `Date` a
 * few ms stale) moves the bound it crosses to it. No `Date` header: the offset is 0, the clocks taken to agree.
 */
export class ServerClock {
  /** Bounds on the offset `server - host`, ms, from the answers so far. */
  private low = Number.NEGATIVE_INFINITY;
  private high = Number.POSITIVE_INFINITY;
  private atMs: number | undefined;
  /** The bounds of an answer far outside these, until the next answer confirms or dismisses a step. */
  private stepped: [number, number] | undefined;

  /** One answer: sent and answered by this host's clock, its `Date` header by the server's. */
  observe(sentAtMs: number, answeredAtMs: number, serverDateMs: number): void {
    const low = serverDateMs - answeredAtMs;
    const high = serverDateMs + 1_000 - sentAtMs;
    if (this.atMs !== undefined) {
      const drift = Math.max(0, answeredAtMs - this.atMs) * DRIFT_PER_MS;
      this.low -= drift;
      this.high += drift;
    }
    this.atMs = answeredAtMs;
    if (low > this.high + STEP_MS || high < this.low - STEP_MS) {
      const before = this.stepped;
      this.stepped = [low, high];
      if (before === undefined || low > before[1] || high < before[0]) return;
      this.low = Math.max(low, before[0]);
      this.high = Math.min(high, before[1]);
      this.stepped = undefined;
      return;
    }
    this.stepped = undefined;
    if (low > this.high) {
      this.high = low;
    } else if (high < this.low) {
      this.low = high;
    } else {
      this.low = Math.max(this.low, low);
      this.high = Math.min(this.high, high);
    }
  }

  /**
   * How far the server's clock is ahead of this host's (behind when negative), ms: 0 while the bounds hold 0, so
   * clocks that may agree are taken to (a midpoint is off by up to half a second until the answers have narrowed
   * the bounds, and the rules that follow `Reset` were measured on agreeing clocks); else the bounds' midpoint.
   */
  get offsetMs(): number {
    if (this.low <= 0 && this.high >= 0) return 0;
    return (this.low + this.high) / 2;
  }

  /** A time on the server's clock (Unix ms) on this host's. */
  toHostMs(serverMs: number): number {
    return serverMs - this.offsetMs;
  }
}

/** How fast two hosts' clocks may drift apart: 100 ppm, about twice what a quartz clock drifts unsynced. */
const DRIFT_PER_MS = 1e-4;

/** An answer this far outside the bounds means a clock was stepped, not a stale `Date`. */
const STEP_MS = 250;
