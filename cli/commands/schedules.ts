import path from 'node:path';
import { Command } from 'commander';
import { applySchedules, loadSchedulesFile } from '../../worker/schedules';
import { runAction } from '../run-action';
import { withTemporalClient } from '../workflow-runner';

export function schedulesCommand(): Command {
  const command = new Command('schedules').description('Manage the jobs\' Temporal Schedules from one JSON file');
  command
    .command('apply')
    .description('Create or update every schedule of the file (running it again updates them in place)')
    .option('--file <path>', 'schedules file', 'schedules.json')
    .action((flags: { file: string }) =>
      runAction(async () => {
        const file = await loadSchedulesFile(path.resolve(flags.file));
        await withTemporalClient(async (client, config) => {
          for (const applied of await applySchedules(client, file, config.taskQueue)) {
            process.stdout.write(`${applied.action.padEnd(8)} ${applied.id}\n`);
          }
        });
      }),
    );
  command
    .command('list')
    .description('List the schedules with their next run')
    .action(() =>
      runAction(() =>
        withTemporalClient(async (client) => {
          for await (const schedule of client.schedule.list()) {
            const next = schedule.info.nextActionTimes[0]?.toISOString() ?? 'none';
            const workflow = schedule.action?.type === 'startWorkflow' ? schedule.action.workflowType : (schedule.action?.type ?? '?');
            process.stdout.write(`${schedule.scheduleId.padEnd(36)} ${workflow.padEnd(28)} next ${next}${schedule.state.paused ? ' (paused)' : ''}\n`);
          }
        }),
      ),
    );
  return command;
}
