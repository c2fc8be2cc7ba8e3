import path from 'node:path';
import { ScheduleNotFoundError } from '@temporalio/client';
import { Command } from 'commander';
import { cliCommand } from '../../connectors/cli-command';
import { applySchedules, describeNextRun, loadSchedulesFile } from '../../worker/schedules';
import { runAction } from '../run-action';
import { withTemporalClient } from '../workflow-runner';

/** Runs `act` on schedule `id`; a schedule that is not there is named with where to look. */
async function existingSchedule(id: string, namespace: string, act: () => Promise<void>): Promise<void> {
  try {
    await act();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
    throw new Error(
      `no schedule '${id}' in namespace ${namespace}: \`${cliCommand('schedules', 'list')}\` shows the schedules there are`,
    );
  }
}

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
        for (const note of file.notes) process.stderr.write(`${'note'.padEnd(8)} ${note}\n`);
        await withTemporalClient(async (client, config) => {
          for (const applied of await applySchedules(client, file, config.taskQueue)) {
            process.stdout.write(`${applied.action.padEnd(8)} ${applied.id}\n`);
          }
        });
      }),
    );
  command
    .command('list')
    .description(
      "List the schedules with their next run, in the schedule's own time zone and in UTC, and whether each is active or paused (with its note)",
    )
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
            const { paused, note } = schedule.state;
            // A paused schedule's note is why it was paused (the Web UI and `temporal schedule toggle` ask for one).
            const state = paused ? `paused${note ? `: ${note}` : ''}` : 'active';
            process.stdout.write(
              `${schedule.scheduleId.padEnd(36)} ${workflow.padEnd(28)} next ${next} ${state}\n`,
            );
          }
        }),
      ),
    );
  command
    .command('trigger')
    .description(
      "Start a schedule's workflow now, as its next tick would (its input, overlap policy and zone)",
    )
    .argument('<id>', 'the schedule id, as `schedules list` shows it')
    .action((id: string) =>
      runAction(() =>
        withTemporalClient(async (client, config) => {
          await existingSchedule(id, config.temporalNamespace, () => client.schedule.getHandle(id).trigger());
          process.stdout.write(
            `triggered ${id}: a run starts now (unless its overlap policy skips it while its last run still runs); find it with TemporalScheduledById = "${id}"\n`,
          );
        }),
      ),
    );
  command
    .command('delete')
    .description('Delete a schedule (the runs it started are kept); `schedules apply` would create it again')
    .argument('<id>', 'the schedule id, as `schedules list` shows it')
    .action((id: string) =>
      runAction(() =>
        withTemporalClient(async (client, config) => {
          await existingSchedule(id, config.temporalNamespace, () => client.schedule.getHandle(id).delete());
          process.stdout.write(`${'deleted'.padEnd(8)} ${id}\n`);
        }),
      ),
    );
  return command;
}
