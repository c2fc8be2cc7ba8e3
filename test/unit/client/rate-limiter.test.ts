import { AdaptiveRateLimiter } from '../../../connectors/traceability/rate-limiter';
import { ratePolicy } from '../../../connectors/traceability/rate-policy';
import { FakeClock } from './fake-clock';
import { minOf, refusedShare, simulate, unevenness, type SimProcess } from './rate-sim';

// Goals from issue 16: use of the allowance in each full 60 s window while work waits >= 97% (>= 90% at
// 30/min, where one call is 3.3%), 429s < 0.5% of calls, an even split (within 10%) between processes
// with equal work. The spec ("Rate limit", doc 01): a rolling minute per key, X-RateLimit-Limit /
// -Remaining / -Reset on every answer, "Beyond the allowance: 429 with Retry-After".
// Every simulation runs on a fake clock with 5-45 ms each way per call and four calls in flight per process.

const MIN = 60_000;

/**
 * Four minutes of `processes` sharing `limit`, 16 calls in flight each (the benchmark's lanes), starting
 * `phaseMs` into a second, the limiters' timers up to `timerLagMs` late.
 */
function fourMinutes(limit: number, processes: SimProcess[], seed: number, phaseMs = 0, timerLagMs = 0) {
  return simulate({ limit, processes, durationMs: 4 * MIN, seed, phaseMs, timerLagMs, concurrency: 16 });
}

/** One call of `limiter` goes out and its answer shows the key at `used` of `limit`, the oldest call leaving at `resetAtMs`. */
function sendAt(limiter: AdaptiveRateLimiter, limit: number, used: number, resetAtMs: number): void {
  limiter.complete(limiter.recordDispatch(), { limit, remaining: limit - used, resetAtMs });
}

function sendAt30(limiter: AdaptiveRateLimiter, used: number, resetAtMs: number): void {
  sendAt(limiter, 30, used, resetAtMs);
}

describe('ratePolicy', () => {
  it('alone, aims at the allowance less one call (the first call of a process that joins)', () => {
    expect(ratePolicy(600, 50, MIN, false)).toMatchObject({ reserve: 1, top: 599 });
    expect(ratePolicy(3000, 100, MIN, false)).toMatchObject({ reserve: 1, top: 2999 });
    expect(ratePolicy(30, 100, MIN, false).capAt(29)).toBe(29);
  });

  it('shared over 240/min, keeps back the calls the key sends in two round trips, at least 2', () => {
    expect(ratePolicy(241, 100, MIN, true)).toMatchObject({ reserve: 2, top: 239 });
    expect(ratePolicy(3000, 100, MIN, true)).toMatchObject({ reserve: 10, top: 2990 });
  });

  it('shared up to 240/min (calls a quarter second apart or more), every process keeps back 1 call, whatever its share', () => {
    expect(ratePolicy(240, 100, MIN, true)).toMatchObject({ reserve: 1, top: 239 });
    // A late joiner holding a sixth of the key aims at the same top as the incumbent, so it can take the
    // key to 119 of 120, where the incumbent's cap binds (kept back 2, it stopped at 118, where none does).
    expect(ratePolicy(120, 100, MIN, true, false, true)).toMatchObject({ reserve: 1, top: 119 });
    expect(ratePolicy(120, 100, MIN, true, true)).toMatchObject({ reserve: 1, top: 119 });
    // (still the calls the key sends in two round trips, where those are more)
    expect(ratePolicy(240, 500, MIN, true)).toMatchObject({ reserve: 4, top: 236 });
  });

  it('shared where two calls take over a second (under 120/min), every process keeps back 1 call and rounds the cap up', () => {
    expect(ratePolicy(30, 100, MIN, true)).toMatchObject({ reserve: 1, top: 29 });
    expect(ratePolicy(119, 100, MIN, true)).toMatchObject({ reserve: 1, top: 118 });
    // Two processes settle the key at the top: at 29 each may hold 15, not 14.5.
    expect(ratePolicy(30, 100, MIN, true).capAt(29)).toBe(15);
  });

  it('there, a process holding under 40% of the key shares it with two others or more: four settle it a call under the top, 7 each', () => {
    const small = ratePolicy(30, 100, MIN, true, false, true);
    expect(small).toMatchObject({ top: 29, band: 4 });
    // At the top, a quarter of it: the fourth process's 8th call (29 = 8/7/7/7, one 10% over even) is not
    // replaced; a call under the top, half of it.
    expect(small.capAt(29)).toBe(7.25);
    expect(small.capAt(28)).toBe(14.5);
  });

  it('shared with one other, rounds the cap up, so that two processes settle the key at the top', () => {
    // At 120/min the top is 119 and the cap at the top half of it: 59.5 left two processes at 59 each.
    expect(ratePolicy(120, 100, MIN, true, true).capAt(119)).toBe(60);
    expect(ratePolicy(120, 100, MIN, true, false).capAt(119)).toBe(59.5);
  });

  it('shared, gives every process the same cap for the same key-wide count, falling to 0 past the top', () => {
    const { top, capAt } = ratePolicy(600, 50, MIN, true);
    expect(capAt(top - 20)).toBe(top);
    expect(capAt(top - 5)).toBeLessThan(top);
    expect(capAt(top - 5)).toBeGreaterThan(capAt(top));
    expect(capAt(top + 1)).toBe(0);
  });
});

describe('AdaptiveRateLimiter on one key (fake clock)', () => {
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

  it('one process alone, 600/min: every full window >= 97% used, no 429', async () => {
    const run = await simulate({ limit: 600, processes: [{}], durationMs: 3 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 3 * MIN))).toBeGreaterThanOrEqual(0.97 * 600);
  });

  it('allowance 30/min, one process: every full window >= 90% used (27 of 30), no 429', async () => {
    const run = await simulate({ limit: 30, processes: [{}], durationMs: 3 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 3 * MIN))).toBeGreaterThanOrEqual(27);
  });

  it('allowance 30/min, two processes: every full window >= 90% used, no 429, even split', async () => {
    const run = await simulate({ limit: 30, processes: [{}, {}], durationMs: 4 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(27);
    expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
  });

  it('two processes sharing 600/min: every full window >= 97% used, no 429, split within 10%', async () => {
    const run = await simulate({ limit: 600, processes: [{}, {}], durationMs: 3 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 3 * MIN))).toBeGreaterThanOrEqual(0.97 * 600);
    expect(unevenness(run.split(MIN, 3 * MIN))).toBeLessThanOrEqual(0.1);
  });

  it('four processes sharing 3,000/min: every full window >= 97% used, no 429, split within 10%', async () => {
    const run = await simulate({ limit: 3000, processes: [{}, {}, {}, {}], durationMs: 2.5 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 2.5 * MIN))).toBeGreaterThanOrEqual(0.97 * 3000);
    expect(unevenness(run.split(MIN, 2.5 * MIN))).toBeLessThanOrEqual(0.1);
  });

  // Reset-time probes only by a process holding under a sixth of the key's count: at 120/min they
  // used to meet the owners' replacements in the last slot (4 429s in 4 minutes, 0.8%).
  it('four processes sharing 120/min over four minutes: 429s under 0.5% of calls, split within 10%', async () => {
    const run = await simulate({ limit: 120, processes: [{}, {}, {}, {}], durationMs: 4 * MIN });
    expect(refusedShare(run)).toBeLessThan(0.005);
    expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
  });

  // At the end of the ramp the four processes used to fill the key past its top from readings three
  // calls old (each process's answers come one per four line steps), a 429 followed, and the owners
  // held back their replacements when the window's first calls left (a window at 25 of 30, the split
  // 43% off even). Each now counts the others' growth along the ramp since its last reading.
  it('four processes sharing 30/min (7 calls each): every full window >= 90% used, no 429, split within 10%', async () => {
    for (const seed of [7, 1, 2, 3]) {
      const run = await fourMinutes(30, [{}, {}, {}, {}], seed);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(27);
      expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
    }
  });

  // Real processes never start at one instant. Started 0.1 s apart, the first took a lead in the fill that
  // it kept: at 30/min the sharing cap (a band of 2 calls) bound only at half the key (real runs, 30x4:
  // 25/15/28/16). Holding under 40% of the key, a process's band is now 4 calls: the cap binds at a quarter
  // of the top, and four settle at 7 calls each.
  it('four processes sharing 30/min that start 0.1 s apart: split within 10% of even', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const run = await fourMinutes(30, [{}, { startMs: 100 }, { startMs: 200 }, { startMs: 300 }], seed);
      expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
    }
  });

  // Two at 30/min started 3 s apart: the first led the fill 17/12, and its yield to 15 at the top read to the
  // other as leaving (a fall of 2 against its own growth of 1). That one then took each call of the first as
  // it left the window, following X-RateLimit-Reset, the key at 30, over the top: the first yielded to it
  // every call, 24/59 (real runs, started together: 37/50 and 40/48). A key over the top is no one leaving.
  it('two processes sharing 30/min that start 3 s apart: split within 10% of even, every full window >= 90% used', async () => {
    for (const [seed, phaseMs] of [
      [1, 750],
      [2, 875],
      [8, 875],
    ] as const) {
      const run = await fourMinutes(30, [{}, { startMs: 3_000 }], seed, phaseMs);
      expect(unevenness(run.split(MIN + 3_000, 4 * MIN))).toBeLessThanOrEqual(0.1);
      expect(minOf(run.windowCounts(MIN + 3_000, 4 * MIN))).toBeGreaterThanOrEqual(27);
    }
  });

  it('four processes sharing 120/min (16 calls in flight each): every full window >= 97% used, no 429', async () => {
    for (const seed of [7, 1, 2, 3]) {
      const run = await fourMinutes(120, [{}, {}, {}, {}], seed);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
      expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
    }
  });

  // 120/min, two processes: keeping back 2 calls left one call of margin to the goal (118 of 120 against
  // 117), and a window dipped to 116 in one of eight runs (seed 7). A process holding 40% of the key
  // or more shares it with at most one other of its size, and keeps back 1.
  it('two processes sharing 120/min that start 0.1 s apart: every full window >= 97% used, no 429, split within 10%', async () => {
    for (const seed of [7, 1, 2]) {
      const run = await fourMinutes(120, [{}, { startMs: 100 }], seed);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
      expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
    }
  });

  // Slow answers at a small allowance: the growth quota once counted as growth the own and others'
  // counts held from different readings, both processes stopped at 12 of 120 and, sending nothing,
  // got no answer to tell them more until their own calls left a minute later.
  it('two processes at 120/min with round trips up to 0.8 s: the window fills, no stall', async () => {
    for (const seed of [1, 4]) {
      const run = await simulate({
        limit: 120,
        processes: [{}, {}],
        durationMs: 4 * MIN,
        seed,
        concurrency: 16,
        jitterMs: 400,
      });
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.85 * 120);
    }
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

  it('four processes sharing 30/min: no 429 and the key never idles below 25 of 30', async () => {
    const run = await simulate({ limit: 30, processes: [{}, {}, {}, {}], durationMs: 4 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(25);
  });

  // The stall seen in a real run: after the other finished, the survivor waited 32 s for its own calls
  // to leave before it learnt the other was gone. It now reads the others' count falling in its
  // answers (3/4 of the sharing band, at least 2 calls, over two spans of two calls) and takes their
  // room as it frees; what is left is the lag of that reading (95-96% against a goal of 97%; the
  // previous policy: 108 of 120 here).
  it('a process that finishes early at 120/min: the other never stalls and takes its calls as they leave', async () => {
    const run = await simulate({ limit: 120, processes: [{}, { stopMs: 120_000 }], durationMs: 4 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.95 * 120);
    // Its last calls have left by 171 s; from then the window is under the goal (97%: 117 of 120) only
    // while a call that left is being replaced, a round trip at most (10-90 ms here). Before the survivor
    // refreshed its view when the other's last calls left, it stood at 116 until its own calls left at
    // 181 s. (Measured to the millisecond, not once a second: the fake clock's seconds are the ones
    // X-RateLimit-Reset counts in, and the calls that follow it keep their phase to them window after
    // window, so a whole-second sample catches a replacement's round trip in every window or in none.)
    expect(run.longestUnder(0.97 * 120, 171_000, 4 * MIN)).toBeLessThanOrEqual(150);
  });

  // 120x2-early on the fake clock: once the leaving was read, the survivor stood at 115-117 of 120 for a
  // minute (seed 1: 6 windows under 117 from 125 s; seed 3: 15). A steady fall (one call a second) never
  // read as lasting, its line moving with it, and the cap was raised by less than the others had left.
  it('a process that finishes early at 120/min: from 5 s after, at most one window under 97% used, no 429', async () => {
    for (const seed of [1, 3]) {
      const run = await fourMinutes(120, [{}, { startMs: 100, stopMs: 120_000 }], seed);
      expect(run.refused).toBe(0);
      const under = run.windowCounts(125_000, 4 * MIN).filter((count) => count < 0.97 * 120);
      expect(under.length).toBeLessThanOrEqual(1);
    }
  });

  // 120x2-early on the fake clock (the benchmark's processes, 0.1 s apart): when the other stopped, its
  // calls left about a second apart and so did the survivor's answers; the fall read as leaving only once
  // the most the others held over the last second was 2 down, and the survivor then took one call per
  // answer, so the window stood at 116 of 120 (seeds 1-3; all 8 missed). Now the latest answer tells the
  // fall, and between answers the survivor takes the other's calls at the pace they leave.
  it('a process that finishes early at 120/min: every full window >= 97% used (117 of 120), no 429', async () => {
    for (const seed of [1, 2, 3]) {
      const run = await fourMinutes(120, [{}, { startMs: 100, stopMs: 120_000 }], seed);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
    }
  });

  // 120x2-early on the fake clock, seed 11: at the turn the survivor saw no answer for up to 2 s; the
  // first showed the other 2 down, and it waited a second more for the fall to last, the other's calls
  // leaving meanwhile: 116 of 120 at 122-124 s in 7 phases of 8. A fall of 2 that outlasts a dip (a
  // quarter of a second, checked by one call if no answer comes) now reads as leaving.
  it('a process that finishes early at 120/min: a fall of 2 is read as leaving once it outlasts a dip', async () => {
    for (const phaseMs of [0, 250, 625, 750]) {
      const run = await fourMinutes(120, [{}, { startMs: 100, stopMs: 120_000 }], 11, phaseMs);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
    }
  });

  // 120x2-early on the fake clock: read at a fall of 2, the survivor stood at 117 of 120 (the goal exactly)
  // in most runs, and at 116 where a third of the other's calls left first or one of its own was being
  // replaced: 6 runs of 128 (seeds 1-16 over eight phases), these among them. "In every case: use of the
  // allowance in each full 60 s window while work is waiting >= 97%" (issue 16). A fall of 1 under the
  // top that lasts and that three answers show now reads as leaving.
  it('a process that finishes early at 120/min: a fall of 1 under the top, shown by three answers, is read as leaving', async () => {
    for (const [seed, phaseMs] of [
      [1, 375],
      [5, 0],
      [7, 375],
      [11, 375],
      [14, 0],
      [15, 0],
    ] as const) {
      const run = await fourMinutes(120, [{}, { startMs: 100, stopMs: 120_000 }], seed, phaseMs);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
    }
  });

  // A fall of 1 read as leaving at one answer, whatever the key (tried before the above): two processes
  // settling the key take turns at one call more, so one read the other's turn as leaving and took its
  // share (seed 1, starts 1 s apart: 11 429s, split 2 to 1).
  it('two processes at 120/min that start 1 s apart: no 429, split within 10%', async () => {
    for (const seed of [1, 2]) {
      const run = await fourMinutes(120, [{}, { startMs: 1_000 }], seed);
      expect(run.refused).toBe(0);
      expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
    }
  });

  // 120/min, a process that joins 80 s late. Holding under 40% of the key, it kept back 2 calls while the
  // incumbent kept back 1: it stopped growing at 118 of 120, where no one's cap binds, a sixth of the key
  // (150/40), and the key dipped to 116 as the window turned. "In every case: use of the allowance in each
  // full 60 s window while work is waiting >= 97%" (issue 16).
  it('a process that joins 80 s late at 120/min: every full window >= 97% used, no 429, and it grows past a sixth of the key', async () => {
    for (const [seed, phaseMs] of [
      [2, 0],
      [4, 625],
      [4, 750],
    ] as const) {
      const run = await fourMinutes(120, [{}, { startMs: 80_000 }], seed, phaseMs);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
      const [incumbent = 0, joiner = 0] = run.split(80_000 + MIN, 4 * MIN);
      expect(joiner / (incumbent + joiner)).toBeGreaterThan(0.24);
    }
  });

  // 120/min, two processes that start 1 s apart, their timers up to 20 ms late (seed 3): at the window's
  // first turn one read the other's dip (its count 2 under the most it had held) as leaving, and no fall
  // came after it; leaving still, it took the other's calls for three minutes (split 90/266, 49% off
  // even). "The split between processes with equal work within 10% of even" (issue 16).
  it('two processes at 120/min that start 1 s apart, timers 20 ms late: a leaving that stalls is no leaving, split within 10%', async () => {
    const run = await fourMinutes(120, [{}, { startMs: 1_000 }], 3, 875, 20);
    expect(run.refused).toBe(0);
    expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
  });

  // 120/min, a third process that joins a pair 80 s late. Each of the pair holds over 40% of the key and
  // reads the others as one process of its size; when the joiner's calls took the key over its top, every
  // process yielded, and one of the pair read the other's yield (with the joiner's) as leaving and took
  // their calls: 3-7 429s a run (seed 1; seed 7, with only the rule that a leaving that stalls is none: 4).
  // "In every case: ... 429s < 0.5% of calls" (issue 16).
  // And (seeds 5, 8, 9): a process grew as its answers came in, a round trip after its own last call; a
  // window later the two were replaced each a round trip after it left, so they left together at every turn,
  // and clusters of 4-5 calls within 80 ms built up (fake clock, 140-240 s, seeds 1-8 at four phases: 28
  // clusters of four). One such cluster leaving took the window to 116 of 120 (seed 5 at 157 s, seed 8 at
  // 145 s, seed 9 at 222 s): "use of the allowance in each full 60 s window ... >= 97%". A growing call now
  // goes a quarter of the key's call time after the last.
  it('a third process that joins a pair 80 s late at 120/min: 429s under 0.5% of calls, every full window >= 97% used', async () => {
    for (const [seed, phaseMs] of [
      [1, 0],
      [1, 125],
      [1, 500],
      [7, 250],
      [7, 375],
      [7, 500],
      [5, 0],
      [5, 750],
      [8, 625],
      [9, 875],
    ] as const) {
      const run = await fourMinutes(120, [{}, { startMs: 1_000 }, { startMs: 80_000 }], seed, phaseMs);
      expect(refusedShare(run)).toBeLessThan(0.005);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
    }
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
  // window a call short that long at every turn).
  it('replaces a call a window after its answer came back, not a margin of round-trip deviations later', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock, random: () => 0.5 });
    const t0 = clock.now();
    // Alone on a key of 3: two calls (the top), each answered after 40 ms.
    for (const used of [1, 2]) {
      const permit = limiter.recordDispatch({ delayMs: 0, probe: false });
      await clock.advance(40);
      limiter.complete(permit, { limit: 3, remaining: 3 - used, resetAtMs: t0 + 61_000 });
    }
    // The first was answered at t0 + 40 ms: counted by then, out of the window (t - 60 s, t] at t0 + 60,040.
    await clock.advance(t0 + 60_039 - clock.now());
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

  // 120x2-early on the fake clock, seed 15: three calls sent together were answered out of order, the one
  // the server counted first last. Read with all three counted in as ours, it showed the leaving other 2
  // lower than it was, and the survivor took 2 slots too many: a 429 in all 8 phases of a second.
  it('a process that finishes early at 120/min: answers to calls sent together, out of order, bring no 429', async () => {
    for (const phaseMs of [0, 250, 500, 750]) {
      const run = await fourMinutes(120, [{}, { startMs: 100, stopMs: 120_000 }], 15, phaseMs);
      expect(run.refused).toBe(0);
    }
  });

  // Goal 97%; with shared growth at half pace the key's calls stay spread over the window, so the
  // stopped process's calls leave gradually and the other takes them up (88.5% before, one window's dip).
  it('a process that finishes early at 3,000/min: the other takes its share as it frees, the dip under 5%', async () => {
    const run = await simulate({ limit: 3000, processes: [{}, { stopMs: 120_000 }], durationMs: 4 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.95 * 3000);
  });

  it('a process that stops: the others take its share once its calls have left the window', async () => {
    const run = await simulate({ limit: 600, processes: [{}, {}, { stopMs: 100_000 }], durationMs: 4 * MIN });
    expect(run.refused / run.accepted.flat().length).toBeLessThan(0.005);
    // It sends nothing after its stop (calls in flight then land within a one-way delay, under 50 ms),
    // so its last calls have left the window by 160 s.
    expect(Math.max(...(run.accepted[2] ?? []))).toBeLessThan(100_050);
    expect(minOf(run.windowCounts(161_000, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 600);
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

  // The late joiner at 30/min (bench cell 30x2-late): the incumbent yields to it, and the joiner read the
  // yield only at its own rare answers, so the window stood at 26 of 30 at turnovers (3 seeds of 8). Now
  // it reads a fall from the last reading before the quiet minute and follows X-RateLimit-Reset.
  it.each([1, 4, 5])(
    'a process that joins at 80 s at 30/min (seed %i): every full window >= 90% used, no 429',
    async (seed) => {
      const run = await fourMinutes(30, [{}, { startMs: 80_000 }], seed);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(27);
    },
  );

  // The same goal over the phases of a second at which a run may start (see simulate's phaseMs), and for a
  // process that finishes early. Kept back 2 calls (a key settled at 28 of 30), the incumbent at its cap held
  // the key at 27 while the joiner grew, and a process that finished took 2 calls out of the window in the
  // first second of a turnover: all six missed (26 of 30). Every process now keeps back 1 call at 30/min.
  // The last two: a survivor that awaited a fall of 2 saw the leaver's third call leave first; it now reads
  // a fall of 1 from an other of its size.
  it.each([
    ['joins at 80 s', 1, 125],
    ['joins at 80 s', 2, 500],
    ['joins at 80 s', 6, 750],
    ['finishes at 120 s', 1, 0],
    ['finishes at 120 s', 2, 375],
    ['finishes at 120 s', 3, 750],
    ['finishes at 120 s', 3, 125],
    ['finishes at 120 s', 4, 750],
  ])(
    'a process that %s at 30/min (seed %i, %i ms into a second): every full window >= 90% used, no 429',
    async (what, seed, phaseMs) => {
      const other = what === 'joins at 80 s' ? { startMs: 80_000 } : { startMs: 100, stopMs: 120_000 };
      const run = await fourMinutes(30, [{}, other], seed, phaseMs);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(27);
    },
  );

  // Started 1 s apart, timers up to 20 ms late (as on a loaded machine): the finisher's count fell by 1 at the
  // turn after it stopped, and the survivor, whose own calls did not leave for 1-2 s, had no answer to show
  // the fall had lasted; three of the finisher's calls left meanwhile (25-26 of 30 at 123 s, 42 runs of 128).
  // It now sends one call when the fall would have lasted.
  it.each([
    [1, 750],
    [2, 750],
    [3, 125],
  ])(
    'a process that finishes at 120 s at 30/min, started 1 s apart with late timers (seed %i, %i ms into a second): every full window >= 90% used, no 429',
    async (seed, phaseMs) => {
      const run = await fourMinutes(30, [{}, { startMs: 1_000, stopMs: 120_000 }], seed, phaseMs, 20);
      expect(run.refused).toBe(0);
      expect(minOf(run.windowCounts(MIN + 1_000, 4 * MIN))).toBeGreaterThanOrEqual(27);
    },
  );

  // The late joiner at 600/min (bench cell 600x2-late): the incumbent, at its sharing cap, leaves calls
  // unreplaced until the key is in the band (12 under the top) and the joiner read that fall, larger than
  // its own growth, as the incumbent leaving: it took all the room at once while the incumbent grew into it
  // too (a 429 in 97 runs of 128 on the fake clock, 27 of them over 0.5% of calls).
  it.each([
    [1, 500],
    [2, 250],
    [3, 750],
  ])(
    'a process that joins at 80 s at 600/min (seed %i, %i ms into a second): no 429, every full window >= 97% used',
    async (seed, phaseMs) => {
      const run = await fourMinutes(600, [{}, { startMs: 80_000 }], seed, phaseMs);
      expect(run.refusedAt).toEqual([[], []]);
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 600);
    },
  );

  it('a process that starts mid-window gets calls at once and grows its share, without 429s, the key staying used', async () => {
    const run = await simulate({ limit: 600, processes: [{}, { startMs: 90_000 }], durationMs: 4 * MIN });
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.95 * 600);
    const late = run.accepted[1] ?? [];
    expect(late[0]).toBeLessThan(91_000);
    // It probes when the window's oldest call leaves (X-RateLimit-Reset) instead of waiting for its
    // own calls to leave, and the other yields as the key's count enters the sharing band, so its
    // share grows every few seconds: over a fifth by the fourth minute.
    const [first, second] = run.split(3 * MIN, 4 * MIN) as [number, number];
    expect(second / (first + second)).toBeGreaterThan(1 / 5);
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
    // Its own call was counted as the last one: the window is full until the oldest call leaves, in 3 s.
    sendAt30(limiter, 30, t0 + 3_000);
    const sent: number[] = [];
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    void limiter.acquire().then(() => sent.push(clock.now() - t0));
    await clock.advance(4_900);
    expect(sent).toEqual([]);
    await clock.advance(200);
    expect(sent).toEqual([5_000]);
  });
});
