import { Command } from 'commander';
import { WorkflowFailedError } from '@temporalio/client';
import { TraceStatus } from '../../worker/search-attributes';
import { runAction } from '../run-action';
import { memoLine } from '../run-waiter';
import { runningHandle, withTemporalClient } from '../workflow-runner';

/**
 * Sends a cancel to a running run. The running batch stops before its next write (the writes under way finish and are
 * journalled), then the run writes its totals and closes as Cancelled; with `wait`, waits for that and says so.
 */
async function cancelRun(workflowId: string, wait: boolean): Promise<void> {
  await withTemporalClient(async (client) => {
    const { handle } = await runningHandle(client, workflowId, 'there is nothing to cancel');
    await handle.cancel();
    if (!wait) {
      process.stdout.write(
        `Sent cancel to ${workflowId}: its running batch stops before its next write, then the run closes as ` +
          `cancelled (follow it with \`trace-sync watch ${workflowId}\`)\n`,
      );
      return;
    }
    process.stderr.write(`Sent cancel to ${workflowId}; waiting for its running batch to stop...\n`);
    const ended = await handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    const closed = await handle.describe();
    if (closed.status.name !== 'CANCELLED') {
      const why = ended instanceof WorkflowFailedError ? `: ${ended.message}` : '';
      throw new Error(
        `Workflow ${workflowId} closed as ${closed.status.name.toLowerCase()} before the cancel took effect${why}`,
      );
    }
    const status = closed.typedSearchAttributes.get(TraceStatus) ?? 'unset';
    process.stdout.write(
      `Workflow ${workflowId} cancelled (TraceStatus ${status}); what it wrote:${memoLine(await closed.memo)}\n` +
        'Run the same input again to write the rest: what the cancelled run wrote counts as unchanged.\n',
    );
  });
}

export function cancelCommand(): Command {
  return new Command('cancel')
    .description(
      'Cancel a running run (plm-import, erp-orders, bom-repair...): its running batch stops before its next write, and the run closes as cancelled with its totals',
    )
    .argument('<workflowId>', 'the run to cancel')
    .option('--wait', 'wait until the run has stopped writing and closed, then print what it wrote')
    .action((workflowId: string, flags: { wait?: boolean }) =>
      runAction(() => cancelRun(workflowId, flags.wait === true)),
    );
}
