import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { waitAndPrint } from '../../../cli/run-waiter';
import { cancelledAtGate } from '../../../cli/stopped-at-gate';

/**
 * A run cancelled, as `--wait` and `watch` meet it: its result a cancel, its memo `memo`, the cancel asked by
 * ops@host for "wrong file".
 */
const cancelledRun = (memo: Record<string, unknown> | undefined): WorkflowHandle =>
  ({
    workflowId: 'wf-1',
    query: () => Promise.reject(new Error('closed')),
    result: () =>
      Promise.reject(
        new WorkflowFailedError(
          'Workflow execution cancelled',
          new CancelledFailure('cancelled'),
          RetryState.NON_RETRYABLE_FAILURE,
        ),
      ),
    describe: () => Promise.resolve({ memo: Promise.resolve(memo), raw: {} }),
    client: {
      options: { namespace: 'default' },
      workflowService: {
        getWorkflowExecutionHistoryReverse: () =>
          Promise.resolve({
            history: {
              events: [
                {
                  workflowExecutionCancelRequestedEventAttributes: {
                    identity: 'ops@host',
                    cause: 'wrong file',
                  },
                },
              ],
            },
          }),
      },
    },
  }) as unknown as WorkflowHandle;

/** The one line `--wait` ends with for that run. */
const stopLine = async (memo: Record<string, unknown> | undefined): Promise<string> => {
  const written: string[] = [];
  const out = { write: (text: string) => written.push(text), isTTY: false };
  const error = await waitAndPrint(cancelledRun(memo), {
    timeoutSeconds: 30,
    taskQueue: 'q',
    out,
    resultOut: out,
  }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(written).toEqual([]);
  if (!(error instanceof Error)) throw new Error('the wait did not fail');
  return error.message;
};

/** Where a run cancelled at its approval gate stopped, and the line that says it wrote nothing. */
describe('a run cancelled at its approval gate, in the stop line', () => {
  it('cancelled while planning: it made no plan to approve, wrote nothing, and a rerun plans again', async () => {
    const memo = { cancelled: true, cancelledAt: 'planning' };
    expect(cancelledAtGate(memo)).toBe('while it made its plan');
    expect(await stopLine(memo)).toBe(
      'Workflow wf-1 was cancelled by ops@host (reason: wrong file) while it made its plan: nothing was written, as the plan was never approved; run the same input again to make a new plan.',
    );
  });

  it('cancelled while its plan awaited approval: the same, said of the plan awaiting approval', async () => {
    const memo = { cancelled: true, cancelledAt: 'approval' };
    expect(cancelledAtGate(memo)).toBe('while its plan awaited approval');
    expect(await stopLine(memo)).toBe(
      'Workflow wf-1 was cancelled by ops@host (reason: wrong file) while its plan awaited approval: nothing was written, as the plan was never approved; run the same input again to make a new plan.',
    );
  });

  it('an older memo with cancelledAt "approval" beside other keys: still the approval gate', async () => {
    const memo = {
      file: '/data/inbox/spring.csv',
      cancelled: true,
      cancelledAt: 'approval',
      products: { total: 3 },
    };
    expect(cancelledAtGate(memo)).toBe('while its plan awaited approval');
    expect(await stopLine(memo)).toContain('while its plan awaited approval: nothing was written');
  });

  // A run cancelled among its writes keeps `cancelled` but no `cancelledAt`: it may have written, so it is not told
  // it wrote nothing.
  it('cancelled without cancelledAt (among its writes): not the gate, the line says what it wrote', async () => {
    const memo = { cancelled: true, products: { created: 2, updated: 1 } };
    expect(cancelledAtGate(memo)).toBeUndefined();
    expect(await stopLine(memo)).toBe(
      'Workflow wf-1 was cancelled by ops@host (reason: wrong file): it stopped before its next write and writes nothing more. What it wrote before the stop: 2 products created, 1 updated.',
    );
  });

  it('a run not cancelled, or with no memo: not the gate', () => {
    expect(cancelledAtGate({ cancelledAt: 'planning' })).toBeUndefined();
    expect(cancelledAtGate({ cancelled: false, cancelledAt: 'approval' })).toBeUndefined();
    expect(cancelledAtGate({ products: { created: 1, updated: 0 } })).toBeUndefined();
    expect(cancelledAtGate(undefined)).toBeUndefined();
  });

  it('a gate this CLI does not know: not named, so no claim that nothing was written', () => {
    expect(cancelledAtGate({ cancelled: true, cancelledAt: 'writing' })).toBeUndefined();
  });
});
