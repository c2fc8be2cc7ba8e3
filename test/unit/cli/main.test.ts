import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS, packageVersion } from '../../../cli/main';
import { cliCommand } from '../../../connectors/cli-command';
import { repoRoot } from '../../../worker/paths';

const bin = path.join(repoRoot(), 'bin', 'trace-sync.cjs');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('a conventional trace-sync', () => {
  it('every listed command loads the command of that name', () => {
    for (const entry of COMMANDS) expect(entry.load().name()).toBe(entry.name);
  });

  it('bare trace-sync prints the help on stdout and exits 0', () => {
    const bare = run();
    expect(bare.status).toBe(0);
    expect(bare.stdout).toContain(`Usage: ${cliCommand('[options] [command]')}`);
    for (const entry of COMMANDS) expect(bare.stdout).toContain(entry.name);
  });

  it('--help of the program and of a command names it as a fresh clone runs it (npx trace-sync), never a bare trace-sync', () => {
    const helps = [
      run('--help'),
      run('erp-orders', '--help'),
      run('cancel', '--help'),
      run('schedules', 'apply', '--help'),
    ];
    for (const help of helps) expect(help.status).toBe(0);
    const [root, erpOrders, cancel, schedulesApply] = helps.map((help) => help.stdout.replace(/\s+/g, ' '));
    expect(root).toContain(`Usage: ${cliCommand('[options] [command]')}`);
    expect(erpOrders).toContain(`Usage: ${cliCommand('erp-orders|push-orders [options] <file>')}`);
    expect(erpOrders).toContain(`then wait for \`${cliCommand('approve|reject <id>')}\` before writing`);
    expect(cancel).toContain(`\`${cliCommand('watch')}\` shows it`);
    expect(schedulesApply).toContain(`Usage: ${cliCommand('schedules apply [options]')}`);
    // "the operating-system user running trace-sync" names the program, not a line to type.
    for (const help of helps)
      expect(help.stdout.replace(/\s+/g, ' ')).not.toMatch(/(?<!npx |running )trace-sync/);
  });

  it('--version prints the package version', () => {
    const version = run('--version');
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(packageVersion());
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('help <command> is <command> --help', () => {
    const help = run('help', 'watch');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain(`Usage: ${cliCommand('watch [options] <workflowId>')}`);
  });

  it("cancel refuses a --reason that reads like a credential (it would stay in the run's history), before it connects, and does not echo it", () => {
    const secret = 's3://AKIAEXAMPLEKEY:wJalrXUtnFEMI@bucket/runs';
    const cli = run('cancel', 'plm-import-x', '--reason', secret);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toBe(
      "trace-sync: --reason looks like a credential, which would stay in the run's history. Nothing was sent.\n",
    );
  });

  it('approve, reject and cancel say in --help whom they record when --by is not given', () => {
    for (const command of ['approve', 'reject', 'cancel'])
      expect(run(command, '--help').stdout.replace(/\s+/g, ' ')).toContain(
        'default: the operating-system user running trace-sync',
      );
  });

  it('retry --help says it re-runs a plm-import or an erp-orders run from its rejects file, fixed in place', () => {
    const help = run('retry', '--help').stdout.replace(/\s+/g, ' ');
    expect(help).toContain('the rejected rows of a finished plm-import or erp-orders run again');
    expect(help).toContain('first fix, in place, the rejects file its result names as rejectsFile');
  });

  it('schedules apply without a schedules file says where to start one, before it connects (exit 2)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'trace-schedules-'));
    try {
      const file = path.join(dir, 'schedules.json');
      const cli = run('schedules', 'apply', '--file', file);
      expect(cli.status).toBe(2);
      expect(cli.stderr).toBe(
        `trace-sync: Cannot read schedules file ${file}: there is no such file. ` +
          'Copy schedules.example.json (the nightly certificate report) to it and edit it, or name another with --file\n',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("each job's command is named for the job, and its former name still runs it", () => {
    const jobs = [
      'plm-import',
      'erp-orders',
      'erp-pull',
      'bom-repair',
      'certificate-report',
      'check-connection',
    ];
    for (const job of jobs) expect(COMMANDS.map((c) => c.name)).toContain(job);
    const former = run('import-plm', '--help');
    expect(former.status).toBe(0);
    expect(former.stdout).toContain(`Usage: ${cliCommand('plm-import|import-plm [options]')}`);
    expect(run('help', 'cert-report').stdout).toContain(
      `Usage: ${cliCommand('certificate-report|cert-report')}`,
    );
  });

  it('a worker whose metrics address is taken exits 1 with one line naming TRACE_METRICS_ADDRESS and the address', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen({ port: 0, host: '127.0.0.1' }, resolve));
    const address = `127.0.0.1:${(taken.address() as net.AddressInfo).port}`;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'trace-metrics-'));
    try {
      const worker = spawn(process.execPath, [bin, 'worker'], {
        env: {
          ...process.env,
          TRACE_DATA_DIR: dataDir,
          TEMPORAL_ADDRESS: '127.0.0.1:1',
          TRACEABILITY_BASE_URL: 'http://127.0.0.1:1',
          TRACEABILITY_API_KEY: 'key-not-for-logs',
          TRACE_METRICS_ADDRESS: address,
        },
      });
      let stderr = '';
      worker.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const status = await new Promise<number | null>((resolve) => worker.once('exit', resolve));
      expect(status).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`trace-sync: TRACE_METRICS_ADDRESS ${address}: `);
      expect(stderr).toMatch(/address already in use/i);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('an unknown command is an error (exit 1) that points at --help', () => {
    const unknown = run('nosuch');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe(
      "trace-sync: unknown command 'nosuch' (run npx trace-sync --help for the commands)\n",
    );
  });

  it('with TEMPORAL_PORT=0 and no TEMPORAL_ADDRESS, a command says port 0 is for npm start and to set TEMPORAL_ADDRESS (exit 2)', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_PORT: '0' };
    delete env.TEMPORAL_ADDRESS;
    delete env.TRACEABILITY_BASE_URL;
    delete env.TRACEABILITY_API_KEY;
    const cli = spawnSync(process.execPath, [bin, 'check-connection', '--wait'], {
      encoding: 'utf8',
      timeout: 60_000,
      env,
    });
    expect(cli.status).toBe(2);
    const lines = cli.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^trace-sync: .*TEMPORAL_PORT=0 means "any free port" for `npm start` only/);
    expect(lines[0]).toContain('set TEMPORAL_ADDRESS to the address the stack printed');
    expect(lines[0]).not.toContain('Cannot reach Temporal');
    expect(cli.stdout).toBe('');
  });

  it('trace-sync worker with TEMPORAL_PORT=0 and no TEMPORAL_ADDRESS stops at once with the same line (exit 2), as the job commands do', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_PORT: '0' };
    delete env.TEMPORAL_ADDRESS;
    delete env.TRACEABILITY_BASE_URL;
    delete env.TRACEABILITY_API_KEY;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'trace-worker-port0-'));
    try {
      const worker = spawnSync(process.execPath, [bin, 'worker'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...env, TRACE_DATA_DIR: dataDir },
      });
      expect(worker.status).toBe(2);
      // Before: two warnings ("using the local dev server" at 127.0.0.1:0) and "Cannot reach Temporal", exit 1.
      const lines = worker.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^trace-sync: .*TEMPORAL_PORT=0 means "any free port" for `npm start` only/);
      expect(lines[0]).toContain('set TEMPORAL_ADDRESS to the address the stack printed');
      expect(worker.stdout).toBe('');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a bad argument or option is one trace-sync: line saying what is wrong and which argument (exit 1)', () => {
    const missing = path.join(os.tmpdir(), 'trace-sync-no-such-sheet.csv');
    const noFile = run('plm-import', missing, '--wait');
    expect(noFile.status).toBe(1);
    expect(noFile.stderr).toBe(`trace-sync: no file at ${missing} (argument file)\n`);
    const badTimeout = run('check-connection', '--timeout', 'soon');
    expect(badTimeout.status).toBe(1);
    expect(badTimeout.stderr).toBe(
      "trace-sync: 'soon': expected a positive whole number (option --timeout)\n",
    );
    const noArgument = run('plm-import');
    expect(noArgument.status).toBe(1);
    expect(noArgument.stderr).toBe(
      "trace-sync: missing required argument 'file' (see npx trace-sync plm-import --help)\n",
    );
  });
});
