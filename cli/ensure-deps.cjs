#!/usr/bin/env node
// Runs before `npm start` and `npm test` (package.json pre-scripts): on a fresh clone node_modules is
// missing, so install the locked dependencies first. Plain Node, no dependencies: nothing is installed yet.
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
  console.error('node_modules is missing: running `npm ci` once (about a minute)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = (...args) =>
    spawnSync(npm, [...args, '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' }).status;
  let status = run('ci');
  if (status !== 0) {
    // npm 11 refuses a lockfile that lacks other platforms' optional packages (npm/cli#8805);
    // `npm install` keeps the locked versions and installs this platform's.
    console.error('`npm ci` refused the lockfile: running `npm install` (same locked versions)...');
    status = run('install');
  }
  process.exit(status ?? 1);
}
