// This process's own counted calls, as `AdaptiveRateLimiter` (rate-limiter.ts) keeps them: when each was
// counted and when it has surely left the server's window, from the round trips of their answers. The
// others' count is the key's less these, so they must be exact, and a replacement goes when one has left.

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

/** The own calls of one process over the last two windows, and its round trips (as TCP keeps them). */
export class OwnCalls {
  /** In the order sent; entries before `head` are long gone. */
  private calls: OwnCall[] = [];
  private head = 0;
  /** Sent and not yet completed (answered, refused or lost). */
  private pending = 0;
  /** Smoothed round trip and its deviation. */
  private srttMs: number | undefined;
  private rttVarMs = 0;
  /** The longest an answered own call took (bounds the scans for calls still in the window). */
  private slowestAnswerMs = 0;
  /** The quickest round trip seen (see `stillInWindow`). */
  private quickestMs: number | undefined;
  private joinedAt: number | undefined;

  constructor(private readonly windowMs: number) {}

  /** Own calls sent and not yet completed. */
  get inFlight(): number {
    return this.pending;
  }

  /** When the last own call went, if any is still kept. */
  get lastSentAtMs(): number | undefined {
    return this.calls.length > this.head ? this.calls.at(-1)?.sentAtMs : undefined;
  }

  /**
   * When this process joined the key: its first counted call, or the first after a window without one (a
   * worker idle between scheduled jobs joins again, its calls all gone from the window).
   */
  get joinedAtMs(): number | undefined {
    return this.joinedAt;
  }

  /** A counted call went out now. */
  sent(now: number): void {
    const last = this.lastSentAtMs;
    if (last === undefined || now - last > this.windowMs) this.joinedAt = now;
    this.calls.push({ sentAtMs: now, countedAtMs: this.arrivalOfCallSentAt(now), settled: false });
    this.pending++;
    this.prune(now);
  }

  /**
   * The call sent at `sentAtMs` completed now: its round trip, and when it was counted (or, refused, that it
   * was not: it leaves the record). Returns its counting time.
   */
  settle(sentAtMs: number, counted: boolean, now: number, answered: boolean): number {
    this.pending = Math.max(0, this.pending - 1);
    const rtt = now - sentAtMs;
    this.recordRoundTrip(rtt);
    if (answered) this.slowestAnswerMs = Math.max(this.slowestAnswerMs, Math.min(rtt, this.windowMs));
    const countedAtMs = sentAtMs + rtt / 2;
    const call = this.find(sentAtMs);
    if (call && !counted) this.calls.splice(this.calls.indexOf(call), 1);
    else if (call) {
      call.countedAtMs = countedAtMs;
      call.settled = true;
      if (answered) call.answeredAtMs = now;
    }
    return countedAtMs;
  }

  /** A high estimate of the round trip (srtt + 4 deviations), bounded to a second. */
  roundTripHighMs(): number {
    return this.srttMs === undefined ? 0 : Math.min(1_000, this.srttMs + 4 * this.rttVarMs);
  }

  /**
   * How far an estimated counting time may be off (one-way delays are not half the round trip): for a
   * call whose answer has not come back (or was lost), that long after its estimate it has surely been
   * counted.
   */
  slackMs(): number {
    return Math.min(1_000, (this.srttMs ?? 0) / 2 + 2 * this.rttVarMs) + 1;
  }

  /**
   * Own calls the server counts in its window at server time `atMs`: counted in (atMs - window, atMs].
   * With `sentWithMs` (the answer's call), not the unanswered calls sent with it or after it: their
   * estimated counting time is its own, but they may reach the server after it. (Counted in, they made
   * the others' count too low by as many; a survivor at 120/min that took the others' latest count as they
   * left sent three calls into that room at once and took a 429 on the fake clock.)
   */
  inWindowAt(atMs: number, sentWithMs = Number.POSITIVE_INFINITY): number {
    let n = 0;
    // countedAtMs lies within a second after sentAtMs, so the scan can stop a second early.
    for (let i = this.calls.length - 1; i >= this.head; i--) {
      const call = this.calls[i] as OwnCall;
      if (call.sentAtMs <= atMs - this.windowMs - 1_000) break;
      if (!call.settled && call.sentAtMs >= sentWithMs) continue;
      if (call.countedAtMs > atMs - this.windowMs && call.countedAtMs <= atMs) n++;
    }
    return n;
  }

  /**
   * Own calls that may still be in the server's window when a call sent now arrives, and when the earliest
   * of them has surely left it, less the least a call takes to reach the server (one scan:
   * `AdaptiveRateLimiter` reads both at every decision, and replaces a call at that time).
   *
   * A call sent now reaches the server half the quickest round trip seen later, or after: a replacement sent
   * that much before its predecessor surely left (a window after the predecessor's answer came back) is counted
   * as the predecessor leaves, not a round trip after it, unless its way up and the predecessor's way down (and
   * the server's work on it: a call is counted as it arrives, as one beyond the allowance is refused unserved)
   * together took under half the quickest round trip. Sent a window after the answer, every replacement left
   * its window a call short for a round trip: at a remote API's round trips (210-290 ms, `client-rate-sim.ts
   * --latency-ms 100`) 30x4, 120x4 and every shared cell at 600/min missed the use goal on the fake clock in
   * 8 runs of 8 (95.3-96.3% at 600/min); now 30x4 and 120x4 in none, 600x2 and 600x2-late in 3. On the next
   * machine (round trips 10-90 ms) as before: 3 cells of 28 miss in every run (seeds 1-8 x two phases).
   * (Not the whole quickest round trip: two quick legs of later calls outran it, replacements reached the server
   * before their predecessors left, and at 120/min, where the key stands a call under the limit, took 429s.)
   */
  stillInWindow(now: number): { count: number; nextDepartureMs: number | undefined } {
    let count = 0;
    let earliest = Number.POSITIVE_INFINITY;
    const wayUpMs = (this.quickestMs ?? 0) / 2;
    this.forMaybeInWindow(now + wayUpMs, (countedByMs) => {
      count++;
      earliest = Math.min(earliest, countedByMs);
    });
    return {
      count,
      nextDepartureMs:
        earliest === Number.POSITIVE_INFINITY ? undefined : earliest + this.windowMs + 1 - wayUpMs,
    };
  }

  /** Own calls sent at `sentWithMs` or after it whose answers have not come back (see `inWindowAt`). */
  unansweredSentWith(sentWithMs: number): number {
    let n = 0;
    for (let i = this.calls.length - 1; i >= this.head; i--) {
      const call = this.calls[i] as OwnCall;
      if (call.sentAtMs < sentWithMs) break;
      if (!call.settled) n++;
    }
    return n;
  }

  /** Own calls counted in (fromMs, toMs]. */
  countedIn(fromMs: number, toMs: number): number {
    let n = 0;
    for (let i = this.calls.length - 1; i >= this.head; i--) {
      const call = this.calls[i] as OwnCall;
      if (call.sentAtMs <= fromMs - 1_000) break;
      if (call.countedAtMs > fromMs && call.countedAtMs <= toMs) n++;
    }
    return n;
  }

  /** When a call sent at `sentAtMs` will be counted, estimated: half a smoothed round trip later. */
  private arrivalOfCallSentAt(sentAtMs: number): number {
    return sentAtMs + (this.srttMs ?? 0) / 2;
  }

  private recordRoundTrip(ms: number): void {
    if (!(ms >= 0)) return;
    this.quickestMs = Math.min(this.quickestMs ?? ms, ms);
    if (this.srttMs === undefined) {
      this.srttMs = ms;
      this.rttVarMs = ms / 2;
      return;
    }
    this.rttVarMs += (Math.abs(ms - this.srttMs) - this.rttVarMs) / 4;
    this.srttMs += (ms - this.srttMs) / 8;
  }

  /**
   * Each own call that may still be in the server's window at `atMs`, with the time by which it was surely
   * counted: its answer's arrival, or, unanswered, its estimated counting time plus `slackMs`. (The answer
   * bounds it, whatever the one-way delays were; see `stillInWindow` for how early a replacement goes. Timed
   * from the estimate plus the slack instead, replacements arrived a round trip and two deviations after their
   * predecessors left, the window a call short that long at every turn.)
   */
  private forMaybeInWindow(atMs: number, each: (countedByMs: number) => void): void {
    const slack = this.slackMs();
    const from = atMs - this.windowMs;
    for (let i = this.calls.length - 1; i >= this.head; i--) {
      const call = this.calls[i] as OwnCall;
      // (Counted within the slowest answer after it was sent, or a second for the unanswered.)
      if (call.sentAtMs <= from - Math.max(1_000, this.slowestAnswerMs) - slack) break;
      const countedByMs = call.answeredAtMs ?? call.countedAtMs + slack;
      if (countedByMs > from) each(countedByMs);
    }
  }

  /**
   * The own call a permit stands for. Calls sent in the same millisecond are alike, so each answer takes
   * one still unsettled. (Always the last of them, the others stayed unsettled and uncounted: three calls
   * sent at once read as the others' growth of 2, and a survivor at 120/min took 2 fewer of a leaver's slots.)
   */
  private find(sentAtMs: number): OwnCall | undefined {
    let found: OwnCall | undefined;
    for (let i = this.calls.length - 1; i >= this.head; i--) {
      const call = this.calls[i] as OwnCall;
      if (call.sentAtMs < sentAtMs) break;
      if (call.sentAtMs === sentAtMs && (!found || !call.settled)) found = call;
    }
    return found;
  }

  private prune(now: number): void {
    const horizon = now - 2 * this.windowMs;
    while (this.head < this.calls.length && (this.calls[this.head] as OwnCall).sentAtMs < horizon)
      this.head++;
    if (this.head > 1024 && this.head * 2 > this.calls.length) {
      this.calls = this.calls.slice(this.head);
      this.head = 0;
    }
  }
}
