import { z } from 'zod';

/**
 * What the CLI shows of a run while it waits: each job's `progress` query answer read into one shape (phase,
 * done of total), drawn as a one-line bar redrawn in place on a terminal, or as JSON lines elsewhere.
 */
export interface ProgressSnapshot {
  phase: string;
  done: number | null;
  total: number | null;
  /** What `done` counts: products, files, batches, certificates, orders. */
  unit: string;
}

const count = z.number().int().nonnegative();
const answer = z
  .object({
    phase: z.string().optional(),
    done: count.optional(),
    total: count.nullable().optional(),
    files: count.nullable().optional(),
    productsProcessed: count.optional(),
    candidates: count.optional(),
    batchesDone: count.optional(),
    batchCount: count.nullable().optional(),
    certificates: count.nullable().optional(),
    orders: count.nullable().optional(),
  })
  .loose();

/** Reads any job's progress answer (PLM import, ERP push, BOM repair, reports, inbox...) into one shape. */
export function snapshotOf(progress: unknown): ProgressSnapshot {
  const parsed = answer.safeParse(progress);
  if (!parsed.success) return { phase: 'running', done: null, total: null, unit: '' };
  const p = parsed.data;
  const phase = p.phase ?? 'running';
  if (p.done !== undefined && p.total !== undefined)
    return { phase, done: p.done, total: p.total, unit: 'products' };
  if (p.done !== undefined && p.files !== undefined)
    return { phase, done: p.done, total: p.files, unit: 'files' };
  if (p.productsProcessed !== undefined && p.candidates !== undefined) {
    return { phase, done: p.productsProcessed, total: p.candidates || null, unit: 'products' };
  }
  if (p.batchesDone !== undefined && p.batchCount !== undefined)
    return { phase, done: p.batchesDone, total: p.batchCount, unit: 'batches' };
  if (p.certificates !== undefined) return { phase, done: p.certificates, total: null, unit: 'certificates' };
  if (p.orders !== undefined) return { phase, done: p.orders, total: null, unit: 'orders' };
  return { phase, done: null, total: null, unit: '' };
}

/** Items per second over a sliding window of the last samples, and the time left at that rate. */
export class RateEstimator {
  private samples: { at: number; done: number }[] = [];

  constructor(private readonly windowMs = 30_000) {}

  add(at: number, done: number | null): void {
    if (done === null) return;
    const last = this.samples[this.samples.length - 1];
    // A lower count means a new phase counted from zero: start the window again.
    if (last && done < last.done) this.samples = [];
    this.samples.push({ at, done });
    while (this.samples.length > 2 && at - (this.samples[0] as { at: number }).at > this.windowMs)
      this.samples.shift();
  }

  /** Per second, or null before two samples a moment apart. */
  rate(): number | null {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at - first.at < 500) return null;
    return ((last.done - first.done) * 1000) / (last.at - first.at);
  }

  /** Seconds left for `total`, or null when unknown (no total, no rate yet, or nothing moving). */
  etaSeconds(done: number | null, total: number | null): number | null {
    const rate = this.rate();
    if (done === null || total === null || rate === null || rate <= 0) return null;
    return Math.max(0, (total - done) / rate);
  }
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** `applying  [########------------]  120/500 products  35.2/s  ETA 0:11`, cut to `width` columns. */
export function renderBar(
  snapshot: ProgressSnapshot,
  rate: number | null,
  eta: number | null,
  width = 80,
): string {
  const parts: string[] = [snapshot.phase.padEnd(16)];
  if (snapshot.total !== null && snapshot.total > 0 && snapshot.done !== null) {
    const cells = 20;
    const filled = Math.min(cells, Math.floor((snapshot.done / snapshot.total) * cells));
    parts.push(`[${'#'.repeat(filled)}${'-'.repeat(cells - filled)}]`);
    parts.push(`${snapshot.done}/${snapshot.total} ${snapshot.unit}`);
  } else if (snapshot.done !== null && snapshot.done > 0) {
    parts.push(`${snapshot.done} ${snapshot.unit}`);
  }
  if (rate !== null) parts.push(`${rate.toFixed(1)}/s`);
  if (eta !== null) parts.push(`ETA ${formatDuration(eta)}`);
  const line = parts.join('  ');
  return line.length > width ? line.slice(0, Math.max(0, width - 1)) : line;
}

/** Where progress goes: an output that knows whether it is a terminal and how wide. */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressSink {
  update(snapshot: ProgressSnapshot, now: number): void;
  /** Leaves the output ready for the next line (the bar is erased). */
  finish(): void;
}

const ERASE_LINE = '\r\x1b[2K';

/** A terminal: one line redrawn in place (carriage return, erase line), never scrolling. */
export function terminalBar(out: ProgressOutput): ProgressSink {
  const rates = new RateEstimator();
  let drawn = false;
  return {
    update(snapshot, now) {
      rates.add(now, snapshot.done);
      const line = renderBar(
        snapshot,
        rates.rate(),
        rates.etaSeconds(snapshot.done, snapshot.total),
        (out.columns ?? 80) - 1,
      );
      out.write(`${ERASE_LINE}${line}`);
      drawn = true;
    },
    finish() {
      if (drawn) out.write(ERASE_LINE);
      drawn = false;
    },
  };
}

/**
 * Not a terminal (a log file, a pipe, CI): one JSON line per phase change, and while a phase goes on at most one
 * per `everyMs`, only when something moved. `done`, `total`, `unit` appear only when the job has them.
 */
export function jsonLines(out: ProgressOutput, everyMs = 5000): ProgressSink {
  const rates = new RateEstimator();
  let lastPhase: string | undefined;
  let lastAt = -Infinity;
  let lastDone: number | null = null;
  return {
    update(snapshot, now) {
      rates.add(now, snapshot.done);
      const phaseChanged = snapshot.phase !== lastPhase;
      if (!phaseChanged && (now - lastAt < everyMs || snapshot.done === lastDone)) return;
      lastPhase = snapshot.phase;
      lastAt = now;
      lastDone = snapshot.done;
      const rate = rates.rate();
      const eta = rates.etaSeconds(snapshot.done, snapshot.total);
      const { phase, done, total, unit } = snapshot;
      out.write(
        `${JSON.stringify({
          progress: {
            at: new Date(now).toISOString(),
            phase,
            // Left out when the job has no such figure (check-connection counts nothing): a null reads as a count.
            ...(done !== null ? { done } : {}),
            ...(total !== null ? { total } : {}),
            ...(unit !== '' && (done !== null || total !== null) ? { unit } : {}),
            ...(rate !== null ? { perSecond: Math.round(rate * 10) / 10 } : {}),
            ...(eta !== null ? { etaSeconds: Math.round(eta) } : {}),
          },
        })}\n`,
      );
    },
    finish() {},
  };
}

export function sinkFor(out: ProgressOutput): ProgressSink {
  return out.isTTY ? terminalBar(out) : jsonLines(out);
}

export interface FollowOptions<T> {
  /** Asks the run for its progress (the `progress` query); a failure (a worker restarting) is skipped. */
  query: () => Promise<unknown>;
  /** Settles when the run ends. */
  ended: Promise<T>;
  sink: ProgressSink;
  everyMs?: number;
  now?: () => number;
}

/** Polls the progress query into the sink until the run ends, then erases the bar. Resolves or rejects with `ended`. */
export async function followProgress<T>(options: FollowOptions<T>): Promise<T> {
  const now = options.now ?? Date.now;
  let finished = false;
  const settled = options.ended.finally(() => {
    finished = true;
  });
  // Keep an unobserved rejection from being reported before the caller awaits it.
  settled.catch(() => undefined);
  const poll = async () => {
    while (!finished) {
      const answer = await options.query().then(
        (value) => ({ value }),
        () => undefined,
      );
      if (answer && !finished) options.sink.update(snapshotOf(answer.value), now());
      await Promise.race([
        settled.catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 1000).unref()),
      ]);
    }
  };
  try {
    await Promise.all([settled, poll()]);
    return await settled;
  } finally {
    options.sink.finish();
  }
}
