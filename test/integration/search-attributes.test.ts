import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { missingSearchAttributes } from '../../worker/search-attributes-check';
import { createLogger } from '../../worker/logger';
import { provisionTemporalCli } from '../../worker/temporal/cli-binary';
import { findFreePort } from '../../worker/temporal/ports';
import { readHarnessInfo, traceSync } from '../harness';

/** The CLI's error line (a warning line may come before it). */
const errorLine = (stderr: string): string | undefined =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('trace-sync: ') && !l.startsWith('trace-sync: warning:'))
    .at(-1);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * README: "To run against an existing Temporal cluster, set `TEMPORAL_ADDRESS` … and run `npx trace-sync worker`".
 * Such a cluster knows none of the project's custom search attributes until an operator registers them; this is
 * a plain `temporal server start-dev` without `--search-attribute` flags, like one.
 */
describe('an existing Temporal cluster without the TraceJob, TraceSource and TraceStatus search attributes', () => {
  const harness = readHarnessInfo();
  const dir = path.join(harness.tempDir, 'plain-cluster');
  let server: ChildProcess | undefined;
  let address = '';
  let cliPath = '';

  beforeAll(async () => {
    const logger = createLogger({
      level: 'warn',
      destination: path.join(harness.logDir, 'plain-cluster.log'),
    });
    cliPath = (await provisionTemporalCli({ logger, explicitPath: process.env.TEMPORAL_CLI_PATH })).path;
    mkdirSync(dir, { recursive: true });
    const port = await findFreePort('127.0.0.1');
    address = `127.0.0.1:${port}`;
    const log = createWriteStream(path.join(harness.logDir, 'plain-cluster-server.log'));
    server = spawn(
      cliPath,
      [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--headless',
        '--db-filename',
        path.join(dir, 'temporal.db'),
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout?.pipe(log);
    server.stderr?.pipe(log);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const connection = await Connection.connect({ address, connectTimeout: 2000 }).catch(() => undefined);
      const ready = await connection?.workflowService
        .describeNamespace({ namespace: 'default' })
        .then(() => true)
        .catch(() => false);
      await connection?.close();
      if (ready) break;
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error('plain dev server did not start');
      await sleep(250);
    }
  }, 90_000);

  afterAll(async () => {
    if (server?.pid === undefined || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    process.kill(server.pid, 'SIGTERM');
    await exited;
  });

  const env = (): NodeJS.ProcessEnv => {
    const base: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: 'default',
      TRACE_TASK_QUEUE: `plain-cluster-${Date.now()}`,
      TRACE_DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: 'warn',
    };
    delete base.TRACEABILITY_BASE_URL;
    delete base.TRACEABILITY_API_KEY;
    return base;
  };

  it('the CLI\'s error line carries the server\'s reason, not only "Failed to start Workflow"', async () => {
    // (Before the next test registers the attributes.)
    const run = await traceSync(['check-connection'], env(), 60_000);
    expect(run.status).toBe(1);
    const line = errorLine(run.stderr);
    expect(line).toMatch(
      /Failed to start Workflow.*no mapping defined for search attribute Trace(Job|Source)/,
    );
    expect(line?.length).toBeLessThan(1200);
  }, 90_000);

  it('`trace-sync worker` stops at start with exit code 2 and one line naming the missing attributes, their type and the command that registers them', async () => {
    const run = await traceSync(['worker'], env(), 90_000);
    expect(run.status).toBe(2);
    const line = errorLine(run.stderr);
    expect(line).toBeDefined();
    for (const name of ['TraceJob', 'TraceSource', 'TraceStatus']) expect(line).toContain(name);
    expect(line).toContain('Keyword');
    const command = /register them with: (.*)$/.exec(line ?? '')?.[1];
    expect(command).toBe(
      ['TraceJob', 'TraceSource', 'TraceStatus']
        .map(
          (name) =>
            `temporal operator search-attribute create --address ${address} --namespace default --name ${name} --type Keyword`,
        )
        .join(' && '),
    );
    expect(run.stderr).not.toContain('Worker running');

    // The printed command is the exact one: once run, nothing is missing any more.
    const cliDir = path.dirname(cliPath);
    const created = spawnSync('sh', ['-c', command ?? 'false'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${cliDir}:${process.env.PATH ?? ''}` },
    });
    expect(created.status).toBe(0);
    const connection = await NativeConnection.connect({ address });
    try {
      expect(await missingSearchAttributes(connection, 'default')).toEqual([]);
    } finally {
      await connection.close();
    }
  }, 120_000);
});
