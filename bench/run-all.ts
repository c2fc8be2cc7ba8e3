/**
 * Runs every benchmark one after the other, each in its own process so figures are not skewed by the one
 * before, and prints their output. Run: npm run bench   (or a subset: npm run bench -- sandbox certificate-report)
 * client-rate runs its quick matrix here (6 cells of 150 s side by side, about 3-4 min); its full matrix
 * (28 cells of 240 s, about 25-28 min) is `npm run bench:rate` (`node bin/run-ts.cjs bench/client-rate.ts --full`).
 * Exits 1 when any benchmark does (client-rate does when a cell misses its goal).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const BENCHMARKS = [
  'cli-start',
  'worker-start',
  'sandbox',
  'client-rate',
  'plm-parse',
  'plm-import',
  'plm-import-remote',
  'bom-repair-remote',
  'erp-orders',
  'certificate-report',
  'storage-s3',
  'bad-input',
  'busy-worker',
  'large-input',
] as const;

function run(name: string): Promise<number> {
  return new Promise((resolve) => {
    process.stdout.write(`\n=== bench/${name}.ts\n`);
    const child = spawn(
      process.execPath,
      [path.join(__dirname, '..', 'bin', 'run-ts.cjs'), path.join(__dirname, `${name}.ts`)],
      {
        stdio: 'inherit',
      },
    );
    child.once('close', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${BENCHMARKS.join(', ')}`);
    process.exit(2);
  }
  let failed = 0;
  for (const name of asked.length > 0 ? asked : BENCHMARKS) {
    if ((await run(name)) !== 0) failed += 1;
  }
  process.exit(failed === 0 ? 0 : 1);
}

void main();
