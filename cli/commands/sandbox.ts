import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { startSandbox } from '../../sandbox/server';
import { SANDBOX_API_KEY } from '../../worker/api-target';
import { loadConfig } from '../../worker/config';
import { Lifecycle } from '../../worker/lifecycle';
import { createLogger } from '../../worker/logger';
import { runAction } from '../run-action';

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

function share(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError('expected a share between 0 and 1');
  }
  return n;
}

interface SandboxFlags {
  port?: number;
  host: string;
  seed?: string;
  rateLimit?: number;
  childLinkDelayMs?: number;
  qrDelayMs?: number;
  snapshot?: string;
  logRequests?: boolean;
  fault5xxRate?: number;
  faultLatencyMs?: number;
  faultDropAfterCommitRate?: number;
  jitterMs?: number;
  networkDelayMs?: number;
  orderPageSizeCap?: number;
}

export function sandboxCommand(): Command {
  return new Command('sandbox')
    .description('Run the Traceability API sandbox alone, until Ctrl-C')
    .option('--port <n>', 'port (default TRACE_SANDBOX_PORT or 4010; 0 picks a free one)', wholeNumber)
    .option('--host <ip>', 'address to listen on', '127.0.0.1')
    .option('--seed <file>', 'JSON seed document (default: the built-in demo data)')
    .option('--rate-limit <n>', 'calls allowed per key per rolling minute', wholeNumber)
    .option('--child-link-delay-ms <n>', 'delay before BOM/material child links appear', wholeNumber)
    .option('--qr-delay-ms <n>', "delay before a new product's qrCodeUrl is set", wholeNumber)
    .option('--snapshot <file>', 'load state from this JSON file at start (if present), save it on exit')
    .option('--log-requests', 'log every request')
    .option('--fault-5xx-rate <share>', 'share of requests answered 500 before they run', share)
    .option('--fault-latency-ms <n>', 'delay added to every request', wholeNumber)
    .option('--jitter-ms <n>', 'random 0..n ms network delay each way on every API request', wholeNumber)
    .option(
      '--network-delay-ms <n>',
      'n ms network delay each way on every API request, before the jitter (an API far away)',
      wholeNumber,
    )
    .option(
      '--order-page-size-cap <n>',
      'order and order-line list pages hold at most n items, whatever limit is asked',
      wholeNumber,
    )
    .option(
      '--fault-drop-after-commit-rate <share>',
      'share of writes whose connection drops after commit',
      share,
    )
    .action((flags: SandboxFlags) =>
      runAction(async () => {
        const config = loadConfig();
        const logger = createLogger({ level: config.logLevel, secrets: [SANDBOX_API_KEY], destination: 2 });
        const faults = {
          ...(flags.fault5xxRate !== undefined ? { serverErrorRate: flags.fault5xxRate } : {}),
          ...(flags.faultLatencyMs !== undefined ? { latencyMs: flags.faultLatencyMs } : {}),
          ...(flags.faultDropAfterCommitRate !== undefined
            ? { dropAfterCommitRate: flags.faultDropAfterCommitRate }
            : {}),
        };
        const sandbox = await startSandbox({
          port: flags.port ?? config.sandboxPort,
          host: flags.host,
          ...(flags.seed ? { seedFile: path.resolve(flags.seed) } : {}),
          ...(flags.rateLimit !== undefined ? { rateLimitPerMinute: flags.rateLimit } : {}),
          ...(flags.childLinkDelayMs !== undefined ? { childLinkDelayMs: flags.childLinkDelayMs } : {}),
          ...(flags.qrDelayMs !== undefined ? { qrDelayMs: flags.qrDelayMs } : {}),
          ...(flags.snapshot ? { snapshotFile: path.resolve(flags.snapshot) } : {}),
          ...(flags.logRequests ? { logRequests: true } : {}),
          ...(flags.jitterMs !== undefined ? { jitterMs: flags.jitterMs } : {}),
          ...(flags.networkDelayMs !== undefined ? { networkDelayMs: flags.networkDelayMs } : {}),
          ...(flags.orderPageSizeCap ? { orderPageSizeCap: flags.orderPageSizeCap } : {}),
          ...(Object.keys(faults).length > 0 ? { faults } : {}),
        });
        const lifecycle = new Lifecycle(logger).handleSignals();
        lifecycle.add('sandbox', sandbox.close);
        logger.info({ baseUrl: sandbox.baseUrl, faults }, 'Sandbox running');
        process.stdout.write(
          [
            '',
            `Sandbox API   ${sandbox.baseUrl}`,
            `API key       ${SANDBOX_API_KEY}  (send it as the companyapikey header)`,
            `Faults        ${sandbox.url}/__sandbox/faults  (GET to read, PUT to change)`,
            '',
            'Press Ctrl-C to stop.',
            '',
          ].join('\n'),
        );
        await lifecycle.whenStopped();
      }),
    );
}
