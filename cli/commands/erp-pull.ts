import { Command } from 'commander';
import { erpPull } from '../../workflows';
import { runAction } from '../run-action';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

export function erpPullCommand(): Command {
  return new Command('erp-pull')
    .description(
      'Export orders changed on the platform since the last pull (NDJSON and CSV under TRACE_DATA_DIR/exports/orders)',
    )
    .option('--wait', 'wait for the result and print it')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 1800)
    .action((flags: { wait?: boolean; timeout: number }) =>
      runAction(() =>
        startJob({
          workflow: erpPull,
          args: [{}],
          workflowId: timestampedId('erp-pull'),
          job: 'erp-pull',
          source: 'api',
          summary: 'Export platform orders changed since the last pull',
          wait: Boolean(flags.wait),
          timeoutSeconds: flags.timeout,
        }),
      ),
    );
}
