import { waitFor, WaitTimeoutError } from '../../../connectors/bom-repair/safe-write';

function fakeClock() {
  let now = 0;
  const pauses: number[] = [];
  return {
    pauses,
    now: () => now,
    sleep: async (ms: number) => {
      pauses.push(ms);
      now += ms;
    },
  };
}

describe('waitFor (child links appear asynchronously)', () => {
  it('checks again with growing pauses until the value shows', async () => {
    const clock = fakeClock();
    let calls = 0;
    const waited = await waitFor('a link', async () => (++calls >= 5 ? 'link' : undefined), {
      ...clock,
      initialDelayMs: 100,
      maxDelayMs: 500,
    });
    expect(waited).toEqual({ value: 'link', attempts: 5, waitedMs: 100 + 200 + 400 + 500 });
    expect(clock.pauses).toEqual([100, 200, 400, 500]);
  });

  it('gives up at the timeout with a message naming what it waited for', async () => {
    const clock = fakeClock();
    const waiting = waitFor('the link of sku_1 to BOM bomhdr_1', async () => undefined, {
      ...clock,
      timeoutMs: 1000,
    });
    await expect(waiting).rejects.toThrow(WaitTimeoutError);
    await expect(waitFor('x', async () => undefined, { ...fakeClock(), timeoutMs: 1000 })).rejects.toThrow(
      /Gave up waiting for x after \d+ checks over 1000 ms/,
    );
    expect(clock.pauses.reduce((a, b) => a + b, 0)).toBe(1000);
  });
});
