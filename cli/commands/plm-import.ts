import path from 'node:path';
import { Command, Option } from 'commander';
import { cliCommand } from '../../connectors/cli-command';
import { plmImport } from '../../workflows';
import type { PlmImportInput } from '../../workflows/plm-import';
import { runAction } from '../run-action';
import { inputFileArg, workerPath } from '../store-files';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

/** `plm-import-ss25.xlsx-2025-01-31T08-15-00-123Z`: the job, the file and when it was asked. */
export function plmImportWorkflowId(file: string, now = new Date()): string {
  return timestampedId(`plm-import-${path.basename(file).replace(/[^A-Za-z0-9._-]+/g, '_')}`, now);
}

export interface PlmImportFlags {
  profile?: string;
  mapping?: string;
  dryRun?: boolean;
  unarchive?: boolean;
  sheet?: string;
  approve?: boolean;
  approveTimeout?: number;
}

/** The workflow input for a file and the command's flags (paths made absolute: the worker reads them). */
export function plmImportInput(file: string, flags: PlmImportFlags): PlmImportInput {
  return {
    file: workerPath(file),
    ...(flags.profile !== undefined
      ? { profile: flags.profile as NonNullable<PlmImportInput['profile']> }
      : {}),
    ...(flags.mapping !== undefined ? { mappingFile: workerPath(flags.mapping) } : {}),
    ...(flags.dryRun ? { dryRun: true } : {}),
    ...(flags.unarchive ? { unarchive: true } : {}),
    ...(flags.sheet !== undefined ? { sheet: flags.sheet } : {}),
    ...(flags.approve
      ? { approval: flags.approveTimeout !== undefined ? { timeoutSeconds: flags.approveTimeout } : true }
      : {}),
  };
}

export function plmImportCommand(): Command {
  return new Command('plm-import')
    .description(
      'Import a PLM spreadsheet (xlsx, xls, csv) into the catalogue: styles, variants and SKUs by externalId',
    )
    .argument('<file>', 'the sheet: a local file, or s3://bucket/key (read by the worker)', inputFileArg)
    .addOption(
      new Option('--profile <name>', 'built-in mapping profile (default native)')
        .choices(['native', 'flat'])
        .conflicts('mapping'),
    )
    .addOption(
      new Option('--mapping <file>', 'mapping profile JSON file (local, or s3://bucket/key)')
        .argParser(inputFileArg)
        .conflicts('profile'),
    )
    .option(
      '--dry-run',
      'plan only: read the catalogue, write plan.json and the rejects file, write nothing to the API',
    )
    .option(
      '--unarchive',
      'unarchive archived products the sheet names (children stay archived) and update them; default: reject their rows',
    )
    .option(
      '--sheet <name>',
      'xlsx/xls: the sheet to read (default: the mapping\'s "sheet", else the first visible sheet with cells)',
    )
    .option(
      '--approve',
      `plan, write plan.html and plan.xlsx, then wait for \`${cliCommand('approve|reject <id>')}\` before writing`,
    )
    .option(
      '--approve-timeout <seconds>',
      'with --approve: reject when nobody decides within this long (default 86400)',
      positiveSeconds,
    )
    .option(
      '--wait',
      'wait for the result and print it (exit 0 when the run completed, even with rejected rows)',
    )
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 3600)
    .action((file: string, flags: PlmImportFlags & { wait?: boolean; timeout: number }) =>
      runAction(() =>
        startJob({
          workflow: plmImport,
          args: [plmImportInput(file, flags)],
          workflowId: plmImportWorkflowId(file),
          job: 'plm-import',
          source: path.basename(file),
          summary: `Import PLM sheet ${path.basename(file)}${flags.dryRun ? ' (dry run)' : flags.approve ? ' (plan, then approve)' : ''}`,
          wait: Boolean(flags.wait),
          timeoutSeconds: flags.timeout,
        }),
      ),
    );
}
