// What one process knows of the key from its own answers (`KeyReadings`): the key's count, its own and the
// others' share of it, held over `HOLD_MS` so that a dip does not read as room, and the growth it may add until
// its next answer. `AdaptiveRateLimiter` (rate-limiter.ts) decides from this view when the next call goes.
import { countOneAsOwn, type OthersLeaving } from './rate-leaving';
import type { KeyLooks } from './rate-looks';
import type { OwnCalls } from './rate-own-calls';
import type { KeyRamp } from './rate-ramp';
import { ServerClock } from './rate-server-clock';
import {
  HOLD_MS,
  ONE_OTHER_SHARE,
  keyCallsBunch,
  keyCallsMs,
  keyCallsSparse,
  ratePolicy,
} from './rate-policy';

/** What one answer's `X-RateLimit-*` headers said. */
export interface RateLimitObservation {
  limit: number;
  remaining: number;
  /**
   * `X-RateLimit-Reset` converted to Unix milliseconds: by the server's clock (the spec's Unix seconds), or by
   * this host's where `resetOnHostClock` (a gateway's delta seconds, counted from the answer's arrival).
   */
  resetAtMs: number;
  resetOnHostClock?: boolean;
  /** The answer's `Date` header (the server's clock, whole seconds), if it had one: see `ServerClock`. */
  serverDateMs?: number;
}

/** The key's state as this process last saw it. */
export interface KeyView {
  limit: number;
  /**
   * While the others leave (see `OthersLeaving`), how far their count fell since they began to: the sharing
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
  /** ...at the latest answer alone, not held (see `replaceOwn` in rate-limiter.ts). */
  othersLatest: number;
  /** Dispatch time of the call whose answer this is. */
  atMs: number;
  /** When the server counted that call (see `OwnCalls.settle`). */
  countedAtMs: number;
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
  /** The others were filling the window along the ramp line at that answer (see `KeyRamp.othersGrowth`). */
  filling: boolean;
  /** A random delay after `resetAtMs` before probing, so stuck processes do not probe at one instant. */
  probeSpreadMs: number;
}

/**
 * Where the key's calls are sparse (see `keyCallsSparse`) and the latest answer came after a gap this long
 * or more, the last reading before the gap is held too, not only those of the last `HOLD_MS`.
 */
const QUIET_GAP_MS = 5_000;

/**
 * The least share of the room a process takes for its growth, whatever its own share of the window:
 * a process that has just started holds nothing yet and must still grow.
 */
const MIN_GROWTH_SHARE = 0.25;

/** The view of the key this process reads from its answers, and the readings it holds to read it. */
export class KeyReadings {
  /** The key as the latest answer (of the latest call) showed it; undefined before the first. */
  view: KeyView | undefined;
  /** Others hold calls in the window (this process is not alone on the key). */
  othersPresent = false;
  /** This process holds `ONE_OTHER_SHARE` of the key's count or more, where that counts (see there). */
  oneOther = false;
  /** This process holds under `ONE_OTHER_SHARE` of the key's count (see `SMALL_SHARE_BAND` in rate-policy.ts). */
  smallShare = false;
  /** The server's clock against this host's, to read `X-RateLimit-Reset` on ours. */
  private readonly serverClock = new ServerClock();
  /**
   * Recent readings over `HOLD_MS` and the last one before: [counted at, others, own, 1 if the others
   * were then filling the window along the ramp line (see `KeyRamp.othersGrowth`)].
   */
  private readings: Array<[number, number, number, boolean]> = [];
  /** The readings the view was read from, as `holdReading` returned them (see `ownCountedFirst`). */
  private viewReadings: Array<[number, number, number]> = [];

  constructor(
    private readonly windowMs: number,
    private readonly own: OwnCalls,
    private readonly ramp: KeyRamp,
    private readonly leaving: OthersLeaving,
    private readonly looks: KeyLooks,
    private readonly random: () => number,
  ) {}

  /** This host's time `hostMs` on the server's clock (see `ServerClock`). */
  serverTimeMs(hostMs: number): number {
    return hostMs + this.serverClock.offsetMs;
  }

  /** The policy's figures for this process as it sees the key now (others present, one other, a small share). */
  policy(limit: number) {
    return ratePolicy(
      limit,
      this.own.roundTripHighMs(),
      this.windowMs,
      this.othersPresent,
      this.oneOther,
      this.smallShare,
    );
  }

  /**
   * Reads an answer: of the call dispatched at `dispatchedAtMs` (undefined: not one of ours), come in `now`, the
   * server having counted it at `countedAtMs`. False when an answer of a later call was read already.
   */
  read(
    dispatchedAtMs: number | undefined,
    now: number,
    countedAtMs: number,
    answered: RateLimitObservation,
  ): boolean {
    if (dispatchedAtMs !== undefined && answered.serverDateMs !== undefined)
      this.serverClock.observe(dispatchedAtMs, now, answered.serverDateMs);
    const observation = answered.resetOnHostClock
      ? answered
      : { ...answered, resetAtMs: this.serverClock.toHostMs(answered.resetAtMs) };
    const atMs = dispatchedAtMs ?? now;
    const used = observation.limit - observation.remaining;
    // (Where the key's calls are sparse, not counting own calls sent with this one or after it and still
    // unanswered: see `OwnCalls.inWindowAt`.)
    const sentWith = keyCallsSparse(observation.limit, this.windowMs) ? dispatchedAtMs : undefined;
    // Answers arrive out of order under concurrency; keep the one describing the latest request. (Of calls
    // sent in the same millisecond, the one the server counted last, which saw the most; an earlier one's
    // answer, read with all of them counted in as ours, showed the others 2 lower than they were, and a
    // survivor at 120/min took 2 slots too many: a 429.) One dropped so, where the view's reading left it
    // out as unanswered, was counted before the view's call: see `ownCountedFirst`.
    if (this.view && (this.view.atMs > atMs || (this.view.atMs === atMs && this.view.used > used))) {
      if (sentWith !== undefined && this.view.atMs === atMs) this.ownCountedFirst(this.view);
      return false;
    }
    const reading = Math.max(0, used - this.own.inWindowAt(countedAtMs, sentWith));
    // Own calls counted near the window's edges may be in or out: others are present only if some
    // remain when all of those count as ours.
    const slack = this.own.slackMs();
    const ownAtMost = this.own.countedIn(countedAtMs - this.windowMs - slack, countedAtMs + slack);
    this.othersPresent = used - ownAtMost >= 1;
    this.smallShare = used - reading < ONE_OTHER_SHARE * used;
    this.oneOther =
      keyCallsSparse(observation.limit, this.windowMs) &&
      !keyCallsBunch(observation.limit, this.windowMs) &&
      !this.smallShare;
    const { top: sharedTop, band } = ratePolicy(
      observation.limit,
      this.own.roundTripHighMs(),
      this.windowMs,
      true,
    );
    this.looks.answered(reading, used, sharedTop);
    const { readings, filling, held } = this.holdReading(
      observation,
      atMs,
      countedAtMs,
      used,
      reading,
      sharedTop,
    );
    const share = {
      limit: observation.limit,
      oneOther: this.oneOther,
      smallShare: this.smallShare,
      roundTripHighMs: this.own.roundTripHighMs(),
    };
    const ownUnanswered = sentWith === undefined ? 0 : this.own.unansweredSentWith(sentWith);
    this.leaving.follow(share, countedAtMs, reading, used, sharedTop, band, ownUnanswered);
    this.viewReadings = readings;
    const { others, othersLately, own, fullest } = this.heldCounts(readings, countedAtMs, reading);
    const growth = this.drawGrowth(observation.limit, fullest, used, reading, held);
    // Blocked with none of our calls leaving the window first, we probe once the window's oldest call
    // has left (`X-RateLimit-Reset`): that is when room frees, as far as the headers tell.
    const probeSpreadMs = this.random() * keyCallsMs(observation.limit, 2, this.windowMs);
    this.view = {
      limit: observation.limit,
      left: this.leaving.active ? Math.max(0, this.leaving.othersBefore - reading) : 0,
      others,
      othersLately,
      othersLatest: reading,
      atMs,
      countedAtMs,
      used,
      own,
      growth,
      fullest,
      resetAtMs: observation.resetAtMs,
      filling,
      probeSpreadMs,
    };
    return true;
  }

  /** The counts the view holds, from the readings held (the latest, `reading`, counted at `countedAtMs`). */
  private heldCounts(readings: Array<[number, number, number]>, countedAtMs: number, reading: number) {
    // (While they leave, a lower count is no dip: the latest reading holds, and the fullest is of the
    // readings in the hold only.)
    const lately = readings.filter(([at]) => at > countedAtMs - HOLD_MS);
    const kept = this.leaving.active ? lately : readings;
    return {
      others: this.leaving.active ? reading : Math.max(...kept.map(([, value]) => value)),
      othersLately: this.leaving.active ? reading : Math.max(...lately.map(([, value]) => value)),
      own: Math.max(...kept.map(([, , value]) => value)),
      fullest: Math.max(...kept.map(([, o, m]) => o + m)),
    };
  }

  /**
   * A call sent in the same millisecond as the view's, answered after it, saw the key lower: the server
   * counted it first, and the view's reading, taken while it was unanswered (see `OwnCalls.inWindowAt`), counted
   * it as the others'. It moves to our own count, in the view, the readings held and the others' trend. (Left
   * there, at 30/min, where the next answer may be a minute off, a survivor read the key one over its top,
   * left its own calls unreplaced as they left, and idled 9 s while the leaver's calls left: 46.7% of the
   * window, fake clock, timers 20 ms late, the shape of a real full run's 43.3% and idle 11 s.)
   */
  private ownCountedFirst(view: KeyView): void {
    // (The view's reading is its raw reading, not moved along the ramp: the two hold the same counts.)
    if (!this.readings.some(([at]) => at === view.countedAtMs)) return;
    const latest = countOneAsOwn(this.viewReadings, view.countedAtMs);
    if (!latest) return;
    countOneAsOwn(this.readings, view.countedAtMs);
    this.leaving.ownCountedFirst(view.countedAtMs);
    Object.assign(view, this.heldCounts(this.viewReadings, view.countedAtMs, latest[1]));
  }

  /**
   * Adds a reading to the hold (`HOLD_MS`, and at small allowances the last one before a quiet gap) and
   * returns the readings held, those the others were filling at moved along the ramp to now
   * (`KeyRamp.othersGrowth`), whether the others fill the window now, and the readings of the last `HOLD_MS`.
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
    // window's first calls leaving at once): the last reading before stays in the hold too, until an
    // answer comes `HOLD_MS` or more after the first fresh one (so a fall counts once two answers a
    // second apart show it; answers closer together keep the old reading held). (Not after shorter
    // gaps: a survivor replacing a call every second or two must see the other leave as soon as before.)
    const held = this.readings.filter(([at]) => at > countedAtMs - HOLD_MS);
    const previous = this.readings.filter(([at]) => at <= countedAtMs - HOLD_MS).at(-1);
    const sparse = keyCallsSparse(observation.limit, this.windowMs);
    // The others fill the window along the ramp line: the line still under the top, the others grown
    // since our last reading, and the key ahead of the line by no more than that growth (once the
    // window has turned over, the key stands well above a line counted from its oldest call).
    const line = this.ramp.line(observation, atMs);
    const othersGrew = reading - (this.readings.at(-1)?.[1] ?? reading);
    const filling = line < sharedTop && othersGrew >= 1 && used - line <= othersGrew + 1;
    const afterQuietGap = previous !== undefined && sparse && countedAtMs - previous[0] >= QUIET_GAP_MS;
    this.readings = afterQuietGap ? [previous, ...held] : [...held];
    this.readings.push([countedAtMs, reading, used - reading, filling]);
    // (That one as it stands now: the others may have grown along the ramp since.)
    const key = { limit: observation.limit, resetAtMs: this.view?.resetAtMs ?? observation.resetAtMs };
    const readings = this.readings.map(([at, o, m, f]): [number, number, number] => {
      if (at > countedAtMs - HOLD_MS || !f) return [at, o, m];
      return [
        at,
        o + this.ramp.othersGrowth(key, { atMs: at, others: o, own: m }, countedAtMs, sharedTop),
        m,
      ];
    });
    return {
      readings,
      filling,
      held: afterQuietGap ? held.length : held.length + 1,
    };
  }

  /**
   * Calls this process may add until its next answer: its share of the room by the fullest reading held
   * (all of it while the others leave), rounded at random. A single answer may have come in a dip
   * (several calls left the window at once, their replacements not in yet): on it, one at most.
   */
  private drawGrowth(limit: number, fullest: number, used: number, reading: number, held: number): number {
    const room = Math.max(0, this.policy(limit).top - fullest);
    const share =
      !this.othersPresent || this.leaving.active
        ? 1
        : Math.max((used - reading) / Math.max(1, used), MIN_GROWTH_SHARE);
    const expected = held > 1 || !this.othersPresent ? room * share : Math.min(1, room * share);
    return Math.floor(expected) + (this.random() < expected - Math.floor(expected) ? 1 : 0);
  }
}
