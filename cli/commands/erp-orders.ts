import path from 'node:path';
import { Command, Option } from 'commander';
import { cliCommand } from '../../connectors/cli-command';
import { erpOrders } from '../../workflows';
import type { PushErpOrdersInput } from '../../workflows/erp-orders';
import { runAction } from '../run-action';
import { inputFileArg, workerPath } from '../store-files';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

/** `erp-orders-orders-2024-03.csv-2025-01-31T08-15-00-123Z`: the job, the file and when it was asked. */
export function pushOrdersWorkflowId(file: string, now = new Date()): string {
  return timestampedId(`erp-orders-${path.basename(file)}`, now);
}

export interface PushOrdersFlags {
  profile?: string;
  mapping?: string;
  dryRun?: boolean;
  approve?: boolean;
  approveTimeout?: number;
  complete?: boolean;
  allowTracedLineRemoval?: boolean;
  unarchive?: boolean;
}

/** The workflow input for a file and the command's flags (paths made absolute: the worker reads them). */
export function pushOrdersInput(file: string, flags: PushOrdersFlags): PushErpOrdersInput {
  return {
    file: workerPath(file),
    ...(flags.profile !== undefined
      ? { profile: flags.profile as NonNullable<PushErpOrdersInput['profile']> }
      : {}),
    ...(flags.mapping !== undefined ? { mappingFile: workerPath(flags.mapping) } : {}),
    ...(flags.dryRun ? { dryRun: true } : {}),
    ...(flags.approve
      ? { approval: flags.approveTimeout !== undefined ? { timeoutSeconds: flags.approveTimeout } : true }
      : {}),
    ...(flags.complete ? { complete: true } : {}),
    ...(flags.allowTracedLineRemoval ? { allowTracedLineRemoval: true } : {}),
    ...(flags.unarchive ? { unarchive: true } : {}),
  };
}

export function erpOrdersCommand(): Command {
  return new Command('erp-orders')
    .description(
      'Push an ERP order export (csv, xlsx, json, ndjson) to the platform: create or patch orders by order number',
    )
    .argument('<file>', 'the export: a local file, or s3://bucket/key (read by the worker)', inputFileArg)
    .addOption(
      new Option('--profile <name>', 'built-in mapping profile').choices(['default']).conflicts('mapping'),
    )
    .addOption(
      new Option('--mapping <file>', 'mapping profile JSON file (local, or s3://bucket/key)')
        .argParser(inputFileArg)
        .conflicts('profile'),
    )
    .option('--dry-run', 'plan only: report what would be created and patched, write nothing')
    .option('--complete', 'the export lists every line of its orders: delete platform lines it lacks')
    .option(
      '--approve',
      `plan (a dry pass), write plan.html and plan.xlsx, then wait for \`${cliCommand('approve|reject <id>')}\` before writing`,
    )
    .option(
      '--approve-timeout <seconds>',
      'with --approve: reject when nobody decides within this long (default 86400)',
      positiveSeconds,
    )
    .option(
      '--allow-traced-line-removal',
      "let the push delete or rename lines already sent to tracing (this deletes or renames the counterparty's tracing request)",
    )
    .option(
      '--unarchive',
      'unarchive and update orders the export names that are archived on the platform (default: reject them)',
    )
    .option(
      '--wait',
      'wait for the result and print it (exit 0 when the run completed, even with rejected orders)',
    )
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 3600)
    .action((file: string, flags: PushOrdersFlags & { wait?: boolean; timeout: number }) =>
      runAction(() =>
        startJob({
          workflow: erpOrders,
          args: [pushOrdersInput(file, flags)],
          workflowId: pushOrdersWorkflowId(file),
          job: 'erp-orders',
          source: path.basename(file),
          summary: `Push ERP orders from ${path.basename(file)}${flags.dryRun ? ' (dry run)' : flags.approve ? ' (plan, then approve)' : ''}`,
          wait: Boolean(flags.wait),
          timeoutSeconds: flags.timeout,
        }),
      ),
    );
}
