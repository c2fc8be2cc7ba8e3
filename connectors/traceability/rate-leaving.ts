// Whether the other processes on the key are leaving (one finished), read from the trend of their count
// in this process's answers: a fall that outlasts a dip and is more than their yield to our growth.

import {
  HOLD_MS,
  ONE_OTHER_SHARE,
  TREND_CALLS,
  TREND_MS,
  keyBandOfTwo,
  keyCallsBunch,
  keyCallsMs,
  keyCallsSparse,
} from './rate-policy';

/**
 * The others' count (the most seen over `TREND_MS`) lower by this many bands (at least 2 calls) than it
 * was two `TREND_MS` before, and by more than our own count grew meanwhile (a fall no larger is the others
 * yielding to our growth) or with the key where the sharing cap binds no one: the others are leaving (a
 * process finished). Their latest count holds then (a fall is no dip), the whole room is taken, not a share
 * of it, and the sharing cap is raised by what they left since they began to leave. (Lifted whole, the cap
 * let one process take the key in a real run, and two survivors both took the leaver's room: the others'
 * yields read as leaving.)
 */
const LEAVING_FALL_BANDS = 0.75;
/**
 * ...and over 240/min (the key's calls under 250 ms apart) this many: there a pair's survivor heard the fall a
 * round trip late on an API far away, and the key, settled half a band under its top, stood 3/4 of a band lower
 * still before it read a leaving (3000x2-early at 100 ms each way: 2,901 of 3,000 at 124 s against a goal of
 * 2,910). At half a band, fake clock, seeds 1-4 x two phases at 100 ms, runs under the goal: 600x2-handoff 5 -> 2,
 * 300x2-handoff 6 -> 4, 450x2-handoff 2 -> 1, 3000x2-early (seeds 1-4) 2 -> 1, the seconds under it a run down by
 * a fifth to a half in every pair's cell; a 429 in 1 run of 8 in three handoff cells (0 before). From 175 to
 * 240/min, where the band is 4-5 calls, it changed nothing but a 429 in 4 runs of 8 at 180x2 (session 41).
 */
const DENSE_LEAVING_FALL_BANDS = 0.5;
/**
 * From 120 to 240/min, one of a pair (see `ONE_OTHER_SHARE`) reads its other's fall of 2 as leaving once it
 * has lasted this long (or three high round trips), not `HOLD_MS`: the other replaces what leaves within a
 * round trip and its timer's lag, so a dip is over by then. The survivor of a pair whose other finished saw
 * no answer for up to 2 s at the turn, and a fall seen then waited a second more while the other's calls
 * left one or more a second: 116 of 120 (120x2-early missed in 24 runs of 128 on the fake clock, 6 now).
 */
const DIP_CONFIRM_MS = 250;
/**
 * From 120 to 240/min, one of a pair whose other holds at most a call more than it reads the other's fall
 * of 1, with the key under its top, as leaving once the fall has lasted this long (or three high round
 * trips) and `FALL_OF_1_READINGS` answers have shown it: the first, and calls that check it when no answer
 * comes first (see `confirmAtMs`). The finisher's calls leave about one a second, and so do the survivor's
 * answers: read at a fall of 2, the window stood at 117 of 120, the goal exactly, in most runs, and at 116
 * when a third call left first (120x2-early on the fake clock, seeds 1-16 over eight phases: 6 runs of 128
 * missed, 13 with timers 20 ms late). Read once one check showed it, the check came in the other's next
 * dip in some runs, a call of its own on its way, and the reader took it: 429s in 23 runs of 128 of 120x2.
 */
const FALL_OF_1_MS = 400;
const FALL_OF_1_READINGS = 3;
/**
 * From 120 to 240/min, one of a pair that reads its other as leaving checks the reading once this long
 * has passed: a leaver's calls leave at the pace it sent them (its count before, spread over the window),
 * and if its count fell by less than half of that since, it is not leaving. (A dip at the window's first
 * turn read as leaving stood for minutes, no fall ever following and no rise past the count before: the
 * reader took the other's calls as they left, 90/266, with timers 20 ms late on the fake clock.)
 */
const LEAVING_STALL_MS = 3_000;

/**
 * The others' count rising again ends their leaving; once it has fallen `LEAVING_SETTLED_BANDS` bands since they
 * began to leave, only a rise of more than `LEAVING_RISE_BANDS` of a band does (a call or more where the band is
 * 4 calls or more, over 170/min; under that, any rise, as before). A leaver's count may stand still for seconds
 * (the window's first fill, at 1.15 allowances a window, leaves a stretch of it with no call, and so does every
 * window after) and then read a call higher: read as the end of the leaving, the survivor's cap lost what the
 * leaver had left (a leaving read again counted from there), and, by its cap one of two sharing the key, it
 * yielded to the leaver's last calls (rolling restart on the fake clock, seeds 1-16 x four phases: 3,000/min
 * 96.6% for 15 s in 2 runs of 64; 6,000/min nothing sent for 2 s, 1 run of 16 of seeds 1-8 x two phases; none
 * now). Not before the fall is that deep: of four processes at 3,000/min, one read the others' yields as leaving
 * and kept reading it, and the split went to 2972/1965/2011/2003 (1 run of 64).
 */
const LEAVING_SETTLED_BANDS = 2;
const LEAVING_RISE_BANDS = 0.25;

/**
 * Over 240/min (the key's calls dense), a process holding under `ONE_OTHER_SHARE` of the key reads the others'
 * fall as leaving, as a larger one does, once the key's count stood this many bands under its top at every
 * answer of the last second: an incumbent yielding at its cap keeps the key within a band of the top, so the
 * key that far down is a process gone. In a rolling restart (a process joins, the incumbent stops a window
 * later; `x2-handoff` in the benchmarks) the joiner held a quarter of the key, never read the incumbent's
 * leaving, and took its room a share at a time: the key stood 20-30 s under the goal (fake clock, 600/min:
 * 32.8 s under it a run, seeds 1-16 x eight phases; 0.59 s now). At 1 band, late joiners read the incumbent's
 * yields so and took its share: its calls in the last minute under 60% of even in 10 runs of 128 (down to
 * 32%). Not at 240/min and under, where a joiner hears too seldom for it to help (see the client README).
 */
const LEAVING_DEEP_BANDS = 1.25;

/**
 * Up to 174/min (see `keyBandOfTwo`), a process holding under `ONE_OTHER_SHARE` of the key reads the others'
 * fall as leaving, as a larger one does, once the key stood a band (2 calls) under its top for this long (a
 * call further under where the calls bunch: see `QUIET_BUNCHED_DEEPER_CALLS`); if the key stood lower still
 * and no answer comes to show the fall lasted, a call then checks it. In a rolling restart (`x2-handoff`, see
 * `LEAVING_DEEP_BANDS`) the joiner held a fifth of the key, never read the incumbent's leaving, took its room
 * a share at a time, and heard nothing for 30-40 s while its calls left: at 120/min 38.6 s under the goal a
 * run (fake clock, seeds 1-16 x eight phases), 1.75 s now, the second after the stop, before any answer can
 * show it (2.0 s without the check; with it at 250 ms 1.5 s, but four processes started together took a 429
 * in 1 run of 128; checking a key only 2 under its top, those four, replacing their first calls at once, all
 * read that dip and checked it together: 429s in 26 runs of 128). Its answers seconds apart, the reading
 * before its last few is kept as the base of the fall, as where the key's calls bunch.
 */
const QUIET_LEAVING_MS = 400;
/**
 * ...and it looks (`QUIET_LEAVING_LOOK_MS` in rate-looks.ts) for this long after it saw the key more than a
 * band under its top, though the fall did not last: it took that room as growth, the key full at its next
 * answer, and heard nothing for 35 s while the leaver's calls left (2.5 s under the goal a run without these
 * looks). From a key only a band under, four processes at a window's turnover looked at once (120x4, started
 * 100 ms apart: the split 0.91 of even in one run, a window at 116).
 */
const QUIET_FALL_LOOKS_MS = 5_000;
/**
 * Where the key's calls bunch (under 120/min), the key must stand this many calls further under its top for
 * the reads of `QUIET_LEAVING_MS`: a window's turnover leaves it a band under for seconds. Read at a band, a
 * joiner in 30x2-late (timers 20 ms late) took two such dips 4 s apart for a leaving, took the key to the
 * limit, and with its view there left its own calls unreplaced: 40 s at 26 of 30 (1 run of 128). A call
 * deeper, 30x2-handoff went from 18.4 to 4.0 s under the goal a run and the other 30/min cells print what
 * they printed (timers 20 ms late too).
 */
const QUIET_BUNCHED_DEEPER_CALLS = 1;

/** Where this process stands on the key at an answer (see `ratePolicy`). */
export interface ProcessShare {
  limit: number;
  /** It holds `ONE_OTHER_SHARE` of the key's count or more, where that counts. */
  oneOther: boolean;
  /** It holds under `ONE_OTHER_SHARE` of the key's count. */
  smallShare: boolean;
  /** A high estimate of the round trip (srtt + 4 deviations). */
  roundTripHighMs: number;
}

/**
 * In the reading counted at `atMs` (`[at, others, own, ...]`), one call moves from the others' count to the own
 * count, if the others' holds one: a call of ours that reading took for theirs. Returns that reading.
 */
export function countOneAsOwn<R extends [number, number, number, ...unknown[]]>(
  readings: R[],
  atMs: number,
): R | undefined {
  const reading = readings.find(([at]) => at === atMs);
  if (!reading || reading[1] < 1) return undefined;
  reading[1] -= 1;
  reading[2] += 1;
  return reading;
}

/** The others' trend as one process reads it, and whether they are leaving; `AdaptiveRateLimiter` feeds it. */
export class OthersLeaving {
  /** The others' count fell by `LEAVING_FALL_BANDS` (see there). */
  private leaving = false;
  /** The others' count before they began to leave. */
  private othersBeforeLeaving = 0;
  /** When their leaving was read, and their count then (see `LEAVING_STALL_MS`). */
  private leavingReadAt: [number, number] = [0, 0];
  /**
   * Where a fall of a pair's other may be its leaving (see `follow`): when it will have lasted long
   * enough to tell, and a call then checks it if no answer comes first (see `decide` in rate-limiter.ts).
   */
  private fallConfirmAtMs: number | undefined;
  /** When the calls that checked such falls went, over the last three `TREND_MS` or so. */
  private checksAtMs: number[] = [];
  /** Readings over the last three `TREND_MS`: [counted at, others, own]. */
  private trend: Array<[number, number, number]> = [];

  /** When this process, small, last saw the key more than a band under its top (see `QUIET_FALL_LOOKS_MS`). */
  private quietFallAtMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly windowMs: number) {}

  /** The others are leaving. */
  get active(): boolean {
    return this.leaving;
  }

  /** The others' count before they began to leave. */
  get othersBefore(): number {
    return this.othersBeforeLeaving;
  }

  /** When a fall of a pair's other will have lasted long enough to tell, if it lasts. */
  get confirmAtMs(): number | undefined {
    return this.fallConfirmAtMs;
  }

  /** A call went out to check a fall (see `confirmAtMs`): it is not growth the others yield to. */
  checkSent(now: number): void {
    this.checksAtMs.push(now);
  }

  /**
   * Until when a process with no answer sends calls to see (see `QUIET_LEAVING_LOOK_MS` in rate-looks.ts):
   * while the others leave, and up to 174/min for `QUIET_FALL_LOOKS_MS` after a small process saw the
   * key more than a band under its top.
   */
  lookingUntilMs(): number {
    return this.leaving ? Number.POSITIVE_INFINITY : this.quietFallAtMs + QUIET_FALL_LOOKS_MS;
  }

  /** A call of ours the reading counted at `countedAtMs` took for the others' (see `AdaptiveRateLimiter`). */
  ownCountedFirst(countedAtMs: number): void {
    countOneAsOwn(this.trend, countedAtMs);
  }

  /** The others held more than `others` at some reading of the trend. */
  heldMoreThan(others: number): boolean {
    return this.trend.some(([, count]) => count > others);
  }

  /**
   * Reads one answer: whether the others are leaving (see `LEAVING_FALL_BANDS`), from the trend of their count.
   * `ownUnanswered`: own calls sent with the answer's call and still unanswered, which `reading` counts in.
   */
  follow(
    share: ProcessShare,
    countedAtMs: number,
    reading: number,
    used: number,
    sharedTop: number,
    band: number,
    ownUnanswered = 0,
  ): void {
    const { limit, smallShare, oneOther } = share;
    const bunched = keyCallsBunch(limit, this.windowMs);
    const trendMs = Math.max(TREND_MS, keyCallsMs(limit, TREND_CALLS, this.windowMs));
    // (Where two of the key's calls take over a second (under 120/min) a window's calls bunch, and its
    // turnover follows a quiet minute: the last reading before it is the base a fall is measured from, or
    // the others' leaving reads only after 2 x 4 s of readings at 30/min, by when the window is 3 calls
    // down. So too for a process sharing the key with one other (`ONE_OTHER_SHARE`): its answers come in
    // bunches seconds apart, and with no reading 2 s old the leaving read a second late, the window 3
    // calls down. Not for the others at 120/min: there four processes' answers come seconds apart, and a
    // base that old read their yields as leaving; one of four took twice its share in real runs.)
    // (So too for a small process where the band is 2 calls: see `QUIET_LEAVING_MS`.)
    const quietSmall = smallShare && keyBandOfTwo(limit, this.windowMs);
    const base =
      bunched || oneOther || quietSmall
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
    // Leaving once they fell by 3/4 of the band (at least 2; over 240/min half); no longer once they grow again.
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
    const otherAtMostOneMore = used - reading >= beforeMax - 1;
    const pairAtBunch = bunched && !smallShare && beforeMax >= ONE_OTHER_SHARE * used && otherAtMostOneMore;
    // (One of a pair from 120 to 240/min, where `oneOther` counts: see `pairedWith`.)
    const paired = pairedWith(oneOther, beforeMax, used) && !bunched;
    const byLatest = pairAtBunch || paired;
    const othersNow = byLatest ? reading : Math.max(...recent.map(([, o]) => o));
    const fall = beforeMax - othersNow;
    // (Falling by no more than we grew meanwhile is the others yielding to our growth, not leaving...)
    // (A call that checked a fall is not growth the others yield to.)
    // (Where the calls bunch, any checks count as one: counted each, 30x2-early missed in 9 runs of 64.)
    this.checksAtMs = this.checksAtMs.filter((at) => at > countedAtMs - 6 * trendMs);
    const checks = this.checksAtMs.filter((at) => at > countedAtMs - 3 * trendMs).length;
    const checked = bunched ? Math.min(1, checks) : checks;
    const grew = Math.max(...recent.map(([, , m]) => m)) - Math.max(...before.map(([, , m]) => m)) - checked;
    // (Nor while the key stays where no sharing cap binds: then the others would have replaced.)
    const recentKeyMost = Math.max(...recent.map(([, o, m]) => o + m));
    const uncapped = recentKeyMost <= sharedTop - band + 1;
    const fallBands = keyCallsSparse(limit, this.windowMs) ? LEAVING_FALL_BANDS : DENSE_LEAVING_FALL_BANDS;
    const threshold = pairAtBunch ? 1 : Math.max(2, band * fallBands);
    // (Not by a process holding under `ONE_OTHER_SHARE` of the key: others that hold the most of it and fall
    // are a larger process yielding at its cap, and their yields read as leaving let a late joiner take all
    // the room while that process grew into it too: at 30/min, 429s in 9 runs of 128; at 600/min the yield
    // to the band is 12 calls, more than the joiner grows meanwhile, and 97 runs of 128 had a 429. From 120
    // to 240/min too, where a small process keeps back 1 call like the others: read there, the incumbent's
    // yields at the top let the joiner take all of its room, 429s in 52 runs of 128 on the fake clock.)
    // (But over 240/min, yes, once the key stood `LEAVING_DEEP_BANDS` under its top over the last second: see
    // there; and up to 174/min, once it stood a band under it for `QUIET_LEAVING_MS`.)
    const quietLow = sharedTop - band - (bunched ? QUIET_BUNCHED_DEEPER_CALLS : 0);
    const quietDeep = quietSmall && recentKeyMost <= quietLow;
    const deep =
      quietDeep ||
      (!keyCallsSparse(limit, this.windowMs) &&
        recentKeyMost <= sharedTop - Math.round(band * LEAVING_DEEP_BANDS));
    const yieldToUs = smallShare && !deep;
    // (Nor by one of a pair while the key stood over its top at a reading of the trend: then every process
    // yields at its cap, and not knowing what the others yield, together they yield more than the excess. A
    // third process that joined a pair took the key over the top; one of the pair read the other's yield,
    // with the joiner's, as leaving and took their calls: 3-7 429s a run on the fake clock, seed 1.)
    const overTop = paired && this.trend.slice(0, -1).some(([, o, m]) => o + m > sharedTop);
    // (The others' count that counts as fallen, and whether it has stood there for `HOLD_MS`.)
    const low = beforeMax - (oneOther || pairAtBunch ? 1 : threshold);
    // (From 120 to 240/min, one of a pair whose other fell by 2 reads it as leaving once the fall has
    // outlasted a dip, `DIP_CONFIRM_MS`, not `HOLD_MS`: see there. The time it will have, if it lasts.)
    const fallOf2 = paired && !overTop && !this.leaving && fall >= 2 && fall > grew;
    // (A fall of 1, see `FALL_OF_1_MS`: the readings that show it, and when the next check is due.)
    const fallOf1 =
      paired &&
      otherAtMostOneMore &&
      !overTop &&
      !this.leaving &&
      fall === 1 &&
      fall > grew &&
      used - checked < sharedTop;
    const fall1 = fallOf1 ? this.fallOf1Shown(countedAtMs, beforeMax, share.roundTripHighMs) : undefined;
    const dipOverAtMs = fallOf2
      ? this.fallSince(countedAtMs, beforeMax - 2) + Math.max(DIP_CONFIRM_MS, 3 * share.roundTripHighMs)
      : fall1?.checkAtMs;
    // (A pair's member where the calls bunch is never a `smallShare`, so never yielding to us.)
    this.fallConfirmAtMs =
      pairAtBunch && !this.leaving && fall >= threshold && fall > grew
        ? this.fallSince(countedAtMs, low) + HOLD_MS
        : dipOverAtMs;
    const fallOutlastsMs = quietDeep ? QUIET_LEAVING_MS : HOLD_MS;
    const fallRead = !yieldToUs && !overTop && fall >= threshold && (fall > grew || uncapped);
    // (A small process that saw the key more than a band under its top looks: see `QUIET_FALL_LOOKS_MS`.)
    if (quietSmall && fallRead && recentKeyMost < quietLow) {
      this.quietFallAtMs = countedAtMs;
      if (!this.leaving && !this.fallLasted(countedAtMs, low, limit, QUIET_LEAVING_MS))
        this.fallConfirmAtMs = this.fallSince(countedAtMs, low) + QUIET_LEAVING_MS;
    }
    if (
      (fallRead && this.fallLasted(countedAtMs, low, limit, fallOutlastsMs)) ||
      (dipOverAtMs !== undefined && countedAtMs >= dipOverAtMs && (fall1?.told ?? true))
    ) {
      if (!this.leaving) {
        this.othersBeforeLeaving = beforeMax;
        this.leavingReadAt = [countedAtMs, reading];
      }
      this.leaving = true;
    } else if (fall < -this.riseWithinLeaving(reading, band)) this.leaving = false;
    if (
      this.leaving &&
      pairedWith(oneOther, this.othersBeforeLeaving, used) &&
      this.leavingStalled(countedAtMs, reading)
    )
      this.leaving = false;
    // (Where the key's calls bunch, a key over the top is no one leaving: only the survivor fills a leaver's
    // room, up to the top. Read as leaving, a larger process's yield at the top let the other take each of
    // its calls as it left, the key at 30 of 30, and the yielder fell to 7 of 29 (real runs: 37/50). Only
    // while the others hold 40% of the key: a survivor's own calls sent together may take it over the top as
    // the leaver's last calls go, and leaving no longer, it held their count and idled 5 s. Nor the own calls sent
    // with this reading's and still unanswered, which it counts as the others': a survivor at 30/min that sent
    // two at once read 12 of 30, not 11, ended the leaving, yielded its own calls at the key over its top, and
    // heard nothing for 4 s while the leaver's calls left: 25 of 30, fake clock.)
    if (bunched && used > sharedTop && reading - ownUnanswered >= ONE_OTHER_SHARE * used)
      this.leaving = false;
  }

  /**
   * Where the key's calls are sparse, whether the others' count has stood at `low` or under for
   * `HOLD_MS` (elsewhere, at once): a fall seen for a moment there is the window's turnover, the owners'
   * replacements on their way. For a process that shares the key with one other (`ONE_OTHER_SHARE`, 120
   * to 240/min), `low` is one under the count before: measured against the whole fall, a steady one (the
   * other finished, its calls leaving one a second) never lasted, its line moving with it.
   */
  private fallLasted(countedAtMs: number, low: number, limit: number, lastsMs: number): boolean {
    if (!keyCallsSparse(limit, this.windowMs)) return true;
    return countedAtMs - this.fallSince(countedAtMs, low) >= lastsMs;
  }

  /**
   * A pair's other fell by 1 (see `FALL_OF_1_MS`): when the fall will have lasted long enough, or, shown by
   * too few answers yet, when the next call checks it; and whether enough answers have shown it.
   */
  private fallOf1Shown(
    countedAtMs: number,
    beforeMax: number,
    roundTripHighMs: number,
  ): { checkAtMs: number; told: boolean } {
    const since = this.fallSince(countedAtMs, beforeMax - 1);
    const readings = this.trend.filter(([at]) => at >= since).length;
    const lastsMs = Math.max(FALL_OF_1_MS, 3 * roundTripHighMs);
    const steps = FALL_OF_1_READINGS - 1;
    return {
      checkAtMs: since + (lastsMs * Math.min(readings, steps)) / steps,
      told: readings >= FALL_OF_1_READINGS,
    };
  }

  /** How far the others' count may rise while they leave before it ends their leaving (see `LEAVING_RISE_BANDS`). */
  private riseWithinLeaving(reading: number, band: number): number {
    const fallen = this.othersBeforeLeaving - reading;
    return fallen >= LEAVING_SETTLED_BANDS * band ? Math.floor(band * LEAVING_RISE_BANDS) : 0;
  }

  /** The others' count, read as leaving, fell since by less than half of a leaver's pace (see `LEAVING_STALL_MS`). */
  private leavingStalled(countedAtMs: number, reading: number): boolean {
    const [readAtMs, othersThen] = this.leavingReadAt;
    const sinceMs = countedAtMs - readAtMs;
    if (sinceMs < LEAVING_STALL_MS || reading === 0) return false;
    return othersThen - reading < (sinceMs * this.othersBeforeLeaving) / this.windowMs / 2;
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
   * While the one other process leaves (see `ONE_OTHER_SHARE`), how many of its calls have left the
   * window since the last answer, expected: its count before it began to leave, spread over the window,
   * leaves at that pace (rounded, so the first goes half a call's time after the answer). Its calls leave
   * about a second apart, and so do this process's answers: waiting for an answer to show each one, the
   * window stood 2-3 calls down (116 of 120). If the guess runs ahead, the next answer, a round trip
   * later, corrects it: the key one over the top, which the reserve holds.
   */
  fallenSince(
    view: { limit: number; used: number; others: number; atMs: number; resetAtMs: number },
    now: number,
    oneOther: boolean,
  ): number {
    if (!this.leaving || !pairedWith(oneOther, this.othersBeforeLeaving, view.used)) return 0;
    // (Up to 174/min, none before a second ahead of the view's Reset: that is when the window's oldest call
    // leaves, whole seconds rounded up, and a leaver's calls may stand bunched behind a gap.)
    const from = keyBandOfTwo(view.limit, this.windowMs)
      ? Math.max(view.atMs, view.resetAtMs - 1_000)
      : view.atMs;
    if (now <= from) return 0;
    const sinceMs = Math.min(now - from, keyCallsMs(view.limit, 2, this.windowMs));
    const expected = (sinceMs * this.othersBeforeLeaving) / this.windowMs;
    return Math.min(view.others, Math.floor(expected + 0.5));
  }
}

/**
 * This process shares the key with one other of its size (`ONE_OTHER_SHARE`), the others holding
 * `others` of `used` too (they did before they left). (A small other, one that joined late, sends its
 * few calls in bunches: a reading 2 or more under its count was its replacements on their way, read as
 * leaving, and the calls taken between answers were 429s.)
 */
function pairedWith(oneOther: boolean, others: number, used: number): boolean {
  return oneOther && others >= ONE_OTHER_SHARE * used;
}
