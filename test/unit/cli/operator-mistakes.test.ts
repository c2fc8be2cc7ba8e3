import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../../worker/paths';

const bin = path.join(repoRoot(), 'bin', 'trace-sync.cjs');
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000, env });

describe('an operator’s slip at the command line', () => {
  it('a mistyped command is one line that suggests the right one and points at --help', () => {
    const typo = run(['plm-imprt', 'x.csv']);
    expect(typo.status).toBe(1);
    // Before: commander's "(Did you mean plm-import?)" on a second line of its own.
    expect(typo.stderr).toBe(
      "trace-sync: unknown command 'plm-imprt', did you mean plm-import? (run npx trace-sync --help for the commands)\n",
    );
  });

  it('a mistyped option is one line that suggests the right one and points at the command’s --help', () => {
    const typo = run(['plm-import', '--wiat', 'x.csv']);
    expect(typo.status).toBe(1);
    expect(typo.stderr).toBe(
      "trace-sync: unknown option '--wiat', did you mean --wait? (see npx trace-sync plm-import --help)\n",
    );
  });

  it('a folder given as the input file is named a folder, not "no file"', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'trace-input-folder-'));
    try {
      const given = run(['plm-import', folder, '--wait']);
      expect(given.status).toBe(1);
      expect(given.stderr).toBe(
        `trace-sync: ${folder} is a folder, not a file: give the path of a file in it (argument file)\n`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/**
 * Runs `trace-sync <command>` with TRACE_DATA_DIR below a file (mkdir fails with ENOTDIR even for root, as a
 * read-only folder or a full disk fails a write) and expects its last stderr line to name the folder (exit 2).
 */
function expectDataFolderRefused(command: string, env: NodeJS.ProcessEnv): string {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'trace-data-not-dir-'));
  const file = path.join(scratch, 'a-file');
  writeFileSync(file, 'not a folder');
  const dataDir = path.join(file, 'data');
  try {
    const cli = run([command], { ...env, TRACE_DATA_DIR: dataDir });
    expect(cli.status).toBe(2);
    expect(cli.stderr.trim().split('\n').pop()).toBe(
      `trace-sync: the data folder ${dataDir} (TRACE_DATA_DIR) cannot be written (ENOTDIR: not a directory): ` +
        'make it a writable folder, or set TRACE_DATA_DIR to one',
    );
    expect(cli.stderr).not.toMatch(/\n\s+at /);
    return cli.stdout;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe('a data folder that cannot be written', () => {
  it('trace-sync worker stops at start with one line naming TRACE_DATA_DIR and what to do (exit 2), before it connects', () => {
    // Nothing listens here: the data folder must be said first, not "Cannot reach Temporal".
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    delete env.TRACE_STORE_URL;
    expectDataFolderRefused('worker', env);
  });

  // Node 20's recursive mkdir spins for ever where a parent answers ENOENT for any child (/proc): the worker hung.
  (process.platform === 'linux' ? it : it.skip)(
    'a data folder under /proc stops the worker at once with the same line, not a spinning start',
    () => {
      const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' };
      delete env.TRACE_STORE_URL;
      const dataDir = `/proc/trace-data-${process.pid}/data`;
      const cli = spawnSync(process.execPath, [bin, 'worker'], {
        encoding: 'utf8',
        // A spinning worker ignores SIGTERM.
        timeout: 20_000,
        killSignal: 'SIGKILL',
        env: { ...env, TRACE_DATA_DIR: dataDir },
      });
      expect(cli.signal).toBeNull();
      expect(cli.status).toBe(2);
      expect(cli.stderr.trim().split('\n').pop()).toBe(
        `trace-sync: the data folder ${dataDir} (TRACE_DATA_DIR) cannot be written (ENOENT: no such file or directory): ` +
          'make it a writable folder, or set TRACE_DATA_DIR to one',
      );
    },
  );

  it('npm start stops with the same line (exit 2), before it starts a dev server or the sandbox', () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_PORT: '0',
      TEMPORAL_UI_PORT: '0',
      TRACE_SANDBOX_PORT: '0',
    };
    for (const name of [
      'TEMPORAL_ADDRESS',
      'TRACEABILITY_BASE_URL',
      'TRACEABILITY_API_KEY',
      'TRACE_STORE_URL',
    ])
      delete env[name];
    // Before: `trace-sync: ENOTDIR: not a directory, mkdir '<dir>/temporal'`, exit 1.
    expect(expectDataFolderRefused('start', env)).toBe('');
  });
});
