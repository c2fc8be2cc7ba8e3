import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityAwareLogger, createApiClient } from '../../worker/api-client';
import { createLogger } from '../../worker/logger';
import { page, rateHeaders, sendJson, startStub } from './client/stub-server';

const KEY = 'unit-live-key-4b8e2d9f1a';

const ACTIVITY = {
  workflowExecution: { workflowId: 'check-connection-2026-01-01T00-00-00-000Z', runId: 'run-1' },
  workflowType: 'checkConnection',
  activityId: 'act-7',
  activityType: 'describeApiAccount',
  attempt: 3,
  taskToken: Buffer.from('secret-task-token'),
  base64TaskToken: Buffer.from('secret-task-token').toString('base64'),
};

const IDS = {
  workflowId: ACTIVITY.workflowExecution.workflowId,
  workflowType: 'checkConnection',
  activityId: 'act-7',
  activityType: 'describeApiAccount',
  attempt: 3,
};

/** A logger as the worker builds it; `secrets: []` shows what the lines hold before any scrubbing. */
function capture(secrets: readonly string[] = [KEY]) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    secrets,
    destination: { write: (line: string) => lines.push(line) },
  });
  return {
    logger,
    output: () => lines.join(''),
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const mockEnvironment = () => new MockActivityEnvironment(ACTIVITY, { logger: new DefaultLogger('WARN') });

describe("the API client's log lines", () => {
  let stub: Awaited<ReturnType<typeof startStub>>;

  beforeAll(async () => {
    stub = await startStub((req, res) => sendJson(res, 200, page([]), rateHeaders(599)));
  });

  afterAll(async () => {
    await stub.close();
  });

  it.each([
    ['as the worker configures it', [KEY]],
    ['even with no secret scrubbing', []],
  ])(
    'carry the activity ids inside an activity, none outside, and never the key or task token (%s)',
    async (_label, secrets) => {
      const { logger, output, records } = capture(secrets);
      const { client } = createApiClient({ baseUrl: stub.baseUrl, apiKey: KEY, sandbox: false }, logger, {
        timeoutMs: 5_000,
      });
      try {
        await mockEnvironment().run(() => client.styleTypes.list({ page: 1, limit: 100 }));
        await client.styleTypes.list({ page: 1, limit: 100 });
      } finally {
        await client.close();
      }

      const calls = records().filter((r) => r.msg === 'traceability api call');
      expect(calls).toHaveLength(2);
      const [inside, outside] = calls as [Record<string, unknown>, Record<string, unknown>];
      expect(inside).toMatchObject({
        component: 'traceability-client',
        path: '/style-types',
        status: 200,
        ...IDS,
        requestAttempt: 1,
      });
      expect(outside).toMatchObject({ component: 'traceability-client', path: '/style-types', status: 200 });
      for (const field of ['workflowId', 'workflowType', 'activityId', 'activityType', 'attempt'])
        expect(outside).not.toHaveProperty(field);

      expect(stub.seen.every((req) => req.headers.companyapikey === KEY)).toBe(true);
      expect(output()).not.toContain(KEY);
      expect(output()).not.toMatch(/taskToken/i);
      expect(output()).not.toContain('secret-task-token');
      expect(output()).not.toContain(ACTIVITY.base64TaskToken);
    },
  );

  it("keeps the client's own request attempt apart from the activity attempt", async () => {
    const { logger, records } = capture();
    const wrapped = activityAwareLogger(logger);
    await mockEnvironment().run(async () => wrapped.warn({ path: '/styles', attempt: 2 }, 'retried'));
    wrapped.warn({ path: '/styles', attempt: 2 }, 'retried');
    expect(records()).toEqual([
      expect.objectContaining({ msg: 'retried', ...IDS, requestAttempt: 2 }),
      expect.objectContaining({ msg: 'retried', requestAttempt: 2 }),
    ]);
    expect(records()[1]).not.toHaveProperty('attempt');
  });

  it("respects the logger's level and passes every level through", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => lines.push(line) },
    });
    const wrapped = activityAwareLogger(logger);
    await mockEnvironment().run(async () => {
      wrapped.debug({ n: 1 }, 'debug');
      wrapped.info({ n: 2 }, 'info');
      wrapped.warn({ n: 3 }, 'warn');
      wrapped.error({ n: 4 }, 'error');
    });
    expect(lines.map((line) => (JSON.parse(line) as { msg: string; activityId: string }).msg)).toEqual([
      'warn',
      'error',
    ]);
    expect(lines.every((line) => line.includes('"activityId":"act-7"'))).toBe(true);
  });
});
