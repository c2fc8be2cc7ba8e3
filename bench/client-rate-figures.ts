// The client-rate benchmarks' matrix (real processes in client-rate.ts, the fake clock in client-rate-sim.ts)
// and its figures, from what the server counted and what each process did.

import { z } from 'zod';

export const WINDOW_MS = 60_000;

/**
 * The network between workers and API, each way (`--latency-ms`, `latencyMs` unless given, and `--jitter-ms`,
 * 40): the sandbox's in client-rate.ts and plm-import-remote.ts, the fake clock's in client-rate-sim.ts and its
 * trace.
 */
export function networkArgs(latencyMs = 0): { latencyMs: number; jitterMs: number } {
  return { latencyMs: Number(arg('latency-ms') ?? latencyMs), jitterMs: Number(arg('jitter-ms') ?? 40) };
}

/** The value after `--name` on the command line, if any. */
export function arg(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const customProcessesSchema = z
  .array(
    z
      .object({ startMs: z.number().int().min(0).optional(), stopMs: z.number().int().positive().optional() })
      .strict(),
  )
  .min(1);

/**
 * The cell `--processes '<json>' --limit N` (120 unless given) describes, if the command line has one (named
 * `<limit>-custom`; `equalWork` false: the split is printed, not judged): when each process has work, in ms from
 * the start, to the end of the run unless it stops.
 */
export function customCell(durationMs: number): RateCell | undefined {
  const json = arg('processes');
  if (json === undefined) return undefined;
  const processes = customProcessesSchema.parse(JSON.parse(json));
  const limit = z.coerce
    .number()
    .int()
    .positive()
    .parse(arg('limit') ?? '120');
  return {
    name: `${limit}-custom`,
    limit,
    processes: processes.map((p) => ({ startMs: p.startMs ?? 0, stopMs: p.stopMs ?? durationMs })),
    equalWork: false,
  };
}

/** The allowances of the matrix, calls a minute. */
const MATRIX_LIMITS = [30, 120, 600, 3000];

/** The joiners of a scale-out cell (`x4-late`) start this far apart. */
const SCALE_OUT_FORK_GAP_MS = 100;

/** One cell of the matrix: processes on one key, each with work over [startMs, stopMs). */
export interface RateCell {
  name: string;
  limit: number;
  processes: Array<{ startMs: number; stopMs: number }>;
  /** Processes with equal work (same stretch): their split is checked. */
  equalWork: boolean;
}

/**
 * The full matrix for runs of `durationMs`: at each allowance 1, 2 and 4 processes with work throughout, one that
 * starts a third into the run (late), one that stops halfway (early), a rolling restart (handoff: a new
 * process joins a third into the run, the old one stops at two thirds), and a scale-out (`x4-late`: three
 * processes join one a third into the run, 0.1 s apart, as forks of one deployment start).
 */
export function rateCells(durationMs: number, limits = MATRIX_LIMITS): RateCell[] {
  const at = (fraction: number): number => Math.round(fraction * durationMs);
  const pair = (limit: number, kind: string, ...stretches: Array<[number, number]>): RateCell => ({
    name: `${limit}x2-${kind}`,
    limit,
    processes: stretches.map(([from, to]) => ({ startMs: at(from), stopMs: at(to) })),
    equalWork: false,
  });
  return limits.flatMap((limit) => [
    ...[1, 2, 4].map((n) => ({
      name: `${limit}x${n}`,
      limit,
      processes: Array.from({ length: n }, () => ({ startMs: 0, stopMs: durationMs })),
      equalWork: true,
    })),
    pair(limit, 'late', [0, 1], [1 / 3, 1]),
    pair(limit, 'early', [0, 1], [0, 1 / 2]),
    pair(limit, 'handoff', [0, 2 / 3], [1 / 3, 1]),
    {
      name: `${limit}x4-late`,
      limit,
      processes: [0, 1, 2, 3].map((i) => ({
        startMs: i === 0 ? 0 : at(1 / 3) + (i - 1) * SCALE_OUT_FORK_GAP_MS,
        stopMs: durationMs,
      })),
      equalWork: false,
    },
  ]);
}

/**
 * `--limits 150,240`: the allowances to run the matrix's cells at, not its own (between them the rules
 * differ); undefined when not given.
 */
export function matrixLimits(): number[] | undefined {
  const given = arg('limits');
  return given === undefined
    ? undefined
    : z.array(z.coerce.number().int().positive()).min(1).parse(given.split(','));
}

/**
 * `--clock-skews-ms 1500,-1500`: each process's clock that far ahead of the server's (behind when negative), in
 * turn (`clockSkewOf`); 0 for every process unless given.
 */
export function clockSkewsArg(): number[] {
  return z
    .array(z.coerce.number().int())
    .min(1)
    .parse((arg('clock-skews-ms') ?? '0').split(','));
}

/** The clock skew of process `index` of a cell, from `clockSkewsArg`'s list, in turn. */
export function clockSkewOf(skewsMs: number[], index: number): number {
  return skewsMs[index % skewsMs.length] ?? 0;
}

/** The quick matrix (`npm run bench`): one cell of each kind, side by side in a few minutes. */
export const QUICK_CELLS = ['30x4', '120x2', '600x2-late', '600x2-early', '120x2-handoff', '3000x4'];

export interface CellFigures {
  /** Use of the allowance in each full sliding 60 s window while work waited: min and median. */
  useMin: number;
  useMedian: number;
  /** End of the least used window, in seconds from the start. */
  useMinAtS: number;
  windows: number;
  /**
   * Milliseconds, over the same stretch, in which the window ending then (taken at every instant, not every
   * second) held fewer calls than the goal: how long the key stood under it, where the whole-second
   * windows above catch such a dip only if a second falls in it.
   */
  underGoalMs: number;
  calls: number;
  refused: number;
  /** Seconds in which the window had room (below the goal) and no call was counted, while work waited. */
  idleSeconds: number;
  /** Counted calls per process over the stretch when all of them had work (empty when there was none). */
  split: number[];
  /** Largest distance of a process's share from the even split, as a fraction of it. */
  unevenness: number | undefined;
}

export interface ProcessSpan {
  /** When the process had work: [from, to) in ms. */
  from: number;
  to: number;
  /** Server-side times of its counted calls are not known per process; its own dispatch times are. */
  counted: number[];
}

/** Goal of a cell: use >= 97% (90% at 30/min, where one call is 3.3%), 429s < 0.5%, split within 10%. */
export function useGoal(limit: number): number {
  return limit <= 30 ? 0.9 : 0.97;
}

function countIn(sorted: number[], fromExclusive: number, toInclusive: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= fromExclusive) lo = mid + 1;
    else hi = mid;
  }
  let n = 0;
  for (let i = lo; i < sorted.length && (sorted[i] as number) <= toInclusive; i++) n++;
  return n;
}

/** Time in [fromMs, toMs] in which the window (t - 60 s, t] held a count of the sorted calls `under` says is. */
function timeUnder(
  sorted: number[],
  under: (count: number) => boolean,
  fromMs: number,
  toMs: number,
): number {
  // The count changes only where a call comes in (at its time) or leaves (a window later).
  const changes = [...sorted.map((t) => [t, 1] as const), ...sorted.map((t) => [t + WINDOW_MS, -1] as const)];
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let count = 0;
  let at = fromMs;
  let total = 0;
  for (const [t, step] of changes) {
    if (t > at) {
      if (under(count)) total += Math.min(t, toMs) - at;
      at = t;
    }
    if (at >= toMs) return total;
    count += step;
  }
  return under(count) ? total + Math.max(0, toMs - at) : total;
}

/**
 * `counted`: server times of every counted call of the key; `refused`: 429s; `spans`: each process's
 * stretch with work. Windows (t - 60 s, t] are taken every second over the stretch when at least one
 * process had work, starting one window after the first one began.
 */
export function cellFigures(
  limit: number,
  counted: number[],
  refused: number,
  spans: ProcessSpan[],
): CellFigures {
  const all = [...counted].sort((a, b) => a - b);
  const busyFrom = Math.min(...spans.map((s) => s.from));
  const busyTo = Math.max(...spans.map((s) => s.to));
  const uses: number[] = [];
  let useMinAtS = 0;
  for (let t = busyFrom + WINDOW_MS; t <= busyTo; t += 1_000) {
    uses.push(countIn(all, t - WINDOW_MS, t) / limit);
    if ((uses[uses.length - 1] as number) < Math.min(...uses.slice(0, -1), Infinity))
      useMinAtS = Math.round((t - busyFrom) / 1000);
  }
  const sortedUses = [...uses].sort((a, b) => a - b);
  let idleSeconds = 0;
  const goalCalls = Math.floor(useGoal(limit) * limit);
  for (let t = busyFrom + 1_000; t <= busyTo; t += 1_000) {
    const busy = spans.some((s) => s.from <= t - 1_000 && s.to >= t);
    if (busy && countIn(all, t - WINDOW_MS, t) < goalCalls && countIn(all, t - 1_000, t) === 0) idleSeconds++;
  }
  const together = {
    from: Math.max(...spans.map((s) => s.from)) + WINDOW_MS,
    to: Math.min(...spans.map((s) => s.to)),
  };
  const split =
    together.to - together.from >= WINDOW_MS
      ? spans.map((s) =>
          countIn(
            [...s.counted].sort((a, b) => a - b),
            together.from,
            together.to,
          ),
        )
      : [];
  const even = split.reduce((a, b) => a + b, 0) / Math.max(1, split.length);
  return {
    useMin: sortedUses[0] ?? 0,
    useMedian: sortedUses[Math.floor(sortedUses.length / 2)] ?? 0,
    useMinAtS,
    windows: uses.length,
    underGoalMs: timeUnder(all, (count) => count / limit < useGoal(limit), busyFrom + WINDOW_MS, busyTo),
    calls: counted.length + refused,
    refused,
    idleSeconds,
    split,
    unevenness:
      split.length > 1 && even > 0 ? Math.max(...split.map((s) => Math.abs(s - even) / even)) : undefined,
  };
}

/** Which goals a cell missed (empty when it met them all). */
export function missedGoals(limit: number, f: CellFigures, checkSplit: boolean): string[] {
  const missed: string[] = [];
  if (f.windows === 0) missed.push('no full window');
  if (f.useMin < useGoal(limit))
    missed.push(`use ${(f.useMin * 100).toFixed(1)}% < ${useGoal(limit) * 100}%`);
  if (f.calls > 0 && f.refused / f.calls >= 0.005)
    missed.push(`429s ${((f.refused / f.calls) * 100).toFixed(2)}% >= 0.5%`);
  if (f.idleSeconds > 0) missed.push(`idle ${f.idleSeconds} s`);
  if (checkSplit && f.unevenness !== undefined && f.unevenness > 0.1)
    missed.push(`split ${(f.unevenness * 100).toFixed(0)}% off even`);
  return missed;
}
