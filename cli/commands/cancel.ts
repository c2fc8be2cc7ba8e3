import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { WorkflowFailedError } from '@temporalio/client';
import { shownText } from '../../connectors/config-problems';
import { cliCommand } from '../../connectors/cli-command';
import { TraceStatus } from '../../worker/search-attributes';
import { BY_DEFAULT, operatingSystemUser } from './approve';
import { runAction } from '../run-action';
import { wroteBeforeStop } from '../stop-words';
import { stoppedAtGate } from '../stopped-at-gate';
import { runningHandle, withTemporalClient } from '../workflow-runner';

/**
 * Sends a cancel to a running run. The running batch stops before its next write (the writes under way finish and are
 * journalled), then the run writes its totals and closes as Cancelled; with `wait`, waits for that and says so.
 */
async function cancelRun(workflowId: string, flags: CancelFlags): Promise<void> {
  const wait = flags.wait === true;
  const by = recorded('--by', flags.by ?? operatingSystemUser());
  const reason = flags.reason === undefined ? undefined : recorded('--reason', flags.reason);
  await withTemporalClient(async (client, config) => {
    const { handle, described } = await runningHandle(client, workflowId, 'there is nothing to cancel');
    // Through the service, not handle.cancel(): the request then records who asked and why, as approve and reject do,
    // and `watch` shows both to whoever looks at the run later.
    await client.workflowService.requestCancelWorkflowExecution({
      namespace: config.temporalNamespace,
      workflowExecution: { workflowId, runId: described.runId },
      identity: by,
      requestId: randomUUID(),
      ...(reason === undefined ? {} : { reason }),
    });
    if (!wait) {
      process.stdout.write(
        `Sent cancel to ${workflowId}: its running batch stops before its next write, then the run closes as ` +
          `cancelled (follow it with \`${cliCommand('watch', workflowId)}\`)\n`,
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
    const memo = await closed.memo;
    const atGate = stoppedAtGate(memo);
    if (atGate) {
      process.stdout.write(`Workflow ${workflowId} cancelled (TraceStatus ${status}) ${atGate}.\n`);
      return;
    }
    const wrote = wroteBeforeStop(memo);
    process.stdout.write(
      `Workflow ${workflowId} cancelled (TraceStatus ${status})${wrote ? `; what it wrote: ${wrote}` : ''}.\n` +
        'Run the same input again to write the rest: what the cancelled run wrote counts as unchanged.\n',
    );
  });
}

interface CancelFlags {
  wait?: boolean;
  by?: string;
  reason?: string;
}

/** Free text to record in the run's history: refused, not sent, when it reads like a credential or runs long. */
function recorded(flag: string, text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error(`${flag} is empty: give it text or leave it out. Nothing was sent.`);
  if (trimmed.length > MAX_RECORDED)
    throw new Error(`${flag} is ${trimmed.length} characters: at most ${MAX_RECORDED}. Nothing was sent.`);
  if (shownText(trimmed, MAX_RECORDED) === undefined)
    throw new Error(
      `${flag} looks like a credential, which would stay in the run's history. Nothing was sent.`,
    );
  return trimmed;
}
const MAX_RECORDED = 200;

export function cancelCommand(): Command {
  return new Command('cancel')
    .description(
      'Cancel a running run (plm-import, erp-orders, bom-repair...): its running batch stops before its next write, and the run closes as cancelled with its totals',
    )
    .argument('<workflowId>', 'the run to cancel')
    .option('--wait', 'wait until the run has stopped writing and closed, then print what it wrote')
    .option('--by <name>', `who cancels (recorded in the run; ${BY_DEFAULT})`)
    .option('--reason <text>', `why (recorded in the run; \`${cliCommand('watch')}\` shows it)`)
    .action((workflowId: string, flags: CancelFlags) => runAction(() => cancelRun(workflowId, flags)));
}
