import { startSandbox, type RunningSandbox } from '../../sandbox/server';

/** `n` calls one after another: how long each took, and the key's `remaining` after the last. */
async function timedCalls(
  sandbox: RunningSandbox,
  n: number,
): Promise<{ took: number[]; remaining: number }> {
  const took: number[] = [];
  let remaining = 0;
  for (let i = 0; i < n; i++) {
    const started = Date.now();
    const res = await fetch(`${sandbox.baseUrl}/style-types`, {
      headers: { companyapikey: 'sandbox-key-brand' },
    });
    await res.arrayBuffer();
    took.push(Date.now() - started);
    remaining = Number(res.headers.get('x-ratelimit-remaining'));
  }
  return { took, remaining };
}

// The sandbox's jitter flag: "answers with realistic jitter (tens of ms) so the benchmark is not
// flattered by a perfectly quiet server" (issue 16), while the rolling window and headers stay as the spec says.
describe('sandbox jitterMs', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100, jitterMs: 200, qrDelayMs: 0 });
  });
  afterAll(async () => sandbox.close());

  it('delays answers by a random amount and still counts every call in the window', async () => {
    const { took, remaining } = await timedCalls(sandbox, 6);
    expect(Math.max(...took)).toBeGreaterThan(50);
    expect(Math.max(...took) - Math.min(...took)).toBeGreaterThan(10);
    // Against a runaway delay only (the jitter is at most 200 ms each way): a loaded CI host adds its own seconds.
    expect(Math.max(...took)).toBeLessThan(5_000);
    expect(remaining).toBe(100 - 6);
  });
});

// An API far away: a fixed delay each way before the jitter (`networkDelayMs`), for the client-rate benchmark's
// `--latency-ms`; the window still counts every call.
describe('sandbox networkDelayMs', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100, networkDelayMs: 100, qrDelayMs: 0 });
  });
  afterAll(async () => sandbox.close());

  it('delays every answer by the delay each way and still counts every call in the window', async () => {
    const { took, remaining } = await timedCalls(sandbox, 3);
    expect(Math.min(...took)).toBeGreaterThanOrEqual(195);
    // Against a runaway delay only (the jitter is at most 200 ms each way): a loaded CI host adds its own seconds.
    expect(Math.max(...took)).toBeLessThan(5_000);
    expect(remaining).toBe(100 - 3);
  });
});
