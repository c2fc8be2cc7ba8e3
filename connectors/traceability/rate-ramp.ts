// The key-wide ramp every process on a key follows while the window fills (see `AdaptiveRateLimiter` in
// rate-limiter.ts): one line, read from the headers alone, so that the calls of all processes spread over
// the window and interleave, whatever their number.

/**
 * How fast the key's count may grow while its window fills, in allowances a window: a little over one, so
 * the window is full before its first call leaves.
 */
const RAMP_SPEED = 1.15;
/** ...and at least this many calls a second: a key with room and work waiting is never idle a second. */
const RAMP_MIN_PER_S = 1.5;

/** What the ramp reads of the key: its allowance and the `X-RateLimit-Reset` of an answer, in ms. */
export interface RampKey {
  limit: number;
  resetAtMs: number;
}

/**
 * The key-wide ramp: while the window fills, the key's count may grow by `RAMP_SPEED x limit` a window from
 * its oldest call (`X-RateLimit-Reset` less a window, the same for every process). Once the window has been
 * full for a window, its oldest call is a window old and the line is past the allowance: it no longer binds.
 */
export class KeyRamp {
  constructor(private readonly windowMs: number) {}

  /** The key's count the line allows at `now`. */
  line(key: RampKey, now: number): number {
    return 2 + Math.floor(this.perMs(key) * Math.max(0, now - this.originMs(key)));
  }

  /** When the line reaches `u`. */
  reachesMs(key: RampKey, u: number): number {
    return this.originMs(key) + Math.ceil((u - 2) / this.perMs(key));
  }

  /**
   * While the window fills, the others keep growing along the line after a reading: a process's answers come
   * one per n line steps, so its reading lags the key by the others' calls since (n - 1 at n processes: their
   * share of the line's steps). Counted in, up to `top` (the key stops there), so that the processes do not
   * all take the last slots under `top` from readings a few calls old, nor read that old reading as room when
   * the window's first calls leave.
   */
  othersGrowth(
    key: RampKey,
    reading: { atMs: number; others: number; own: number },
    now: number,
    top: number,
  ): number {
    const from = this.line(key, reading.atMs);
    const to = Math.min(this.line(key, now), top);
    if (to <= from) return 0;
    const grown = Math.floor(((to - from) * reading.others) / Math.max(1, reading.others + reading.own));
    return Math.max(0, Math.min(grown, top - reading.others - reading.own));
  }

  /**
   * The window's oldest call, as the headers tell it: Reset is whole seconds, rounded up, so it was counted
   * in (Reset - 61 s, Reset - 60 s]; the line starts from the latest of those. (From the earliest, the
   * line ran ahead of the fill by how far into a second the key's first call came, and the calls it let go
   * at once left together a window later, at every turn: over eight phases of a second, seeds 1-8, 30x4
   * missed in 38 runs of 64 and 120x2-early in 32, 8 and 6 now.)
   */
  private originMs(key: RampKey): number {
    return key.resetAtMs - this.windowMs;
  }

  private perMs(key: RampKey): number {
    return Math.max((RAMP_SPEED * key.limit) / this.windowMs, RAMP_MIN_PER_S / 1_000);
  }
}
