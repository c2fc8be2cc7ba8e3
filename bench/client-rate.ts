// Benchmark: 2,000 requests through the client from two processes sharing one key, against the
// sandbox with an allowance of 1,200 calls per rolling minute. Run: node bin/run-ts.cjs bench/client-rate.ts
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ClientMetricsSnapshot } from '../connectors/traceability';
import { startSandbox } from '../sandbox/server';

const ALLOWANCE = 1_200;
const TOTAL_REQUESTS = 2_000;
const PROCESSES = 2;

interface Done {
  type: 'done';
  firstStart: number;
  lastEnd: number;
  stats: ClientMetricsSnapshot;
}

function spawnWorker(): ChildProcess {
  const root = path.resolve(__dirname, '..');
  return fork(path.join(root, 'bin/run-ts.cjs'), [path.join(root, 'bench/client-rate-worker.ts')], { cwd: root, stdio: 'inherit' });
}

function once<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    child.on('message', (message: { type: string; error?: string }) => {
      if (message.type === type) resolve(message as T);
      else if (message.type === 'error') reject(new Error(message.error));
    });
    child.on('exit', (code) => reject(new Error(`worker exited with ${String(code)} before '${type}'`)));
  });
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: ALLOWANCE });
  const workers = Array.from({ length: PROCESSES }, spawnWorker);
  try {
    await Promise.all(workers.map((w) => once(w, 'ready')));
    const results = workers.map((w) => once<Done>(w, 'done'));
    const requests = TOTAL_REQUESTS / PROCESSES;
    for (const w of workers) w.send({ type: 'go', baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand', requests });
    const done = await Promise.all(results);
    const start = Math.min(...done.map((d) => d.firstStart));
    const end = Math.max(...done.map((d) => d.lastEnd));
    const wallMs = end - start;
    const calls = done.reduce((sum, d) => sum + d.stats.calls, 0);
    const rateLimited = done.reduce((sum, d) => sum + d.stats.rateLimited, 0);
    const succeeded = calls - rateLimited;
    const perMinute = succeeded / (wallMs / 60_000);
    console.log(`client-rate: ${TOTAL_REQUESTS} requests, ${PROCESSES} processes, one key, allowance ${ALLOWANCE}/min (rolling)`);
    console.log(`  per process (calls): ${done.map((d) => d.stats.calls).join(' / ')}`);
    console.log(`  wall time:          ${(wallMs / 1000).toFixed(1)} s`);
    console.log(`  achieved:           ${perMinute.toFixed(0)} calls/min = ${((perMinute / ALLOWANCE) * 100).toFixed(1)}% of the allowance (aim >= 90%)`);
    console.log(`  429s received:      ${rateLimited} of ${calls} calls = ${((rateLimited / calls) * 100).toFixed(2)}% (aim < 1%)`);
    console.log(`  retries:            ${done.reduce((sum, d) => sum + d.stats.retries, 0)}`);
  } finally {
    for (const w of workers) if (w.exitCode === null) w.kill();
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
