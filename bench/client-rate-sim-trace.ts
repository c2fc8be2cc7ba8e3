/**
 * One client-rate cell on the fake clock, second by second: the key's window count and each process's
 * share of it, to see where a window dips.
 *
 *   node bin/run-ts.cjs bench/client-rate-sim-trace.ts --limit 30 --n 2 [--start 0,80000] [--stop 0,120000]
 *     [--seed 7] [--seconds 240] [--from 50] [--to 240] [--phase-ms 0]   (see client-rate-sim.ts --phases)
 *     [--clock-skews-ms 250,-250] [--latency-ms 100] [--jitter-ms 40]   (see client-rate-sim.ts)
 */
import { simulate } from '../test/unit/client/rate-sim';
import { arg, clockSkewOf, clockSkewsArg, networkArgs } from './client-rate-figures';

async function main(): Promise<void> {
  const limit = Number(arg('limit') ?? 30);
  const n = Number(arg('n') ?? 2);
  const durationMs = Number(arg('seconds') ?? 240) * 1000;
  const starts = (arg('start') ?? '').split(',').filter(Boolean).map(Number);
  const stops = (arg('stop') ?? '').split(',').filter(Boolean).map(Number);
  const skews = clockSkewsArg();
  const processes = Array.from({ length: n }, (_, i) => ({
    startMs: starts[i] || undefined,
    stopMs: stops[i] || undefined,
    clockSkewMs: clockSkewOf(skews, i),
  }));
  const run = await simulate({
    limit,
    processes,
    durationMs,
    seed: Number(arg('seed') ?? 7),
    phaseMs: Number(arg('phase-ms') ?? 0),
    concurrency: 16,
    ...networkArgs(),
  });
  const from = Number(arg('from') ?? 50) * 1000;
  const to = Number(arg('to') ?? durationMs / 1000) * 1000;
  const inWindow = (times: number[], t: number): number =>
    times.filter((x) => x > t - 60_000 && x <= t).length;
  const refused = run.refusedAt.map((r) => r.map((x) => Math.round(x / 100) / 10));
  console.log(`refused: ${JSON.stringify(refused)}`);
  for (let t = from; t <= to; t += 1_000) {
    const per = run.accepted.map((a) => inWindow(a, t));
    const sent = run.accepted.map((a) => a.filter((x) => x > t - 1_000 && x <= t).length);
    const total = per.reduce((a, b) => a + b, 0);
    console.log(
      `${String(t / 1000).padStart(4)}s ${String(total).padStart(5)} ${per.join('/')}  +${sent.join('/')}`,
    );
  }
}

void main();
