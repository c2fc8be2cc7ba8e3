/**
 * How long `node dist/worker/main.js` (the Docker image's command, and `trace-sync worker` from a built checkout)
 * takes from its start to "Worker running": with the workflow bundle `npm run build` wrote, and with that bundle
 * moved aside, so the worker bundles the workflows with webpack at start as it did before. Against a Temporal dev
 * server of its own; the worker does not call the API before it runs. Builds dist/ first when it has no bundle.
 * Run: node bin/run-ts.cjs bench/worker-start.ts [runs]   (or npm run bench -- worker-start)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../worker/config';
import { createLogger } from '../worker/logger';
import { provisionTemporalCli } from '../worker/temporal/cli-binary';
import { startDevServer } from '../worker/temporal/dev-server';

const root = path.join(__dirname, '..');
const bundleDir = path.join(root, 'dist', 'workflow-bundle');
const RUNS = Number(process.argv[2] ?? 3);

/** Milliseconds from spawning the worker to its "Worker running" line; the worker is then stopped by its pid. */
function startOnce(env: NodeJS.ProcessEnv): Promise<{ ms: number; bundled: boolean }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'dist', 'worker', 'main.js')], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    let bundled = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('Bundling the workflows at start')) bundled = true;
      if (output.includes('Worker running')) {
        const ms = performance.now() - started;
        child.once('exit', () => resolve({ ms, bundled }));
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (!output.includes('Worker running'))
        reject(new Error(`worker exited (${code}) before running:\n${output}`));
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  if (!existsSync(path.join(bundleDir, 'manifest.json'))) {
    process.stdout.write('no workflow bundle in dist/: building (npm run build)...\n');
    if (spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0)
      process.exit(1);
  }
  const logger = createLogger({ level: 'warn', destination: 2 });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'worker-start-bench-'));
  const cli = await provisionTemporalCli({ logger, explicitPath: loadConfig().temporalCliPath });
  const server = await startDevServer({ cliPath: cli.path, dataDir, logger, port: 0, uiPort: 0 });
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    TRACE_TASK_QUEUE: `worker-start-bench-${process.pid}`,
    TRACE_DATA_DIR: path.join(dataDir, 'data'),
    TRACEABILITY_BASE_URL: 'http://127.0.0.1:9/api/v2',
    TRACEABILITY_API_KEY: 'bench',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
  };
  const aside = `${bundleDir}.aside-${process.pid}`;
  try {
    process.stdout.write(
      `cores: ${os.cpus().length}, load average (1 min): ${os.loadavg()[0]?.toFixed(2)}\n`,
    );
    for (const mode of ['prebuilt bundle', 'bundled at start'] as const) {
      if (mode === 'bundled at start') renameSync(bundleDir, aside);
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const { ms, bundled } = await startOnce(env);
        if (bundled !== (mode === 'bundled at start'))
          throw new Error(`${mode}: the worker bundled: ${bundled}`);
        runs.push(ms);
      }
      process.stdout.write(
        `${mode.padEnd(17)} start to "Worker running": median ${(median(runs) / 1000).toFixed(2)} s  ` +
          `(${runs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s; load ${os.loadavg()[0]?.toFixed(2)})\n`,
      );
    }
  } finally {
    if (existsSync(aside)) renameSync(aside, bundleDir);
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
