import type { AppLogger } from './logger';

export class StopRequested extends Error {
  constructor() {
    super('stop requested');
    this.name = 'StopRequested';
  }
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * A second signal this soon after the first is the same one: a Ctrl-C on `npm start` reaches the whole
 * terminal's process group, and npm then relays it to its child, which got it already (1 ms apart). Counted
 * as a second, it skipped the graceful stop on every Ctrl-C.
 */
const SAME_SIGNAL_MS = 200;

interface Part {
  name: string;
  stop: () => Promise<void>;
}

/**
 * The parts a process started, stopped in reverse order exactly once: on the first SIGINT/SIGTERM/SIGHUP,
 * on a failed start, or at the end of the run. A second signal skips the graceful path and exits
 * (the dev server's exit hook still kills it).
 */
export class Lifecycle {
  private readonly parts: Part[] = [];
  private readonly aborter = new AbortController();
  /** Aborted when a stop begins: long start steps (downloads, installs) listen to it. */
  readonly signal: AbortSignal = this.aborter.signal;
  private stopping: Promise<void> | undefined;
  private firstSignalAtMs: number | undefined;
  private readonly stoppedListeners: (() => void)[] = [];
  private readonly onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (this.firstSignalAtMs !== undefined) {
      if (now - this.firstSignalAtMs < SAME_SIGNAL_MS) return;
      this.logger.warn({ signal }, 'Second signal: exiting without waiting');
      process.exit(130);
    }
    this.firstSignalAtMs = now;
    this.logger.info({ signal }, 'Shutting down');
    void this.stop();
  };

  constructor(private readonly logger: AppLogger) {}

  /** Listens for SIGINT, SIGTERM and SIGHUP (terminal closed) until stop() completes. */
  handleSignals(): this {
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
    return this;
  }

  /** Registers a started part; one started while stopping (a slow start met Ctrl-C) is stopped at once. */
  /**
   * Stops everything when this process is orphaned (its parent, say `npm start`, was killed without
   * passing a signal on): an interactive stack must not outlive its terminal session.
   */
  stopWhenOrphaned(intervalMs = 1000): this {
    const parent = process.ppid;
    const timer = setInterval(() => {
      if (process.ppid === parent || this.stopping) return;
      clearInterval(timer);
      this.logger.warn({ parent }, 'Parent process is gone: shutting down');
      void this.stop();
    }, intervalMs);
    timer.unref();
    return this;
  }

  add(name: string, stop: () => Promise<void>): void {
    const part = { name, stop };
    if (this.stopping) {
      this.stopping = this.stopping.then(() => this.stopPart(part));
      return;
    }
    this.parts.push(part);
  }

  /** Throws when a stop has begun, so a start in progress goes no further. */
  throwIfStopping(): void {
    if (this.stopping) throw new StopRequested();
  }

  private async stopPart(part: Part): Promise<void> {
    try {
      await part.stop();
      this.logger.info({ part: part.name }, 'Stopped');
    } catch (error) {
      this.logger.error({ part: part.name, err: error }, 'Failed to stop cleanly');
    }
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Resolves once every part has been stopped. */
  whenStopped(): Promise<void> {
    if (this.stopping) return this.stopping;
    return new Promise((resolve) => this.stoppedListeners.push(resolve));
  }

  stop(): Promise<void> {
    if (!this.stopping) this.aborter.abort(new StopRequested());
    this.stopping ??= (async () => {
      for (const part of [...this.parts].reverse()) await this.stopPart(part);
      for (const signal of SIGNALS) process.removeListener(signal, this.onSignal);
      for (const listener of this.stoppedListeners) listener();
    })();
    return this.stopping;
  }
}
