import { Client, Connection } from '@temporalio/client';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { readHarnessInfo } from '../harness/harness-info';
import { SHORT_CHAOS } from '../chaos/profiles';
import { runChaos } from '../chaos/scenario';
import { describePendingActivity } from '../chaos/stall-report';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A chaos run that misses its deadline (once in CI, under load) must say where the jobs were waiting, and leave
 * nothing behind for the next test file in this jest process: no worker process (its kill schedule may have been
 * restarting it), no chaos job still running on the shared Temporal server, no rejection nobody handles.
 */
describe('a chaos run that misses its deadline', () => {
  it('names what each job waits on, and stops every process and job it started', async () => {
    const track = { workerPids: [] as number[], workflowIds: [] as string[] };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // The short run's chaos part takes 45 s or more (its kills alone cost 20 s each; without them, the clean run
      // of the same inputs takes 7 s or more): 10 s cannot be enough.
      const run = runChaos({ ...SHORT_CHAOS, seed: 365236402, chaosDeadlineMs: 10_000, track });
      const error = await run.then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      expect(error?.message).toMatch(/^the chaos run did not finish before the deadline/);
      // Each job: its status and phase (one may have completed), and each pending activity with its attempt and
      // last failure.
      expect(error?.message).toMatch(/^plm \(plm-import-.*\): [A-Z_]+, (phase "|progress query unanswered)/m);
      expect(error?.message).toMatch(/^erp \(erp-orders-.*\): [A-Z_]+, (phase "|progress query unanswered)/m);
      expect(error?.message).toMatch(/^(plm|erp) \(.*\): RUNNING, /m);
      // What it waits on: an activity (see below) or a workflow task.
      expect(error?.message).toMatch(
        /^ {2}(\w+ \(activity \d+\): .*, attempt \d+|workflow task attempt \d+)/m,
      );
      expect(error?.message).toMatch(/^worker: \d+ starts, \d+ SIGKILLs/m);

      expect(track.workerPids.length).toBeGreaterThan(0);
      const pidsAtTeardown = [...track.workerPids];
      // Whatever the kill schedule was doing at the deadline, no worker is started after the run.
      await sleep(5_000);
      expect(track.workerPids).toEqual(pidsAtTeardown);
      expect(track.workerPids.filter(alive)).toEqual([]);

      const harness = readHarnessInfo();
      const connection = await Connection.connect({ address: harness.address });
      try {
        const client = new Client({ connection, namespace: harness.namespace });
        expect(track.workflowIds).toHaveLength(2);
        for (const workflowId of track.workflowIds) {
          // Terminated, or completed while the worker stopped (SIGTERM lets it finish what it holds).
          const { status } = await client.workflow.getHandle(workflowId).describe();
          expect({ workflowId, running: status.name === 'RUNNING' }).toEqual({ workflowId, running: false });
        }
      } finally {
        await connection.close();
      }
      expect(unhandled).toEqual([]);
    } finally {
      process.removeListener('unhandledRejection', onUnhandled);
    }
  }, 240_000);

  it('says of a pending activity its attempt, the worker that took it (and whether it was killed), its last failure', () => {
    const now = Date.parse('2026-01-01T00:02:00Z');
    const at = (iso: string) => msNumberToTs(Date.parse(iso));
    const line = describePendingActivity(
      {
        activityId: '9',
        activityType: { name: 'finishPlmImport' },
        state: 2,
        attempt: 2,
        maximumAttempts: 10,
        scheduledTime: at('2026-01-01T00:00:00Z'),
        lastStartedTime: at('2026-01-01T00:00:30Z'),
        lastWorkerIdentity: '4242@ci',
        lastFailure: { message: 'activity Heartbeat timeout' },
      },
      [4242],
      now,
    );
    expect(line).toBe(
      'finishPlmImport (activity 9): started, attempt 2 of 10, scheduled 120 s ago, last started 90 s ago on ' +
        'worker 4242@ci (SIGKILLed), last heartbeat never, last failure: activity Heartbeat timeout',
    );
  });
});
