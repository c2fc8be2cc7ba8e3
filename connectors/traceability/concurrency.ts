/**
 * Lanes a client runs at once where its key's allowance does not ask for more: enough for an API nearby (a round
 * trip of 50 ms carries 9,600 calls a minute over 8).
 */
export const BASE_LANES = 8;

/** The most requests a client has in flight unless `maxConcurrency` says otherwise. */
export const MAX_IN_FLIGHT = 64;

/**
 * Lanes for each call the allowance keeps in flight: a round trip longer than the high estimate, and a lane's own
 * work between its calls (a journal line, the next row), leave a lane without a call in flight for a while.
 */
const LANES_PER_CALL_IN_FLIGHT = 2;

/**
 * How many lanes (requests, or rows each making requests) to run at once: `base`, or more where the allowance
 * over the round trips needs them, up to `ceiling`. An allowance of L calls a minute over round trips of R ms
 * keeps L / 60,000 x R calls in flight (Little's law): 3,000/min 250 ms away keeps 12.5, more than 8 lanes carry.
 */
export function lanesFor(base: number, callsInFlightToFill: number, ceiling = MAX_IN_FLIGHT): number {
  return Math.max(
    1,
    Math.min(ceiling, Math.max(base, Math.ceil(callsInFlightToFill * LANES_PER_CALL_IN_FLIGHT))),
  );
}

/** A counting semaphore with FIFO waiters whose width may change between calls: bounds the requests in flight. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly width: () => number;

  constructor(max: number | (() => number)) {
    if (typeof max === 'number' && (!Number.isInteger(max) || max < 1))
      throw new RangeError('maxConcurrency must be a positive integer');
    this.width = typeof max === 'number' ? () => max : () => Math.max(1, max());
  }

  get inFlight(): number {
    return this.active;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.width() || this.waiters.length > 0)
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      // As many waiters as the width allows now: it may have grown since the last release.
      while (this.waiters.length > 0 && this.active < this.width()) {
        this.active++;
        (this.waiters.shift() as () => void)();
      }
    }
  }
}
