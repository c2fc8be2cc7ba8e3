import { Command, InvalidArgumentError } from 'commander';
import {
  parseRepairBomInput,
  selectorLabel,
  type RepairBomInput,
} from '../../connectors/bom-repair/job-input';
import { bomRepair } from '../../workflows';
import { runAction } from '../run-action';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

export interface RepairBomFlags {
  product?: string[];
  updatedAfter?: string;
  all?: boolean;
  sinceLastRun?: boolean;
  markName?: string;
  acceptCurrentSource?: boolean;
  dryRun?: boolean;
  wait?: boolean;
  timeout: number;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The workflow input the flags describe; a wrong combination is refused before anything starts. */
export function repairBomInputFromFlags(flags: RepairBomFlags): RepairBomInput {
  const input: RepairBomInput = {
    ...(flags.product ? { products: flags.product } : {}),
    ...(flags.updatedAfter !== undefined ? { updatedAfter: flags.updatedAfter } : {}),
    ...(flags.all ? { all: true as const } : {}),
    ...(flags.sinceLastRun ? { sinceLastRun: true as const } : {}),
    ...(flags.markName !== undefined ? { markName: flags.markName } : {}),
    ...(flags.acceptCurrentSource ? { acceptCurrentSource: true } : {}),
    ...(flags.dryRun ? { dryRun: true } : {}),
  };
  try {
    parseRepairBomInput(input);
  } catch (error) {
    throw new InvalidArgumentError(
      `${(error as Error).message.replace('products, updatedAfter, all or sinceLastRun', '--product, --updated-after, --all or --since-last-run')}`,
    );
  }
  return input;
}

/** `bom-repair-products-PLM-TEE-001-2025-01-31T08-15-00-123Z`, `bom-repair-all-dry-run-...`. */
export function repairBomWorkflowId(input: RepairBomInput, now = new Date()): string {
  const label = selectorLabel(parseRepairBomInput(input).selector).replace(/[^A-Za-z0-9._-]/g, '_');
  return timestampedId(`bom-repair-${label}${input.dryRun ? '-dry-run' : ''}`, now);
}

export function bomRepairCommand(): Command {
  return new Command('bom-repair')
    .description(
      "Start bomRepair: put back the component references BOM forks lost (spec 02, 'Copy fidelity caveat')",
    )
    .option(
      '--product <id>',
      'a product (platform id or externalId; a style or variant covers its SKUs); repeatable',
      collect,
    )
    .option('--updated-after <time>', 'variants and SKUs changed at or after this ISO 8601 time')
    .option('--all', 'the whole catalogue')
    .option(
      '--since-last-run',
      'products owning a BOM made or changed since the previous --since-last-run run (high-water mark in TRACE_DATA_DIR/bom-repair/)',
    )
    .option('--mark-name <name>', 'with --since-last-run: which high-water mark (one per schedule)')
    .option(
      '--accept-current-source',
      "repair copies whose source line changed after the fork with the source's current component (otherwise ambiguous)",
    )
    .option('--dry-run', 'list the repairs without writing')
    .option('--wait', 'wait for the result and print it')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 1800)
    .action((flags: RepairBomFlags) =>
      runAction(async () => {
        const input = repairBomInputFromFlags(flags);
        await startJob({
          workflow: bomRepair,
          args: [input],
          workflowId: repairBomWorkflowId(input),
          job: 'bom-repair',
          source: 'api',
          summary: `BOM fork repair (${selectorLabel(parseRepairBomInput(input).selector)})${input.dryRun ? ', dry run' : ''}`,
          wait: Boolean(flags.wait),
          timeoutSeconds: flags.timeout,
        });
      }),
    );
}
