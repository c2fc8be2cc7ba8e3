#!/usr/bin/env node
// Runs before `npm start` and `npm test` (package.json pre-scripts): on a fresh clone node_modules is
// missing, so install the locked dependencies first, and build the compiled CLI that bin/trace-sync.cjs runs.
// Plain Node, no dependencies: nothing is installed yet.
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (...args) => spawnSync(npm, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
  console.error('node_modules is missing: running `npm ci` once (about a minute)...');
  // The lockfile records every platform's native packages, so `npm ci` needs no fallback.
  const status = run('ci', '--no-audit', '--no-fund');
  if (status !== 0) process.exit(status);
}
if (!existsSync(path.join(root, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: running `npm run build` once...');
  process.exit(run('run', '--silent', 'build'));
}
