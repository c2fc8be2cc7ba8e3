import { Client, Connection } from '@temporalio/client';
import { readHarnessInfo } from '../harness/harness-info';
import { SHORT_CHAOS } from '../chaos/profiles';
import { runChaos } from '../chaos/scenario';

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
      // The short run's chaos part takes 45 s or more (its kills alone cost 20 s each): 15 s cannot be enough.
      const run = runChaos({ ...SHORT_CHAOS, seed: 365236402, chaosDeadlineMs: 15_000, track });
      const error = await run.then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      expect(error?.message).toMatch(/^the chaos run did not finish before the deadline/);
      // Each job: its status and phase, and each pending activity with its attempt and last failure.
      expect(error?.message).toMatch(/^plm \(plm-import-.*\): RUNNING, (phase "|progress query unanswered)/m);
      expect(error?.message).toMatch(/^erp \(erp-orders-.*\): RUNNING, (phase "|progress query unanswered)/m);
      expect(error?.message).toMatch(
        /^ {2}(applyPlmBatch|applyErpOrderBatch|readPlmSheet|planPlmImport|prepareErpOrderPush) \(activity \d+\): \w[\w ]*, attempt \d+ of \d+, .*last failure: /m,
      );
      expect(error?.message).toMatch(/^worker: \d+ starts, \d+ SIGKILLs/m);

      expect(track.workerPids.length).toBeGreaterThan(0);
      const pidsAtTeardown = [...track.workerPids];
      // Whatever the kill schedule was doing at the deadline, no worker is started after the run.
      await sleep(3_000);
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
});
