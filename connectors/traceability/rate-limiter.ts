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
  /** Length of the server's sliding window. */
  windowMs?: number;
  /** Longest single sleep before the limiter looks again (new answers may have opened room). */
  maxSleepSliceMs?: number;
  /** Source of the jitter that keeps stuck processes from probing at the same instant. */
  random?: () => number;
}

/** Handed out by `acquire`, returned with the answer's headers through `complete`. */
export interface RatePermit {
  readonly dispatchedAtMs: number;
}

/** The key's state as this process last saw it. */
interface KeyView {
  limit: number;
  /**
   * While the others leave (see `TREND_MS`), how far their count fell since they began to: the sharing
   * cap is raised by that much, so this process takes over what they left, not more (others that
   * stay keep their share); 0 otherwise.
   */
  left: number;
  /**
   * Calls of the other processes in the window (`used - own`), the most seen over `HOLD_MS`.
   */
  others: number;
  /** ...the most seen over `HOLD_MS` only, without the reading before a quiet gap (see `holdReading`). */
  othersLately: number;
  /** Dispatch time of the call whose answer this is. */
  atMs: number;
  /** The key's count that answer gave. */
  used: number;
  /**
   * Own calls in the window, the most seen over the same hold: this process may replace up to that
   * many without growing, as the others hold it at that count too.
   */
  own: number;
  /**
   * Calls this process may add to `fullest` until its next answer: its share of the room left
   * (`top - fullest`), as a whole number drawn at random around `room x own share` (all of it while
   * the others leave), so that processes growing at once, none of which knows what the others add
   * meanwhile, add about the room together.
   */
  growth: number;
  /** The key's count the growth is counted from: the fullest of the readings held. */
  fullest: number;
  resetAtMs: number;
  /** The others were filling the window along the ramp line at that answer (see `othersRampGrowth`). */
  filling: boolean;
  /** A random delay after `resetAtMs` before probing, so stuck processes do not probe at one instant. */
  probeSpreadMs: number;
}

/** The sharing band (see `ratePolicy`) as a share of the allowance (at least 2 calls). */
const BAND_SHARE = 0.02;

/**
 * What the policy allows, for the numbers a process knows at one instant. Pure; `AdaptiveRateLimiter`
 * feeds it and tests can read it.
 *
 * - `top`: the key-wide count no process knowingly goes past. Alone, the allowance less one (the
 *   first call of a process that joins finds a slot). Shared, less the calls the others may have
 *   sent that we cannot have seen yet and those racing ours for the last slots: the key's calls in
 *   two round trips, at least 2.
 *   With `oneOther` (see `ONE_OTHER_SHARE`), and for every process where the key's calls bunch (under
 *   120/min, see `keyCallsBunch`), at least 1: two processes racing for the last slot fill it, no more;
 *   and but for a `smallShare` there, the cap is rounded up, so that two settle the key at the top.
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
  const reserve = othersPresent
    ? Math.max(oneOther || bunch ? 1 : 2, Math.ceil((2 * limit * roundTripMs) / windowMs))
    : 1;
  const top = Math.max(1, limit - reserve);
  const small = bunch && smallShare;
  const band = Math.max(small ? SMALL_SHARE_BAND : 2, Math.round(limit * BAND_SHARE));
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
 * its size (with two more its share would be a third at most), so it keeps back 1 call, not 2: two
 * processes racing for the last slot fill it, no more. From 120 to 240/min: at 120/min the goal (97%) is
 * 117 calls and the top 118, a margin of one (a window of two processes dipped to 116).
 */
const ONE_OTHER_SHARE = 0.4;

/**
 * Two of the key's calls take over a second (under 120/min): a window's calls bunch (its turnover follows
 * a quiet stretch), and every process keeps back 1 call, however many share the key. Kept back 2, the key
 * settled at 28 of 30 against a goal of 27, and a process that finished took 2 calls out of the window in
 * the first second of a turnover, before the survivor could see it (30x2-early missed in every run). Kept
 * back 1 only by the processes holding `ONE_OTHER_SHARE`, one that led the fill against three small ones
 * held the key at 29, over their top: they yielded every call, it took them, and their Reset-time probes
 * took the key to the limit (429s in every run, four processes started 3 s apart). One top for all keeps
 * the sharing cap one function for all.
 */
function keyCallsBunch(limit: number, windowMs: number): boolean {
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
 * How fast the key's count may grow while its window fills (see `rampLine`), in allowances a window:
 * a little over one, so the window is full before its first call leaves.
 */
const RAMP_SPEED = 1.15;
/** ...and at least this many calls a second: a key with room and work waiting is never idle a second. */
const RAMP_MIN_PER_S = 1.5;

/**
 * How long readings of the others' and own counts are held: between a call leaving the window and
 * its replacement arriving, the count dips, and that dip must not read as room.
 */
const HOLD_MS = 1_000;
/**
 * ...and, when the key's calls are at least this far apart (up to 240/min) and the latest answer came
 * after a gap of `QUIET_GAP_MS` or more, the last reading before that gap too.
 */
const SPARSE_CALL_GAP_MS = 250;
const QUIET_GAP_MS = 5_000;
/**
 * The others' count (the most seen over this long) lower by 3/4 of the band than it was two of these
 * before, and by more than our own count grew meanwhile (a fall no larger is the others yielding to
 * our growth) or with the key where the sharing cap binds no one: the others are leaving (a process finished): their latest count holds (a fall is no
 * dip then), the whole room is taken, not a share of it, and the sharing cap is raised by what they
 * left since they began to leave. (Lifted whole, the cap let one process take the key in a real
 * run, and two survivors both took the leaver's room: the others' yields read as leaving.)
 */
const TREND_MS = 1_000;
/** ...and at least the key's time for this many calls (at 30/min, 4 s). */
const TREND_CALLS = 2;
/**
 * From 120 to 240/min, one of a pair (see `ONE_OTHER_SHARE`) reads its other's fall of 2 as leaving once it
 * has lasted this long (or three high round trips), not `HOLD_MS`: the other replaces what leaves within a
 * round trip and its timer's lag, so a dip is over by then. The survivor of a pair whose other finished saw
 * no answer for up to 2 s at the turn, and a fall seen then waited a second more while the other's calls
 * left one or more a second: 116 of 120 (120x2-early missed in 24 runs of 128 on the fake clock, 6 now).
 */
const DIP_CONFIRM_MS = 250;
/** The fall, in bands, that reads as leaving. */
const LEAVING_FALL_BANDS = 0.75;

/**
 * The least share of the room a process takes for its growth, whatever its own share of the window:
 * a process that has just started holds nothing yet and must still grow.
 */
const MIN_GROWTH_SHARE = 0.25;

/**
 * Reset-time probes (see `decide`) only by a process holding less than this share of the key's count
 * (or none of it): a probe races the owner of the call that leaves and, when the owner replaces it,
 * is a 429. A process with a fair share waits for its own calls to leave instead.
 */
const PROBE_BELOW_SHARE = 1 / 6;

/** When the next counted call may go out; `probe`: it is sent to learn the key's count. */
export interface RateDecision {
  delayMs: number;
  probe: boolean;
  /** It follows the X-RateLimit-Reset of the answer dispatched then (see `decide`). */
  followsReset?: number;
  /** It checks a fall of the others (see `decide`): not growth of ours that they yield to. */
  checksFall?: boolean;
}

/** One counted call of this process. */
interface OwnCall {
  readonly sentAtMs: number;
  /** When the server counted it, estimated: sent + half the round trip (the call's own, once answered). */
  countedAtMs: number;
  /** Its answer (or its loss) has come back. */
  settled: boolean;
  /**
   * When its answer, headers and all, came back: the server counted it by then (it counts a call before
   * answering it), so it has surely left the window a window later, whatever the one-way delays were.
   */
  answeredAtMs?: number;
}

/**
 * Paces the counted calls of one process so that every process on the key together keeps the
 * server's sliding window nearly full, splits it evenly, and never runs into a 429.
 *
 * Each answer tells the key's count in the window (`used = limit - remaining`). This process knows
 * when each of its own calls was counted (sent + half its round trip), so it knows exactly how many
 * of them were in that window: the rest, `others = used - own`, belongs to the other processes (the
 * most seen over `HOLD_MS`: a busy process replaces what leaves its window; the latest while they
 * leave). An own call has left the window a window after its answer came back (the server counts a
 * call before it answers), so the limiter wakes then and replaces it (up to the own count it held):
 * nothing is paced from the last call,
 * and a late timer loses nothing (the room is still there). Growing beyond that needs the key's
 * count with the call, `u = own + others + 1`, at or under `top`, the own count within `capAt(u)`
 * (see `ratePolicy`), this process's share of the room seen in its last answers, and `u` under the
 * key-wide ramp line while the window fills (`rampLine`); while the others fill along that line, their
 * growth since our last answer counts in the key's count (`othersRampGrowth`).
 * A 429 pauses this process for `Retry-After`; the others see `remaining` at 0 and wait for their own
 * calls to leave, or, when none of theirs leaves soon and they hold under a sixth of the count
 * (`PROBE_BELOW_SHARE`), for `X-RateLimit-Reset` (the oldest call leaving), then send one probe.
 */
export class AdaptiveRateLimiter {
  private readonly clock: Clock;
  private readonly windowMs: number;
  private readonly sliceMs: number;
  private readonly random: () => number;
  /** This process's counted calls, in the order sent; entries before `head` are long gone. */
  private own: OwnCall[] = [];
  private head = 0;
  private view: KeyView | undefined;
  private othersPresent = false;
  /** This process holds `ONE_OTHER_SHARE` of the key's count or more, where that counts (see there). */
  private oneOther = false;
  /** This process holds under `ONE_OTHER_SHARE` of the key's count (see `SMALL_SHARE_BAND`). */
  private smallShare = false;
  /** The others' count fell by 3/4 of the band over two `TREND_MS` (see `TREND_MS`). */
  private othersLeaving = false;
  /** The others' count before they began to leave. */
  private othersBeforeLeaving = 0;
  /**
   * Where a fall of a pair's other may be its leaving (see `followLeaving`): when it will have lasted long
   * enough to tell, and a call then checks it if no answer comes first (see `decide`).
   */
  private fallConfirmAtMs: number | undefined;
  /** When the last call that checked such a fall went. */
  private fallCheckedAtMs: number | undefined;
  /** Readings over the last three `TREND_MS`: [counted at, others, own]. */
  private trend: Array<[number, number, number]> = [];
  /**
   * Recent readings over `HOLD_MS` and the last one before: [counted at, others, own, 1 if the others
   * were then filling the window along the ramp line (see `othersRampGrowth`)].
   */
  private readings: Array<[number, number, number, boolean]> = [];
  /** A 429's Retry-After: nothing counted goes out before. */
  private blockedUntilMs = 0;
  /** After a 429: one probe at this time (Retry-After over), whatever the headers' reset says. */
  private probeAtMs: number | undefined;
  private probeInFlight = false;
  /** The answer (its dispatch time) whose X-RateLimit-Reset a call followed while the others leave. */
  private resetFollowedFor: number | undefined;
  /** Own calls sent and not yet completed (answered, refused or lost). */
  private inFlight = 0;
  /** The last completed call brought no headers (timeout, network fault): the view may be stale. */
  private lastAnswerLost = false;
  /** Smoothed round trip and its deviation (as TCP does). */
  private srttMs: number | undefined;
  private rttVarMs = 0;
  /** The longest an answered own call took (bounds the scans for calls still in the window). */
  private slowestAnswerMs = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(options: RateLimiterOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.windowMs = options.windowMs ?? 60_000;
    this.sliceMs = options.maxSleepSliceMs ?? 100;
    this.random = options.random ?? Math.random;
  }

  /** Milliseconds before the next counted call may go out (0 = now), if no answer arrives meanwhile. */
  delayMs(): number {
    return this.decide(this.clock.now()).delayMs;
  }

  /** The policy's figures as this process sees the key now; for reports and tests. */
  snapshot(): { limit: number; own: number; others: number; top: number; cap: number } | undefined {
    const view = this.view;
    if (!view) return undefined;
    const own = this.ownStillCountedAt(this.clock.now());
    const policy = this.policy(view.limit);
    return {
      limit: view.limit,
      own,
      others: view.others,
      top: policy.top,
      cap: policy.capAt(own + view.others),
    };
  }

  /** Waits (FIFO) until a counted call may go out, and records it. */
  async acquire(signal?: AbortSignal): Promise<RatePermit> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous;
      for (let d = this.decide(this.clock.now()); ; d = this.decide(this.clock.now())) {
        if (d.delayMs <= 0) return this.recordDispatch(d);
        await this.clock.sleep(Math.min(d.delayMs, this.sliceMs), signal);
      }
    } finally {
      release();
    }
  }

  /** Records a dispatch without waiting (used by `acquire`; public for simulations). */
  recordDispatch(decision = this.decide(this.clock.now())): RatePermit {
    const now = this.clock.now();
    if (decision.followsReset !== undefined) this.resetFollowedFor = decision.followsReset;
    if (decision.checksFall) this.fallCheckedAtMs = now;
    this.own.push({ sentAtMs: now, countedAtMs: this.arrivalOfCallSentAt(now), settled: false });
    this.inFlight++;
    if (decision.probe) {
      this.probeInFlight = true;
      this.probeAtMs = undefined;
    }
    this.prune(now);
    return { dispatchedAtMs: now };
  }

  /**
   * Feeds back an answer (headers may be missing, e.g. on a network fault). `counted: false` for a
   * 429: the server refused the call without counting it, so it leaves our own record.
   */
  complete(
    permit: RatePermit | undefined,
    observation: RateLimitObservation | undefined,
    counted = true,
  ): void {
    const now = this.clock.now();
    this.probeInFlight = false;
    this.lastAnswerLost = observation === undefined;
    const countedAtMs = permit ? this.settleOwnCall(permit, counted, now, observation !== undefined) : now;
    if (!observation) return;
    const atMs = permit?.dispatchedAtMs ?? now;
    const used = observation.limit - observation.remaining;
    // Answers arrive out of order under concurrency; keep the one describing the latest request. (Of calls
    // sent in the same millisecond, the one the server counted last, which saw the most; an earlier one's
    // answer, read with all of them counted in as ours, showed the others 2 lower than they were, and a
    // survivor at 120/min took 2 slots too many: a 429.)
    if (this.view && (this.view.atMs > atMs || (this.view.atMs === atMs && this.view.used > used))) return;
    // (Where the key's calls are sparse, not counting own calls sent with this one or after it and still
    // unanswered: see `ownInWindowAt`.)
    const sentWith = this.sparse(observation.limit) ? permit?.dispatchedAtMs : undefined;
    const reading = Math.max(0, used - this.ownInWindowAt(countedAtMs, sentWith));
    // Own calls counted near the window's edges may be in or out: others are present only if some
    // remain when all of those count as ours.
    const slack = this.slackMs();
    const ownAtMost = this.countCounted(countedAtMs - this.windowMs - slack, countedAtMs + slack);
    this.othersPresent = used - ownAtMost >= 1;
    this.smallShare = used - reading < ONE_OTHER_SHARE * used;
    this.oneOther = this.sparse(observation.limit) && !this.bunched(observation.limit) && !this.smallShare;
    const { top: sharedTop, band } = ratePolicy(
      observation.limit,
      this.roundTripHighMs(),
      this.windowMs,
      true,
    );
    const { readings, filling, held } = this.holdReading(
      observation,
      atMs,
      countedAtMs,
      used,
      reading,
      sharedTop,
    );
    this.followLeaving(observation.limit, countedAtMs, reading, used, sharedTop, band);
    // (While they leave, a lower count is no dip: the latest reading holds, and the fullest is of the
    // readings in the hold only.)
    const lately = readings.filter(([at]) => at > countedAtMs - HOLD_MS);
    const kept = this.othersLeaving ? lately : readings;
    const others = this.othersLeaving ? reading : Math.max(...kept.map(([, value]) => value));
    const othersLately = this.othersLeaving ? reading : Math.max(...lately.map(([, value]) => value));
    const own = Math.max(...kept.map(([, , value]) => value));
    const fullest = Math.max(...kept.map(([, o, m]) => o + m));
    const growth = this.drawGrowth(observation.limit, fullest, used, reading, held);
    // Blocked with none of our calls leaving the window first, we probe once the window's oldest call
    // has left (`X-RateLimit-Reset`): that is when room frees, as far as the headers tell.
    const probeSpreadMs = this.random() * this.callsMs(observation.limit, 2);
    this.view = {
      limit: observation.limit,
      left: this.othersLeaving ? Math.max(0, this.othersBeforeLeaving - reading) : 0,
      others,
      othersLately,
      atMs,
      used,
      own,
      growth,
      fullest,
      resetAtMs: observation.resetAtMs,
      filling,
      probeSpreadMs,
    };
    if (now >= this.blockedUntilMs) this.probeAtMs = undefined;
  }

  /** The own call's round trip and when it was counted (or, refused, that it was not); returns the latter. */
  private settleOwnCall(permit: RatePermit, counted: boolean, now: number, answered: boolean): number {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const rtt = now - permit.dispatchedAtMs;
    this.recordRoundTrip(rtt);
    if (answered) this.slowestAnswerMs = Math.max(this.slowestAnswerMs, Math.min(rtt, this.windowMs));
    const countedAtMs = permit.dispatchedAtMs + rtt / 2;
    const call = this.findOwn(permit.dispatchedAtMs);
    if (call && !counted) this.own.splice(this.own.indexOf(call), 1);
    else if (call) {
      call.countedAtMs = countedAtMs;
      call.settled = true;
      if (answered) call.answeredAtMs = now;
    }
    return countedAtMs;
  }

  /**
   * Adds a reading to the hold (`HOLD_MS`, and at small allowances the last one before a quiet gap) and
   * returns the readings held, those the others were filling at moved along the ramp to now
   * (`othersRampGrowth`), whether the others fill the window now, and the readings of the last `HOLD_MS`.
   */
  private holdReading(
    observation: RateLimitObservation,
    atMs: number,
    countedAtMs: number,
    used: number,
    reading: number,
    sharedTop: number,
  ): {
    readings: Array<[number, number, number]>;
    filling: boolean;
    /**
     * How many readings `drawGrowth` counts as held: those of the last `HOLD_MS` with this one, or after
     * a quiet gap the previous one and those of the last `HOLD_MS` before this one.
     */
    held: number;
  } {
    // At small allowances a process that sent nothing for a while (after the fill, or between the
    // window's bunched turnovers) has one fresh answer in its hold, which may have come in a dip (the
    // window's first calls leaving at once): the last reading before stays in the hold too, and a
    // fall counts once two answers show it. (Not after shorter gaps: a survivor replacing a call
    // every second or two must see the other leave as soon as before.)
    const held = this.readings.filter(([at]) => at > countedAtMs - HOLD_MS);
    const previous = this.readings.filter(([at]) => at <= countedAtMs - HOLD_MS).at(-1);
    const sparse = this.sparse(observation.limit);
    // The others fill the window along the ramp line: the line still under the top, the others grown
    // since our last reading, and the key ahead of the line by no more than that growth (once the
    // window has turned over, the key stands well above a line counted from its oldest call).
    const line = this.rampLine(observation, atMs);
    const othersGrew = reading - (this.readings.at(-1)?.[1] ?? reading);
    const filling = line < sharedTop && othersGrew >= 1 && used - line <= othersGrew + 1;
    const afterQuietGap = previous !== undefined && sparse && countedAtMs - previous[0] >= QUIET_GAP_MS;
    this.readings = afterQuietGap ? [previous, ...held] : [...held];
    this.readings.push([countedAtMs, reading, used - reading, filling]);
    // (That one as it stands now: the others may have grown along the ramp since.)
    const key = { limit: observation.limit, resetAtMs: this.view?.resetAtMs ?? observation.resetAtMs };
    const readings = this.readings.map(([at, o, m, f]): [number, number, number] => {
      if (at > countedAtMs - HOLD_MS || !f) return [at, o, m];
      return [at, o + this.othersRampGrowth(key, { atMs: at, others: o, own: m }, countedAtMs, sharedTop), m];
    });
    return {
      readings,
      filling,
      held: afterQuietGap ? held.length : held.length + 1,
    };
  }

  /** Whether the others are leaving (see `TREND_MS`), from the trend of their count. */
  private followLeaving(
    limit: number,
    countedAtMs: number,
    reading: number,
    used: number,
    sharedTop: number,
    band: number,
  ): void {
    const trendMs = Math.max(TREND_MS, this.callsMs(limit, TREND_CALLS));
    // (Where two of the key's calls take over a second (under 120/min) a window's calls bunch, and its
    // turnover follows a quiet minute: the last reading before it is the base a fall is measured from, or
    // the others' leaving reads only after 2 x 4 s of readings at 30/min, by when the window is 3 calls
    // down. So too for a process sharing the key with one other (`ONE_OTHER_SHARE`): its answers come in
    // bunches seconds apart, and with no reading 2 s old the leaving read a second late, the window 3
    // calls down. Not for the others at 120/min: there four processes' answers come seconds apart, and a
    // base that old read their yields as leaving; one of four took twice its share in real runs.)
    const base =
      this.bunched(limit) || this.oneOther
        ? this.trend.filter(([at]) => at <= countedAtMs - 3 * trendMs).at(-1)
        : undefined;
    this.trend = this.trend.filter(([at]) => at > countedAtMs - 3 * trendMs);
    if (base && base[0] > countedAtMs - this.windowMs) this.trend.unshift(base);
    this.trend.push([countedAtMs, reading, used - reading]);
    // (The fall is read over the last second, however sparse the calls: `fallLasted` tells it from a dip.)
    const recent = this.trend.filter(([at]) => at > countedAtMs - Math.min(trendMs, HOLD_MS + 1));
    const before = this.trend.filter(([at]) => at <= countedAtMs - 2 * trendMs);
    // (Too few readings to tell: as before, but no fall awaits a check.)
    this.fallConfirmAtMs = undefined;
    if (before.length === 0) return;
    // Leaving once they fell by 3/4 of the band (at least 2); no longer once they grow again.
    const beforeMax = Math.max(...before.map(([, o]) => o));
    // (Sharing with one other, by the latest reading: that other replaces what leaves at once, so a
    // reading 2 under the count before, the fall lasting, is no dip; the most over the last second lagged
    // it by an answer, a second at 120/min, and the window stood at 116 of 120. Not a fall of 1: two
    // processes settling the key take turns at one call more, and a fall of 1 read as leaving let one of
    // them take the other's share, 429s among it, on the fake clock.)
    // (Where the key's calls bunch, a process holding 40% whose others held 40% too and at most a call more
    // than it (one other, of its size) reads a fall of 1 so: the key settles at the top, 29 of 30, and a
    // process that finished took three calls out of the window in the first two seconds of a turnover while
    // a fall of 2 was awaited (30x2-early missed in 11 runs of 128 on the fake clock, 1 now). Not against a
    // larger other: the smaller of two processes started 3 s apart read the larger's yields at its cap so
    // and took its share.)
    const pairAtBunch =
      this.bunched(limit) &&
      !this.smallShare &&
      beforeMax >= ONE_OTHER_SHARE * used &&
      used - reading >= beforeMax - 1;
    const byLatest = pairAtBunch || this.pairedWith(beforeMax, used);
    const othersNow = byLatest ? reading : Math.max(...recent.map(([, o]) => o));
    const fall = beforeMax - othersNow;
    // (Falling by no more than we grew meanwhile is the others yielding to our growth, not leaving...)
    // (A call that checked a fall is not growth the others yield to.)
    const checked =
      this.fallCheckedAtMs !== undefined && this.fallCheckedAtMs > countedAtMs - 3 * trendMs ? 1 : 0;
    const grew = Math.max(...recent.map(([, , m]) => m)) - Math.max(...before.map(([, , m]) => m)) - checked;
    // (Nor while the key stays where no sharing cap binds: then the others would have replaced.)
    const uncapped = Math.max(...recent.map(([, o, m]) => o + m)) <= sharedTop - band + 1;
    const threshold = pairAtBunch ? 1 : Math.max(2, band * LEAVING_FALL_BANDS);
    // (Not by a process holding under `ONE_OTHER_SHARE` of the key: others that hold the most of it and fall
    // are a larger process yielding at its cap, and their yields read as leaving let a late joiner take all
    // the room while that process grew into it too: at 30/min, 429s in 9 runs of 128; at 600/min the yield
    // to the band is 12 calls, more than the joiner grows meanwhile, and 97 runs of 128 had a 429. Except
    // from 120 to 240/min, where the calls are sparse but do not bunch: 120x2-late missed in 58 runs of 128
    // so, 37 without.)
    const yieldToUs = this.smallShare && (this.bunched(limit) || !this.sparse(limit));
    // (The others' count that counts as fallen, and whether it has stood there for `HOLD_MS`.)
    const low = beforeMax - (this.oneOther || pairAtBunch ? 1 : threshold);
    // (From 120 to 240/min, one of a pair whose other fell by 2 reads it as leaving once the fall has
    // outlasted a dip, `DIP_CONFIRM_MS`, not `HOLD_MS`: see there. The time it will have, if it lasts.)
    const fallOf2 =
      this.pairedWith(beforeMax, used) &&
      !this.bunched(limit) &&
      !this.othersLeaving &&
      fall >= 2 &&
      fall > grew;
    const dipOverAtMs = fallOf2
      ? this.fallSince(countedAtMs, beforeMax - 2) + Math.max(DIP_CONFIRM_MS, 3 * this.roundTripHighMs())
      : undefined;
    // (A pair's member where the calls bunch is never a `smallShare`, so never yielding to us.)
    this.fallConfirmAtMs =
      pairAtBunch && !this.othersLeaving && fall >= threshold && fall > grew
        ? this.fallSince(countedAtMs, low) + HOLD_MS
        : dipOverAtMs;
    if (
      (!yieldToUs &&
        fall >= threshold &&
        (fall > grew || uncapped) &&
        this.fallLasted(countedAtMs, low, limit)) ||
      (dipOverAtMs !== undefined && countedAtMs >= dipOverAtMs)
    ) {
      if (!this.othersLeaving) this.othersBeforeLeaving = beforeMax;
      this.othersLeaving = true;
    } else if (fall < 0) this.othersLeaving = false;
    // (Where the key's calls bunch, a key over the top is no one leaving: only the survivor fills a leaver's
    // room, up to the top. Read as leaving, a larger process's yield at the top let the other take each of
    // its calls as it left, the key at 30 of 30, and the yielder fell to 7 of 29 (real runs: 37/50). Only
    // while the others hold 40% of the key: a survivor's own calls sent together may take it over the top as
    // the leaver's last calls go, and leaving no longer, it held their count and idled 5 s.)
    if (this.bunched(limit) && used > sharedTop && reading >= ONE_OTHER_SHARE * used)
      this.othersLeaving = false;
  }

  /**
   * Where the key's calls are sparse, whether the others' count has stood at `low` or under for
   * `HOLD_MS` (elsewhere, at once): a fall seen for a moment there is the window's turnover, the owners'
   * replacements on their way. For a process that shares the key with one other (`ONE_OTHER_SHARE`, 120
   * to 240/min), `low` is one under the count before: measured against the whole fall, a steady one (the
   * other finished, its calls leaving one a second) never lasted, its line moving with it.
   */
  private fallLasted(countedAtMs: number, low: number, limit: number): boolean {
    if (!this.sparse(limit)) return true;
    return countedAtMs - this.fallSince(countedAtMs, low) >= HOLD_MS;
  }

  /** Since when the others' count has stood at `low` or under, by the readings of the trend. */
  private fallSince(countedAtMs: number, low: number): number {
    let since = countedAtMs;
    for (let i = this.trend.length - 1; i >= 0; i--) {
      const [at, others] = this.trend[i] as [number, number, number];
      if (others > low) break;
      since = at;
    }
    return since;
  }

  /**
   * Calls this process may add until its next answer: its share of the room by the fullest reading held
   * (all of it while the others leave), rounded at random. A single answer may have come in a dip
   * (several calls left the window at once, their replacements not in yet): on it, one at most.
   */
  private drawGrowth(limit: number, fullest: number, used: number, reading: number, held: number): number {
    const room = Math.max(0, this.policy(limit).top - fullest);
    const share =
      !this.othersPresent || this.othersLeaving
        ? 1
        : Math.max((used - reading) / Math.max(1, used), MIN_GROWTH_SHARE);
    const expected = held > 1 || !this.othersPresent ? room * share : Math.min(1, room * share);
    return Math.floor(expected) + (this.random() < expected - Math.floor(expected) ? 1 : 0);
  }

  /** A 429 told us to wait: every counted call of this process waits that long, then one probe goes. */
  pauseFor(ms: number): void {
    this.blockedUntilMs = Math.max(this.blockedUntilMs, this.clock.now() + ms);
    this.probeAtMs = this.blockedUntilMs;
  }

  private decide(now: number): RateDecision {
    if (now < this.blockedUntilMs) return { delayMs: this.blockedUntilMs - now, probe: false };
    const view = this.view;
    if (!view) return this.probeWhen(now, now);
    const policy = this.policy(view.limit);
    const own = this.ownStillCountedAt(now);
    const fallen = this.othersFallenSince(view, now);
    const u = own + view.others - fallen + 1;
    // Replacing own calls that left the window since the last answer cannot add to the key's count.
    // (Never into the last slot, though: that one only a 429 could tell us was taken.) Where the key's
    // calls bunch, the sharing cap for it counts the others' most of the last `HOLD_MS` only: held from
    // before a quiet gap, their count stood over the key's, and a late joiner at 30/min, its view 45 s
    // old, read the key as over its top and left its own calls unreplaced as they left (four processes
    // started 3 s apart: runs with a 429, 27 of 128 before, 12 now). (At 120/min, 120x4 missed in 16 runs
    // of 64 with it, 3 without.)
    const uReplacing = this.bunched(view.limit) ? own + view.othersLately - fallen + 1 : u;
    if (
      own + 1 <= view.own &&
      own + 1 <= policy.capAt(uReplacing) + view.left + fallen &&
      uReplacing < view.limit &&
      view.used < view.limit
    )
      return { delayMs: 0, probe: false };
    if (own + 1 <= policy.capAt(u) + view.left + fallen) {
      // Growing: under the top, within this process's share of the room, under the ramp line.
      const lag = view.filling ? this.othersRampGrowth(view, view, now, policy.top) : 0;
      // (The growth is counted from the fullest reading; the others' and own counts held are the most
      // of each over the readings, maybe from different ones seconds apart where the key's calls are
      // sparse, and their sum may stand over it: that much is no growth. Counted as growth, it
      // stopped both processes of a 120/min key at 12 with round trips of 0.8 s: none sent, so no
      // answer could tell them more.)
      const inflated = this.sparse(view.limit) ? Math.max(0, view.others + view.own - view.fullest) : 0;
      if (u + lag <= policy.top && u - inflated <= view.fullest + view.growth) {
        const line = this.rampLine(view, now);
        if (u <= line) return { delayMs: 0, probe: false };
        return { delayMs: Math.max(1, this.rampLineReachesMs(view, u) - now), probe: false };
      }
    }
    // No room by our view, but the view may be stale: the last answer was lost and none is on its way.
    // While it showed room, one call now refreshes it; waiting for the window to turn could idle a minute.
    if (this.lastAnswerLost && this.inFlight === 0 && own + view.others + 1 <= policy.top)
      return this.probeWhen(now, now);
    // Otherwise the view changes when one of our own calls leaves the window.
    const leaves = this.nextOwnDepartureMs(now);
    // Where the key's calls are sparse, the two calls below take a slot one of the others' calls may have
    // freed, before an answer of ours could show it: only with none of ours in flight (its answer is
    // news enough) and with the key, ours taking that slot, at most at the top.
    const mayTakeOthersSlot =
      this.sparse(view.limit) && this.inFlight === 0 && view.others > 0 && own + view.others <= policy.top;
    // The others, falling, held only their last few calls at our last answer, the key at most at the top:
    // when they leave, no answer of ours shows it until one of our own calls leaves, and at small allowances a
    // window's calls bunch, so that may be most of a minute away (a survivor sat at 26 of 30 for 45 s).
    // One call once the key's time for two calls has passed without an answer refreshes the view; if the
    // others are still there, it puts the key one over the top, which the reserve holds.
    if (
      mayTakeOthersSlot &&
      view.others <= policy.band &&
      this.trend.some(([, others]) => others > view.others)
    ) {
      const staleAt = view.atMs + this.callsMs(view.limit, 2);
      if (leaves === undefined || staleAt < leaves) return this.probeWhen(staleAt, now);
    }
    // A fall of 1 of a pair's other, where the key's calls bunch, is read as leaving once it has lasted 1 s
    // (from 120 to 240/min a fall of 2, once it has outlasted a dip), but no answer may come to show that
    // for seconds: one call then, if none of ours leaves first. (The other's last calls left three in two
    // seconds at a turn while the survivor waited for its own to leave: 30x2-early at 25 of 30.) If it was
    // a dip, the other has replaced by then, and the call puts the key one over the top, which the reserve
    // holds.
    const confirmAt = this.fallConfirmAtMs;
    if (mayTakeOthersSlot && confirmAt !== undefined && !this.othersLeaving) {
      if (leaves === undefined || confirmAt < leaves)
        return { ...this.probeWhen(confirmAt, now), checksFall: true };
    }
    // The others leave, and the window's oldest call is theirs: one call when it has left (by
    // X-RateLimit-Reset) takes its slot. Waiting for an answer to show it gone lets the window dip while a
    // window's calls leave in a bunch (at 30/min two a second, where the margin is one call).
    if (
      mayTakeOthersSlot &&
      this.othersLeaving &&
      this.resetFollowedFor !== view.atMs &&
      (leaves === undefined || view.resetAtMs + this.slackMs() < leaves)
    )
      return { ...this.probeWhen(view.resetAtMs, now), followsReset: view.atMs };
    // No room by our view, and none of the above: when none of our own calls will leave first, we
    // probe once the window's oldest call has left (X-RateLimit-Reset), or after a 429 once its
    // Retry-After is over.
    // (Into a key at the limit, a probe as the oldest call leaves is a 429 if its owner replaces it, as an
    // owner that has not seen us since does; Reset, whole seconds, may come most of a second after that
    // call left. The probe waits the key's time for one call more, by when the owner has seen us and, at
    // its cap, left a call unreplaced. Without it, 30x2-late took a 429 in 8 of 64 runs.)
    const afterFull = view.used >= view.limit ? this.callsMs(view.limit, 1) : 0;
    const probeAt = this.probeAtMs ?? view.resetAtMs + afterFull + view.probeSpreadMs;
    // (Not when one of ours leaves soon after: the key's time for a few calls; the reset-time probe
    // not when we hold a fair share already, see PROBE_BELOW_SHARE.)
    const mayProbe = this.probeAtMs !== undefined || own < PROBE_BELOW_SHARE * view.used;
    if (leaves === undefined || (mayProbe && probeAt + this.callsMs(view.limit, 4) < leaves))
      return this.probeWhen(probeAt, now);
    return { delayMs: Math.max(1, leaves - now), probe: false };
  }

  /**
   * While the one other process leaves (see `ONE_OTHER_SHARE`), how many of its calls have left the
   * window since the last answer, expected: its count before it began to leave, spread over the window,
   * leaves at that pace (rounded, so the first goes half a call's time after the answer). Its calls leave
   * about a second apart, and so do this process's answers: waiting for an answer to show each one, the
   * window stood 2-3 calls down (116 of 120). If the guess runs ahead, the next answer, a round trip
   * later, corrects it: the key one over the top, which the reserve holds.
   */
  private othersFallenSince(view: KeyView, now: number): number {
    if (!this.othersLeaving || !this.pairedWith(this.othersBeforeLeaving, view.used)) return 0;
    const sinceMs = Math.min(now - view.atMs, this.callsMs(view.limit, 2));
    const expected = (sinceMs * this.othersBeforeLeaving) / this.windowMs;
    return Math.min(view.others, Math.floor(expected + 0.5));
  }

  /** One probe at `atMs` (now, if that has passed), unless one is already on its way. */
  private probeWhen(atMs: number, now: number): RateDecision {
    if (now < atMs) return { delayMs: atMs - now, probe: false };
    return { delayMs: this.probeInFlight ? this.sliceMs : 0, probe: true };
  }

  /**
   * This process shares the key with one other of its size (`ONE_OTHER_SHARE`), the others holding
   * `others` of `used` too (they did before they left). (A small other, one that joined late, sends its
   * few calls in bunches: a reading 2 or more under its count was its replacements on their way, read as
   * leaving, and the calls taken between answers were 429s.)
   */
  private pairedWith(others: number, used: number): boolean {
    return this.oneOther && others >= ONE_OTHER_SHARE * used;
  }

  /** The key's time for `calls` calls at its allowance (one call every window / limit). */
  private callsMs(limit: number, calls: number): number {
    return (calls * this.windowMs) / limit;
  }

  /** The key's calls are `SPARSE_CALL_GAP_MS` or more apart: a process's answers come seconds apart. */
  private sparse(limit: number): boolean {
    return this.callsMs(limit, 1) >= SPARSE_CALL_GAP_MS;
  }

  /** The policy's figures for this process as it sees the key now (others present, one other). */
  private policy(limit: number) {
    return ratePolicy(
      limit,
      this.roundTripHighMs(),
      this.windowMs,
      this.othersPresent,
      this.oneOther,
      this.smallShare,
    );
  }

  /** See `keyCallsBunch` and `followLeaving`. */
  private bunched(limit: number): boolean {
    return keyCallsBunch(limit, this.windowMs);
  }

  /** A high estimate of the round trip (srtt + 4 deviations), bounded to a second. */
  private roundTripHighMs(): number {
    return this.srttMs === undefined ? 0 : Math.min(1_000, this.srttMs + 4 * this.rttVarMs);
  }

  /** When a call sent at `sentAtMs` will be counted, estimated: half a smoothed round trip later. */
  private arrivalOfCallSentAt(sentAtMs: number): number {
    return sentAtMs + (this.srttMs ?? 0) / 2;
  }

  /**
   * How far an estimated counting time may be off (one-way delays are not half the round trip): for a
   * call whose answer has not come back (or was lost), that long after its estimate it has surely been
   * counted.
   */
  private slackMs(): number {
    return Math.min(1_000, (this.srttMs ?? 0) / 2 + 2 * this.rttVarMs) + 1;
  }

  private recordRoundTrip(ms: number): void {
    if (!(ms >= 0)) return;
    if (this.srttMs === undefined) {
      this.srttMs = ms;
      this.rttVarMs = ms / 2;
      return;
    }
    this.rttVarMs += (Math.abs(ms - this.srttMs) - this.rttVarMs) / 4;
    this.srttMs += (ms - this.srttMs) / 8;
  }

  /**
   * Own calls the server counts in its window at server time `atMs`: counted in (atMs - window, atMs].
   * With `sentWithMs` (the answer's call), not the unanswered calls sent with it or after it: their
   * estimated counting time is its own, but they may reach the server after it. (Counted in, they made
   * the others' count too low by as many; a survivor at 120/min that took the others' latest count as they
   * left sent three calls into that room at once and took a 429 on the fake clock.)
   */
  private ownInWindowAt(atMs: number, sentWithMs = Number.POSITIVE_INFINITY): number {
    let n = 0;
    // countedAtMs lies within a second after sentAtMs, so the scan can stop a second early.
    for (let i = this.own.length - 1; i >= this.head; i--) {
      const call = this.own[i] as OwnCall;
      if (call.sentAtMs <= atMs - this.windowMs - 1_000) break;
      if (!call.settled && call.sentAtMs >= sentWithMs) continue;
      if (call.countedAtMs > atMs - this.windowMs && call.countedAtMs <= atMs) n++;
    }
    return n;
  }

  /** Own calls that may still be in the server's window when a call sent now arrives. */
  private ownStillCountedAt(now: number): number {
    let n = 0;
    this.forOwnMaybeInWindow(now, () => n++);
    return n;
  }

  /** When the earliest own call that may still be in the window has surely left it. */
  private nextOwnDepartureMs(now: number): number | undefined {
    let earliest = Number.POSITIVE_INFINITY;
    this.forOwnMaybeInWindow(now, (countedByMs) => (earliest = Math.min(earliest, countedByMs)));
    return earliest === Number.POSITIVE_INFINITY ? undefined : earliest + this.windowMs + 1;
  }

  /**
   * Each own call that may still be in the window at `now`, with the time by which it was surely
   * counted: its answer's arrival, or, unanswered, its estimated counting time plus `slackMs`. (A
   * replacement sent a window after its predecessor's answer cannot reach the server before the
   * predecessor left. Timed from the estimate plus the slack instead, replacements arrived a round
   * trip and two deviations after their predecessors left, the window a call short that long at
   * every turn.)
   */
  private forOwnMaybeInWindow(now: number, each: (countedByMs: number) => void): void {
    const slack = this.slackMs();
    const from = now - this.windowMs;
    for (let i = this.own.length - 1; i >= this.head; i--) {
      const call = this.own[i] as OwnCall;
      // (Counted within the slowest answer after it was sent, or a second for the unanswered.)
      if (call.sentAtMs <= from - Math.max(1_000, this.slowestAnswerMs) - slack) break;
      const countedByMs = call.answeredAtMs ?? call.countedAtMs + slack;
      if (countedByMs > from) each(countedByMs);
    }
  }

  /**
   * The key-wide ramp: while the window fills, the key's count may grow by `RAMP_SPEED x limit` a
   * window from its oldest call (`X-RateLimit-Reset` less a window, the same for every process), so
   * the calls of all processes spread evenly over the window and interleave, whatever their number.
   * Once the window has been full for a window, its oldest call is a window old and the line is
   * past the allowance: it no longer binds.
   */
  private rampLine(view: Pick<KeyView, 'limit' | 'resetAtMs'>, now: number): number {
    return 2 + Math.floor(this.rampPerMs(view) * Math.max(0, now - this.rampOriginMs(view)));
  }

  /**
   * While the window fills, the others keep growing along the ramp line after a reading: a process's
   * answers come one per n line steps, so its reading lags the key by the others' calls since (n - 1
   * at n processes: their share of the line's steps). Counted in, up to `top` (the key stops there),
   * so that the processes do not all take the last slots under `top` from readings a few calls old,
   * nor read that old reading as room when the window's first calls leave.
   */
  private othersRampGrowth(
    key: Pick<KeyView, 'limit' | 'resetAtMs'>,
    reading: { atMs: number; others: number; own: number },
    now: number,
    top: number,
  ): number {
    const from = this.rampLine(key, reading.atMs);
    const to = Math.min(this.rampLine(key, now), top);
    if (to <= from) return 0;
    const grown = Math.floor(((to - from) * reading.others) / Math.max(1, reading.others + reading.own));
    return Math.max(0, Math.min(grown, top - reading.others - reading.own));
  }

  private rampLineReachesMs(view: KeyView, u: number): number {
    return this.rampOriginMs(view) + Math.ceil((u - 2) / this.rampPerMs(view));
  }

  /**
   * The window's oldest call, as the headers tell it: Reset is whole seconds, rounded up, so it was counted
   * in (Reset - 61 s, Reset - 60 s]; the line starts from the latest of those. (From the earliest, the
   * line ran ahead of the fill by how far into a second the key's first call came, and the calls it let go
   * at once left together a window later, at every turn: over eight phases of a second, seeds 1-8, 30x4
   * missed in 38 runs of 64 and 120x2-early in 32, 8 and 6 now.)
   */
  private rampOriginMs(view: Pick<KeyView, 'resetAtMs'>): number {
    return view.resetAtMs - this.windowMs;
  }

  private rampPerMs(view: Pick<KeyView, 'limit'>): number {
    return Math.max((RAMP_SPEED * view.limit) / this.windowMs, RAMP_MIN_PER_S / 1_000);
  }

  /** Own calls counted in (fromMs, toMs]. */
  private countCounted(fromMs: number, toMs: number): number {
    let n = 0;
    for (let i = this.own.length - 1; i >= this.head; i--) {
      const call = this.own[i] as OwnCall;
      if (call.sentAtMs <= fromMs - 1_000) break;
      if (call.countedAtMs > fromMs && call.countedAtMs <= toMs) n++;
    }
    return n;
  }

  /**
   * The own call a permit stands for. Calls sent in the same millisecond are alike, so each answer takes
   * one still unsettled. (Always the last of them, the others stayed unsettled and uncounted: three calls
   * sent at once read as the others' growth of 2, and a survivor at 120/min took 2 fewer of a leaver's slots.)
   */
  private findOwn(sentAtMs: number): OwnCall | undefined {
    let found: OwnCall | undefined;
    for (let i = this.own.length - 1; i >= this.head; i--) {
      const call = this.own[i] as OwnCall;
      if (call.sentAtMs < sentAtMs) break;
      if (call.sentAtMs === sentAtMs && (!found || !call.settled)) found = call;
    }
    return found;
  }

  private prune(now: number): void {
    const horizon = now - 2 * this.windowMs;
    while (this.head < this.own.length && (this.own[this.head] as OwnCall).sentAtMs < horizon) this.head++;
    if (this.head > 1024 && this.head * 2 > this.own.length) {
      this.own = this.own.slice(this.head);
      this.head = 0;
    }
  }
}
