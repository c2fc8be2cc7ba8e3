import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../worker/paths';

/** How long a worker may take to print "Worker running" (`trace-sync worker` bundles the workflows at start). */
const READY_TIMEOUT_MS = 90_000;

export interface WorkerProcessOptions {
  /** The worker's environment on top of PATH/HOME (TEMPORAL_ADDRESS, TRACE_TASK_QUEUE, TRACEABILITY_*...). */
  env: Record<string, string>;
  /** Every start appends its stdout and stderr here (pino JSON; the API key is redacted by the worker). */
  logFile: string;
  /** Told each worker process's pid as it is spawned. */
  onSpawn?: (pid: number) => void;
  /**
   * A workflow bundle made once (the harness's): each start runs worker-main.ts with it instead of bundling (see
   * there). Unset: `node bin/trace-sync.cjs worker`, which bundles at every start.
   */
  workflowBundlePath?: string;
}

/**
 * `trace-sync worker` (or its main with a ready bundle: worker-main.ts) as a separate process, so it can be SIGKILLed
 * mid-work and started again. Only this object's own child is ever signalled, by its pid.
 */
export class WorkerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly log: WriteStream;
  starts = 0;
  kills = 0;
  /** Exits nobody asked for (a crash on its own would be a finding). */
  unexpectedExits: string[] = [];
  /** The pids SIGKILLed so far (an activity last started by one of them is lost until its heartbeat timeout). */
  killedPids: number[] = [];
  /** Set by stop(): no start after it, so a kill schedule still under way cannot outlive the run. */
  private stopped = false;

  constructor(private readonly options: WorkerProcessOptions) {
    this.log = createWriteStream(options.logFile, { flags: 'a' });
  }

  get logFile(): string {
    return this.options.logFile;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the worker and resolves once it polls its task queue. */
  async start(): Promise<void> {
    if (this.stopped) throw new Error('worker stopped: not started again');
    if (this.running) throw new Error('worker already running');
    this.starts += 1;
    const start = this.starts;
    this.log.write(`${JSON.stringify({ chaos: 'start', start, at: new Date().toISOString() })}\n`);
    const bundle = this.options.workflowBundlePath;
    const entry =
      bundle === undefined
        ? [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'worker']
        : [path.join(repoRoot(), 'bin', 'run-ts.cjs'), path.join(__dirname, 'worker-main.ts')];
    const child = spawn(process.execPath, entry, {
      cwd: repoRoot(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...this.options.env,
        ...(bundle === undefined ? {} : { TRACE_CHAOS_WORKFLOW_BUNDLE: bundle }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    if (child.pid !== undefined) this.options.onSpawn?.(child.pid);
    // Should jest force-exit this process mid-run, the worker must not outlive it.
    const orphanGuard = () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
        process.kill(child.pid, 'SIGKILL');
    };
    process.once('exit', orphanGuard);
    child.once('exit', () => process.removeListener('exit', orphanGuard));
    let expectedExit = false;
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        if (!expectedExit && !(signal === 'SIGKILL' || signal === 'SIGTERM')) {
          this.unexpectedExits.push(`start ${start}: exit code ${code} signal ${signal}`);
        }
        resolve();
      });
    });
    this.markExpected = () => {
      expectedExit = true;
    };
    let output = '';
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`worker did not start within ${READY_TIMEOUT_MS} ms; see ${this.options.logFile}`),
          ),
        READY_TIMEOUT_MS,
      );
      const onData = (chunk: Buffer) => {
        // The pipes may deliver the last output after the log was closed by stop().
        if (!this.log.writableEnded) this.log.write(chunk);
        if (output.length < 1_000_000) output += chunk.toString('utf8');
        if (output.includes('"msg":"Worker running"')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `worker exited during start (code ${code}, signal ${signal}); see ${this.options.logFile}`,
          ),
        );
      });
    });
    try {
      await ready;
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  private markExpected: () => void = () => undefined;

  /** SIGKILL: no shutdown hook, no heartbeat, in-flight requests cut wherever they are. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running || child.pid === undefined) return;
    this.kills += 1;
    this.killedPids.push(child.pid);
    this.markExpected();
    this.log.write(`${JSON.stringify({ chaos: 'SIGKILL', pid: child.pid, at: new Date().toISOString() })}\n`);
    process.kill(child.pid, 'SIGKILL');
    await this.exited;
  }

  /**
   * Stops whatever runs (SIGTERM, then SIGKILL after 10 s; a start under way is cut short) and closes the log; no
   * start after it. Safe to call twice.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (child && this.running && child.pid !== undefined) {
      this.markExpected();
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (this.running && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      }, 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    if (!this.log.writableEnded) await new Promise<void>((resolve) => this.log.end(resolve));
  }

  /** The last lines of this worker's log, for a failure message. */
  tail(lines = 40): string {
    try {
      return readFileSync(this.options.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}
