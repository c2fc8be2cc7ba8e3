/** Polling with exponential backoff, for things the API does asynchronously (child links of a new BOM). */

export interface BackoffOptions {
  /** First pause after a miss. Default 200 ms. */
  initialDelayMs?: number;
  /** Growth of the pause per miss. Default 2. */
  factor?: number;
  /** Longest single pause. Default 3 s. */
  maxDelayMs?: number;
  /** Give up after this long. Default 30 s (the spec says links appear "within a few seconds"). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export class WaitTimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly attempts: number,
    readonly waitedMs: number,
  ) {
    super(`Gave up waiting for ${what} after ${attempts} checks over ${waitedMs} ms`);
    this.name = 'WaitTimeoutError';
  }
}

export interface Waited<T> {
  value: T;
  attempts: number;
  waitedMs: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls `probe` until it returns a value, pausing 200, 400, 800... ms (capped) between checks. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: BackoffOptions = {},
): Promise<Waited<T>> {
  const { initialDelayMs = 200, factor = 2, maxDelayMs = 3000, timeoutMs = 30_000 } = options;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const started = now();
  let delay = initialDelayMs;
  for (let attempts = 1; ; attempts++) {
    const value = await probe();
    if (value !== undefined) return { value, attempts, waitedMs: now() - started };
    const elapsed = now() - started;
    if (elapsed >= timeoutMs) throw new WaitTimeoutError(what, attempts, elapsed);
    await sleep(Math.min(delay, maxDelayMs, timeoutMs - elapsed));
    delay *= factor;
  }
}
