/**
 * The client-rate matrix on the fake clock (seconds, not minutes): the same cells and figures as
 * bench/client-rate.ts, run by the unit tests' simulator (test/unit/client/rate-sim.ts).
 *
 *   node bin/run-ts.cjs bench/client-rate-sim.ts [--seconds 240] [--only 30x4,120x2-early] [--seeds 7,1,2,3]
 *     [--timer-lag-ms 20]   (the limiter's timers fire up to that late, as on a loaded machine)
 *     [--stagger-ms 100]    (processes that start together start that far apart, as real forks do; 0 = at one
 *                            instant, which flatters the split: a lead taken in the fill is never given back)
 *     [--processes '[{},{"startMs":80000},{"startMs":80100,"stopMs":160000}]' --limit 120]
 *                           (one cell of your own, named <limit>-custom: when each process has work, in ms;
 *                            as in a cell, those that start at 0 are staggered by --stagger-ms)
 *     [--limits 150,240]    (the matrix's cells at these allowances, not 30, 120, 600 and 3,000)
 *     [--latency-ms 100]    (each way, every call takes this much more than the 5-45 ms it takes by default: a
 *                            remote API's round trips, 210-290 ms here, not the next machine's)
 *     [--jitter-ms 40]      (each way, the spread over 5 ms (+ --latency-ms); 40 by default)
 *     [--clock-skews-ms 1500,-1500,800,-800]
 *                           (each process's host clock that far ahead of the server's, in turn: workers on
 *                            different hosts; 0 = every clock agrees, as on one machine)
 *     [--phases 0]          (where in a second of Unix time each run starts, ms; 0 = on a second, where the
 *                            whole-second samples share X-RateLimit-Reset's seconds: the kindest phase. A
 *                            real run starts anywhere: --phases 0,125,250,375,500,625,750,875 runs each seed
 *                            at each, and a cell's "missed in" counts over all of them)
 *
 * With several seeds (network delays drawn differently) or phases each cell prints its least used run and how
 * many of the runs missed a goal.
 */
import { simulate, type SimProcess } from '../test/unit/client/rate-sim';
import {
  arg,
  cellFigures,
  networkArgs,
  clockSkewOf,
  clockSkewsArg,
  customCell,
  matrixLimits,
  missedGoals,
  rateCells,
} from './client-rate-figures';

/** Calls in flight per process, as bench/client-rate-worker.ts runs them. */
const LANES = 16;

async function main(): Promise<void> {
  const durationMs = Number(arg('seconds') ?? 240) * 1000;
  const staggerMs = Number(arg('stagger-ms') ?? 100);
  const skews = clockSkewsArg();
  const staggered = (processes: SimProcess[]): SimProcess[] =>
    processes
      .map((p, i) => (p.startMs === undefined && i > 0 ? { ...p, startMs: i * staggerMs } : p))
      .map((p, i) => ({ ...p, clockSkewMs: clockSkewOf(skews, i) }));
  const only = arg('only')?.split(',');
  const seeds = (arg('seeds') ?? arg('seed') ?? '7').split(',').map(Number);
  const phases = (arg('phases') ?? '0').split(',').map(Number);
  const runs = seeds.flatMap((seed) => phases.map((phaseMs) => ({ seed, phaseMs })));
  const custom = customCell(durationMs);
  // (A process that starts at 0 is staggered, see above; one that works to the end has no stop.)
  const cells = (custom ? [custom] : rateCells(durationMs, matrixLimits())).map((cell) => ({
    ...cell,
    processes: cell.processes.map(({ startMs, stopMs }): SimProcess => ({
      ...(startMs > 0 ? { startMs } : {}),
      ...(stopMs < durationMs ? { stopMs } : {}),
    })),
  }));
  let failed = 0;
  for (const cell of cells.filter((c) => !only || only.includes(c.name))) {
    let worst: { f: ReturnType<typeof cellFigures>; missed: string[] } | undefined;
    let runsMissed = 0;
    let runsRefused = 0;
    let underGoalMs = 0;
    let refusedAll = 0;
    let callsAll = 0;
    const processes = staggered(cell.processes);
    for (const { seed, phaseMs } of runs) {
      const run = await simulate({
        limit: cell.limit,
        processes,
        durationMs,
        seed,
        phaseMs,
        concurrency: LANES,
        timerLagMs: Number(arg('timer-lag-ms') ?? 0),
        ...networkArgs(),
      });
      const spans = processes.map((p, i) => ({
        from: p.startMs ?? 0,
        to: p.stopMs ?? durationMs,
        counted: run.accepted[i] ?? [],
      }));
      const f = cellFigures(cell.limit, run.accepted.flat(), run.refused, spans);
      const missed = missedGoals(cell.limit, f, cell.equalWork);
      underGoalMs += f.underGoalMs;
      refusedAll += f.refused;
      callsAll += f.calls;
      if (missed.length) runsMissed++;
      if (run.refused) runsRefused++;
      if (
        !worst ||
        missed.length > worst.missed.length ||
        (missed.length === worst.missed.length && f.useMin < worst.f.useMin)
      )
        worst = { f, missed };
    }
    if (!worst) continue;
    const { f, missed } = worst;
    if (runsMissed) failed++;
    console.log(
      `${cell.name.padEnd(13)} min ${(f.useMin * 100).toFixed(1)}% @${f.useMinAtS}s med ${(f.useMedian * 100).toFixed(1)}% ` +
        `429 ${f.refused}/${f.calls} idle ${f.idleSeconds} split ${f.split.join('/')} ` +
        `${missed.length ? 'MISS ' + missed.join('; ') : 'ok'}${runs.length > 1 ? ` (missed in ${runsMissed}/${runs.length} runs, ${runsRefused} with a 429)` : ''}` +
        ` under goal ${(underGoalMs / runs.length / 1000).toFixed(3)} s a run` +
        (runs.length > 1
          ? `, 429s ${((refusedAll / Math.max(1, callsAll)) * 100).toFixed(2)}% of all runs' calls`
          : ''),
    );
  }
  process.exitCode = failed ? 1 : 0;
}

void main();
