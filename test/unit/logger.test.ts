import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import {
  compactError,
  createLogger,
  logFormatFromEnv,
  REDACTED,
  withInnermostCause,
} from '../../worker/logger';
import { toActivityFailure } from '../../activities/batch-kit';
import { TraceabilityApiError } from '../../connectors/traceability';
import { temporalLoggerFor } from '../../worker/runtime';

const KEY = 'live-key-7f3a9c1e5b';

function capture(secrets: readonly (string | undefined)[] = [KEY]) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'trace',
    secrets,
    destination: { write: (line: string) => lines.push(line) },
  });
  return { logger, output: () => lines.join('') };
}

describe('logger', () => {
  it('writes JSON lines with the message and fields', () => {
    const { logger, output } = capture();
    logger.info({ rows: 3 }, 'imported');
    expect(JSON.parse(output())).toMatchObject({ level: 30, rows: 3, msg: 'imported' });
  });

  it('hides the key inside a message', () => {
    const { logger, output } = capture();
    logger.warn(`calling the API with key ${KEY} failed`);
    expect(output()).not.toContain(KEY);
    expect(output()).toContain(`calling the API with key ${REDACTED} failed`);
  });

  it('hides the key inside an error message and its stack', () => {
    const { logger, output } = capture();
    logger.error({ err: new Error(`401 for companyapikey=${KEY}`) }, 'request failed');
    const line = JSON.parse(output()) as { err: { message: string; stack: string } };
    expect(output()).not.toContain(KEY);
    expect(line.err.message).toBe(`401 for companyapikey=${REDACTED}`);
    expect(line.err.stack).toContain('Error: 401 for companyapikey=');
  });

  it('redacts the companyapikey header whatever its value, at any depth it is logged', () => {
    const { logger, output } = capture([]);
    logger.info({ headers: { companyapikey: 'other-key-123456', accept: 'application/json' } }, 'request');
    logger.info({ request: { headers: { companyapikey: 'other-key-123456' } } }, 'request');
    logger.info({ companyapikey: 'other-key-123456' }, 'bare');
    expect(output()).not.toContain('other-key-123456');
    expect(output()).toContain('application/json');
    expect(output().match(/\[REDACTED\]/g)).toHaveLength(3);
  });

  it('hides the key in fields it was not expected in, including nested and JSON-escaped', () => {
    const quoted = 'key-with-"quote"-and-\\';
    const { logger, output } = capture([KEY, quoted]);
    logger.info({ config: { nested: [{ note: `x${KEY}y` }] }, token: quoted }, 'odd places');
    expect(output()).not.toContain(KEY);
    expect(output()).not.toContain(JSON.stringify(quoted).slice(1, -1));
    expect(JSON.parse(output())).toMatchObject({
      config: { nested: [{ note: `x${REDACTED}y` }] },
      token: REDACTED,
    });
  });

  it('routes Temporal SDK logs through pino with their ids, and hides the key there too', () => {
    const { logger, output } = capture();
    const sdk = temporalLoggerFor(logger);
    sdk.error(`activity failed with ${KEY}`, {
      workflowId: 'plm-import-42',
      activityId: '7',
      error: new Error(`boom ${KEY}`),
    });
    const line = JSON.parse(output()) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 50,
      workflowId: 'plm-import-42',
      activityId: '7',
      msg: `activity failed with ${REDACTED}`,
    });
    expect((line.err as { message: string }).message).toBe(`boom ${REDACTED}`);
    expect(output()).not.toContain(KEY);
  });

  it("the SDK's start-up and shut-down chatter is debug, not info; a failed worker still says so", () => {
    const { logger, output } = capture();
    const sdk = temporalLoggerFor(logger);
    sdk.info('No Nexus services registered, not polling for Nexus tasks', { sdkComponent: 'worker' });
    for (const state of ['RUNNING', 'STOPPING', 'DRAINING', 'DRAINED', 'STOPPED'])
      sdk.info('Worker state changed', { sdkComponent: 'worker', state });
    sdk.info('Worker state changed', { sdkComponent: 'worker', state: 'FAILED' });
    sdk.info('Activity completed', { sdkComponent: 'activity' });
    const lines = output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string; state?: string });
    expect(lines.map((line) => [line.msg, line.state, line.level])).toEqual([
      ['No Nexus services registered, not polling for Nexus tasks', undefined, 20],
      ['Worker state changed', 'RUNNING', 20],
      ['Worker state changed', 'STOPPING', 20],
      ['Worker state changed', 'DRAINING', 20],
      ['Worker state changed', 'DRAINED', 20],
      ['Worker state changed', 'STOPPED', 20],
      ['Worker state changed', 'FAILED', 30],
      ['Activity completed', undefined, 30],
    ]);
  });

  it('writes to a file, creating its folder, without the key', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'logger-test-'));
    try {
      const file = path.join(dir, 'nested', 'run.log');
      const logger = createLogger({ level: 'info', secrets: [KEY], destination: file });
      logger.info({ apiKey: 'x', url: `https://api.example.com/?k=${encodeURIComponent(KEY)}` }, KEY);
      logger.flush();
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('https://api.example.com/?k=[REDACTED]');
      expect(text).not.toContain(KEY);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('quiet, readable logs (issue 21)', () => {
  it('"a failed workflow\'s log line holds the message and a short stack, not 4 KB"', () => {
    const { logger, output } = capture();
    const apiError = new Error('POST /styles answered 400 validation_error: name is required');
    const activityFailure = Object.assign(new Error('Activity task failed'), {
      cause: apiError,
      failure: { encoded: 'x'.repeat(3000) },
    });
    const workflowFailure = Object.assign(new Error('PLM import failed'), { cause: activityFailure });
    workflowFailure.stack = [
      'Error: PLM import failed',
      ...Array.from(
        { length: 40 },
        (_, i) => `    at frame${i} (/app/node_modules/@temporalio/worker/lib/x.js:${i}:1)`,
      ),
    ].join('\n');
    temporalLoggerFor(logger).warn('Workflow failed', { error: workflowFailure, workflowId: 'plm-import-x' });
    const line = output();
    expect(line.length).toBeLessThan(1500);
    const parsed = JSON.parse(line) as {
      msg: string;
      workflowId: string;
      err: { message: string; stack: string; cause: { message: string; cause: { message: string } } };
    };
    expect(parsed).toMatchObject({ msg: 'Workflow failed', workflowId: 'plm-import-x' });
    expect(parsed.err.message).toBe('PLM import failed');
    expect(parsed.err.stack.split('\n')).toHaveLength(4);
    expect(parsed.err.cause.cause.message).toContain('validation_error: name is required');
    expect(line).not.toContain('xxxxxxxx');
  });

  it('a failure the job raised on purpose (non-retryable) is logged as its type and message, no SDK stack', () => {
    const refused = ApplicationFailure.nonRetryable(
      'GET /style-types answered 401 token_or_api_key_invalid',
      'TraceabilityApiError:401',
    );
    expect(compactError(refused)).toEqual({
      type: 'ApplicationFailure(TraceabilityApiError:401)',
      message: 'GET /style-types answered 401 token_or_api_key_invalid',
    });

    // The workflow's own failure wraps the activity's: no frame anywhere in the chain, the causes' messages kept.
    const activity = new ActivityFailure(
      'Activity task failed',
      'describeApiAccount',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      undefined,
      refused,
    );
    const workflow = ApplicationFailure.create({
      message: refused.message,
      type: 'TraceabilityApiError:401',
      nonRetryable: true,
      cause: activity,
    });
    const compact = compactError(workflow);
    expect(JSON.stringify(compact)).not.toContain('"stack"');
    expect(compact).toMatchObject({
      type: 'ApplicationFailure(TraceabilityApiError:401)',
      cause: { type: 'ActivityFailure', cause: { message: refused.message } },
    });
  });

  it('an API failure, retryable or not, is logged as its type and message: the client said what happened, no frames', () => {
    const { logger, output } = capture();
    const apiError = new TraceabilityApiError({
      statusCode: 500,
      code: 'internal_error',
      message: 'GET /style-types answered 500 internal_error',
      method: 'GET',
      path: '/style-types',
      retryable: true,
      attempts: 5,
    });
    // What an activity throws for it (a retryable failure: Temporal tries again), as the worker's "Activity failed" line.
    temporalLoggerFor(logger).warn('Activity failed', {
      error: toActivityFailure(apiError),
      activityType: 'describeApiAccount',
      attempt: 3,
    });
    const line = JSON.parse(output()) as Record<string, unknown>;
    expect(line).toMatchObject({ msg: 'Activity failed', attempt: 3 });
    expect(line.err).toEqual({
      type: 'ApplicationFailure(TraceabilityApiError:internal_error)',
      message: 'GET /style-types answered 500 internal_error',
    });
    // The client's error itself, thrown as it is, and one refused for good: no frames either.
    expect(compactError(apiError)).toEqual({ type: 'TraceabilityApiError', message: apiError.message });
    expect(
      compactError(toActivityFailure(apiError.with({ statusCode: 400, retryable: false }))),
    ).not.toHaveProperty('stack');
  });

  it('an unexpected error (a bug) keeps its first stack frames, also once the SDK wrapped it', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'column')");
    expect(compactError(bug).stack?.split('\n')).toHaveLength(4);
    expect(compactError(bug).stack).toContain(__filename);
    // What the SDK makes of an Error an activity threw: retryable, typed with the error's class name.
    const converted = ApplicationFailure.create({ message: bug.message, type: 'TypeError', cause: bug });
    expect(compactError(converted).stack?.split('\n')).toHaveLength(4);
    expect(compactError(converted).cause?.stack).toContain(__filename);
  });

  it('"Workflow failed" carries the failure\'s type and message, from the workflow sandbox\'s realm', () => {
    const { logger, output } = capture();
    const fromWorkflowSandbox = vm.runInNewContext(`
      class ApplicationFailure extends Error {}
      ApplicationFailure.prototype.name = 'ApplicationFailure';
      Object.assign(new ApplicationFailure('Invalid plmImport input: file is required'), {
        type: 'InvalidInput',
        nonRetryable: true,
      });
    `) as unknown;
    temporalLoggerFor(logger).warn('Workflow failed', {
      error: fromWorkflowSandbox,
      workflowId: 'plm-import-x',
    });
    const line = JSON.parse(output()) as Record<string, unknown>;
    expect(line.err).toEqual({
      type: 'ApplicationFailure(InvalidInput)',
      message: 'Invalid plmImport input: file is required',
    });
    expect(line.error).toBeUndefined();
  });

  it('"Workflow failed" names the type the workflow gave its failure, sent beside the clone that lost it', () => {
    const { logger, output } = capture();
    const failure = ApplicationFailure.nonRetryable(
      'Invalid plmImport input: file is required',
      'InvalidInput',
    );
    const sdk = temporalLoggerFor(logger);
    sdk.warn('Workflow failed', { error: structuredClone(failure), failureType: 'InvalidInput' });
    // An error that kept its own type is not given it twice.
    sdk.warn('Workflow failed', { error: failure, failureType: 'InvalidInput' });
    const lines = output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => (line.err as { type: string }).type)).toEqual([
      'ApplicationFailure(InvalidInput)',
      'ApplicationFailure(InvalidInput)',
    ]);
    expect(lines.every((line) => line.failureType === undefined)).toBe(true);
  });

  it('"Workflow failed" from the workflow thread (a structured clone, own fields lost) has no stack either', () => {
    const { logger, output } = capture();
    const refused = ApplicationFailure.nonRetryable(
      'GET /style-types answered 401',
      'TraceabilityApiError:401',
    );
    const activity = new ActivityFailure(
      'Activity task failed',
      'a',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      undefined,
      refused,
    );
    const failure = ApplicationFailure.create({
      message: refused.message,
      nonRetryable: true,
      cause: activity,
    });
    temporalLoggerFor(logger).warn('Workflow failed', { error: structuredClone(failure) });
    const line = output();
    expect(JSON.parse(line)).toMatchObject({
      err: {
        type: 'ApplicationFailure',
        message: refused.message,
        cause: { type: 'ActivityFailure', cause: { type: 'ApplicationFailure', message: refused.message } },
      },
    });
    expect(line).not.toContain('"stack"');

    // A bug the SDK wrapped keeps its frames through the clone.
    const bug = new TypeError("Cannot read properties of undefined (reading 'column')");
    const converted = ApplicationFailure.create({ message: bug.message, type: 'TypeError' });
    converted.stack = bug.stack;
    expect(compactError(structuredClone(converted))).toMatchObject({
      type: 'TypeError',
      stack: expect.any(String),
    });
  });

  it('LOG_FORMAT=pretty writes one readable line per entry (pino-pretty), still without the key', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: [KEY],
      format: 'pretty',
      destination: { write: (line: string) => lines.push(line) },
    });
    logger.warn({ rows: 3 }, `imported with key ${KEY}`);
    const text = lines.join('');
    expect(text).toMatch(/WARN.*imported with key \[REDACTED\]/);
    expect(text).toContain('rows');
    expect(() => JSON.parse(text)).toThrow();
    expect(text).not.toContain(KEY);
  });

  it('LOG_FORMAT unset follows where the log goes: pretty on a terminal, JSON anywhere else', () => {
    expect(logFormatFromEnv({}, { terminal: true })).toBe('pretty');
    expect(logFormatFromEnv({ LOG_FORMAT: '  ' }, { terminal: true })).toBe('pretty');
    expect(logFormatFromEnv({}, { terminal: false })).toBe('json');
    expect(logFormatFromEnv({})).toBe('json');
  });

  it('LOG_FORMAT when set wins over the terminal, and refuses anything but json or pretty', () => {
    expect(logFormatFromEnv({ LOG_FORMAT: 'json' }, { terminal: true })).toBe('json');
    expect(logFormatFromEnv({ LOG_FORMAT: ' Pretty ' }, { terminal: false })).toBe('pretty');
    expect(() => logFormatFromEnv({ LOG_FORMAT: 'yaml' }, { terminal: true })).toThrow(
      'LOG_FORMAT must be one of json, pretty',
    );
  });

  it('a log to a file descriptor that is not a terminal, or to a file, stays JSON without LOG_FORMAT', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'logger-test-'));
    const saved = process.env.LOG_FORMAT;
    delete process.env.LOG_FORMAT;
    try {
      const file = path.join(dir, 'fd.log');
      const fd = openSync(file, 'a');
      createLogger({ level: 'info', destination: fd }).info({ rows: 3 }, 'to a descriptor');
      closeSync(fd);
      const named = path.join(dir, 'named.log');
      createLogger({ level: 'info', destination: named }).info('to a path');
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ rows: 3, msg: 'to a descriptor' });
      expect(JSON.parse(readFileSync(named, 'utf8'))).toMatchObject({ msg: 'to a path' });
    } finally {
      if (saved === undefined) delete process.env.LOG_FORMAT;
      else process.env.LOG_FORMAT = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a CLI error line carries the innermost cause\'s message (the SDK\'s own says only "Failed to start Workflow")', () => {
    const grpc = new Error(
      '3 INVALID_ARGUMENT: Namespace default has no mapping defined for search attribute TraceJob',
    );
    const error = new Error('Failed to start Workflow', { cause: new Error('wrapped', { cause: grpc }) });
    expect(withInnermostCause(error)).toBe(`Failed to start Workflow: ${grpc.message}`);
    expect(withInnermostCause(new Error('plain'))).toBe('plain');
    const long = new Error('outer', { cause: new Error(`line one\n${'x'.repeat(2000)}`) });
    expect(withInnermostCause(long)).toMatch(/^outer: line one x+$/);
    expect(withInnermostCause(long).length).toBeLessThan(520);
  });
});
