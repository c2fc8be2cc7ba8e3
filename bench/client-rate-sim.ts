/**
 * The client-rate matrix on the fake clock (seconds, not minutes): the same cells and figures as
 * bench/client-rate.ts, run by the unit tests' simulator (test/unit/client/rate-sim.ts).
 *
 *   node bin/run-ts.cjs bench/client-rate-sim.ts [--seconds 240] [--only 30x4,120x2-early] [--seed 7]
 */
import { simulate, type SimProcess } from '../test/unit/client/rate-sim';
import { cellFigures, missedGoals } from './client-rate-figures';

function arg(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main(): Promise<void> {
  const durationMs = Number(arg('seconds') ?? 240) * 1000;
  const only = arg('only')?.split(',');
  const seed = Number(arg('seed') ?? 7);
  const cells: Array<{ name: string; limit: number; processes: SimProcess[]; equalWork: boolean }> = [];
  for (const limit of [30, 120, 600, 3000]) {
    for (const n of [1, 2, 4])
      cells.push({
        name: `${limit}x${n}`,
        limit,
        processes: Array.from({ length: n }, () => ({})),
        equalWork: true,
      });
    cells.push({
      name: `${limit}x2-late`,
      limit,
      processes: [{}, { startMs: Math.round(durationMs / 3) }],
      equalWork: false,
    });
    cells.push({
      name: `${limit}x2-early`,
      limit,
      processes: [{}, { stopMs: Math.round(durationMs / 2) }],
      equalWork: false,
    });
  }
  let failed = 0;
  for (const cell of cells.filter((c) => !only || only.includes(c.name))) {
    const run = await simulate({ limit: cell.limit, processes: cell.processes, durationMs, seed });
    const spans = cell.processes.map((p, i) => ({
      from: p.startMs ?? 0,
      to: p.stopMs ?? durationMs,
      counted: run.accepted[i] ?? [],
    }));
    const f = cellFigures(cell.limit, run.accepted.flat(), run.refused, spans);
    const missed = missedGoals(cell.limit, f, cell.equalWork);
    if (missed.length) failed++;
    console.log(
      `${cell.name.padEnd(13)} min ${(f.useMin * 100).toFixed(1)}% @${f.useMinAtS}s med ${(f.useMedian * 100).toFixed(1)}% ` +
        `429 ${f.refused}/${f.calls} idle ${f.idleSeconds} split ${f.split.join('/')} ${missed.length ? 'MISS ' + missed.join('; ') : 'ok'}`,
    );
  }
  process.exitCode = failed ? 1 : 0;
}

void main();
