import { ServerClock } from '../../../connectors/traceability/rate-server-clock';
import { parseRateHeaders, parseRetryAfterMs } from '../../../connectors/traceability/http';
import { AdaptiveRateLimiter, type RatePermit } from '../../../connectors/traceability/rate-limiter';
import { FakeClock } from './fake-clock';
import { minOf, refusedShare, simulate, unevenness, MIN, fourMinutes } from './rate-sim';

// The spec ("Rate limit", doc 01): "`X-RateLimit-Reset` (Unix time in seconds when the window resets)": a time
// on the server's clock. Issue 16: "workers on different hosts share nothing but the API", and hosts' clocks
// differ, by seconds where nothing syncs them. Every rule that waits for the window's oldest call to leave
// compares Reset with the worker's own clock.

/** Answers a server whose clock is `aheadMs` ahead of this host's would give, one call every `everyMs`. */
function answers(clock: ServerClock, aheadMs: number, fromMs: number, count: number, everyMs = 737): void {
  for (let i = 0; i < count; i++) {
    const sentAtMs = fromMs + i * everyMs;
    const stampedAtMs = sentAtMs + 15 + ((i * 7) % 20);
    clock.observe(sentAtMs, stampedAtMs + 20, Math.floor((stampedAtMs + aheadMs) / 1000) * 1000);
  }
}

describe("the server's clock, read from answers' Date headers (ServerClock)", () => {
  it('without a Date header the two clocks are taken to agree', () => {
    const clock = new ServerClock();
    expect(clock.offsetMs).toBe(0);
    expect(clock.toHostMs(1_700_000_060_000)).toBe(1_700_000_060_000);
  });

  it('a server 1.5 s ahead is read to within a round trip once answers fall at several phases of a second', () => {
    const clock = new ServerClock();
    answers(clock, 1_500, 1_700_000_000_000, 40);
    expect(Math.abs(clock.offsetMs - 1_500)).toBeLessThan(60);
    expect(Math.abs(clock.toHostMs(1_700_000_061_000) - (1_700_000_061_000 - 1_500))).toBeLessThan(60);
  });

  it('a server 2.2 s behind likewise', () => {
    const clock = new ServerClock();
    answers(clock, -2_200, 1_700_000_000_300, 40);
    expect(Math.abs(clock.offsetMs + 2_200)).toBeLessThan(60);
  });

  it('clocks a few ms apart, within what the answers can tell, are read as agreeing', () => {
    const clock = new ServerClock();
    answers(clock, 8, 1_700_000_000_000, 60);
    expect(clock.offsetMs).toBe(0);
  });

  it("one answer with a Date far off (a stale copy's) does not move it", () => {
    const clock = new ServerClock();
    answers(clock, 1_500, 1_700_000_000_000, 40);
    clock.observe(1_700_000_040_000, 1_700_000_040_040, 1_700_000_040_000 + 1_500 - 30_000);
    answers(clock, 1_500, 1_700_000_040_500, 3);
    expect(Math.abs(clock.offsetMs - 1_500)).toBeLessThan(60);
  });

  it('a clock stepped by seconds (NTP, or by hand) is followed within a few answers', () => {
    const clock = new ServerClock();
    answers(clock, 1_500, 1_700_000_000_000, 40);
    answers(clock, -3_000, 1_700_000_100_000, 40);
    expect(Math.abs(clock.offsetMs + 3_000)).toBeLessThan(60);
  });
});

describe('X-RateLimit-Reset and Date as parsed from the headers', () => {
  const at = Date.parse('2026-11-29T04:00:00.400Z');

  it('an absolute Reset is on the server clock, and the Date header comes with it', () => {
    const seen = parseRateHeaders(
      {
        'x-ratelimit-limit': '30',
        'x-ratelimit-remaining': '4',
        'x-ratelimit-reset': String(at / 1000 + 12),
        date: 'Sun, 29 Nov 2026 04:00:02 GMT',
      },
      at,
    );
    expect(seen).toEqual({
      limit: 30,
      remaining: 4,
      resetAtMs: at + 12_000,
      serverDateMs: Date.parse('2026-11-29T04:00:02Z'),
    });
  });

  it("a gateway's delta seconds count from the answer's arrival on this host's clock", () => {
    const seen = parseRateHeaders(
      { 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '7', date: 'nonsense' },
      at,
    );
    expect(seen).toEqual({ limit: 30, remaining: 0, resetAtMs: at + 7_000, resetOnHostClock: true });
  });
});

describe('a Retry-After given as an HTTP date (RFC 9110), on a host 3 s behind the server', () => {
  it('is read as the seconds it says on the server, not 3 more', async () => {
    const clock = new FakeClock(1_700_000_000_250);
    const limiter = new AdaptiveRateLimiter({ clock });
    const serverNow = (): number => clock.now() + 3_000;
    for (let i = 0; i < 30; i++) {
      let permit: RatePermit | undefined;
      void limiter.acquire().then((p) => (permit = p));
      while (!permit) await clock.advance(10);
      await clock.advance(20);
      limiter.complete(permit, {
        limit: 600,
        remaining: 600 - i - 1,
        resetAtMs: Math.ceil((serverNow() + 60_000) / 1000) * 1000,
        serverDateMs: Math.floor((serverNow() - 10) / 1000) * 1000,
      });
      await clock.advance(313);
    }
    const retryAt = new Date(Math.ceil((serverNow() + 5_000) / 1000) * 1000).toUTCString();
    const waitMs = parseRetryAfterMs(retryAt, limiter.serverTimeMs(clock.now())) ?? 0;
    expect(waitMs).toBeGreaterThan(4_000);
    expect(waitMs).toBeLessThanOrEqual(6_100);
  });
});

describe("workers on hosts whose clocks are off the server's share one key (fake clock)", () => {
  it('a worker whose clock is 2 s behind the server does not wait at its start', async () => {
    const run = await simulate({ limit: 120, processes: [{ clockSkewMs: -2_000 }], durationMs: 20_000 });
    const early = (run.accepted[0] ?? []).filter((t) => t < 10_000);
    const gaps = early.slice(1).map((t, i) => t - (early[i] as number));
    expect(early.length).toBeGreaterThanOrEqual(15);
    expect(Math.max(...gaps)).toBeLessThan(1_000);
  });

  it('four workers 0.8-1.5 s off either way share 120/min: >= 97% used, no 429, split within 10%', async () => {
    const skews = [1_500, -1_500, 800, -800];
    const run = await fourMinutes(
      120,
      skews.map((clockSkewMs, i) => ({ clockSkewMs, startMs: i * 100 })),
      3,
    );
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 120);
    expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
  });

  it('two workers 3 s apart share 30/min: >= 90% used, no 429, split within 10%', async () => {
    const run = await fourMinutes(30, [{ clockSkewMs: 1_500 }, { clockSkewMs: -1_500, startMs: 100 }], 3);
    expect(run.refused).toBe(0);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(27);
    expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
  });

  it('four workers 2 s ahead of the server share 600/min with 429s under 0.5% of calls', async () => {
    const run = await fourMinutes(
      600,
      [0, 1, 2, 3].map((i) => ({ clockSkewMs: 2_000, startMs: i * 100 })),
      3,
    );
    expect(refusedShare(run)).toBeLessThan(0.005);
    expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(0.97 * 600);
    expect(unevenness(run.split(MIN, 4 * MIN))).toBeLessThanOrEqual(0.1);
  });
});
