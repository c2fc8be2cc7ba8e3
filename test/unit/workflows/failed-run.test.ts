import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';

/**
 * An activity that times out on its last attempt (a worker that died mid-run, an API that hangs past the timeouts)
 * ends its run as a failure that says so: TraceStatus `failed`, not the `running` it had, and details naming the
 * activity and what timed out. Outside a workflow, the workflow API's commands are recorded here.
 */
const upserts: unknown[] = [];
const details: string[] = [];
jest.mock('@temporalio/workflow', () => ({
  ...jest.requireActual<object>('@temporalio/workflow'),
  patched: () => true,
  upsertSearchAttributes: (attributes: unknown) => upserts.push(attributes),
  setCurrentDetails: (text: string) => details.push(text),
}));

// After the mock (which jest hoists anyway).
import { explainedRun } from '../../../workflows/batch-run';
import { TraceStatus } from '../../../worker/search-attributes';

function timedOut(activityType: string, timeoutType: TimeoutType): ActivityFailure {
  return new ActivityFailure(
    'Activity task timed out',
    activityType,
    '1',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    'worker-1',
    new TimeoutFailure(undefined, undefined, timeoutType),
  );
}

beforeEach(() => {
  upserts.length = 0;
  details.length = 0;
});

describe('a run whose activity times out', () => {
  it.each([
    [TimeoutType.HEARTBEAT, 'applyErpOrderBatch', /no heartbeat .* its worker may have stopped/],
    [TimeoutType.START_TO_CLOSE, 'describeApiAccount', /ran past its start-to-close timeout/],
    [TimeoutType.SCHEDULE_TO_START, 'describeApiAccount', /no worker picked it up/],
  ])(
    '%s: fails saying which activity timed out and what to check; TraceStatus failed',
    async (type, activity, why) => {
      const failure = await explainedRun('JobFailed', () => Promise.reject(timedOut(activity, type))).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ApplicationFailure);
      const message = (failure as ApplicationFailure).message;
      expect(message).toMatch(new RegExp(`^${activity} timed out`));
      expect(message).toMatch(why);
      expect((failure as ApplicationFailure).type).toBe('ActivityTimedOut');
      expect(upserts).toEqual([[{ key: TraceStatus, value: 'failed' }]]);
      expect(details).toEqual([`Failed: ${message}`]);
    },
  );

  it('a cancellation is not a failure: left as it is', async () => {
    const cancelled = new Error('cancelled');
    await expect(explainedRun('JobFailed', () => Promise.reject(cancelled))).rejects.toBe(cancelled);
    expect(upserts).toEqual([]);
  });
});
