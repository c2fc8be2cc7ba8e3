/** Time source, injectable so the limiter and retry logic can be tested with a fake clock. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** `clock` read `offsetMs` ahead (behind when negative), its timers unchanged: a host whose clock is off. */
export function shiftedClock(clock: Clock, offsetMs: number): Clock {
  return offsetMs === 0
    ? clock
    : { now: () => clock.now() + offsetMs, sleep: (ms, signal) => clock.sleep(ms, signal) };
}
