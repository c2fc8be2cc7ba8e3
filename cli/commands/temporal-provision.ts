import { Command } from 'commander';
import { loadConfig } from '../../worker/config';
import { createLogger } from '../../worker/logger';
import { provisionTemporalCli } from '../../worker/temporal';
import { runAction } from '../run-action';

export function temporalProvisionCommand(): Command {
  return new Command('temporal-provision')
    .description('Find or install the Temporal CLI used for the embedded dev server, and print its path')
    .action(() =>
      runAction(async () => {
        const config = loadConfig();
        const logger = createLogger({ level: config.logLevel, destination: 2 });
        const cli = await provisionTemporalCli({ logger, explicitPath: config.temporalCliPath });
        process.stdout.write(`${cli.path}\n`);
      }),
    );
}
