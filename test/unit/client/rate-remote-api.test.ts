import { minOf, simulate, MIN } from './rate-sim';

// The goals of issue 16 hold for a key served from far away, not only from the next machine: "use of the
// allowance in each full 60 s window while work is waiting >= 97% (>= 90% at 30/min)", "429s < 0.5% of calls".
// The benchmarks ran the sandbox on the workers' host (round trips of 10-90 ms); a brand's workers reach the API
// across the internet. Here each way takes 100 or 150 ms more (`latencyMs`): round trips of 210-290 or 310-390 ms.
// A replacement used to go a window after its predecessor's answer came back, and so reached the server a round
// trip after the predecessor had left: every window stood a call short a round trip long at each of the key's
// calls, and these runs missed the goal at every seed (see `OwnCalls.stillInWindow`).

/** Processes that start together, 0.1 s apart, as the forks of one deployment start (and as the benchmark runs them). */
function together(n: number): Array<{ startMs: number }> {
  return Array.from({ length: n }, (_, i) => ({ startMs: i * 100 }));
}

const runs = [
  [1, 0],
  [2, 500],
  [3, 0],
] as const;

describe('processes on a key served from far away (fake clock)', () => {
  it('four processes sharing 120/min, round trips 210-290 ms: every full window >= 97% used (117 of 120), no 429', async () => {
    for (const [seed, phaseMs] of runs) {
      const run = await simulate({
        limit: 120,
        processes: together(4),
        durationMs: 4 * MIN,
        seed,
        phaseMs,
        concurrency: 16,
        latencyMs: 100,
      });
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(117);
      expect(run.refused).toBe(0);
    }
  });

  it('four processes sharing 30/min, round trips 210-290 ms: every full window >= 90% used (27 of 30), no 429', async () => {
    for (const [seed, phaseMs] of runs) {
      const run = await simulate({
        limit: 30,
        processes: together(4),
        durationMs: 4 * MIN,
        seed,
        phaseMs,
        concurrency: 16,
        latencyMs: 100,
      });
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(27);
      expect(run.refused).toBe(0);
    }
  });

  it('two processes sharing 120/min, round trips 310-390 ms: every full window >= 97% used (117 of 120), no 429', async () => {
    for (const [seed, phaseMs] of runs) {
      const run = await simulate({
        limit: 120,
        processes: together(2),
        durationMs: 4 * MIN,
        seed,
        phaseMs,
        concurrency: 16,
        latencyMs: 150,
      });
      expect(minOf(run.windowCounts(MIN, 4 * MIN))).toBeGreaterThanOrEqual(117);
      expect(run.refused).toBe(0);
    }
  });
});
