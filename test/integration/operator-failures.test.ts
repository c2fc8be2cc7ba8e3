import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoRoot } from '../../worker/paths';
import { TraceStatus } from '../../worker/search-attributes';
import { cliEnv, cliProblems, startTestStack, traceSync, type TestStack } from '../harness';

/**
 * What the operator sees when a job cannot work at all: the worker's API key is wrong. Every job, started from the
 * CLI with `--wait`, fails at once (a 401 is not retried), and says so in one line that names the cause and what
 * to change, never the key; the run's TraceStatus says `failed` and its details in the Web UI say why.
 */
const WRONG_KEY = 'operator-wrong-key-5e1f0c9a';

describe('a job whose worker has a wrong API key', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    stack = await startTestStack({ apiKey: WRONG_KEY });
    dir = mkdtempSync(path.join(tmpdir(), 'operator-failures-'));
    writeFileSync(
      path.join(dir, 'sheet.csv'),
      'externalId,name,styleType,size\nOPS-1,Operator tee,T-shirt,M\n',
    );
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it.each([
    ['check-connection', ['check-connection']],
    ['erp-pull', ['erp-pull']],
    ['bom-repair', ['bom-repair', '--all', '--dry-run']],
    ['certificate-report', ['certificate-report']],
    ['plm-import', ['plm-import', 'SHEET']],
  ])(
    '%s fails at once, saying the API refused the key and which variable to fix',
    async (_job, args) => {
      const cli = await traceSync(
        [...args.map((arg) => (arg === 'SHEET' ? path.join(dir, 'sheet.csv') : arg)), '--wait'],
        cliEnv(stack),
        90_000,
      );
      expect(cli.status).toBe(1);
      expect(cli.ms).toBeLessThan(30_000);
      const lines = cliProblems(cli.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/401/);
      expect(lines[0]).toContain('TRACEABILITY_API_KEY');
      expect(lines[0]).not.toContain('Activity task failed');
      expect(cli.stderr + cli.stdout).not.toContain(WRONG_KEY);

      const workflowId = /Started workflow (\S+)/.exec(cli.stderr)?.[1];
      expect(workflowId).toBeDefined();
      const handle = stack.client.workflow.getHandle(workflowId ?? '');
      expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('failed');
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      expect(metadata.currentDetails).toMatch(/^Failed: .*401.*TRACEABILITY_API_KEY/);
    },
    120_000,
  );
});

describe("the worker's 'Workflow failed' line", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ apiKey: WRONG_KEY, logName: 'operator-failures-workflow-failed' });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("names the job's own failure type, not only ApplicationFailure", async () => {
    const cli = await traceSync(['check-connection', '--wait'], cliEnv(stack), 90_000);
    expect(cli.status).toBe(1);
    const workflowId = /Started workflow (\S+)/.exec(cli.stderr)?.[1] ?? '';
    expect(workflowId).not.toBe('');
    // The worker writes the workflow's log lines once its task is done, which may be after the CLI saw the failure.
    const failedLines = () =>
      readFileSync(stack.logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"workflowId":"${workflowId}"`) && line.includes('"Workflow failed"'))
        .map((line) => JSON.parse(line) as { err: { type: string; message: string } });
    for (let waited = 0; failedLines().length === 0 && waited < 5_000; waited += 100) await sleep(100);
    const failed = failedLines();
    expect(failed).toHaveLength(1);
    expect(failed[0]?.err.type).toMatch(/^ApplicationFailure\(TraceabilityApiError:\w+\)$/);
    expect(failed[0]?.err.message).toMatch(/401/);
  }, 120_000);
});

describe('a job whose API answers 500 to everything', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ logName: 'operator-failures-api-down' });
    await fetch(`${stack.sandbox.url}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serverErrorRate: 1 }),
    });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('--wait says, while the run retries, which call fails and which attempt it is on', async () => {
    const cli = await traceSync(['check-connection', '--wait'], cliEnv(stack), 110_000);
    const retrying = cli.stderr
      .split('\n')
      .filter((line) => line.startsWith('{"retrying"'))
      .map((line) => JSON.parse(line) as { retrying: Record<string, unknown> });
    expect(retrying.length).toBeGreaterThan(0);
    expect(retrying[0]?.retrying).toMatchObject({
      activity: 'describeApiAccount',
      attempt: expect.any(Number),
      maximumAttempts: 5,
      lastFailure: expect.stringMatching(/GET \/style-types .*500/),
    });
    expect(retrying[0]?.retrying['attempt']).toBeGreaterThanOrEqual(2);
    expect(cli.stdout + cli.stderr).not.toContain(stack.apiKey);
    expect(cli.status).toBe(1);
  }, 120_000);

  it('--wait says at the first retry how long the retries can go on, from the policy the run uses, and that Ctrl-C stops only the waiting', async () => {
    const cli = await traceSync(['check-connection', '--wait'], cliEnv(stack), 110_000);
    const retrying = cli.stderr
      .split('\n')
      .filter((line) => line.startsWith('{"retrying"'))
      .map((line) => JSON.parse(line) as { retrying: { limit?: Record<string, unknown> } });
    expect(retrying.length).toBeGreaterThan(1);
    // checkConnection: 5 attempts, 1 s doubling; after attempt 1 fails, at most 1 + 2 + 4 + 8 s of waits are left.
    const limit = retrying[0]?.retrying.limit;
    expect(limit).toMatchObject({ lastAttempt: 5, attemptTimeoutSeconds: 60 });
    expect(limit?.['backoffSeconds']).toBeGreaterThan(0);
    expect(limit?.['backoffSeconds']).toBeLessThanOrEqual(15);
    expect(limit?.['text']).toMatch(
      /^It retries up to attempt 5: about \d+s more of waits between attempts, plus each attempt's own time \(at most 1m each\), then it gives up\. Ctrl-C stops only this waiting; the run goes on\.$/,
    );
    // Said once: the later attempts' lines carry no limit.
    expect(retrying.slice(1).every((line) => line.retrying.limit === undefined)).toBe(true);
    expect(cli.status).toBe(1);
  }, 120_000);

  it("the worker's log says each failed attempt in a few lines, without stack frames", async () => {
    const cli = await traceSync(['check-connection', '--wait'], cliEnv(stack), 110_000);
    expect(cli.status).toBe(1);
    const workflowId = /Started workflow (\S+)/.exec(cli.stderr)?.[1] ?? '';
    expect(workflowId).not.toBe('');
    // The worker's log is written asynchronously: the CLI can see the run fail before its last lines are in the file.
    let lines: string[] = [];
    for (let i = 0; i < 50; i++) {
      lines = readFileSync(stack.logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"workflowId":"${workflowId}"`));
      if (lines.some((line) => line.includes('"msg":"Workflow failed"'))) break;
      await sleep(100);
    }
    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    const warnings = records.filter((record) => record.level >= 40);
    const attempts = warnings.filter((record) => record.msg === 'Activity failed').length;
    // checkConnection's activity: 5 attempts, each a GET retried inside by the client, all answered 500.
    expect(attempts).toBe(5);
    expect(lines.join('\n')).not.toMatch(/\bat \S+ \(|"stack"/);
    // Per attempt: the client's first retry, its call failing, the activity failing; then the workflow failing.
    expect(warnings.length).toBeLessThanOrEqual(3 * attempts + 1);
  }, 120_000);

  it('Ctrl-C during --wait says the run goes on, and how to follow it or stop it', async () => {
    const child = spawn(
      process.execPath,
      [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'check-connection', '--wait'],
      { env: cliEnv(stack), cwd: repoRoot() },
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // 'close', not 'exit': a process's last stderr chunk may come after its exit event.
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    try {
      while (!/Started workflow \S+/.test(stderr) && child.exitCode === null) await sleep(100);
      const workflowId = /Started workflow (\S+)/.exec(stderr)?.[1] ?? '';
      expect(workflowId).not.toBe('');
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain(`the run ${workflowId} goes on`);
      expect(stderr).toContain(`npx trace-sync watch ${workflowId}`);
      expect(stderr).toContain(`npx trace-sync cancel ${workflowId}`);
      const handle = stack.client.workflow.getHandle(workflowId);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test done');
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);
});

describe('a job whose API cannot be reached', () => {
  let stack: TestStack;
  let host: string;

  beforeAll(async () => {
    stack = await startTestStack({ logName: 'operator-failures-api-unreachable' });
    host = `127.0.0.1:${stack.sandbox.port}`;
    // Nothing listens on the API's port any more: every call is refused.
    await stack.sandbox.close();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('fails after its retries, naming the API host and what to check, never the key', async () => {
    const cli = await traceSync(['check-connection', '--wait'], cliEnv(stack), 110_000);
    expect(cli.status).toBe(1);
    const lines = cliProblems(cli.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ECONNREFUSED');
    expect(lines[0]).toContain(`the API at ${host} could not be reached`);
    expect(lines[0]).toContain('check TRACEABILITY_BASE_URL');
    expect(cli.stderr + cli.stdout).not.toContain(stack.apiKey);

    const workflowId = /Started workflow (\S+)/.exec(cli.stderr)?.[1];
    const handle = stack.client.workflow.getHandle(workflowId ?? '');
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('failed');
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toMatch(/^Failed: .*could not be reached: check TRACEABILITY_BASE_URL/);
  }, 120_000);
});

describe('a job given a mapping file with a typo', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    stack = await startTestStack({ logName: 'operator-failures-mapping-typo' });
    dir = mkdtempSync(path.join(tmpdir(), 'operator-mapping-'));
    writeFileSync(path.join(dir, 'sheet.csv'), 'externalId,name\nOPS-1,Operator tee\n');
    writeFileSync(
      path.join(dir, 'plm-map.json'),
      JSON.stringify({ name: 'typo', layout: 'flatt', mapping: { externalId: 'externalId' } }),
    );
    writeFileSync(path.join(dir, 'orders.csv'), 'order_number,quantity,unit,product\nPO-1,1,PIECES,OPS-1\n');
    writeFileSync(
      path.join(dir, 'erp-map.json'),
      JSON.stringify({
        name: 'typo',
        columns: {
          ordreNumber: 'order_number',
          quantity: 'quantity',
          unit: 'unit',
          productExternalId: 'product',
        },
        unitAliases: { stuks: 'PIECE' },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /** The CLI's one problem line for `job` run on `input` with the mapping file `mapping` (it fails, exit 1). */
  async function mappingProblem(job: string, input: string, mapping: string): Promise<string> {
    const file = path.join(dir, mapping);
    const cli = await traceSync(
      [job, path.join(dir, input), '--mapping', file, '--wait'],
      cliEnv(stack),
      90_000,
    );
    expect(cli.status).toBe(1);
    const lines = cliProblems(cli.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    return lines[0]!;
  }

  it('plm-import says, in one line, the file and the values `layout` takes', async () => {
    const line = await mappingProblem('plm-import', 'sheet.csv', 'plm-map.json');
    expect(line).toContain('layout: "flatt" is not one of native, flat');
    expect(line).not.toMatch(/discriminator/i);
  }, 120_000);

  it('erp-orders says, in one line, the file, the misspelt key with its likely fix, and a bounded list of units', async () => {
    const line = await mappingProblem('erp-orders', 'orders.csv', 'erp-map.json');
    expect(line).toContain('columns: unknown key "ordreNumber" (did you mean "orderNumber"?)');
    expect(line).toMatch(/unitAliases\.stuks: "PIECE" is not one of [A-Z_, ]+ and \d+ more/);
    expect(line.length).toBeLessThan(900);
  }, 120_000);
});
