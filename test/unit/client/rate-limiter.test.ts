import { AdaptiveRateLimiter } from '../../../connectors/traceability/rate-limiter';
import { FakeClock } from './fake-clock';

// One limiter's decisions, answer by answer, on a fake clock: what it reads from the X-RateLimit-* headers
// and when its next call may go. Several processes sharing a key over minutes: rate-sharing-together.test.ts,
// rate-sharing-joins.test.ts and rate-sharing-leaves.test.ts.

/** One call of `limiter` goes out and its answer shows the key at `used` of `limit`, the oldest call leaving at `resetAtMs`. */
function sendAt(limiter: AdaptiveRateLimiter, limit: number, used: number, resetAtMs: number): void {
  limiter.complete(limiter.recordDispatch(), { limit, remaining: limit - used, resetAtMs });
}

function sendAt30(limiter: AdaptiveRateLimiter, used: number, resetAtMs: number): void {
  sendAt(limiter, 30, used, resetAtMs);
}

describe('AdaptiveRateLimiter, one process on a key (fake clock)', () => {
  it('sends a single probe until the first answer tells the allowance', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock });
    const first = await limiter.acquire();
    let second = false;
    void limiter.acquire().then(() => (second = true));
    await clock.advance(5_000);
    expect(second).toBe(false);
    limiter.complete(first, { limit: 600, remaining: 599, resetAtMs: clock.now() + 60_000 });
    await clock.advance(300);
    expect(second).toBe(true);
  });

  // At 30/min a process's answers come seconds apart; when the window's first calls leave at once, the
  // answer to its replacement may show the others' count low (their replacements not in yet). That
  // dip is not room: the reading before it still counts until a second answer shows the fall.
  it('at 30/min, an answer that comes in a departure dip is not read as room to grow', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0 });
    const t0 = clock.now();
    const reset = t0 + 60_000;
    // Seven own calls, 2 s apart, each answer showing the others at 21: the key at 22..28 (its top).
    for (let i = 0; i < 7; i++) {
      sendAt30(limiter, 22 + i, reset);
      await clock.advance(2_000);
    }
    // The first own call leaves the window: its replacement goes out...
    await clock.advance(60_000 - 14_000 + 100);
    expect(limiter.delayMs()).toBe(0);
    const permit = limiter.recordDispatch();
    // ...and its answer comes while three of the others' calls have left, their replacements not in.
    limiter.complete(permit, { limit: 30, remaining: 30 - 25, resetAtMs: reset + 2_000 });
    // Growing now would put the key over its top once the others' replacements land.
    expect(limiter.delayMs()).toBeGreaterThan(0);
  });

  // Seen in real runs at 30/min with 4 processes (one ended with 35 of 84 calls): at the window's
  // turnover one answer showed two of the others' calls gone, their replacements on their way. Read as
  // the others leaving, it took their room; the key stood over its top, where the sharing cap stops
  // every replacement, and at each turnover the same process took more. A fall at small allowances now
  // counts as leaving once it has lasted HOLD_MS (1 s), as a finished process's does.
  it('at 30/min, a fall of the others seen in one turnover answer is not read as them leaving', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.99 });
    const t0 = clock.now();
    const answer = (used: number): void => sendAt30(limiter, used, t0 + 61_000);
    // Own calls at 0-5 s and 9 s, the others at 21 all along: the key at 22..28 (its top).
    for (const [i, at] of [0, 1_000, 2_000, 3_000, 4_000, 5_000, 9_000].entries()) {
      await clock.advance(at - (clock.now() - t0));
      answer(22 + i);
    }
    // Each of the first six leaves and is replaced; the answers show the key at its top.
    for (let i = 0; i < 6; i++) {
      await clock.advance(t0 + 60_100 + i * 1_000 - clock.now());
      expect(limiter.delayMs()).toBe(0);
      answer(28);
    }
    // The one sent at 9 s leaves; its replacement's answer shows two of the others' calls gone (26).
    await clock.advance(t0 + 69_100 - clock.now());
    expect(limiter.delayMs()).toBe(0);
    answer(26);
    expect(limiter.delayMs()).toBeGreaterThan(0);
    // Still gone 1.2 s later (here a call that went anyway shows it). Holding a quarter of the key, this
    // process does not read that as the others leaving either: others holding the most of the key that
    // fall are a larger process yielding at its cap (where the key's calls bunch). It grows by its share of
    // the room only (here, drawn at 0.99, not at all), and not into the others' room.
    await clock.advance(1_200);
    answer(27);
    expect(limiter.delayMs()).toBeGreaterThan(0);
  });

  it("from 120 to 240/min, a call that grows the count goes a quarter of the key's time for a call after the last", async () => {
    for (const [limit, spacingMs] of [
      [120, 125],
      [600, 0],
    ] as const) {
      const clock = new FakeClock(1_700_000_000_000);
      const limiter = new AdaptiveRateLimiter({ clock, random: () => 0 });
      // Half the key held by others, its window turned over long ago: room to grow, the ramp line far off.
      sendAt(limiter, limit, limit / 2, clock.now() - 1_000);
      expect(limiter.delayMs()).toBe(spacingMs);
      await clock.advance(spacingMs);
      expect(limiter.delayMs()).toBe(0);
    }
  });

  // The spec ("Rate limit", doc 01): "Every response carries ... X-RateLimit-Remaining (calls left)": the
  // server has counted a call by the time it answers it. So the call has surely left the window a window
  // after its answer came back, whatever the one-way delays were; the replacement needs no margin for the
  // round trip's spread (it waited a round trip and two deviations after its predecessor left, the
  // window a call short that long at every turn), and goes half the quickest round trip before that, the
  // least a call takes to reach the server, to be counted as its predecessor leaves.
  it('replaces a call a window after its answer came back less half the quickest round trip, not a margin of deviations later', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    // Alone on a key of 3: two calls (the top), each answered after 40 ms.
    for (const used of [1, 2]) {
      const permit = limiter.recordDispatch({ delayMs: 0, probe: false });
      await clock.advance(40);
      limiter.complete(permit, { limit: 3, remaining: 3 - used, resetAtMs: t0 + 61_000 });
    }
    // The first was answered at t0 + 40 ms: counted by then, out of the window (t - 60 s, t] at t0 + 60,040,
    // and a call sent 20 ms before that (half the quickest round trip, 40 ms) reaches the server no sooner.
    await clock.advance(t0 + 60_019 - clock.now());
    expect(limiter.delayMs()).toBeGreaterThan(0);
    await clock.advance(1);
    expect(limiter.delayMs()).toBe(0);
  });

  // Calls sent at one instant have one estimated counting time. Counting the unanswered ones as in the
  // window at the first answer made the others' count that answer showed too low by as many.
  it('calls sent together: an answer does not count the ones still unanswered as counted before it', () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    const first = limiter.recordDispatch();
    limiter.complete(first, { limit: 120, remaining: 110, resetAtMs: t0 + 60_000 });
    const together = [limiter.recordDispatch(), limiter.recordDispatch(), limiter.recordDispatch()];
    // The first of the three is answered: the key at 12, ours at most 2 of them (the earlier call and it).
    limiter.complete(together[0], { limit: 120, remaining: 108, resetAtMs: t0 + 60_000 });
    expect(limiter.snapshot()?.others).toBe(10);
  });

  // Two calls in one millisecond, answered in the other order than the server counted them: the first answer,
  // read while the other call was unanswered, counted that call as the others'; the other's answer, seeing
  // the key lower, was dropped as older news. At 30/min the next answer may be a minute off: the view held
  // the key one over its top, and the process left its own calls unreplaced as they left.
  it('calls sent together, answered out of order: the call the server counted first counts as ours, and ours are replaced as they leave', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    // The others hold 25 of 30; two calls of ours, then two sent together.
    sendAt30(limiter, 26, t0 + 60_000);
    await clock.advance(100);
    sendAt30(limiter, 27, t0 + 60_000);
    await clock.advance(1_900);
    const [first, second] = [limiter.recordDispatch(), limiter.recordDispatch()];
    limiter.complete(second, { limit: 30, remaining: 1, resetAtMs: t0 + 60_000 });
    limiter.complete(first, { limit: 30, remaining: 2, resetAtMs: t0 + 60_000 });
    expect(limiter.snapshot()?.others).toBe(25);
    // Our first call leaves the window: the key at 28 of its top of 29, ours 3 of 4 held.
    await clock.advance(58_002);
    expect(limiter.delayMs()).toBe(0);
  });

  // Calls sent in one millisecond share a dispatch time: every answer settled the last of them, so the
  // others stayed unanswered and out of our count, and each later answer read our own calls as the others'.
  it('calls sent together: each answer settles one of them, and none reads as the others', () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    limiter.complete(limiter.recordDispatch(), { limit: 120, remaining: 119, resetAtMs: t0 + 60_000 });
    const together = [limiter.recordDispatch(), limiter.recordDispatch(), limiter.recordDispatch()];
    // Alone on the key: the three answers show it at 2, 3 and 4.
    together.forEach((permit, i) =>
      limiter.complete(permit, { limit: 120, remaining: 118 - i, resetAtMs: t0 + 60_000 }),
    );
    expect(limiter.snapshot()?.others).toBe(0);
  });

  // Seen in a real 30x2-early run (43 idle seconds): the survivor had taken over all but the leaver's
  // last two calls, the key at its top (then 28 of 30). Those two left, nothing of the survivor's left for
  // most of a minute (a window's calls bunch at 30/min), so no answer told it the room, and the window
  // stood at 26 of 30 for 45 s while it had work.
  it("at 30/min, the others' last calls leaving: the survivor refreshes its view, not waiting for its own to leave", async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    let own = 0;
    const answer = (others: number): void => sendAt30(limiter, ++own + others, t0 + 61_000);
    // Fifteen own calls with the other at 14 (the key at its top, 29), then it leaves and this process
    // takes its calls as they go.
    for (let i = 0; i < 15; i++) {
      answer(14);
      await clock.advance(1_000);
    }
    await clock.advance(6_000);
    for (let others = 13; others >= 2; others--) {
      answer(others);
      await clock.advance(1_000);
    }
    expect(limiter.snapshot()).toMatchObject({ own: 27, others: 2, top: 29 });
    // Its own first call leaves at 60 s, 28 s on; the key's time for two calls (4 s) is what it waits.
    expect(limiter.delayMs()).toBeLessThanOrEqual(4_000);
    await clock.advance(4_000);
    expect(limiter.delayMs()).toBe(0);
  });

  // Seen on the fake clock (30x2-early): at 30/min a window's calls leave in a bunch, two a second, and a
  // survivor that waits for its own answers to show each of the leaver's calls gone is a call or two
  // behind, where the margin is one or two calls (the key settles at 29, the goal is 27).
  it("at 30/min, while the others leave, a call follows X-RateLimit-Reset when the window's oldest call is theirs", async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    // Fourteen own calls two seconds apart, the other holding 14 all along.
    for (let i = 0; i < 14; i++) {
      sendAt30(limiter, 15 + i, t0 + 60_000);
      await clock.advance(2_000);
    }
    // The window turns: each own call is replaced as it leaves (at 60, 62, 64 s), and the other's calls,
    // which leave at odd seconds, are not replaced: the others are leaving.
    for (const [k, others] of [13, 12, 11].entries()) {
      await clock.advance(t0 + 60_100 + k * 2_000 - clock.now());
      expect(limiter.delayMs()).toBe(0);
      sendAt30(limiter, 14 + others, t0 + 61_000 + k * 2_000);
    }
    // This process takes the room it was shown at once, up to the top (29).
    let own = 14;
    while (limiter.delayMs() === 0) sendAt30(limiter, ++own + 11, t0 + 65_000);
    expect(own).toBe(18);
    // Its next own call leaves at 66 s; the window's oldest call, the other's, leaves by 65 s (Reset), and a
    // call then takes its slot.
    expect(clock.now() + limiter.delayMs()).toBe(t0 + 65_000);
  });

  // Seen on the fake clock (four processes at 30/min starting 3 s apart, with the one-other rule there): a
  // process reading the others as leaving took a 429 that paused it for 42 s (Retry-After), and when the pause
  // ended it counted the others' calls as having left at their pace all that time: 13 calls at once, 12 of
  // them 429s. Between answers it may run ahead of the others' departures by the key's time for two calls.
  it('after a long Retry-After while the other leaves, it does not count the whole pause as its departures', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    const answer = (own: number, others: number): void => sendAt(limiter, 120, own + others, t0 + 61_000);
    // Two processes at 120/min, 59 calls each, this one's answers half a second apart; then the other's
    // count falls a call a second: it is leaving.
    for (let own = 1; own <= 59; own++) answer(own, 59);
    for (let i = 0; i < 12; i++) {
      await clock.advance(500);
      answer(59, 59 - Math.floor(i / 2));
    }
    const refused = limiter.recordDispatch();
    limiter.complete(refused, { limit: 120, remaining: 0, resetAtMs: clock.now() + 40_000 }, false);
    limiter.pauseFor(40_000);
    await clock.advance(40_000);
    let sent = 0;
    while (limiter.delayMs() === 0 && sent < 20) {
      limiter.recordDispatch();
      sent++;
    }
    expect(sent).toBeLessThanOrEqual(2);
  });

  it('a 429 pauses the process for Retry-After, then one probe goes', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock });
    const refusedCall = limiter.recordDispatch({ delayMs: 0, probe: false });
    limiter.complete(refusedCall, { limit: 30, remaining: 0, resetAtMs: clock.now() + 60_000 }, false);
    limiter.pauseFor(5_000);
    const sent: number[] = [];
    const t0 = clock.now();
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    await clock.advance(4_900);
    expect(sent).toEqual([]);
    await clock.advance(200);
    expect(sent).toEqual([5_000]); // one probe; the next waits for its answer
  });

  // The spec: "Every response carries X-RateLimit-Limit ... X-RateLimit-Remaining". A call whose answer never
  // came (the client timed out) carries nothing, so it must not leave the pacer waiting on a stale view.
  it('a lost answer (timeout) while the key has room: the next call goes at once, not when the window turns', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0 });
    const limit = 1_000_000;
    // Another process counted 280 calls; the oldest leaves the window in 54 s.
    const resetAtMs = clock.now() + 54_000;
    const first = await limiter.acquire();
    await clock.advance(20);
    limiter.complete(first, { limit, remaining: limit - 281, resetAtMs });
    const lost = await limiter.acquire();
    await clock.advance(2_000);
    limiter.complete(lost, undefined);
    const t0 = clock.now();
    let waitedMs: number | undefined;
    void limiter.acquire().then(() => (waitedMs = clock.now() - t0));
    await clock.advance(1_000);
    expect(waitedMs).toBe(0);
  });

  // The spec's X-RateLimit-Reset is when the window's oldest call leaves; its owner, not having seen this
  // process yet, may replace it at once, so a probe into a full key waits the key's time for one call more.
  it('another process that sees remaining 0 holds its calls until the oldest call has left the window, and a call more', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0 });
    const t0 = clock.now();
    // It started beside the others (its first answer showed them holding a third of the key); its latest
    // call was counted as the last one: the window is full until the oldest call leaves, in 3 s.
    sendAt30(limiter, 10, t0 + 3_000);
    sendAt30(limiter, 30, t0 + 3_000);
    const sent: number[] = [];
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    await clock.advance(4_900);
    expect(sent).toEqual([]);
    await clock.advance(200);
    expect(sent).toEqual([5_000]);
  });

  // Under 40/min a process that joined a full key probes each turn of the window into the incumbent's yields
  // (`JOINER_PROBE_BELOW_SHARE`): the incumbent replaces a call every two thirds of a second there and sees the
  // probe by then, so half a call's time after Reset is enough, and a call's time grew the joiner too slowly to
  // hear a leaver (a rolling restart at 30/min: 70% of the allowance in the window after the stop).
  it('at 30/min, a process that joined a full key probes half a call after the oldest call has left, not a call', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0 });
    const t0 = clock.now();
    // Its first call took the last slot of a key another process holds: full until the oldest call leaves, in 3 s.
    sendAt30(limiter, 30, t0 + 3_000);
    const sent: number[] = [];
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    await clock.advance(3_900);
    expect(sent).toEqual([]);
    await clock.advance(200);
    expect(sent).toEqual([4_000]);
  });

  // At 120/min a joiner's calls sit in the stretch of the window it joined in, and with 50 s of overlap it heard
  // nothing of a leaver's stop for 10 s; it now looks while its own calls leave far off (`JOINER_LOOK_MS`). Only
  // a process that joined others at work: four processes started together looked too in real runs, and one
  // took 102 of 357 calls of the key's split.
  it.each([
    ['joined others at work (its first answer showed them at 118 of 120)', 119, true],
    ['started with them (its first answer showed the key empty)', 1, false],
  ] as const)(
    "at 120/min, a process holding a fifth of the key, its own calls far off, that %s: looks once the window's oldest call has left",
    async (_, firstUsed, looks) => {
      const clock = new FakeClock();
      const limiter = new AdaptiveRateLimiter({ clock, random: () => 0 });
      const t0 = clock.now();
      const reset = t0 + 3_000;
      sendAt(limiter, 120, firstUsed, reset);
      // 24 more calls, each answer showing the key at its top (119): 25 of them ours, 94 the others'.
      for (let i = 0; i < 24; i++) {
        await clock.advance(20);
        sendAt(limiter, 120, 119, reset);
      }
      // The others' oldest call has left; none of ours leaves for 50 s.
      await clock.advance(10_000);
      expect(limiter.delayMs() === 0).toBe(looks);
    },
  );
});
