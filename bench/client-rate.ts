/**
 * Client rate benchmark: real worker processes, each a TraceabilityClient that always has work, share one
 * key of the sandbox (sliding 60 s window, network jitter on) at allowances of 30 to 3,000 calls a minute,
 * including processes that start late, finish early, or both (a rolling restart), and three that join one
 * (a scale-out; the matrix is in client-rate-figures.ts). Prints one row per cell and exits 1 if a cell
 * misses its goal (use of the allowance in every full 60 s window >= 97%, >= 90% at 30/min; 429s < 0.5% of
 * calls; no second with room in the window and no call while work waited; processes with equal work within
 * 10% of an even split).
 *
 *   node bin/run-ts.cjs bench/client-rate.ts           # quick: 6 cells of 150 s, all at once (~3 min)
 *   node bin/run-ts.cjs bench/client-rate.ts --full    # 28 cells of 240 s, 5 at a time, at most two of them
 *                                                      # at 3,000/min (~25 min; npm run bench:rate)
 *   node bin/run-ts.cjs bench/client-rate.ts --processes '[{"stopMs":160000},{"startMs":80000}]' --limit 180
 *                                                      # one cell of your own (as in client-rate-sim.ts), 150 s
 *                                                      # unless --seconds says (--full: 240 s); --repeat N
 *   options: --parallel N, --load-budget N (the allowances of cells side by side, calls a minute together:
 *            7,000 unless given), --jitter-ms N (default 40), --latency-ms N (the sandbox's fixed delay each
 *            way, before the jitter: an API far away; default 0), --seconds N (per cell), --only 30x4,600x2-late,
 *            --limits 150,240 (every cell of the matrix at these allowances, not 30, 120, 600 and 3,000),
 *            --repeat N (each cell N times, one row per run and how many runs missed: at 30/min one run
 *            is not a verdict, the figures vary from run to run), --clock-skews-ms 1500,-1500,800,-800
 *            (each worker's clock that far ahead of the sandbox's, in turn: workers on different hosts)
 *
 * The "under goal s" column is how long, over the whole-second windows' stretch, the window ending at that
 * instant (every instant, not every second) held fewer calls than the goal: a dip of a few ms between two
 * seconds is missed by the whole-second windows but counted there, so two runs with the same verdict can be
 * told apart by it (the fake clock's cells print it too, per run). Not a goal of its own.
 *
 * Each cell runs in its own process with its own sandbox, so cells can run side by side: they mostly wait.
 * CLIENT_RATE_TRACE=1 prints each cell's window count every second, per process, and its 429s (stderr).
 *
 * The goals are the issue's, unchanged; not every cell meets them in every run (figures in
 * connectors/traceability/rate-pacing.md, "Measured", and rate-pacing-log.md beside it). No cell
 * is exempted: there is no proof that any is out of reach of every policy. On a machine loaded by other work
 * the figures are lower still: timers and answers run late, and the counts the pacer reads are older.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { z } from 'zod';
import { SANDBOX_API_KEY } from '../worker/api-target';
import {
  QUICK_CELLS,
  arg,
  cellFigures,
  clockSkewOf,
  clockSkewsArg,
  customCell,
  missedGoals,
  matrixLimits,
  networkArgs,
  rateCells,
  type CellFigures,
  type ProcessSpan,
} from './client-rate-figures';
import { startCountingSandbox } from './counting-sandbox';

const cellSchema = z.object({
  name: z.string(),
  limit: z.number().int().positive(),
  durationMs: z.number().int().positive(),
  jitterMs: z.number().int().min(0),
  /** The sandbox's fixed network delay each way (`--latency-ms`: an API far away). */
  latencyMs: z.number().int().min(0),
  /** When each process has work, relative to the start. */
  processes: z
    .array(z.object({ startMs: z.number().int().min(0), stopMs: z.number().int().positive() }))
    .min(1),
  /** Processes with equal work (same stretch): their split is checked. */
  equalWork: z.boolean(),
  /** Each worker's clock this far ahead of the sandbox's, in turn (`--clock-skews-ms`). */
  clockSkewsMs: z.array(z.number().int()).min(1),
});
type Cell = z.infer<typeof cellSchema>;

const doneSchema = z.object({
  type: z.literal('done'),
  startedAt: z.number(),
  stoppedAt: z.number(),
  calls: z.array(z.tuple([z.number(), z.boolean()])),
});

const ROOT = path.resolve(__dirname, '..');

function cells(full: boolean, jitterMs: number, latencyMs: number, limits: number[] | undefined): Cell[] {
  const durationMs = Number(arg('seconds') ?? (full ? 240 : 150)) * 1000;
  const custom = customCell(durationMs);
  const clockSkewsMs = clockSkewsArg();
  const run = { durationMs, jitterMs, latencyMs, clockSkewsMs };
  if (custom) return [{ ...custom, ...run }];
  const all = rateCells(durationMs, limits).map((cell) => ({ ...cell, ...run }));
  // (Cells at allowances of one's own choosing: every kind of them, not the quick few.)
  if (full || limits !== undefined) return all;
  return QUICK_CELLS.map((name) => all.find((cell) => cell.name === name)).filter(
    (cell) => cell !== undefined,
  );
}

function once(child: ChildProcess, type: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string; error?: string }): void => {
      if (message.type === type) {
        child.off('message', onMessage);
        resolve(message);
      } else if (message.type === 'error') reject(new Error(message.error));
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`process exited (${String(code)}) before '${type}'`)));
  });
}

/** Child mode: one cell, its own sandbox, its workers; sends back the figures. */
async function runCell(cell: Cell): Promise<CellFigures> {
  const { baseUrl, counted, refusedAt, close } = await startCountingSandbox({
    rateLimitPerMinute: cell.limit,
    jitterMs: cell.jitterMs,
    networkDelayMs: cell.latencyMs,
    qrDelayMs: 0,
  });
  const workers = cell.processes.map(() =>
    fork(path.join(ROOT, 'bin/run-ts.cjs'), [path.join(ROOT, 'bench/client-rate-worker.ts')], {
      cwd: ROOT,
      stdio: 'inherit',
    }),
  );
  try {
    await Promise.all(workers.map((w) => once(w, 'ready')));
    const t0 = Date.now();
    const results = workers.map(async (worker, i) => {
      const span = cell.processes[i] as Cell['processes'][number];
      const done = once(worker, 'done');
      done.catch(() => undefined); // awaited below; an early failure must not go unhandled meanwhile
      await new Promise((resolve) => setTimeout(resolve, span.startMs));
      const from = Date.now();
      worker.send({
        type: 'go',
        baseUrl,
        apiKey: SANDBOX_API_KEY,
        clockSkewMs: clockSkewOf(cell.clockSkewsMs, i),
      });
      await new Promise((resolve) => setTimeout(resolve, t0 + span.stopMs - Date.now()));
      const to = Date.now();
      worker.send({ type: 'stop' });
      const report = doneSchema.parse(await done);
      const own: ProcessSpan = { from, to, counted: report.calls.filter(([, ok]) => ok).map(([at]) => at) };
      return own;
    });
    const spans = await Promise.all(results);
    if (process.env.CLIENT_RATE_TRACE) traceCell(cell, counted, refusedAt, spans);
    return cellFigures(cell.limit, counted, refusedAt.length, spans);
  } finally {
    for (const w of workers) if (w.exitCode === null) w.kill();
    await close();
  }
}

/** With CLIENT_RATE_TRACE=1: the key's count in the window (t - 60 s, t] each second, per process, and the 429s. */
function traceCell(cell: Cell, counted: number[], refusedAt: number[], spans: ProcessSpan[]): void {
  const t0 = Math.min(...spans.map((s) => s.from));
  const t1 = Math.max(...spans.map((s) => s.to));
  const inWindow = (times: number[], t: number): number =>
    times.filter((x) => x > t - 60_000 && x <= t).length;
  const seconds: string[] = [];
  for (let t = t0 + 1_000; t <= t1; t += 1_000)
    seconds.push(
      `${Math.round((t - t0) / 1000)}:${inWindow(counted, t)}(${spans.map((s) => inWindow(s.counted, t)).join('/')})`,
    );
  const starts = spans.map((s) => ((s.counted[0] ?? s.from) - t0) / 1000);
  console.error(
    `trace ${cell.name}: first call per process at ${starts.map((x) => x.toFixed(1)).join('/')} s; 429s at ${refusedAt.map((x) => ((x - t0) / 1000).toFixed(1)).join(', ') || 'none'}\n${seconds.join(' ')}`,
  );
}

interface Row {
  cell: Cell;
  /** Which run of the cell (1-based), with --repeat. */
  run: number;
  figures?: CellFigures;
  error?: string;
}

function spawnCell(cell: Cell, run: number): Promise<Row> {
  return new Promise((resolve) => {
    const child = fork(path.join(ROOT, 'bin/run-ts.cjs'), [__filename, '--cell', JSON.stringify(cell)], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let row: Row = { cell, run, error: 'no result' };
    child.on('message', (message: { figures?: CellFigures; error?: string }) => {
      row = message.figures
        ? { cell, run, figures: message.figures }
        : { cell, run, error: message.error ?? 'failed' };
    });
    child.once('exit', () => resolve(row));
  });
}

/** The banner's note of the workers' clocks, when they are off the sandbox's. */
function skewsNote(skewsMs: number[]): string {
  return skewsMs.some((ms) => ms !== 0) ? `, worker clocks off by ${skewsMs.join('/')} ms in turn` : '';
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

const rowMissed = (r: Row): boolean =>
  !r.figures || missedGoals(r.cell.limit, r.figures, r.cell.equalWork).length > 0;

function printTable(rows: Row[], repeat: number): number {
  const header = [
    'cell',
    'allowance',
    'procs',
    'use min (at s)',
    'use median',
    'windows',
    'under goal s',
    '429s',
    'idle s',
    'split (calls)',
    'result',
  ];
  const lines = rows.map(({ cell, run, figures, error }) => {
    const name = repeat > 1 ? `${cell.name} #${run}` : cell.name;
    if (!figures)
      return [
        name,
        String(cell.limit),
        String(cell.processes.length),
        '-',
        '-',
        '-',
        '-',
        '-',
        '-',
        '-',
        `ERROR ${error ?? ''}`,
      ];
    const missed = missedGoals(cell.limit, figures, cell.equalWork);
    const split =
      figures.split.length > 1 ? `${figures.split.join('/')} (${pct(figures.unevenness ?? 0)} off)` : '-';
    return [
      name,
      `${cell.limit}/min`,
      String(cell.processes.length),
      `${pct(figures.useMin)} (${figures.useMinAtS})`,
      pct(figures.useMedian),
      String(figures.windows),
      (figures.underGoalMs / 1000).toFixed(2),
      `${figures.refused}/${figures.calls} (${((figures.refused / Math.max(1, figures.calls)) * 100).toFixed(2)}%)`,
      String(figures.idleSeconds),
      split,
      missed.length === 0 ? 'ok' : `MISSED: ${missed.join('; ')}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const fmt = (cols: string[]): string => cols.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  console.log(fmt(header));
  for (const line of lines) console.log(fmt(line));
  return rows.filter(rowMissed).length;
}

/**
 * The most calls a minute the cells running side by side may be allowed together (`--load-budget`). A cell's
 * processes together send at most its allowance, and at 3,000/min that is 50 calls a second through the
 * sandbox and four client processes, on two cores: five such cells at once (the last batch of the matrix,
 * queued in its order) ran timers and answers late enough that one missed (3000x2 96.5%, 3 of 3 met alone).
 * Two at a time, beside lighter cells.
 */
const LOAD_BUDGET_PER_MIN = 7_000;

type CellRun = { cell: Cell; run: number };

/**
 * The next of the queued runs to start beside `running` others whose allowances add up to `load`: the first
 * that keeps the load within `budgetPerMin` (any, when nothing runs); undefined when none may start now.
 */
function takeNext(queue: CellRun[], running: number, load: number, parallel: number, budgetPerMin: number) {
  if (running >= parallel) return undefined;
  const index = queue.findIndex((r) => running === 0 || load + r.cell.limit <= budgetPerMin);
  return index < 0 ? undefined : queue.splice(index, 1)[0];
}

/** The heaviest first, so that the light cells fill in beside them. */
const heaviestFirst = (runs: CellRun[]): CellRun[] => [...runs].sort((a, b) => b.cell.limit - a.cell.limit);

/** How many cell durations `runSideBySide` takes, its cells all as long. */
function roundsSideBySide(runs: CellRun[], parallel: number, budgetPerMin: number): number {
  const queue = heaviestFirst(runs);
  let rounds = 0;
  while (queue.length > 0) {
    let running = 0;
    let load = 0;
    for (let next = takeNext(queue, 0, 0, parallel, budgetPerMin); next;) {
      running++;
      load += next.cell.limit;
      next = takeNext(queue, running, load, parallel, budgetPerMin);
    }
    rounds++;
  }
  return rounds;
}

/**
 * Runs the cells `parallel` at a time, the heaviest first, starting one only while the allowances of those
 * running stay within `budgetPerMin` (or nothing runs); rows in the order they finish.
 */
async function runSideBySide(runs: CellRun[], parallel: number, budgetPerMin: number): Promise<Row[]> {
  const queue = heaviestFirst(runs);
  const rows: Row[] = [];
  let load = 0;
  let running = 0;
  return new Promise((resolve, reject) => {
    const startMore = (): void => {
      for (let next = takeNext(queue, running, load, parallel, budgetPerMin); next;) {
        const started = next;
        load += started.cell.limit;
        running++;
        spawnCell(started.cell, started.run).then((row) => {
          rows.push(row);
          load -= started.cell.limit;
          running--;
          if (running === 0 && queue.length === 0) resolve(rows);
          else startMore();
        }, reject);
        next = takeNext(queue, running, load, parallel, budgetPerMin);
      }
    };
    startMore();
  });
}

async function main(): Promise<void> {
  const cellArg = arg('cell');
  if (cellArg !== undefined) {
    const cell = cellSchema.parse(JSON.parse(cellArg));
    try {
      process.send?.({ figures: await runCell(cell) });
    } catch (error) {
      process.send?.({ error: String(error) });
    }
    process.exit(0);
  }
  const full = process.argv.includes('--full');
  const { jitterMs, latencyMs } = networkArgs();
  const only = arg('only')?.split(',');
  const limits = matrixLimits();
  const offered = cells(full, jitterMs, latencyMs, limits);
  const chosen = offered.filter((c) => !only || only.includes(c.name));
  if (chosen.length === 0) {
    console.error(
      `client-rate: no cell named ${only?.join(', ')}; the cells: ${offered.map((c) => c.name).join(', ')}`,
    );
    process.exit(2);
  }
  const repeat = Math.max(1, Math.floor(Number(arg('repeat') ?? 1)));
  const runs = chosen.flatMap((cell) => Array.from({ length: repeat }, (_, i) => ({ cell, run: i + 1 })));
  const parallel = Number(arg('parallel') ?? (full ? 5 : runs.length));
  const budgetPerMin = z.coerce
    .number()
    .int()
    .positive()
    .parse(arg('load-budget') ?? LOAD_BUDGET_PER_MIN);
  const seconds = Math.ceil(Math.max(...chosen.map((c) => c.durationMs)) / 1000);
  console.log(
    `client-rate (${full ? 'full' : limits !== undefined ? `at ${limits.join(',')}/min` : 'quick'}): ${chosen.length} cells of ${seconds} s${repeat > 1 ? `, ${repeat} runs each` : ''}, ` +
      `${parallel} at a time within ${budgetPerMin} calls a minute together, sandbox ${latencyMs > 0 ? `${latencyMs} ms and ` : ''}jitter 0-${jitterMs} ms ` +
      `each way${skewsNote(chosen[0]?.clockSkewsMs ?? [0])}; about ${Math.ceil((roundsSideBySide(runs, parallel, budgetPerMin) * (seconds + 10)) / 60)} min`,
  );
  const rows = await runSideBySide(runs, parallel, budgetPerMin);
  rows.sort((a, b) => chosen.indexOf(a.cell) - chosen.indexOf(b.cell) || a.run - b.run);
  const failed = printTable(rows, repeat);
  if (repeat > 1)
    for (const cell of chosen) {
      const missed = rows.filter((r) => r.cell === cell && rowMissed(r)).length;
      console.log(`${cell.name}: missed in ${missed} of ${repeat} runs`);
    }
  console.log(
    failed === 0
      ? 'every cell met its goals'
      : repeat > 1
        ? `${failed} run(s) missed a goal`
        : `${failed} cell(s) missed a goal`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
