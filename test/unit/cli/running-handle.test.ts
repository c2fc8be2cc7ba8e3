import type { Client } from '@temporalio/client';
import { runningHandle } from '../../../cli/workflow-runner';

/** A client whose one workflow describes as `status`, or fails to describe with `missing`. */
const clientWith = (answer: { status: string } | { missing: string }): Client =>
  ({
    workflow: {
      getHandle: (workflowId: string) => ({
        workflowId,
        describe: () =>
          'missing' in answer
            ? Promise.reject(new Error(answer.missing))
            : Promise.resolve({ status: { name: answer.status } }),
      }),
    },
  }) as unknown as Client;

describe('runningHandle: the run cancel, approve and reject act on', () => {
  it('a running run gives its handle and description', async () => {
    const { handle, described } = await runningHandle(
      clientWith({ status: 'RUNNING' }),
      'wf-1',
      'there is nothing to cancel',
    );
    expect(handle.workflowId).toBe('wf-1');
    expect(described.status.name).toBe('RUNNING');
  });

  it('a closed run is one line naming it, its state and what the command cannot do', async () => {
    await expect(
      runningHandle(clientWith({ status: 'COMPLETED' }), 'wf-2', 'there is nothing to cancel'),
    ).rejects.toThrow(new Error('Workflow wf-2 is completed: there is nothing to cancel'));
  });

  it('an unknown run is "No workflow <id>" with the server\'s reason', async () => {
    await expect(
      runningHandle(clientWith({ missing: 'workflow not found' }), 'wf-3', 'there is nothing to cancel'),
    ).rejects.toThrow(new Error('No workflow wf-3 (workflow not found)'));
  });
});
