import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { TraceJob, TraceSource, TraceStatus } from '../../worker/search-attributes';
import { checkConnection } from '../../workflows';
import { repoRoot } from '../../worker/paths';
import { findFreePort } from '../../worker/temporal/ports';
import { cliProblems, readHarnessInfo, startTestStack, type TestStack } from '../harness';

describe('checkConnection on a real Temporal dev server', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('reads the style types and rate-limit headers from the sandbox over HTTP', async () => {
    const handle = await stack.client.workflow.start(checkConnection, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('check-connection'),
      typedSearchAttributes: [{ key: TraceJob, value: 'check-connection' }],
    });
    const result = await handle.result();

    const direct = await fetch(`${stack.sandbox.baseUrl}/style-types?limit=100`, {
      headers: { companyapikey: stack.apiKey },
    });
    const body = (await direct.json()) as { metadata: { pagination: { total: number } } };
    expect(result.baseUrl).toBe(stack.sandbox.baseUrl);
    expect(result.styleTypes).toBe(body.metadata.pagination.total);
    expect(result.styleTypes).toBeGreaterThan(0);
    expect(result.rateLimit.limit).toBe(Number(direct.headers.get('x-ratelimit-limit')));
    expect(result.rateLimit.remaining).toBeLessThan(result.rateLimit.limit ?? 0);
    expect(JSON.stringify(result)).not.toContain(stack.apiKey);

    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(TraceJob)).toBe('check-connection');
    expect(description.typedSearchAttributes.get(TraceSource)).toBe('api');
    expect(description.typedSearchAttributes.get(TraceStatus)).toBe('done');
    expect(await handle.query('progress')).toEqual({ phase: 'done' });
  }, 60_000);

  it('fails at once, without the key in the failure, when the API rejects the key', async () => {
    const wrongKey = 'not-a-valid-key-0123456789';
    const rejected = await startTestStack({ apiKey: wrongKey, logName: 'smoke-wrong-key' });
    try {
      const handle = await rejected.client.workflow.start(checkConnection, {
        taskQueue: rejected.taskQueue,
        workflowId: rejected.workflowId('check-connection-wrong-key'),
      });
      const failure = await handle.result().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      // The run's own failure is the API's answer (what the Web UI shows), the activity's failure its cause.
      const cause = (failure as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).message).toMatch(/401 token_or_api_key_invalid/);
      expect((cause as ApplicationFailure).cause).toBeInstanceOf(ActivityFailure);
      expect((cause as ApplicationFailure).nonRetryable).toBe(true);
      expect((cause as ApplicationFailure).type).toMatch(/^TraceabilityApiError:/);
      expect(JSON.stringify(await handle.fetchHistory())).not.toContain(wrongKey);
      expect(readFileSync(rejected.logFile, 'utf8')).not.toContain(wrongKey);

      // The worker's lines for the refused key say what and why, without the SDK's stack frames (a 401 is no bug).
      // (The SDK's lines go to the logger of the first runtime installed in this process: the first stack's.)
      const failedLines = async () => {
        for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 100))) {
          const lines = [stack.logFile, rejected.logFile]
            .map((file) => readFileSync(file, 'utf8'))
            .join('\n')
            .split('\n')
            .filter((line) => line.trim() !== '')
            .map((line) => JSON.parse(line) as { msg: string; workflowId?: string; err?: unknown });
          const own = lines.filter((line) => line.workflowId === handle.workflowId);
          const activity = own.find((line) => line.msg === 'Activity failed');
          const workflow = own.find((line) => line.msg === 'Workflow failed');
          if ((activity && workflow) || Date.now() > deadline) return { activity, workflow };
        }
      };
      const { activity, workflow } = await failedLines();
      const refused = {
        type: expect.stringMatching(/^ApplicationFailure\(TraceabilityApiError:/),
        message: expect.stringMatching(/401 token_or_api_key_invalid/),
      };
      expect(activity?.err).toEqual(refused);
      // The workflow's failure reaches the logger as a structured clone; its type comes back through the log interceptor.
      expect(workflow?.err).toMatchObject(refused);
      expect(JSON.stringify(workflow)).not.toContain('"stack"');
    } finally {
      await rejected.stop();
    }
  }, 60_000);

  it('logs the activity with its workflow id and never the key', () => {
    const log = readFileSync(stack.logFile, 'utf8');
    expect(log).toMatch(/"msg":"API account described"/);
    expect(log).toMatch(/"workflowId":"check-connection-[^"]+".*"msg":"API account described"/);
    // The SDK's own activity lines ("Activity started"...) are there, without the opaque task token.
    expect(log).toMatch(/"msg":"Activity completed"/);
    expect(log).not.toContain('"taskToken"');
    // The API client's own lines, too: they carry the activity's ids (never its task token).
    const clientLines = log
      .split('\n')
      .filter(
        (line) => line.includes('"msg":"traceability api call"') && line.includes('"path":"/style-types"'),
      )
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(clientLines).toContainEqual(
      expect.objectContaining({
        component: 'traceability-client',
        workflowId: expect.stringMatching(/^check-connection-/),
        workflowType: 'checkConnection',
        activityType: 'describeApiAccount',
        activityId: expect.any(String),
        attempt: 1,
      }),
    );
    for (const line of clientLines) expect(Object.keys(line).filter((k) => /token/i.test(k))).toEqual([]);
    expect(log).not.toContain(stack.apiKey);
  });
});

describe('trace-sync start (the embedded stack)', () => {
  it('brings up the Web UI, the sandbox and a worker, and leaves no process behind on Ctrl-C', async () => {
    const harness = readHarnessInfo();
    const dataDir = path.join(harness.tempDir, 'start-data');
    const log = createWriteStream(path.join(harness.logDir, 'trace-sync-start.log'));
    const metricsPort = await findFreePort('127.0.0.1');
    const env = {
      ...process.env,
      TRACE_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
      TRACE_DATA_DIR: dataDir,
      TEMPORAL_PORT: '0',
      TEMPORAL_UI_PORT: '0',
      TRACE_SANDBOX_PORT: '0',
      TEMPORAL_ADDRESS: '',
      TRACEABILITY_BASE_URL: '',
      LOG_LEVEL: 'info',
      LOG_FORMAT: '',
    };
    const child = spawn(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'start'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.pipe(log);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Even if jest gives up on this test, the stack must not outlive the run (its server dies with it).
    const killChild = () => child.kill('SIGKILL');
    process.once('exit', killChild);
    try {
      let banner = '';
      child.stdout.on('data', (chunk: Buffer) => (banner += chunk.toString()));
      const deadline = Date.now() + 90_000;
      while (!banner.includes('Press Ctrl-C') && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(banner).toContain('Press Ctrl-C');

      const uiUrl = /Temporal Web UI\s+(\S+)/.exec(banner)?.[1];
      const apiUrl = /Traceability API\s+(\S+)/.exec(banner)?.[1];
      const key = /Sandbox API key\s+(\S+)/.exec(banner)?.[1];
      expect((await fetch(uiUrl ?? 'http://invalid')).status).toBe(200);
      const styleTypes = await fetch(`${apiUrl}/style-types`, { headers: { companyapikey: key ?? '' } });
      expect(styleTypes.status).toBe(200);

      // The printed hint works as printed, in another terminal with the same environment (ports 0 included):
      // it runs the workflow on this stack's worker.
      const hint = /Start a job:\s+(.+?)\s+\(in another terminal\)/.exec(banner)?.[1] ?? '';
      expect(hint).toContain('trace-sync check-connection --wait');
      const check = spawnSync('sh', ['-c', hint], {
        cwd: repoRoot(),
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(cliProblems(check.stderr)).toEqual([]);
      expect(check.status).toBe(0);
      expect(check.stderr).toMatch(/Started workflow check-connection-/);
      expect(check.stdout).toContain(`"baseUrl": "${apiUrl}"`);

      // The worker serves the SDK's Prometheus metrics, which now count the check's workflow.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/^temporal_workflow_completed\{.*workflow_type="checkConnection".*\} [1-9]/m);

      const serverPid = Number(readFileSync(path.join(dataDir, 'temporal', 'server.pid'), 'utf8'));
      expect(isAlive(serverPid)).toBe(true);

      // A second `npm start` on the same data folder names the running stack and how to stop it, not its
      // dev server alone (killing that would pull Temporal from under the running worker).
      const second = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'start'], {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(second.status).not.toBe(0);
      expect(second.stderr).toContain(`already running on ${dataDir}`);
      expect(second.stderr).toContain(`pid ${child.pid ?? ''}`);
      expect(second.stderr).toContain('Ctrl-C');
      expect(second.stderr).toContain('TRACE_DATA_DIR');
      expect(second.stderr).not.toContain(`kill ${serverPid}`);
      expect(isAlive(serverPid)).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(isAlive(serverPid)).toBe(false);
      expect((await fetch(uiUrl ?? '').catch(() => undefined))?.status).toBeUndefined();

      // stderr is a pipe here (as under Docker, systemd or CI): JSON lines, without LOG_FORMAT. At info, the
      // operator's lines only: the SDK's start-up and shut-down chatter is at debug.
      const lines = stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string });
      expect(lines.map((line) => line.msg)).toEqual(
        expect.arrayContaining(['Worker running', 'Shutting down']),
      );
      expect(stderr).not.toContain('No Nexus services registered');
      expect(stderr).not.toContain('Worker state changed');
    } finally {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      process.removeListener('exit', killChild);
      log.end();
    }
  }, 150_000);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
