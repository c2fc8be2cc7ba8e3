import { Command } from 'commander';
import { main as runWorkerMain } from '../../worker/main';
import { runAction } from '../run-action';

export function workerCommand(): Command {
  return new Command('worker')
    .description(
      'Run a worker only, against TEMPORAL_ADDRESS and TRACEABILITY_BASE_URL, until SIGINT/SIGTERM',
    )
    .action(() => runAction(runWorkerMain));
}
