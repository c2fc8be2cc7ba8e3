import { Command } from 'commander';
import { certReportCommand } from './commands/cert-report';
import { checkCommand } from './commands/check';
import { importPlmCommand } from './commands/import-plm';
import { pullOrdersCommand } from './commands/pull-orders';
import { pushOrdersCommand } from './commands/push-orders';
import { repairBomCommand } from './commands/repair-bom';
import { retryCommand } from './commands/retry';
import { sandboxCommand } from './commands/sandbox';
import { schedulesCommand } from './commands/schedules';
import { startCommand } from './commands/start';
import { temporalProvisionCommand } from './commands/temporal-provision';
import { workerCommand } from './commands/worker';

export function buildProgram(): Command {
  return new Command('trace-sync')
    .description(
      'Trace Connectors: Temporal jobs that keep PLM and ERP data in sync with the Traceability API',
    )
    .addCommand(startCommand())
    .addCommand(workerCommand())
    .addCommand(sandboxCommand())
    .addCommand(checkCommand())
    .addCommand(importPlmCommand())
    .addCommand(pushOrdersCommand())
    .addCommand(pullOrdersCommand())
    .addCommand(retryCommand())
    .addCommand(repairBomCommand())
    .addCommand(certReportCommand())
    .addCommand(schedulesCommand())
    .addCommand(temporalProvisionCommand());
}

void buildProgram().parseAsync(process.argv);
