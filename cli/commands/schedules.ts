import path from 'node:path';
import { Command } from 'commander';
import { applySchedules, describeNextRun, loadSchedulesFile } from '../../worker/schedules';
import { runAction } from '../run-action';
import { withTemporalClient } from '../workflow-runner';

export function schedulesCommand(): Command {
  const command = new Command('schedules').description(
    "Manage the jobs' Temporal Schedules from one JSON file",
  );
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
    .description("List the schedules with their next run, in the schedule's own time zone and in UTC")
    .action(() =>
      runAction(() =>
        withTemporalClient(async (client) => {
          for await (const schedule of client.schedule.list()) {
            const workflow =
              schedule.action?.type === 'startWorkflow'
                ? schedule.action.workflowType
                : (schedule.action?.type ?? '?');
            // The list may leave the spec out; the zone then comes from the schedule's own description.
            const zone =
              schedule.spec?.timezone ??
              (await client.schedule.getHandle(schedule.scheduleId).describe()).spec.timezone;
            const next = describeNextRun(schedule.info.nextActionTimes[0], zone);
            process.stdout.write(
              `${schedule.scheduleId.padEnd(36)} ${workflow.padEnd(28)} next ${next}${schedule.state.paused ? ' (paused)' : ''}\n`,
            );
          }
        }),
      ),
    );
  return command;
}
