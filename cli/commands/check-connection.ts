import { Command } from 'commander';
import { checkConnection } from '../../workflows';
import { runAction } from '../run-action';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

/** `check-connection-2025-01-31T08-15-00-123Z`: says what it is and when it was asked. */
export function checkWorkflowId(now = new Date()): string {
  return timestampedId('check-connection', now);
}

export function checkConnectionCommand(): Command {
  return new Command('check-connection')
    .description('Start the checkConnection workflow: can the workers reach the API with their key?')
    .option('--wait', 'wait for the result and print it')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 60)
    .action((flags: { wait?: boolean; timeout: number }) =>
      runAction(() =>
        startJob({
          workflow: checkConnection,
          args: [],
          workflowId: checkWorkflowId(),
          job: 'check-connection',
          source: 'api',
          summary: 'Check the API connection: style types and rate-limit headers',
          wait: Boolean(flags.wait),
          timeoutSeconds: flags.timeout,
        }),
      ),
    );
}
