import { Command, Option } from 'commander';
import { inbox } from '../../workflows';
import type { ProcessInboxInput } from '../../workflows/inbox';
import { jobInputProblems } from '../../worker/job-inputs';
import { runAction } from '../run-action';
import { inputFileArg, workerPath } from '../store-files';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

export interface InboxFlags {
  job: ProcessInboxInput['job'];
  profile?: string;
  mapping?: string;
}

/** The input a schedule entry's `input` gives the inbox run, from the folder and the flags (local paths made absolute). */
export function inboxInput(folder: string, flags: InboxFlags): ProcessInboxInput {
  return {
    job: flags.job,
    folder: workerPath(folder),
    ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
    ...(flags.mapping !== undefined ? { mappingFile: flags.mapping } : {}),
  };
}

/**
 * `trace-sync inbox <folder> --job …`: one inbox run started by hand, with the input a schedule gives it, checked as
 * the run checks it so a bad profile is refused here and nothing is started.
 */
async function startInbox(
  folder: string,
  flags: InboxFlags & { wait?: boolean; timeout: number },
): Promise<void> {
  const input = inboxInput(folder, flags);
  const problem = jobInputProblems('inbox', input);
  if (problem !== undefined) throw new Error(`Invalid inbox input: ${problem}. Nothing was started.`);
  await startJob({
    workflow: inbox,
    args: [input],
    workflowId: timestampedId(`inbox-${flags.job}`),
    job: 'inbox',
    source: input.folder,
    summary: `Inbox ${input.folder}: start ${flags.job} for each file dropped in it (started by hand)`,
    wait: Boolean(flags.wait),
    timeoutSeconds: flags.timeout,
  });
}

export function inboxCommand(): Command {
  return new Command('inbox')
    .description(
      'Start one inbox run now, as its schedule would: a child run of the job for each file dropped in the folder, each file then moved to processed/ or failed/',
    )
    .argument('<folder>', "the inbox: a folder on the worker's file system, or an s3://bucket/prefix")
    .addOption(
      new Option('--job <job>', 'the job each file feeds')
        .choices(['erp-orders', 'plm-import'])
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--profile <name>',
        "built-in profile passed to each file's run (as the job knows it)",
      ).conflicts('mapping'),
    )
    .addOption(
      new Option(
        '--mapping <file>',
        "mapping profile JSON file passed to each file's run (local, or s3://bucket/key)",
      )
        .argParser(inputFileArg)
        .conflicts('profile'),
    )
    .option('--wait', 'wait for the run to file every drop and print its result')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 3600)
    .action((folder: string, flags: InboxFlags & { wait?: boolean; timeout: number }) =>
      runAction(() => startInbox(folder, flags)),
    );
}
