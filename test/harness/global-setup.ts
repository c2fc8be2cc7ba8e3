import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { SANDBOX_API_KEY } from '../../worker/api-target';
import { workflowsPath } from '../../worker/create-worker';
import { workflowInterceptorModules } from '../../worker/workflow-bundle';
import { createLogger } from '../../worker/logger';
import { temporalLoggerFor } from '../../worker/runtime';
import { provisionTemporalCli } from '../../worker/temporal/cli-binary';
import { startDevServer, type RunningDevServer } from '../../worker/temporal/dev-server';
import { HARNESS_FILE_ENV, writeHarnessInfo } from './harness-info';
import { createRunLogDir } from './logs';

/** Dynamic config of the test server: continue-as-new is suggested after 40 events, so tests reach it fast. */
export const TEST_SERVER_ARGS = ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=40'];

export interface GlobalHarness {
  server: RunningDevServer;
  tempDir: string;
}

declare global {
  var __traceHarness: GlobalHarness | undefined;
}

/**
 * One real Temporal dev server (free ports, SQLite in a temp folder) and one workflow bundle for the
 * whole `integration` run; test files find them through the JSON file named by TRACE_TEST_HARNESS_FILE.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const tempDir = mkdtempSync(path.join(os.tmpdir(), 'trace-it-'));
  const logDir = createRunLogDir();
  const logger = createLogger({
    level: 'info',
    secrets: [SANDBOX_API_KEY],
    destination: path.join(logDir, 'global-setup.log'),
    base: { component: 'test-harness' },
  });

  const cli = await provisionTemporalCli({ logger, explicitPath: process.env.TEMPORAL_CLI_PATH });
  const server = await startDevServer({
    cliPath: cli.path,
    dataDir: tempDir,
    logger,
    port: 0,
    uiPort: 0,
    extraArgs: TEST_SERVER_ARGS,
    logFile: path.join(logDir, 'temporal-server.log'),
  });
  globalThis.__traceHarness = { server, tempDir };

  try {
    const bundle = await bundleWorkflowCode({
      workflowsPath: workflowsPath(),
      workflowInterceptorModules: workflowInterceptorModules(),
      logger: temporalLoggerFor(logger.child({}, { level: 'warn' })),
    });
    const workflowBundlePath = path.join(tempDir, 'workflow-bundle.js');
    writeFileSync(workflowBundlePath, bundle.code);

    const harnessFile = path.join(tempDir, 'harness.json');
    writeHarnessInfo(harnessFile, {
      address: server.address,
      namespace: server.namespace,
      uiUrl: server.uiUrl,
      serverPid: server.pid,
      workflowBundlePath,
      tempDir,
      logDir,
    });
    // Jest starts its test workers after global setup, so they inherit these.
    process.env[HARNESS_FILE_ENV] = harnessFile;
    logger.info(
      { address: server.address, uiUrl: server.uiUrl, ms: Date.now() - started },
      'Integration harness ready',
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
}
