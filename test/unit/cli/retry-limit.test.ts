import { msNumberToTs } from '@temporalio/common/lib/time';
import { retryLimit } from '../../../cli/run-waiter';

const s = (seconds: number) => msNumberToTs(seconds * 1000);

describe('how long --wait says an activity can still retry', () => {
  it('a job step (10 attempts, 2 s doubling to 1 min) retrying after its first failure: about 5 min of waits, 30 min per attempt', () => {
    const now = 1_000_000_000_000;
    const limit = retryLimit(
      {
        attempt: 2,
        maximumAttempts: 10,
        nextAttemptScheduleTime: s((now + 2000) / 1000),
        activityOptions: {
          startToCloseTimeout: s(1800),
          retryPolicy: {
            initialInterval: s(2),
            backoffCoefficient: 2,
            maximumInterval: s(60),
            maximumAttempts: 10,
          },
        },
      },
      now,
    );
    // 2 + 4 + 8 + 16 + 32 + 60 + 60 + 60 + 60 s
    expect(limit).toMatchObject({ lastAttempt: 10, backoffSeconds: 302, attemptTimeoutSeconds: 1800 });
    expect(limit.text).toBe(
      "It retries up to attempt 10: about 5m 2s more of waits between attempts, plus each attempt's own time (at most 30m each), then it gives up. Ctrl-C stops only this waiting; the run goes on.",
    );
  });

  it('a schedule-to-close deadline caps the waits; no attempt limit is said as such', () => {
    const now = 1_000_000_000_000;
    const capped = retryLimit(
      {
        attempt: 3,
        maximumAttempts: 10,
        expirationTime: s((now + 40_000) / 1000),
        activityOptions: {
          retryPolicy: { initialInterval: s(2), backoffCoefficient: 2, maximumInterval: s(60) },
        },
      },
      now,
    );
    expect(capped.backoffSeconds).toBe(40);
    expect(capped.text).toContain(`never past ${new Date(now + 40_000).toISOString()}`);
    const unlimited = retryLimit({ attempt: 4, maximumAttempts: 0 }, now);
    expect(unlimited.text).toBe(
      'It retries with no limit on attempts. Ctrl-C stops only this waiting; the run goes on.',
    );
  });
});
