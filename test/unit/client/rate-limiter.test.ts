import { AdaptiveRateLimiter } from '../../../connectors/traceability/rate-limiter';
import { FakeClock, RollingWindowModel } from './fake-clock';

interface SimResult {
  perProcess: number[];
  refused: number;
  lastCallAt: number;
  startedAt: number;
}

/** Runs `processes` limiters against one rolling-window key until each has made its share of calls. */
async function simulate(opts: {
  limit: number;
  callsPerProcess: number[];
  startDelaysMs?: number[];
  latencyMs?: number;
}): Promise<SimResult> {
  const clock = new FakeClock();
  const server = new RollingWindowModel(opts.limit, () => clock.now());
  const startedAt = clock.now();
  const perProcess = opts.callsPerProcess.map(() => 0);
  let lastCallAt = startedAt;
  const latency = opts.latencyMs ?? 20;
  const runs = opts.callsPerProcess.map(async (calls, p) => {
    const limiter = new AdaptiveRateLimiter({ clock });
    if (opts.startDelaysMs?.[p]) await clock.sleep(opts.startDelaysMs[p] as number);
    // Four requests in flight per process, like a client with maxConcurrency 4.
    let started = 0;
    const worker = async (): Promise<void> => {
      while (started < calls) {
        started++;
        const permit = await limiter.acquire();
        const answer = server.take();
        lastCallAt = clock.now();
        await clock.sleep(latency);
        limiter.complete(permit, answer);
        if (answer.allowed) perProcess[p] = (perProcess[p] ?? 0) + 1;
        else {
          started--;
          limiter.pauseFor(answer.retryAfterMs);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  });
  let done = false;
  void Promise.all(runs).then(() => (done = true));
  while (!done) if (!(await clock.step())) await FakeClock.flush();
  return { perProcess, refused: server.refused, lastCallAt, startedAt };
}

function utilisation(result: SimResult, limit: number): number {
  const total = result.perProcess.reduce((a, b) => a + b, 0);
  const minutes = (result.lastCallAt - result.startedAt) / 60_000;
  return total / minutes / limit;
}

describe('AdaptiveRateLimiter', () => {
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

  it('paces a lone process evenly at about 95% of the allowance', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock });
    limiter.complete(limiter.recordDispatch(), { limit: 600, remaining: 599, resetAtMs: clock.now() + 60_000 });
    // 600/min * 0.95 = 9.5/s: the next call is due ~105 ms after the last one.
    expect(limiter.delayMs()).toBeGreaterThan(100);
    expect(limiter.delayMs()).toBeLessThan(110);
  });

  it('stops when remaining reaches zero and waits for X-RateLimit-Reset', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock });
    limiter.complete(limiter.recordDispatch(), { limit: 100, remaining: 0, resetAtMs: clock.now() + 7_000 });
    expect(limiter.delayMs()).toBe(7_000);
    await clock.advance(7_000);
    expect(limiter.delayMs()).toBe(0);
    limiter.recordDispatch();
    // Only one probe goes out past the reset until its answer arrives.
    expect(limiter.delayMs()).toBeGreaterThan(0);
  });

  it('holds every counted call during a Retry-After pause', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock });
    limiter.complete(limiter.recordDispatch(), { limit: 1000, remaining: 900, resetAtMs: clock.now() + 1_000 });
    limiter.pauseFor(5_000);
    let acquired = false;
    void limiter.acquire().then(() => (acquired = true));
    await clock.advance(4_900);
    expect(acquired).toBe(false);
    await clock.advance(200);
    expect(acquired).toBe(true);
  });

  it('leaves to another process sharing the key the part of the allowance it uses', async () => {
    const clock = new FakeClock();
    const limiter = new AdaptiveRateLimiter({ clock });
    let othersCalls = 0;
    // Every second: we make 5 calls, the other process makes 12 (1200/min allowance, 19/s target).
    for (let second = 0; second < 20; second++) {
      othersCalls += 12;
      for (let i = 0; i < 5; i++) {
        const permit = limiter.recordDispatch();
        limiter.complete(permit, { limit: 1200, remaining: 1200 - othersCalls - (second * 5 + i + 1), resetAtMs: clock.now() + 60_000 });
        await clock.advance(200);
      }
    }
    expect(limiter.othersRatePerSecond()).toBeCloseTo(12, 0);
    expect(limiter.currentRatePerSecond()).toBeCloseTo(19 - 12, 0);
  });

  it('keeps one process under the allowance with no 429 and about 95% use', async () => {
    const result = await simulate({ limit: 600, callsPerProcess: [1200] });
    expect(result.refused).toBe(0);
    expect(utilisation(result, 600)).toBeGreaterThan(0.9);
    expect(utilisation(result, 600)).toBeLessThanOrEqual(1);
  });

  it('lets two processes sharing a key use >= 90% of it with < 1% refused calls', async () => {
    const result = await simulate({ limit: 1200, callsPerProcess: [1000, 1000], startDelaysMs: [0, 300] });
    const total = (result.perProcess[0] ?? 0) + (result.perProcess[1] ?? 0);
    expect(result.refused / total).toBeLessThan(0.01);
    expect(utilisation(result, 1200)).toBeGreaterThan(0.9);
    expect(utilisation(result, 1200)).toBeLessThanOrEqual(1.02);
  });

  it('lets a late process grow its share instead of starving', async () => {
    const result = await simulate({ limit: 600, callsPerProcess: [3000, 300], startDelaysMs: [0, 90_000] });
    expect(result.refused).toBeLessThan(20);
    expect(result.perProcess[1]).toBe(300);
  });
});
