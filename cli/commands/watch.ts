import { Command } from 'commander';
import { runAction } from '../run-action';
import { watchRun } from '../workflow-runner';

export function watchCommand(): Command {
  return new Command('watch')
    .description(
      "Follow a run's progress until it ends (a bar on a terminal, JSON lines otherwise), then print its result; works for runs started anywhere (CLI, Web UI, schedules, inbox)",
    )
    .argument('<workflowId>', 'the run to follow')
    .action((workflowId: string) => runAction(() => watchRun(workflowId)));
}
