import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { repoRoot } from '../../../worker/paths';

// `trace-sync temporal-provision` logs one info line ("Temporal CLI: using env") on stderr, as `npm start` does
// with the same logger set-up; a stand-in CLI answers its `--version`.
const bin = path.join(repoRoot(), 'bin', 'trace-sync.cjs');
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

describe('where the log goes decides its format when LOG_FORMAT is unset', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'log-format-'));
    const fakeCli = path.join(dir, 'temporal');
    writeFileSync(fakeCli, '#!/bin/sh\necho "temporal version 9.9.9 (stand-in)"\n');
    chmodSync(fakeCli, 0o755);
    env = { PATH: process.env.PATH, HOME: process.env.HOME, TEMPORAL_CLI_PATH: fakeCli, TRACE_DATA_DIR: dir };
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stderr piped (Docker, systemd, a file, CI): one JSON object per line', () => {
    const result = spawnSync(process.execPath, [bin, 'temporal-provision'], { env, encoding: 'utf8' });
    expect(result.status).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: expect.any(Number) });
    expect(result.stderr).toContain('"msg":"Temporal CLI: using env"');
  });

  (hasScript ? it : it.skip)(
    'stderr on a terminal: readable lines, not JSON; LOG_FORMAT=json keeps JSON',
    () => {
      const onTerminal = (extra: NodeJS.ProcessEnv) =>
        spawnSync('script', ['-qec', `"${process.execPath}" "${bin}" temporal-provision`, '/dev/null'], {
          env: { ...env, ...extra },
          encoding: 'utf8',
          timeout: 60_000,
        });
      const pretty = onTerminal({});
      expect(pretty.status).toBe(0);
      const text = stripVTControlCharacters(pretty.stdout);
      expect(text).toMatch(/INFO.*Temporal CLI: using env/);
      expect(text).not.toContain('"level":30');

      const json = onTerminal({ LOG_FORMAT: 'json' });
      expect(json.status).toBe(0);
      expect(json.stdout).toContain('"level":30');
      expect(json.stdout).toContain('"msg":"Temporal CLI: using env"');
    },
  );
});
