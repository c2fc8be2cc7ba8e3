import { shiftedClock } from '../../../connectors/traceability/clock';
import { AdaptiveRateLimiter } from '../../../connectors/traceability/rate-limiter';
import { seededRandom } from '../../../sandbox/core/prng';
import { FakeClock, RollingWindowModel } from './fake-clock';

/** One simulated worker process: it has work from `startMs` until `stopMs` (relative to the start). */
export interface SimProcess {
  startMs?: number;
  stopMs?: number;
  /** Requests in flight at once (the client's maxConcurrency). */
  concurrency?: number;
  /**
   * How far this process's host clock is ahead of the server's (behind when negative): workers on different
   * hosts share nothing but the API, and their clocks are off by up to seconds where nothing syncs them.
   */
  clockSkewMs?: number;
}

export interface SimResult {
  limit: number;
  /** Server-side times of the calls the server counted, per process (relative to the start). */
  accepted: number[][];
  refused: number;
  /** Server-side times of the refused calls, per process (relative to the start). */
  refusedAt: number[][];
  /** The limiter of each process, to read its view at the end. */
  limiters: AdaptiveRateLimiter[];
  /** Calls counted in the window (t - 60 s, t] for t = fromMs, fromMs + 1 s, ..., toMs. */
  windowCounts(fromMs: number, toMs: number): number[];
  /**
   * The longest stretch within [fromMs, toMs] in which the window (t - 60 s, t] held fewer than `count`
   * calls, to the millisecond (not sampled once a second).
   */
  longestUnder(count: number, fromMs: number, toMs: number): number;
  /** Calls each process got counted in [fromMs, toMs). */
  split(fromMs: number, toMs: number): number[];
}

/**
 * Runs limiters, one per process, against one key of the spec's sliding-window server for `durationMs`
 * of fake time. Each call takes 5-45 ms to reach the server and as long to come back; a 429 is
 * answered with Retry-After and the call is retried after the limiter's pause, as the transport does.
 */
export async function simulate(opts: {
  limit: number;
  processes: SimProcess[];
  durationMs: number;
  seed?: number;
  /** Each way, a call takes 5 ms plus up to this much... */
  jitterMs?: number;
  /** ...plus this much more (0 by default; a remote API is tens to hundreds of ms away). */
  latencyMs?: number;
  /** Requests in flight at once per process, unless the process says (default 4). */
  concurrency?: number;
  /**
   * Each limiter timer fires up to this much late (0 by default), as on a loaded machine; drawn from a
   * stream of its own, so the network delays stay the same draws.
   */
  timerLagMs?: number;
  /**
   * How far into a second of Unix time the run starts (0 by default: on a second). X-RateLimit-Reset
   * counts whole seconds and the ramp line starts from it, while the figures sample the window every
   * whole second from the start: at 0 the two grids coincide, which is the kindest phase (a third to two
   * fifths of the missed runs of the average over the second's phases); a real run starts anywhere in a
   * second.
   */
  phaseMs?: number;
}): Promise<SimResult> {
  const clock = new FakeClock(1_700_000_000_000 + (opts.phaseMs ?? 0));
  const t0 = clock.now();
  const server = new RollingWindowModel(opts.limit, () => clock.now());
  const random = seededRandom(opts.seed ?? 7);
  const latency = (): number => 5 + (opts.latencyMs ?? 0) + Math.floor(random() * (opts.jitterMs ?? 40));
  const accepted: number[][] = opts.processes.map(() => []);
  const refusedAt: number[][] = opts.processes.map(() => []);
  const lagRandom = seededRandom((opts.seed ?? 7) + 1_000_003);
  const lag = opts.timerLagMs ?? 0;
  const lateClock = {
    now: () => clock.now(),
    sleep: (ms: number, signal?: AbortSignal) => clock.sleep(ms + Math.floor(lagRandom() * lag), signal),
  };
  const limiters = opts.processes.map(
    (proc) =>
      new AdaptiveRateLimiter({
        clock: shiftedClock(lag > 0 ? lateClock : clock, proc.clockSkewMs ?? 0),
        random,
      }),
  );
  const endAt = t0 + opts.durationMs;

  const runs = opts.processes.map(async (proc, p) => {
    const limiter = limiters[p] as AdaptiveRateLimiter;
    if (proc.startMs) await clock.sleep(proc.startMs);
    const stopAt = t0 + Math.min(proc.stopMs ?? opts.durationMs, opts.durationMs);
    // At its stop the process sends nothing more, as a benchmark worker that exits: calls waiting for a
    // slot are dropped (left waiting, they went out a window later and hid the process's leaving).
    const stop = new AbortController();
    void clock.sleep(stopAt - clock.now()).then(() => stop.abort());
    const worker = async (): Promise<void> => {
      while (clock.now() < stopAt) {
        const permit = await limiter.acquire(stop.signal).catch(() => undefined);
        if (!permit) return;
        await clock.sleep(latency());
        const answer = server.take();
        if (answer.allowed) accepted[p]?.push(clock.now() - t0);
        else refusedAt[p]?.push(clock.now() - t0);
        await clock.sleep(latency());
        limiter.complete(permit, answer, answer.allowed);
        if (!answer.allowed) limiter.pauseFor(answer.retryAfterMs);
      }
    };
    await Promise.all(Array.from({ length: proc.concurrency ?? opts.concurrency ?? 4 }, worker));
  });
  let done = false;
  void Promise.all(runs).then(() => (done = true));
  while (!done && clock.now() < endAt + 5_000) if (!(await clock.step())) await FakeClock.flush();

  const all = accepted.flat().sort((a, b) => a - b);
  return {
    limit: opts.limit,
    accepted,
    refused: server.refused,
    refusedAt,
    limiters,
    windowCounts(fromMs, toMs) {
      const counts: number[] = [];
      for (let t = fromMs; t <= toMs; t += 1_000)
        counts.push(all.filter((x) => x > t - 60_000 && x <= t).length);
      return counts;
    },
    longestUnder(count, fromMs, toMs) {
      // The count changes only as a call arrives (+1) or leaves a window later (-1).
      const changes = [
        ...all.map((x): [number, number] => [x, 1]),
        ...all.map((x): [number, number] => [x + 60_000, -1]),
      ].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let n = 0;
      let i = 0;
      for (; i < changes.length && (changes[i] as [number, number])[0] <= fromMs; i++)
        n += (changes[i] as [number, number])[1];
      let longest = 0;
      let under = n < count ? fromMs : undefined;
      for (; i < changes.length && (changes[i] as [number, number])[0] <= toMs; i++) {
        const [at, delta] = changes[i] as [number, number];
        n += delta;
        if (n < count && under === undefined) under = at;
        if (n >= count && under !== undefined) {
          longest = Math.max(longest, at - under);
          under = undefined;
        }
      }
      return under === undefined ? longest : Math.max(longest, toMs - under);
    },
    split(fromMs, toMs) {
      return accepted.map((times) => times.filter((x) => x >= fromMs && x < toMs).length);
    },
  };
}

/** The run's 429s as a share of its calls (the refused among them). */
export function refusedShare(run: { accepted: number[][]; refused: number }): number {
  return run.refused / (run.refused + run.accepted.flat().length);
}

export function minOf(values: number[]): number {
  return values.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
}

/** Largest distance of a share from the even split, as a fraction of the even split. */
export function unevenness(split: number[]): number {
  const even = split.reduce((a, b) => a + b, 0) / split.length;
  return Math.max(...split.map((s) => Math.abs(s - even) / even));
}

/** A minute in ms, the key's rolling window. */
export const MIN = 60_000;

/**
 * A timeout for the fake-clock runs at 3,000/min: each takes a minute or more of CPU, and under CI's parallel
 * projects on two cores one took 120 s, the default timeout.
 */
export const HEAVY_TEST_MS = 300_000;

/**
 * Four minutes of `processes` sharing `limit`, 16 calls in flight each (the benchmark's lanes), starting
 * `phaseMs` into a second, the limiters' timers up to `timerLagMs` late.
 */
export function fourMinutes(
  limit: number,
  processes: SimProcess[],
  seed: number,
  phaseMs = 0,
  timerLagMs = 0,
) {
  return simulate({ limit, processes, durationMs: 4 * MIN, seed, phaseMs, timerLagMs, concurrency: 16 });
}
