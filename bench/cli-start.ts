/**
 * How long a trace-sync command takes to start, as an operator types it: `time npx trace-sync --help` (bash's
 * `time`, so npx's own start counts), then the bare node entry and a job command's help. Builds dist/ first when
 * it is missing or older than the sources (the CLI runs the compiled JavaScript).
 * Run: node bin/run-ts.cjs bench/cli-start.ts   (or npm run bench -- cli-start)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..');
const RUNS = 5;

function ensureBuilt(): void {
  if (
    existsSync(path.join(root, 'dist', '.build-stamp')) &&
    statSync(path.join(root, 'dist', '.build-stamp')).mtimeMs > newestSource()
  )
    return;
  process.stdout.write('building dist/ (npm run build)...\n');
  const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
}

function newestSource(): number {
  let newest = 0;
  const pending = ['cli', 'worker', 'workflows', 'activities', 'connectors', 'sandbox'].map((dir) =>
    path.join(root, dir),
  );
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  }
  return newest;
}

/** Wall seconds of `command` as bash's `time` reports them (real). */
function timed(command: string): number {
  const out = spawnSync('bash', ['-c', `TIMEFORMAT=%R; time (${command} >/dev/null 2>&1)`], {
    cwd: root,
    encoding: 'utf8',
  });
  const seconds = Number(out.stderr.trim().split('\n').pop());
  if (!Number.isFinite(seconds)) throw new Error(`could not time ${command}: ${out.stderr}`);
  return seconds;
}

function report(command: string): void {
  const times = Array.from({ length: RUNS }, () => timed(command)).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  process.stdout.write(
    `time ${command.padEnd(42)} median ${median.toFixed(2)} s  min ${(times[0] as number).toFixed(2)} s  max ${(times[times.length - 1] as number).toFixed(2)} s  (${RUNS} runs)\n`,
  );
}

ensureBuilt();
process.stdout.write(
  `cores: ${os.cpus().length}, load average (1 min): ${(os.loadavg()[0] ?? 0).toFixed(2)}\n`,
);
report('npx trace-sync --help');
report('node bin/trace-sync.cjs --help');
report('node bin/trace-sync.cjs --version');
report('node bin/trace-sync.cjs plm-import --help');
