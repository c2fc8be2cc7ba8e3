import os from 'node:os';
import { Command } from 'commander';
import { cliCommand } from '../../connectors/cli-command';
import { TraceStatus } from '../../worker/search-attributes';
import { runAction } from '../run-action';
import { runningHandle, withTemporalClient } from '../workflow-runner';

/** Names of the approval signals a run awaiting approval listens to (also the Web UI's signal form). */
export const APPROVE_SIGNAL = 'approve';
export const REJECT_SIGNAL = 'reject';

export const BY_DEFAULT = 'default: the operating-system user running trace-sync';

/** Who decides when --by is not given: the OS user, even under cron or a service where $USER is unset. */
export function operatingSystemUser(): string {
  try {
    const name = os.userInfo().username.trim();
    if (name !== '') return name;
  } catch {
    // a uid with no passwd entry (some containers)
  }
  return 'trace-sync';
}

async function decide(
  workflowId: string,
  signal: typeof APPROVE_SIGNAL | typeof REJECT_SIGNAL,
  flags: { by?: string; reason?: string },
): Promise<void> {
  await withTemporalClient(async (client) => {
    const { handle, described } = await runningHandle(
      client,
      workflowId,
      'there is no plan waiting for a decision',
    );
    const status = described.typedSearchAttributes.get(TraceStatus);
    if (status !== 'awaiting-approval') {
      throw new Error(
        `Workflow ${workflowId} is not awaiting approval (TraceStatus ${status ?? 'unset'}): start the job with --approve to plan first`,
      );
    }
    await handle.signal(signal, {
      by: flags.by ?? operatingSystemUser(),
      ...(flags.reason ? { reason: flags.reason } : {}),
    });
    process.stdout.write(
      `Sent ${signal} to ${workflowId} (follow it with \`${cliCommand('watch', workflowId)}\`)\n`,
    );
  });
}

export function approveCommand(): Command {
  return new Command('approve')
    .description(
      'Approve the plan of a run awaiting approval (plm-import or erp-orders started with --approve): it applies exactly the planned changes',
    )
    .argument('<workflowId>', 'the run awaiting approval')
    .option('--by <name>', `who approves (recorded in the run; ${BY_DEFAULT})`)
    .action((workflowId: string, flags: { by?: string }) =>
      runAction(() => decide(workflowId, APPROVE_SIGNAL, flags)),
    );
}

export function rejectCommand(): Command {
  return new Command('reject')
    .description('Reject the plan of a run awaiting approval: nothing is written, the run ends as rejected')
    .argument('<workflowId>', 'the run awaiting approval')
    .option('--by <name>', `who rejects (recorded in the run; ${BY_DEFAULT})`)
    .option('--reason <text>', 'why (recorded in the run)')
    .action((workflowId: string, flags: { by?: string; reason?: string }) =>
      runAction(() => decide(workflowId, REJECT_SIGNAL, flags)),
    );
}
