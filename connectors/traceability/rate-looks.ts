// The calls a process on a shared key sends only to see its count, as `AdaptiveRateLimiter` (rate-limiter.ts)
// applies them: looks (none of its calls in flight, no answer for a while) and `Reset` probes (no room, none of
// its own calls leaving soon), which process sends which, and the joiner's state they depend on. Each such call
// is one over the sharing cap, which the others yield to: news for one process, a 429 when several send at once.
import type { OwnCalls } from './rate-own-calls';
import { ONE_OTHER_SHARE, keyBandOfTwo, keyCallsMs, keyCallsSparse } from './rate-policy';

/**
 * Reset-time probes (see `probesAtReset`) only by a process holding less than this share of the key's count
 * (or none of it): a probe races the owner of the call that leaves and, when the owner replaces it,
 * is a 429. A process with a fair share waits for its own calls to leave instead.
 */
const PROBE_BELOW_SHARE = 1 / 6;
/**
 * Over 174/min, a process also sends `Reset` probes while it holds under `ONE_OTHER_SHARE` of the key and its
 * own count grew by this many calls or more over the last `GROWING_PROBE_MS`: a late joiner growing into an
 * incumbent's yields. Past a sixth it used to stop probing and hear only as its own calls left, and those all
 * sat in the stretch of the window in which it had probed (80-100 s of a join at 80 s): it grew only at that
 * stretch's turn, once a minute (308/170 over the last 100 s at 300/min, 408/231 at 400/min), and in a rolling
 * restart it heard nothing for 40 s after the stop while the leaver's calls left (least used window 37% at 300
 * and 400/min on the fake clock, 97.0% now at 400/min). Probing on, its calls spread over the window as it
 * grows. Only while it grows: four processes started together or 3 s apart settle at a quarter each and stop.
 * From 175 to 240/min too since session 29, where the joiner's silence that follows is broken by the looks of
 * `SILENT_LOOK_MS` (a restart there 37-44% -> 94-96%). (Not up to 174/min, where the band is 2 calls and the
 * looks of a leaving apply: with it alone, 120x2-handoff 1.0 -> 2.2 s under the goal a run and 120x4-late's
 * 429s 4.8 -> 5.4% on the fake clock; with the look too, 120x2-early missed in 22 runs of 32, none before.)
 */
const GROWING_PROBE_CALLS = 3;
const GROWING_PROBE_MS = 10_000;

/**
 * Over 240/min, while the others leave (see `OthersLeaving`), a process that has heard nothing for the key's time
 * for this many calls sends one to see. A leaver's calls leave at its pace, and a survivor hears of it only
 * from its own answers: in a rolling restart its calls, taken in bunches as the leaver's room freed, left it
 * without an answer for 15-20 s while the leaver's calls left (600/min, the key fell from 593 to 384 of 600 on
 * the fake clock). The answer shows the room, and the survivor takes it (`drawGrowth` in rate-key-view.ts: all of it, while the
 * others leave). At 600/min, 400 ms: the key a few calls down between looks.
 */
const LEAVING_LOOK_CALLS = 4;
/**
 * ...and up to 174/min (see `keyBandOfTwo`), after this long (4 calls' time at 120/min, 1 at 30/min), also for
 * a while after a small process saw the key fall (see `QUIET_FALL_LOOKS_MS` in rate-leaving.ts). Every second, the
 * looks met the others' replacements: four processes started together took 429s in 61 runs of 128 (none at
 * 2 s), and a third joining a pair went over 0.5% of calls in 12 runs of 128 (5 at 2 s, 3 before).
 */
const QUIET_LEAVING_LOOK_MS = 2_000;

/**
 * Over 240/min, a process holding under `ONE_OTHER_SHARE` of the key also looks (see `lookAtMs`) while no one
 * leaves, once its last answer showed the key this many calls under the top and the window has turned over.
 * Held at its cap while the incumbent holds the rest, such a process sends only as its own calls leave, and
 * those bunch as its share grew: in a rolling restart at 3,000/min the joiner heard nothing for a second
 * after the stop while the leaver's calls left 37 a second, the key under the goal before its next answer
 * (fake clock, seeds 1-16 x four phases: 0.74 s under the goal a run, 48 runs of 64 missed; 0.12 s and 2 now;
 * at 600/min 0.58 s and 34, now 0.11 s and 4). A look is a call over its cap, which the others yield to, so a
 * late joiner now reaches an even split (600x2-late 553/400, now 460/505). Four calls under the top, so that
 * three others looking with it fit: at one, four processes at 600/min took the key to the limit (a 429 in
 * every run); and not while the window fills, at whose end they did too.
 */
const SMALL_LOOK_ROOM_CALLS = 4;

/**
 * From 175 to 240/min (the key's calls sparse, its band over 2 calls), a process holding `ONE_OTHER_SHARE` of the
 * key or more, none of its calls in flight or leaving first, sends one call to see once it has heard nothing
 * for this long and the window's oldest call has left since its last answer (`Reset`, and a call's time more).
 * A joiner that grew into a pair's share by `Reset` probes (`GROWING_PROBE_CALLS`) has its calls in the stretch
 * of the window it probed in; in a rolling restart it heard nothing for 25-30 s after the stop while the
 * leaver's calls left (fake clock, seeds 1-8 x two phases: least used window 58-60% at 125-240/min with the
 * probes alone). Not before `Reset`: in the stretch of each window in which no call leaves (the first fill's),
 * both of a pair are silent, and looks there took a pair to the limit (429s in every run at 180/min). Not by a
 * smaller process: four sharing the key looked together, 429s 0.6-14% of calls.
 */
const SILENT_LOOK_MS = 1_500;

/**
 * From 40 to 174/min (a band of two, see `JOINER_LOOK_CALL_GAP_MS`), a process that joined others at work (its
 * first answer showed them holding half the key's top or more) and holds under `ONE_OTHER_SHARE` of it looks
 * (see `look`) for this long after joining (see `OwnCalls.joinedAtMs`), when the window's oldest call has left
 * and its own next call leaves `JOINER_LOOK_FAR_CALLS` of the key's call times after that or more. A joiner's
 * calls sit in the stretch of the window in which it joined and grew: in a rolling restart with 50 s of overlap
 * its 20 calls were all counted from 51 to 85 s, the leaver stopped at 100 s, and nothing told the joiner until
 * its first call left at 111 s (fake clock, seeds 1-8 x two phases: least used window 79.2%, idle 10 s, 13.4 s
 * under the goal a run; 94.2%, idle 3 s, 3.5 s now). A look into a full key is a call over the joiner's cap,
 * which the others yield to; as its calls spread over the window, its own calls leave often enough that it
 * stops. Not by processes that started together: four at 120/min looked in real runs, split 84/85/102/86 in a
 * full matrix run and under the goal in 1 of 4 runs after it (0 of 4 with this gate, as without the look). Not
 * at 30/min, where a window's calls bunch at its turn (four processes took a 429 in every run), nor after a
 * window and a half (429s in every run of 120x4). Not by a joiner that took a 429 (see `refusedJoiner`).
 */
const JOINER_LOOK_MS = 90_000;
const JOINER_LOOK_FAR_CALLS = 16;
/**
 * ...where the key's calls are this far apart or closer (40/min and over). From 40 to 119/min too since
 * session 33, where a window's calls bunch: a rolling restart's joiner held 20 calls of 88 at 90/min, all
 * counted in one stretch of the window, and heard nothing from the stop for 44 s while the leaver's calls
 * left (least used window 38.9% at 90/min, 41.7% at 60/min, 84.4% at 45/min, idle 38, 22 and 5 s; fake
 * clock, seeds 1-8 x two phases; with the look 92.2%, 90.0% and 86.7%, idle 3, 3 and 2 s). Not at 30/min (2 s
 * apart): there the joiner, under a sixth of the key, probes at `Reset` already, and with the look a
 * scale-out's 429s rose from 4.4% to 4.6% of calls (5.8% without `refusedJoiner`).
 */
const JOINER_LOOK_CALL_GAP_MS = 1_500;

/**
 * Under 40/min (a band of two, the key's calls over `JOINER_LOOK_CALL_GAP_MS` apart, where no joiner look runs),
 * a process whose first answer showed others at work and the key at its top, and which has taken no 429 since,
 * probes at `Reset` while it holds under this share of the key, not `PROBE_BELOW_SHARE`, for `JOINER_LOOK_MS`
 * after joining (see `probingJoiner`): at once (no random spread), half a call's time after a full key, whenever
 * its own next call leaves a call's time after the probe or later. In a rolling restart at 30/min (`x2-handoff`:
 * a process joins at 80 s, the first stops at 160 s) the joiner grew only in the window's turn, 121-141 s, and
 * stopped probing at a sixth of the key: it held 5 of 29 at the stop, all counted in that turn, and when the
 * leaver's 24 calls left a minute later, 1.5 a second from 181 s, its own first call left 4-6 s into them: 70.0%
 * of the allowance (fake clock, seeds 1-8 x phases 0 and 500: 16 runs of 16 missed). Probing at each `Reset`
 * of the turn into the incumbent's yields, it holds about half by the stop and hears the leaver go: 0 of 16.
 * (With the probes' usual spread, up to two calls' time: 16 of 16; waiting for its own next call when that left
 * within four calls' time: 16; a call's time after a full key, as others wait: 11; up to 40% of the key: 10.)
 * Only into a full key: of four workers started 3 s apart the fourth joins a key half full, and probing so it
 * took 429s (30x4 at a 3 s stagger: runs with a 429, 2 of 16 -> 8 without this gate, 2 with it). Not
 * by a joiner refused since it joined: where three fork beside one, two are refused at their first call, and a
 * third's probes meet their retries at the turn. That cost stays: the scale-out at 30/min (`x4-late`) takes
 * 6.0% of calls refused, not 4.4%, over its 0.5% goal either way (`rate-pacing.md`, "Measured").
 */
const JOINER_PROBE_BELOW_SHARE = 0.45;

/** What the look rules read of the key and of this process at one instant (see `AdaptiveRateLimiter.decide`). */
export interface LookMoment {
  now: number;
  /**
   * The key's allowance as the last answer told it; that answer's call went then, the key's count it gave, the
   * others' count held, its `Reset`.
   */
  view: { limit: number; atMs: number; used: number; others: number; resetAtMs: number };
  /** The key's count this process aims at (see `ratePolicy`). */
  top: number;
  /** This process holds under `ONE_OTHER_SHARE` of the key's count. */
  smallShare: boolean;
  /** When the next of our own calls leaves the window, if any is in it. */
  leaves: number | undefined;
  /** Until when the others' leaving (or a fall a small process saw) has this process look (`OthersLeaving`). */
  leavingLooksUntilMs: number;
}

/**
 * Which calls to see this process sends, and when: its looks (`lookAtMs`), whether it sends `Reset` probes
 * (`probesAtReset`), and whether, a joiner refused since it joined, it sends none (`refusedJoiner`).
 */
export class KeyLooks {
  /**
   * When this process joined the key (`OwnCalls.joinedAtMs`), and whether it joined others at work: its first
   * answer since showed them holding half the key's top or more (not so if it started with them, or alone);
   * `full`: that answer showed the key at the top or over it.
   */
  private joined: { atMs: number; atWork: boolean; full: boolean } | undefined;
  /** When this process last took a 429 (see `refusedJoiner`). */
  private lastRefusedAtMs: number | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly own: OwnCalls,
  ) {}

  /** This process took a 429 now. */
  refused(now: number): void {
    this.lastRefusedAtMs = now;
  }

  /** An answer showed the key at `used`, the others holding `others` of it, its top shared `sharedTop`. */
  answered(others: number, used: number, sharedTop: number): void {
    const joinedAtMs = this.own.joinedAtMs;
    if (joinedAtMs !== undefined && this.joined?.atMs !== joinedAtMs)
      this.joined = { atMs: joinedAtMs, atWork: others >= sharedTop / 2, full: used >= sharedTop };
  }

  /**
   * When to send one call to see, with none of ours in flight and no answer for a while, where this process hears
   * of the others only through its own answers: over 240/min and up to 174/min while the others leave (up to
   * 174/min also a while after a small process saw them fall: see `OthersLeaving.lookingUntilMs`), after
   * `LEAVING_LOOK_CALLS` (`QUIET_LEAVING_LOOK_MS`); over 240/min also by a process holding under
   * `ONE_OTHER_SHARE` of the key whose view shows room, see `SMALL_LOOK_ROOM_CALLS`; from 175 to 240/min by a
   * process holding a pair's share, whatever the others do, after `SILENT_LOOK_MS`; from 40 to 174/min, the
   * others not leaving, by a small joiner whose own calls leave far off, see `JOINER_LOOK_MS`. (From a view over
   * the top, and for the last two always, once the oldest call has left and a call's time more, as the `Reset`
   * probe.) Undefined: no look, or one of our own calls leaves first, whose answer tells as much.
   */
  lookAtMs({ now, view, top, smallShare, leaves, leavingLooksUntilMs }: LookMoment): number | undefined {
    const { limit } = view;
    if (this.own.inFlight !== 0 || view.others <= 0) return undefined;
    const bandOfTwo = keyBandOfTwo(limit, this.windowMs);
    const sparse = keyCallsSparse(limit, this.windowMs);
    // (The window has turned over: its oldest call leaves within a second, by Reset, whole seconds.)
    const smallWithRoom =
      !sparse && smallShare && view.used + SMALL_LOOK_ROOM_CALLS <= top && view.resetAtMs <= now + 1_000;
    // (From 175 to 240/min, only a process holding a pair's share looks, see `SILENT_LOOK_MS`.)
    const silent = sparse && !bandOfTwo;
    if (silent && smallShare) return undefined;
    const leavingLooks = now < leavingLooksUntilMs;
    if (!leavingLooks && this.joinerLooks(limit))
      return this.joinerLookAtMs(limit, view, now, smallShare, leaves);
    const looking = silent || smallWithRoom || leavingLooks;
    if (!looking) return undefined;
    const stale =
      view.atMs +
      (silent ? SILENT_LOOK_MS : bandOfTwo ? QUIET_LEAVING_LOOK_MS : this.callsMs(limit, LEAVING_LOOK_CALLS));
    const lookAt =
      view.used > top || silent ? Math.max(stale, view.resetAtMs + this.callsMs(limit, 1)) : stale;
    return leaves === undefined || lookAt < leaves ? lookAt : undefined;
  }

  /**
   * This process, holding `own` calls of the key's `used`, sends `Reset` probes: under `PROBE_BELOW_SHARE` of
   * the key, under 40/min a joiner under `JOINER_PROBE_BELOW_SHARE`, or over 174/min under `ONE_OTHER_SHARE`
   * while it grows (see `GROWING_PROBE_CALLS`; the own calls of a while ago are scanned only then).
   */
  probesAtReset(limit: number, used: number, now: number, own: number): boolean {
    if (own < PROBE_BELOW_SHARE * used) return true;
    if (this.probingJoiner(limit, now)) return own < JOINER_PROBE_BELOW_SHARE * used;
    if (keyBandOfTwo(limit, this.windowMs) || own >= ONE_OTHER_SHARE * used) return false;
    return own - this.own.inWindowAt(now - GROWING_PROBE_MS) >= GROWING_PROBE_CALLS;
  }

  /**
   * From 40 to 174/min (see `joinerLooks`), this process joined others at work (see `joinedAtWork`) and took a
   * 429 since, or in the window before (its first calls may all have been refused). It then sends no call only
   * to see until `JOINER_LOOK_MS` after joining: no joiner look, and no `Reset` probe while it holds a call of
   * its own; it grows into the room its answers show. A 429 is the one sign that others race it for the same
   * slots, and there the looks and probes of several joiners meet at a key the incumbent holds at the limit
   * between yields: three processes joining one at 120/min, 0.1 s apart, each looked every 2 s, and 5.8% of
   * calls were refused (fake clock, seeds 1-8 x two phases), 175 of the 231 429s of eight runs at looks. Now
   * 1.1%, two of each run's 429s the forks' first calls, which no rule can spare (a lone process keeps one slot
   * free). The cost: a joiner refused at its start grows slower meanwhile (one held 15 calls of 193 over the
   * run's last 100 s, even 48); over 8 minutes the split is as before (242/92/86/87; 238/91/86/91), the
   * incumbent holding 35%, which a band of two cannot take lower without the key at the limit. A pair never
   * meets it: its joiner takes no 429 (120x2-handoff and 120x2-late print what they printed). From 40 to
   * 119/min with the joiner look there (session 33): a scale-out's 429s 7.4% -> 3.3% of calls at 60/min, 7.3%
   * -> 1.8% at 90/min.
   */
  refusedJoiner(limit: number, now: number): boolean {
    return this.refusedSinceJoining() && this.joinerLooks(limit) && this.joinedAtWork(now);
  }

  /** From 40 to 174/min, a small joiner whose own calls leave far off looks (see `JOINER_LOOK_MS`). */
  private joinerLookAtMs(
    limit: number,
    view: LookMoment['view'],
    now: number,
    smallShare: boolean,
    leaves: number | undefined,
  ): number | undefined {
    if (!smallShare || !this.joinedAtWork(now) || this.refusedJoiner(limit, now)) return undefined;
    const lookAt = Math.max(view.atMs + QUIET_LEAVING_LOOK_MS, view.resetAtMs + this.callsMs(limit, 1));
    if (leaves !== undefined && leaves - lookAt < this.callsMs(limit, JOINER_LOOK_FAR_CALLS))
      return undefined;
    return lookAt;
  }

  /**
   * Under 40/min, this process joined others at work with the key full (see `joinedAtWork`) and has taken no 429
   * since: its `Reset` probes go at once and more often (see `JOINER_PROBE_BELOW_SHARE`).
   */
  probingJoiner(limit: number, now: number): boolean {
    return (
      keyBandOfTwo(limit, this.windowMs) &&
      !this.joinerLooks(limit) &&
      this.joinedAtWork(now) &&
      this.joined?.full === true &&
      !this.refusedSinceJoining()
    );
  }

  /** This process took a 429 since it joined, or in the window before (its first calls may all have been refused). */
  private refusedSinceJoining(): boolean {
    const refusedAt = this.lastRefusedAtMs;
    const joinedAt = this.joined?.atMs;
    return refusedAt !== undefined && joinedAt !== undefined && refusedAt >= joinedAt - this.windowMs;
  }

  /** This process joined others at work, `JOINER_LOOK_MS` ago or less. */
  private joinedAtWork(now: number): boolean {
    const joined = this.joined;
    return joined !== undefined && joined.atWork && now - joined.atMs <= JOINER_LOOK_MS;
  }

  /** From 40 to 174/min: a band of two, the key's calls a second apart or closer (see `JOINER_LOOK_CALL_GAP_MS`). */
  private joinerLooks(limit: number): boolean {
    return keyBandOfTwo(limit, this.windowMs) && this.callsMs(limit, 1) <= JOINER_LOOK_CALL_GAP_MS;
  }

  /** The key's time for `calls` calls at its allowance. */
  private callsMs(limit: number, calls: number): number {
    return keyCallsMs(limit, calls, this.windowMs);
  }
}
