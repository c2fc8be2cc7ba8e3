import { systemClock, type Clock } from './clock';
import { KeyReadings, type KeyView, type RateLimitObservation } from './rate-key-view';
import { OthersLeaving } from './rate-leaving';
import { OwnCalls } from './rate-own-calls';
import { KeyLooks } from './rate-looks';
import { KeyRamp } from './rate-ramp';
import {
  HOLD_MS,
  ONE_OTHER_SHARE,
  keyCallsBunch,
  keyCallsMs,
  keyCallsSparse,
  type ratePolicy,
} from './rate-policy';

export type { RateLimitObservation } from './rate-key-view';

/** The share of the reserve a small process's growth may have in flight unseen (see `smallGrowthUnseen`). */
const SMALL_GROWTH_UNSEEN_RESERVE = 0.5;

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

/**
 * From 120 to 240/min (the key's calls sparse, not bunched), a call that grows this process's count goes this
 * many of the key's call times (a quarter: 125 ms at 120/min) after its last call, not at once. Sent as an
 * answer came in, it went a round trip after that answer's call; a window later each was replaced a round trip
 * after it left, so the two left together at every turn, and over a late joiner's growth a window's calls
 * gathered into clusters of 4-5 within 80 ms (fake clock). A cluster leaving takes the window that many under
 * for a round trip: 116 of 120 with a third process joining a pair (15 runs of 128 missed, 5 since). Not while
 * the others leave (the calls taken follow their departures), nor under 120/min, where a window's calls bunch
 * at its turn anyway and a survivor spaced so stood at 26 of 30 after its other finished.
 */
const GROWTH_SPACING_CALLS = 0.25;

/** When the next counted call may go out; `probe`: it is sent to learn the key's count. */
export interface RateDecision {
  delayMs: number;
  probe: boolean;
  /** It follows the X-RateLimit-Reset of the answer dispatched then (see `decide`). */
  followsReset?: number;
  /** It checks a fall of the others (see `decide`): not growth of ours that they yield to. */
  checksFall?: boolean;
}

/** What the rules of `decide` read at one instant. */
interface DecisionMoment {
  now: number;
  view: KeyView;
  policy: ReturnType<typeof ratePolicy>;
  /** Own calls still counted in the window now. */
  own: number;
  /** The one other's calls expected to have left since the view, while it leaves (see `fallenSince`). */
  fallen: number;
  /** The key's count with one more call of ours. */
  u: number;
  /** When the next of our own calls leaves the window, if any is in it. */
  leaves: number | undefined;
  /** A call now may take a slot one of the others' calls freed (see `decide`). */
  mayTakeOthersSlot: boolean;
}

/**
 * Paces the counted calls of one process so that every process on the key together keeps the
 * server's sliding window nearly full, splits it evenly, and never runs into a 429. Which of the rules
 * below run at which allowance: the table in rate-pacing.md beside this file.
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
 * key-wide ramp line while the window fills (`KeyRamp`); while the others fill along that line, their
 * growth since our last answer counts in the key's count (`KeyRamp.othersGrowth`).
 * A 429 pauses this process for `Retry-After`; the others see `remaining` at 0 and wait for their own
 * calls to leave, or, when none of theirs leaves soon and they hold under a sixth of the count
 * (`PROBE_BELOW_SHARE` in rate-looks.ts; over 174/min under 40% while they grow), for
 * `X-RateLimit-Reset` (the oldest call leaving), then send one probe.
 */
export class AdaptiveRateLimiter {
  private readonly clock: Clock;
  private readonly windowMs: number;
  private readonly sliceMs: number;
  /** This process's counted calls and their round trips. */
  private readonly own: OwnCalls;
  /** The key-wide ramp line while the window fills. */
  private readonly ramp: KeyRamp;
  /** The calls this process sends only to see the key, and the joiner's state they depend on. */
  private readonly looks: KeyLooks;
  private readonly leaving: OthersLeaving;
  /** What this process knows of the key from its answers: the view the rules below read. */
  private readonly key: KeyReadings;
  /** A 429's Retry-After: nothing counted goes out before. */
  private blockedUntilMs = 0;
  /** After a 429: one probe at this time (Retry-After over), whatever the headers' reset says. */
  private probeAtMs: number | undefined;
  private probeInFlight = false;
  /** The answer (its dispatch time) whose X-RateLimit-Reset a call followed while the others leave. */
  private resetFollowedFor: number | undefined;
  /** The last completed call brought no headers (timeout, network fault): the view may be stale. */
  private lastAnswerLost = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(options: RateLimiterOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.windowMs = options.windowMs ?? 60_000;
    this.sliceMs = options.maxSleepSliceMs ?? 100;
    this.leaving = new OthersLeaving(this.windowMs);
    this.own = new OwnCalls(this.windowMs);
    this.ramp = new KeyRamp(this.windowMs);
    this.looks = new KeyLooks(this.windowMs, this.own);
    this.key = new KeyReadings(
      this.windowMs,
      this.own,
      this.ramp,
      this.leaving,
      this.looks,
      options.random ?? Math.random,
    );
  }

  /** This host's time `hostMs` on the server's clock (see `ServerClock`): to read a Retry-After given as a date. */
  serverTimeMs(hostMs: number): number {
    return this.key.serverTimeMs(hostMs);
  }

  /** Milliseconds before the next counted call may go out (0 = now), if no answer arrives meanwhile. */
  delayMs(): number {
    return this.decide(this.clock.now()).delayMs;
  }

  /** The policy's figures as this process sees the key now; for reports and tests. */
  snapshot(): { limit: number; own: number; others: number; top: number; cap: number } | undefined {
    const view = this.key.view;
    if (!view) return undefined;
    const own = this.own.stillInWindow(this.clock.now()).count;
    const policy = this.policy(view.limit);
    return {
      limit: view.limit,
      own,
      others: view.others,
      top: policy.top,
      cap: policy.capAt(own + view.others),
    };
  }

  /**
   * Calls in flight at once that use the key's whole allowance over this process's round trips (the allowance's
   * calls a millisecond times the round trip's high estimate); 0 before the first answer.
   */
  callsInFlightToFill(): number {
    const limit = this.key.view?.limit;
    return limit === undefined ? 0 : (limit / this.windowMs) * this.own.roundTripHighMs();
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
    if (decision.checksFall) this.leaving.checkSent(now);
    this.own.sent(now);
    if (decision.probe) {
      this.probeInFlight = true;
      this.probeAtMs = undefined;
    }
    return { dispatchedAtMs: now };
  }

  /**
   * Feeds back an answer (headers may be missing, e.g. on a network fault). `counted: false` for a
   * 429: the server refused the call without counting it, so it leaves our own record.
   */
  complete(permit: RatePermit | undefined, answered: RateLimitObservation | undefined, counted = true): void {
    const now = this.clock.now();
    this.probeInFlight = false;
    this.lastAnswerLost = answered === undefined;
    if (!counted) this.looks.refused(now);
    const countedAtMs = permit
      ? this.own.settle(permit.dispatchedAtMs, counted, now, answered !== undefined)
      : now;
    if (!answered) return;
    if (!this.key.read(permit?.dispatchedAtMs, now, countedAtMs, answered)) return;
    if (now >= this.blockedUntilMs) this.probeAtMs = undefined;
  }

  /** A 429 told us to wait: every counted call of this process waits that long, then one probe goes. */
  pauseFor(ms: number): void {
    this.blockedUntilMs = Math.max(this.blockedUntilMs, this.clock.now() + ms);
    this.probeAtMs = this.blockedUntilMs;
  }

  /**
   * When the next counted call may go out: the first of the rules below that applies, in this order.
   * Replacing own calls that left comes first, since it cannot add to the key's count; growing next, into
   * room the view shows; then the calls that refresh a view that may be wrong (an answer lost, others gone
   * or going that no answer of ours can show in time); last, waiting for an own call to leave the window,
   * or a probe when none leaves soon. A rule that sends a call to learn something applies only when no own
   * call leaves first: its answer would tell as much.
   */
  private decide(now: number): RateDecision {
    if (now < this.blockedUntilMs) return { delayMs: this.blockedUntilMs - now, probe: false };
    const view = this.key.view;
    if (!view) return this.probeWhen(now, now);
    const policy = this.policy(view.limit);
    const { count: own, nextDepartureMs: leaves } = this.own.stillInWindow(now);
    const fallen = this.leaving.fallenSince(view, now, this.key.oneOther);
    const at: DecisionMoment = {
      now,
      view,
      policy,
      own,
      fallen,
      u: own + view.others - fallen + 1,
      leaves,
      // Where the key's calls are sparse, the checks and looks below take a slot one of the others' calls may
      // have freed, before an answer of ours could show it: only with none of ours in flight (its answer is
      // news enough) and with the key, ours taking that slot, at most at the top.
      mayTakeOthersSlot:
        this.sparse(view.limit) &&
        this.own.inFlight === 0 &&
        view.others > 0 &&
        own + view.others <= policy.top,
    };
    return (
      this.replaceOwn(at) ??
      this.grow(at) ??
      this.refreshLostView(at) ??
      this.checkOthersGone(at) ??
      this.checkFall(at) ??
      this.followResetWhileLeaving(at) ??
      this.seeWindowTurn(at) ??
      this.look(at) ??
      this.probeOrWaitForOwn(at)
    );
  }

  /** Replacing own calls that left the window since the last answer cannot add to the key's count. */
  private replaceOwn({ view, policy, own, fallen }: DecisionMoment): RateDecision | undefined {
    // (Never into the last slot, though: that one only a 429 could tell us was taken.) Where the key's
    // calls bunch, the sharing cap for it counts the others' most of the last `HOLD_MS` only: held from
    // before a quiet gap, their count stood over the key's, and a late joiner at 30/min, its view 45 s
    // old, read the key as over its top and left its own calls unreplaced as they left (four processes
    // started 3 s apart: runs with a 429, 27 of 128 before, 12 now). (At 120/min, 120x4 missed in 16 runs
    // of 64 with it, 3 without.) Over 240/min a process holding under 40% of the key counts the others' latest
    // reading only: there the cap falls by top / band (50 own calls at 3,000/min) for each call of the key, and
    // held over a second, a reading a call or two high stopped every small process replacing for up to a second;
    // the key fell by dozens, they refilled it at once, and those bursts came back a window later, four processes
    // far away swinging 35 calls either way each second (fake clock, 3,000/min, 100 ms each way: 2,900 of 3,000
    // at the worst, 6.9 s under the goal a run; session 41). A replacement adds nothing to the key, so the latest
    // reading is enough; growth still reads the hold. (Not a pair's process: its survivor of a leaver read the
    // others' fall later, 3000x2-early under the goal in 8 runs of 8, 6 without.)
    const othersReplacing = this.bunched(view.limit)
      ? view.othersLately
      : !this.sparse(view.limit) && this.key.smallShare
        ? view.othersLatest
        : view.others;
    const uReplacing = own + othersReplacing - fallen + 1;
    if (
      own + 1 <= view.own &&
      own + 1 <= policy.capAt(uReplacing) + view.left + fallen &&
      uReplacing < view.limit &&
      view.used < view.limit
    )
      return { delayMs: 0, probe: false };
    return undefined;
  }

  /** Growing: under the top, within this process's share of the room, under the ramp line. */
  private grow({ now, view, policy, own, fallen, u }: DecisionMoment): RateDecision | undefined {
    if (own + 1 > policy.capAt(u) + view.left + fallen) return undefined;
    if (this.smallGrowthUnseen(view, policy.reserve, own)) return undefined;
    const lag = view.filling ? this.ramp.othersGrowth(view, view, now, policy.top) : 0;
    // (The growth is counted from the fullest reading; the others' and own counts held are the most
    // of each over the readings, maybe from different ones, and their sum may stand over it: that much
    // is no growth. Counted as growth, it stopped both processes of a 120/min key at 12 with round trips
    // of 0.8 s: none sent, so no answer could tell them more. Over 240/min it was counted until the looks
    // of `SMALL_LOOK_ROOM_CALLS` (rate-looks.ts), which need it: with them alone a joiner's growth stopped there, 600x2-handoff
    // 0.86 s under the goal a run; not counted and without them, a joiner that grew into its cap at once
    // heard nothing for 40 s, 42 s.)
    const inflated = Math.max(0, view.others + view.own - view.fullest);
    if (u + lag > policy.top || u - inflated > view.fullest + view.growth) return undefined;
    const spacedAtMs = this.growthSpacedAtMs(view.limit);
    if (u <= this.ramp.line(view, now)) return { delayMs: Math.max(0, spacedAtMs - now), probe: false };
    return {
      delayMs: Math.max(1, this.ramp.reachesMs(view, u) - now, spacedAtMs - now),
      probe: false,
    };
  }

  /**
   * Over 240/min, a process holding under 40% of the key beside others grows only while its calls in flight
   * are at most its own calls of a round trip and half the reserve (`SMALL_GROWTH_UNSEEN_RESERVE`): the room it
   * reads, the others read too, and what it sends into it they see a round trip later. Far away a bunch of the
   * window's calls leaving makes a dip a round trip long; four processes at 600/min 100 ms away each read it
   * as room (or the others leaving), each sent 12-16 calls at once, and two took every one back as a 429 (fake
   * clock, seeds 1-12 x two phases: 0.80% of calls refused -> 0.10%; 2.82% -> 0.49% at 150 ms; 3,000/min 0.30%
   * -> 0.03%). A pair's process is not held (the survivor of a pair takes its other's calls at their pace),
   * nor one alone, nor up to 240/min, where no answer shows a dip that deep (`rate-pacing-log.md`, session 40).
   */
  private smallGrowthUnseen(view: KeyView, reserve: number, own: number): boolean {
    if (this.sparse(view.limit) || !this.key.smallShare || view.others === 0) return false;
    const ownInRoundTrip = Math.ceil((own * this.own.roundTripHighMs()) / this.windowMs);
    return this.own.inFlight >= ownInRoundTrip + SMALL_GROWTH_UNSEEN_RESERVE * reserve;
  }

  /**
   * No room by our view, but the view may be stale: the last answer was lost and none is on its way. While
   * it showed room, one call now refreshes it; waiting for the window to turn could idle a minute.
   */
  private refreshLostView({ now, view, policy, own }: DecisionMoment): RateDecision | undefined {
    if (this.lastAnswerLost && this.own.inFlight === 0 && own + view.others + 1 <= policy.top)
      return this.probeWhen(now, now);
    return undefined;
  }

  /**
   * The others, falling, held only their last few calls at our last answer, the key at most at the top: when
   * they leave, no answer of ours shows it until one of our own calls leaves, and at small allowances a
   * window's calls bunch, so that may be most of a minute away (a survivor sat at 26 of 30 for 45 s). One
   * call once the key's time for two calls has passed without an answer refreshes the view; if the others
   * are still there, it puts the key one over the top, which the reserve holds.
   */
  private checkOthersGone({
    now,
    view,
    policy,
    leaves,
    mayTakeOthersSlot,
  }: DecisionMoment): RateDecision | undefined {
    if (!mayTakeOthersSlot || view.others > policy.band || !this.leaving.heldMoreThan(view.others))
      return undefined;
    const staleAt = view.atMs + this.callsMs(view.limit, 2);
    return leaves === undefined || staleAt < leaves ? this.probeWhen(staleAt, now) : undefined;
  }

  /**
   * A fall of 1 of a pair's other, where the key's calls bunch, is read as leaving once it has lasted 1 s
   * (from 120 to 240/min a fall of 2, once it has outlasted a dip; up to 174/min a small process's deeper
   * fall, see `QUIET_LEAVING_MS` in rate-leaving.ts), but no answer may come to show that for seconds: one
   * call then, if none of ours leaves first. (The other's last calls left three in two seconds at a turn
   * while the survivor waited for its own to leave: 30x2-early at 25 of 30.) If it was a dip, the other has
   * replaced by then, and the call puts the key one over the top, which the reserve holds.
   */
  private checkFall({ now, leaves, mayTakeOthersSlot }: DecisionMoment): RateDecision | undefined {
    const confirmAt = this.leaving.confirmAtMs;
    if (!mayTakeOthersSlot || confirmAt === undefined || this.leaving.active) return undefined;
    if (leaves !== undefined && confirmAt >= leaves) return undefined;
    return { ...this.probeWhen(confirmAt, now), checksFall: true };
  }

  /**
   * The others leave, and the window's oldest call is theirs: one call when it has left (by
   * X-RateLimit-Reset) takes its slot. Waiting for an answer to show it gone lets the window dip while a
   * window's calls leave in a bunch (at 30/min two a second, where the margin is one call).
   */
  private followResetWhileLeaving({
    now,
    view,
    leaves,
    mayTakeOthersSlot,
  }: DecisionMoment): RateDecision | undefined {
    if (!mayTakeOthersSlot || !this.leaving.active || this.resetFollowedFor === view.atMs) return undefined;
    if (leaves !== undefined && view.resetAtMs + this.own.slackMs() >= leaves) return undefined;
    return { ...this.probeWhen(view.resetAtMs, now), followsReset: view.atMs };
  }

  /**
   * Over 240/min, from a view over the top at least `HOLD_MS` old, none of ours in flight, the others holding
   * `ONE_OTHER_SHARE` of the key: as this process's own calls leave the window, the others' are taken to leave
   * in proportion (at a key over the top every process's cap is 0, so no one replaces); once that brings the key
   * to the top, one call to see. The window's first fill ends over the top (the growth in flight unseen), at the
   * limit at 3,000/min far away: every view stood there, so no process replaced its calls as they left (never
   * into the last slot) or heard anything, and four processes let the key fall 85 calls at 62 s. Only where this
   * process's calls are many enough to tell (one leaving moves the estimate less than a band): a joiner's few
   * say nothing of the others. Not from a fresh view, nor with the others under 40%: there someone is growing
   * into the key (a joiner's first calls), and the incumbent's calls to see met them, 429s for 1.6% of calls in
   * 300x4-late (fake clock, seeds 1-4 x two phases; session 41).
   */
  private seeWindowTurn({ now, view, policy, own }: DecisionMoment): RateDecision | undefined {
    if (this.sparse(view.limit) || this.own.inFlight !== 0 || view.used <= policy.top) return undefined;
    if (view.others < ONE_OTHER_SHARE * view.used || now - view.atMs < HOLD_MS) return undefined;
    const ownLeft = view.own - own;
    if (ownLeft <= 0 || view.used > view.own * policy.band) return undefined;
    const keyNow = view.used - (ownLeft * view.used) / view.own;
    return keyNow <= policy.top ? this.probeWhen(now, now) : undefined;
  }

  /** One call to see, where this process hears of the others only through its own answers (see `KeyLooks`). */
  private look({ now, view, policy, leaves }: DecisionMoment): RateDecision | undefined {
    const lookAt = this.looks.lookAtMs({
      now,
      view,
      top: policy.top,
      smallShare: this.key.smallShare,
      leaves,
      leavingLooksUntilMs: this.leaving.lookingUntilMs(),
    });
    return lookAt === undefined ? undefined : this.probeWhen(lookAt, now);
  }

  /**
   * No room by our view, and none of the above: when none of our own calls will leave first, we probe once
   * the window's oldest call has left (X-RateLimit-Reset), or after a 429 once its Retry-After is over;
   * otherwise we wait for our own call to leave, which changes the view.
   */
  private probeOrWaitForOwn({ now, view, own, leaves }: DecisionMoment): RateDecision {
    // (Into a key at the limit, a probe as the oldest call leaves is a 429 if its owner replaces it, as an
    // owner that has not seen us since does; Reset, whole seconds, may come most of a second after that
    // call left. The probe waits the key's time for one call more, by when the owner has seen us and, at
    // its cap, left a call unreplaced. Without it, 30x2-late took a 429 in 8 of 64 runs.)
    // (A joiner under 40/min probes sooner and more often: see `JOINER_PROBE_BELOW_SHARE` in rate-looks.ts.)
    const joiner = this.looks.probingJoiner(view.limit, now);
    const afterFull = view.used >= view.limit ? this.callsMs(view.limit, joiner ? 0.5 : 1) : 0;
    const probeAt = this.probeAtMs ?? view.resetAtMs + afterFull + (joiner ? 0 : view.probeSpreadMs);
    // (Not when one of ours leaves soon after: the key's time for a few calls; the reset-time probe
    // not when we hold a fair share already, see `KeyLooks.probesAtReset`.)
    const mayProbe = () =>
      this.probeAtMs !== undefined ||
      (this.looks.probesAtReset(view.limit, view.used, now, own) &&
        !(own > 0 && this.looks.refusedJoiner(view.limit, now)));
    const ownLeavesAfterCalls = joiner ? 1 : 4;
    if (
      leaves === undefined ||
      (probeAt + this.callsMs(view.limit, ownLeavesAfterCalls) < leaves && mayProbe())
    )
      return this.probeWhen(probeAt, now);
    return { delayMs: Math.max(1, leaves - now), probe: false };
  }

  /** From 120 to 240/min, the earliest a call that grows our count may go (see `GROWTH_SPACING_CALLS`). */
  private growthSpacedAtMs(limit: number): number {
    const last = this.own.lastSentAtMs;
    if (last === undefined || !this.sparseUnbunched(limit) || this.leaving.active)
      return Number.NEGATIVE_INFINITY;
    return last + this.callsMs(limit, GROWTH_SPACING_CALLS);
  }

  /** One probe at `atMs` (now, if that has passed), unless one is already on its way. */
  private probeWhen(atMs: number, now: number): RateDecision {
    if (now < atMs) return { delayMs: atMs - now, probe: false };
    return { delayMs: this.probeInFlight ? this.sliceMs : 0, probe: true };
  }

  /** The key's time for `calls` calls at its allowance (one call every window / limit). */
  private callsMs(limit: number, calls: number): number {
    return keyCallsMs(limit, calls, this.windowMs);
  }

  /** The key's calls are `SPARSE_CALL_GAP_MS` or more apart: a process's answers come seconds apart. */
  private sparse(limit: number): boolean {
    return keyCallsSparse(limit, this.windowMs);
  }

  /** The policy's figures for this process as it sees the key now (see `KeyReadings.policy`). */
  private policy(limit: number): ReturnType<typeof ratePolicy> {
    return this.key.policy(limit);
  }

  /** See `keyCallsBunch` and `OthersLeaving.follow`. */
  private bunched(limit: number): boolean {
    return keyCallsBunch(limit, this.windowMs);
  }

  /** From 120 to 240/min: the key's calls sparse, not bunched (where `oneOther` and the growth spacing count). */
  private sparseUnbunched(limit: number): boolean {
    return this.sparse(limit) && !this.bunched(limit);
  }
}
