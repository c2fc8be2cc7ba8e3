import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { count, inputLimits, InputLimitError } from './input-limits';
import { Semaphore } from './traceability/concurrency';

/** An error as it crosses the thread boundary; the caller turns it back into its own class. */
export interface ThreadError {
  name: string;
  message: string;
  code?: string;
}

export interface OffThreadOptions {
  /** What the thread reads, for messages ("the workbook"). */
  what: string;
  /** Terminate the read and fail after this long (default `inputLimits.readTimeoutMs`). */
  timeoutMs?: number;
  /** Called about once a second while the thread works (an activity heartbeats from here). */
  onTick?: () => void;
  /** Rebuilds an error the thread threw as the caller's own error class. */
  rebuild: (error: ThreadError) => Error;
}

/** Memory a read thread may use: a workbook at the size limit needs about 1 GB; past this the thread alone dies. */
const THREAD_HEAP_MB = 2048;
const ROWS_PER_MESSAGE = 2_000;

/**
 * Read threads running at once in this process: one core is always left to the main thread, so a burst of big
 * workbooks cannot starve heartbeats and the other jobs' activities of CPU. Further reads wait their turn.
 */
export const MAX_READ_THREADS = Math.max(1, availableParallelism() - 1);
const readThreads = new Semaphore(MAX_READ_THREADS);

const threadEntry = (): { file: string; execArgv: string[] } => {
  // From the TypeScript sources (tests, tsx) the thread needs tsx to load its module; from dist/ it is plain JS.
  if (__filename.endsWith('.ts')) {
    return {
      file: path.join(__dirname, 'read-thread.ts'),
      execArgv: ['--require', require.resolve('tsx/cjs')],
    };
  }
  return { file: path.join(__dirname, 'read-thread.js'), execArgv: [] };
};

/**
 * Runs `fn` exported by `modulePath` (an absolute path without extension) on a worker thread: SheetJS parsing a big
 * workbook holds a thread for seconds, and on the main thread that would stop heartbeats, other activities and the
 * worker's shutdown. A result with a `rows` array comes back in slices, so the main thread never decodes one huge
 * message. A read that exceeds its time or memory is stopped and fails once, with an error naming the limit. At
 * most `MAX_READ_THREADS` run at once; `onTick` is called while a read waits for its turn too.
 */
export async function runOffThread<T>(
  modulePath: string,
  fn: string,
  args: unknown[],
  options: OffThreadOptions,
): Promise<T> {
  const waiting = setInterval(() => options.onTick?.(), 1000);
  return readThreads.run(() => {
    clearInterval(waiting);
    return runThread<T>(modulePath, fn, args, options);
  });
}

function runThread<T>(
  modulePath: string,
  fn: string,
  args: unknown[],
  options: OffThreadOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? inputLimits.readTimeoutMs;
  const { file, execArgv } = threadEntry();
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(file, {
      workerData: { modulePath, fn, args, rowsPerMessage: ROWS_PER_MESSAGE },
      execArgv,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    // A read in progress must not hold up the worker's shutdown; the timers below keep a waiting caller alive.
    worker.unref();
    let head: Record<string, unknown> | undefined;
    const rows: unknown[] = [];
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearInterval(ticker);
      outcome();
      void worker.terminate();
    };
    const deadline = setTimeout(
      () =>
        finish(() =>
          reject(
            new InputLimitError(
              'read_timeout',
              `reading ${options.what} did not finish within ${count(Math.round(timeoutMs / 1000))} s (the limit); it was ` +
                'stopped. A real export reads in seconds: save it again from the source application (or as csv) and re-run.',
            ),
          ),
        ),
      timeoutMs,
    );
    const ticker = setInterval(() => options.onTick?.(), 1000);
    worker.on(
      'message',
      (message: { kind: string; value?: unknown; rows?: unknown[]; error?: ThreadError }) => {
        if (message.kind === 'head') head = message.value as Record<string, unknown>;
        else if (message.kind === 'rows') {
          for (const row of message.rows ?? []) rows.push(row);
          setImmediate(() => {
            if (!settled) worker.postMessage('next');
          });
        } else if (message.kind === 'value') finish(() => resolve(message.value as T));
        else if (message.kind === 'done') finish(() => resolve({ ...head, rows } as T));
        else if (message.kind === 'error' && message.error) {
          const error = message.error;
          finish(() => reject(options.rebuild(error)));
        }
      },
    );
    worker.on('error', (error: Error & { code?: string }) =>
      finish(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new InputLimitError(
                'file_too_large',
                `reading ${options.what} needs more than ${count(THREAD_HEAP_MB)} MB of memory (the limit); split it or save it as csv and re-run.`,
              )
            : error,
        ),
      ),
    );
    worker.on('exit', (code) =>
      finish(() =>
        reject(
          new Error(`the thread reading ${options.what} stopped (exit code ${code}) before it answered`),
        ),
      ),
    );
  });
}
