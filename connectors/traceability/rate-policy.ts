// The sharing rule every process on a key applies alike, without knowing how many share it: the key's
// top and the sharing cap (`ratePolicy`), and how far apart the key's calls are, which decides how a
// process reads its answers (`KeyReadings` in rate-key-view.ts, `OthersLeaving` in rate-leaving.ts).

/** The sharing band (see `ratePolicy`) as a share of the allowance (at least 2 calls). */
const BAND_SHARE = 0.02;

/**
 * The shared reserve (see `ratePolicy`) is the key's calls in this many round trips (the high estimate): over
 * 240/min one. Between the server counting the call whose answer we read and our next call reaching it, one
 * round trip passes; what the others sent meanwhile is all that answer cannot show. Kept over two, a pair at
 * 600/min with round trips of 210-290 ms kept back 7 calls, settled the key half a band (6) under that, at 587
 * against a goal of 582, and a round trip's calls leaving before their replacements came took a window under
 * it (fake clock: runs missed by the 600/min cells 74 of 96 -> 30, seeds 1-8 x two phases; by the 3,000/min
 * ones 39 of 56 -> 18, seeds 1-4; none before or after without the added latency; real, 100 ms away, every
 * 600/min cell met, none before). The cost is four processes racing for the last slots as far away: 600x4's
 * refused calls 0.37% -> 0.59%, and 1.25% -> 2.84% at 310-390 ms (`rate-pacing-log.md`, session 39), in bursts
 * that bounding a small process's growth in flight took away (`smallGrowthUnseen` in rate-limiter.ts). Where
 * the key's calls are sparse (up to 240/min) two: there one round trip took 120x4-late's 429s from 0.76% to
 * 2.40% of calls at 210-290 ms (session 38).
 */
function reserveRoundTrips(sparse: boolean): number {
  return sparse ? 2 : 1;
}

/**
 * What the policy allows, for the numbers a process knows at one instant. Pure; `AdaptiveRateLimiter`
 * feeds it and tests can read it.
 *
 * - `top`: the key-wide count no process knowingly goes past. Alone, the allowance less one (the
 *   first call of a process that joins finds a slot). Shared, less the calls the others may have
 *   sent that we cannot have seen yet and those racing ours for the last slots: the key's calls in
 *   one round trip (`reserveRoundTrips`), at least 2; where the key's calls are sparse (up to 240/min,
 *   see `SPARSE_CALL_GAP_MS`), in two round trips, at least 1, for every process.
 *   With `oneOther` (see `ONE_OTHER_SHARE`), and but for a `smallShare` where the key's calls bunch (under
 *   120/min, see `keyCallsBunch`), the cap is rounded up, so that two settle the key at the top.
 * - `capAt(u)`: the own count a process may hold when the key's count would be `u`. Alone, it is
 *   `top`. Shared, it falls linearly from `top` (at `top - band`) to 0 (past
 *   `top`). Every process applies the same function to the same `u`, so the ones holding more stop
 *   replacing first and the ones holding less take the room, without anyone knowing how many
 *   processes there are; n equal processes settle the key at `top + 1 - band / n`. (Where the key's
 *   calls bunch, the band of a process with a `smallShare` is wider, see `SMALL_SHARE_BAND`.)
 */
export function ratePolicy(
  limit: number,
  roundTripMs: number,
  windowMs: number,
  othersPresent: boolean,
  oneOther = false,
  smallShare = false,
) {
  const bunch = keyCallsBunch(limit, windowMs);
  const sparse = keyCallsSparse(limit, windowMs);
  const reserve = othersPresent
    ? Math.max(sparse ? 1 : 2, Math.ceil((reserveRoundTrips(sparse) * limit * roundTripMs) / windowMs))
    : 1;
  const top = Math.max(1, limit - reserve);
  const small = bunch && smallShare;
  const band = small ? Math.max(SMALL_SHARE_BAND, keyBand(limit, windowMs)) : keyBand(limit, windowMs);
  const capAt = (u: number): number => {
    if (!othersPresent) return top;
    const cap = top * Math.min(1, Math.max(0, (top - u + 1) / band));
    // (Two processes settle the key at the top, not under it: at the top the cap is half of it, and
    // an odd top left both a call short of the half and the key one under.)
    return oneOther || (bunch && !small) ? Math.ceil(cap) : cap;
  };
  return { reserve, top, band, capAt };
}

/**
 * A process holding this share of the key's count or more shares it with at most one other process of
 * its size (with two more its share would be a third at most): from 120 to 240/min it rounds its cap up,
 * so that two settle the key at the top, and it reads its other's fall of 2 as leaving once the fall has
 * outlasted a dip (see `DIP_CONFIRM_MS` in rate-leaving.ts).
 */
export const ONE_OTHER_SHARE = 0.4;

/**
 * Two of the key's calls take over a second (under 120/min): a window's calls bunch (its turnover follows
 * a quiet stretch). Every process keeps back 1 call there (as wherever the calls are sparse, see
 * `SPARSE_CALL_GAP_MS`), however many share the key. Kept back 2, the key
 * settled at 28 of 30 against a goal of 27, and a process that finished took 2 calls out of the window in
 * the first second of a turnover, before the survivor could see it (30x2-early missed in every run). Kept
 * back 1 only by the processes holding `ONE_OTHER_SHARE`, one that led the fill against three small ones
 * held the key at 29, over their top: they yielded every call, it took them, and their Reset-time probes
 * took the key to the limit (429s in every run, four processes started 3 s apart). One top for all keeps
 * the sharing cap one function for all.
 */
export function keyCallsBunch(limit: number, windowMs: number): boolean {
  return (TREND_CALLS * windowMs) / limit > TREND_MS;
}

/**
 * Where the key's calls bunch, the sharing band (see `ratePolicy`) of a process holding under
 * `ONE_OTHER_SHARE` of the key (a `smallShare`), which shares it with two others or more: at the top its
 * cap is a quarter of the top, not half, and not rounded up, so that four settle the key a call under the
 * top at a whole share each. At the top, 29 of 30 split 8/7/7/7 for as long as the key stayed there: one
 * process 10% over even (real runs, 24/21/21/21); at 28, 7 each.
 */
const SMALL_SHARE_BAND = 4;

/**
 * How long readings of the others' and own counts are held: between a call leaving the window and
 * its replacement arriving, the count dips, and that dip must not read as room.
 */
export const HOLD_MS = 1_000;
/**
 * The span over which the others' count is read for a trend (see `LEAVING_FALL_BANDS` in rate-leaving.ts)...
 */
export const TREND_MS = 1_000;
/** ...and at least the key's time for this many calls (at 30/min, 4 s). */
export const TREND_CALLS = 2;
/**
 * The key's calls are at least this far apart (up to 240/min): a process's answers come seconds apart, so
 * a reading is held longer (see `QUIET_GAP_MS` in rate-key-view.ts) and a fall must last before it counts.
 * There every process keeps back 1 call, not 2, however many share the key: two racing for the last slot
 * fill it, no more, and the key's calls are too few for a third to race them often. At 120/min the goal
 * (97%) is 117 calls: kept back 2, four processes settled the key at 118 and dipped under the goal (120x4
 * missed in 17 runs of 128 on the fake clock, 0 now), and a late joiner under `ONE_OTHER_SHARE`, keeping
 * back 2 while the incumbent kept back 1, stopped growing at a sixth of the key: at 118 no one's cap binds,
 * and the joiner could not take the key to 119, where the incumbent's does (joined 80 s late, 150/40 over
 * the last 100 s of four minutes on the fake clock; now 135-143 to 48-56).
 */
const SPARSE_CALL_GAP_MS = 250;

/** The key's time for `calls` calls at its allowance (one call every window / limit). */
export function keyCallsMs(limit: number, calls: number, windowMs: number): number {
  return (calls * windowMs) / limit;
}

/** The key's calls are `SPARSE_CALL_GAP_MS` or more apart. */
export function keyCallsSparse(limit: number, windowMs: number): boolean {
  return keyCallsMs(limit, 1, windowMs) >= SPARSE_CALL_GAP_MS;
}

/**
 * Up to 174/min: the key's calls sparse and its sharing band the least, 2 calls. There a process yielding at
 * its cap keeps the key within a call of its top, so the key 2 or more under it is a process gone or a dip,
 * never a yield (see `QUIET_LEAVING_MS` in rate-leaving.ts). (Not with a wider band: at 240/min a joiner
 * holding a fifth of the key met the incumbent's yields a band under the top, read them so and took its
 * calls, 429s over 0.5% of calls in 7 runs of 64 on the fake clock.)
 */
export function keyBandOfTwo(limit: number, windowMs: number): boolean {
  return keyCallsSparse(limit, windowMs) && keyBand(limit, windowMs) === 2;
}

/**
 * The sharing band (see `ratePolicy`), but for a `smallShare` where the key's calls bunch: 2% of the
 * allowance, at least 2 calls, and 2, not 3, up to 174/min. With a band of 3 two processes settled the
 * key where neither's cap binds (two thirds of the top at `u = top - 1`, so any split up to 2:1 stood):
 * started together, 170/273 at 150/min, and two of them missed the split or the use goal in 9 runs of 16 at
 * 125/min, 7 of 16 at 150 and 174/min (fake clock); with 2, none. (Not 5 to 4 or 6 from 225 to 249/min: the
 * pair's split is met then, but a survivor of a process that finishes misses the use goal more often,
 * `rate-pacing-log.md`, session 33.)
 */
function keyBand(limit: number, windowMs: number): number {
  const band = Math.max(2, Math.round(limit * BAND_SHARE));
  return band === 3 && keyCallsSparse(limit, windowMs) ? 2 : band;
}
