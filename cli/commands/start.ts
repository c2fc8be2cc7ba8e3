import { Command } from 'commander';
import { cliCommand } from '../../connectors/cli-command';
import { startSandbox } from '../../sandbox/server';
import { apiTarget } from '../../worker/api-target';
import { checkFolderWritable } from '../../worker/data-folder-check';
import { loadConfig, temporalClientAddress, type AppConfig } from '../../worker/config';
import { Lifecycle } from '../../worker/lifecycle';
import { createLogger, type AppLogger } from '../../worker/logger';
import { main as runWorkerMain, startWorker } from '../../worker/main';
import { provisionTemporalCli } from '../../worker/temporal/cli-binary';
import { startDevServer } from '../../worker/temporal/dev-server';
import { PortInUseError } from '../../worker/temporal/ports';
import { runAction } from '../run-action';
import path from 'node:path';

export interface StackInfo {
  temporalAddress: string;
  /** Set when this process started the dev server. */
  webUiUrl?: string;
  apiBaseUrl: string;
  /** The demo key, when this process started the sandbox; a configured key is never printed. */
  sandboxApiKey?: string;
  namespace: string;
  taskQueue: string;
  /** Whether a CLI in another terminal, with the same environment, would look for Temporal elsewhere (TEMPORAL_PORT=0). */
  cliNeedsAddress: boolean;
}

const PORT_VARIABLES: Record<string, string> = {
  'Temporal gRPC': 'TEMPORAL_PORT',
  'Temporal Web UI': 'TEMPORAL_UI_PORT',
};

/** Starts what is not configured (dev server, sandbox) and a worker; registers each for an ordered stop. */
export async function startStack(
  config: AppConfig,
  logger: AppLogger,
  lifecycle: Lifecycle,
): Promise<StackInfo> {
  let temporalAddress = temporalClientAddress(config);
  let webUiUrl: string | undefined;
  // The dev server's database and the sandbox's snapshot live there, whatever TRACE_STORE_URL says.
  if (!config.temporalAddress || !config.traceabilityBaseUrl)
    await checkFolderWritable(config.dataDir, 'TRACE_DATA_DIR');
  if (!config.temporalAddress) {
    const cli = await provisionTemporalCli({
      logger,
      explicitPath: config.temporalCliPath,
      signal: lifecycle.signal,
    });
    try {
      const server = await startDevServer({
        cliPath: cli.path,
        dataDir: config.dataDir,
        logger,
        port: config.temporalPort,
        uiPort: config.temporalUiPort,
        namespace: config.temporalNamespace,
      });
      lifecycle.add('temporal dev server', server.stop);
      lifecycle.throwIfStopping();
      temporalAddress = server.address;
      webUiUrl = server.uiUrl;
    } catch (error) {
      if (error instanceof PortInUseError) {
        throw new Error(
          `${error.message}: is \`${cliCommand('start')}\` (or \`npm start\`) already running? Otherwise set ${PORT_VARIABLES[error.purpose] ?? 'another port'}, or 0 for any free port`,
        );
      }
      throw error;
    }
  }

  let sandboxBaseUrl: string | undefined;
  if (!config.traceabilityBaseUrl) {
    const sandbox = await startSandbox({
      port: config.sandboxPort,
      snapshotFile: path.join(config.dataDir, 'sandbox-state.json'),
    }).catch((error: unknown) => {
      const code = (error as { code?: unknown }).code;
      throw code === 'EADDRINUSE'
        ? new Error(
            `Port ${config.sandboxPort} (sandbox) is already in use: set TRACE_SANDBOX_PORT, or 0 for any free port`,
          )
        : error;
    });
    lifecycle.add('sandbox', sandbox.close);
    lifecycle.throwIfStopping();
    sandboxBaseUrl = sandbox.baseUrl;
  }

  const api = apiTarget(config, sandboxBaseUrl);
  const worker = await startWorker({ config, logger, address: temporalAddress, api });
  lifecycle.add('worker', worker.stop);
  lifecycle.throwIfStopping();
  // A worker that dies on its own takes the stack down with it rather than leaving it half-up.
  worker.done.catch((error: unknown) => {
    logger.error({ err: error }, 'Worker failed');
    process.exitCode = 1;
    void lifecycle.stop();
  });
  return {
    temporalAddress,
    webUiUrl,
    apiBaseUrl: api.baseUrl,
    sandboxApiKey: api.sandbox ? api.apiKey : undefined,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    cliNeedsAddress: temporalAddress !== temporalClientAddress(config),
  };
}

export function banner(info: StackInfo): string {
  const lines = [
    '',
    'Trace Connectors is running.',
    `  Temporal Web UI    ${info.webUiUrl ?? '(external server: use its own UI)'}`,
    `  Temporal address   ${info.temporalAddress}  (namespace ${info.namespace}, task queue ${info.taskQueue})`,
    `  Traceability API   ${info.apiBaseUrl}${info.sandboxApiKey ? '  (embedded sandbox)' : ''}`,
  ];
  if (info.sandboxApiKey) {
    lines.push(
      `  Sandbox API key    ${info.sandboxApiKey}  (send it as the companyapikey header)`,
      '',
      `  Try the API:  curl -H 'companyapikey: ${info.sandboxApiKey}' ${info.apiBaseUrl}/style-types`,
    );
  }
  const addressPrefix = info.cliNeedsAddress ? `TEMPORAL_ADDRESS=${info.temporalAddress} ` : '';
  lines.push(
    `  Start a job:  ${addressPrefix}npx trace-sync check-connection --wait   (in another terminal)`,
    '',
    'Press Ctrl-C to stop.',
    '',
  );
  return lines.join('\n');
}

export function startCommand(): Command {
  return new Command('start')
    .description(
      'Run the stack: the Temporal dev server and the sandbox (unless configured) and a worker, until Ctrl-C',
    )
    .action(() =>
      runAction(async () => {
        const config = loadConfig();
        const logger = createLogger({
          level: config.logLevel,
          secrets: [config.traceabilityApiKey, apiTarget(config).apiKey],
          destination: 2,
        });
        const lifecycle = new Lifecycle(logger).handleSignals().stopWhenOrphaned();
        try {
          process.stdout.write(banner(await startStack(config, logger, lifecycle)));
        } catch (error) {
          const interrupted = lifecycle.isStopping;
          await lifecycle.stop();
          if (interrupted) return;
          throw error;
        }
        await lifecycle.whenStopped();
      }),
    );
}

export function workerCommand(): Command {
  return new Command('worker')
    .description(
      'Run a worker only, against TEMPORAL_ADDRESS and TRACEABILITY_BASE_URL, until SIGINT/SIGTERM',
    )
    .action(() => runAction(runWorkerMain));
}

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
