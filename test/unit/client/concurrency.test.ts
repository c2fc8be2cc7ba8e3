import { BASE_LANES, lanesFor, Semaphore } from '../../../connectors/traceability/concurrency';

describe('lanesFor: calls in flight to use the allowance (Little: calls a second x round trip)', () => {
  it('keeps the base lanes for an API nearby or a small allowance', () => {
    // 3,000/min over a 50 ms round trip: 2.5 calls in flight.
    expect(lanesFor(BASE_LANES, (3000 / 60_000) * 50)).toBe(BASE_LANES);
    // 600/min a continent away (290 ms): 2.9.
    expect(lanesFor(BASE_LANES, (600 / 60_000) * 290)).toBe(BASE_LANES);
  });

  it('widens for a large allowance far away, up to the ceiling', () => {
    // 3,000/min over round trips of up to 290 ms keeps 14.5 calls in flight: 8 lanes carry at most 1,655/min.
    expect(lanesFor(BASE_LANES, (3000 / 60_000) * 290)).toBe(29);
    expect(lanesFor(BASE_LANES, (6000 / 60_000) * 1000)).toBe(64);
    expect(lanesFor(BASE_LANES, (6000 / 60_000) * 1000, 16)).toBe(16);
    expect(lanesFor(4, 0, 2)).toBe(2);
  });
});

describe('Semaphore', () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

  it('holds requests over its width and lets more in, in order, once the width grows', async () => {
    let width = 2;
    const semaphore = new Semaphore(() => width);
    const started: number[] = [];
    const release: Array<() => void> = [];
    const runs = Array.from({ length: 6 }, (_, index) =>
      semaphore.run(
        () =>
          new Promise<void>((resolve) => {
            started.push(index);
            release[index] = resolve;
          }),
      ),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    width = 4;
    release[0]?.();
    await tick();
    // One finished, the width grew by two: three more start, the oldest waiting first.
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(semaphore.inFlight).toBe(4);
    for (const index of [1, 2, 3, 4]) release[index]?.();
    await tick();
    release[5]?.();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(semaphore.inFlight).toBe(0);
  });

  it('refuses a fixed width that is not a positive integer', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
