import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, ENV_VARS, loadConfig } from '../../worker/config';
import { repoRoot } from '../../worker/paths';
import { thrown } from '../harness/errors';

const configError = (env: NodeJS.ProcessEnv): ConfigError => thrown(ConfigError, () => loadConfig(env));

describe('loadConfig', () => {
  it('runs on the embedded defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      temporalAddress: undefined,
      temporalNamespace: 'default',
      taskQueue: 'trace-connectors',
      traceabilityBaseUrl: undefined,
      logLevel: 'info',
      sandboxPort: 4010,
      temporalPort: 7233,
      temporalUiPort: 8233,
    });
    expect(config.dataDir).toBe(path.join(repoRoot(), '.data'));
  });

  it('reads a full remote configuration', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'brand-prod',
      TRACE_TASK_QUEUE: 'q1',
      TRACEABILITY_BASE_URL: 'https://api.example.com/api/v2/',
      TRACEABILITY_API_KEY: 'k-123456',
      TRACE_DATA_DIR: 'relative/data',
      LOG_LEVEL: 'DEBUG',
      TRACE_MAX_ACTIVITIES_PER_SECOND: '2.5',
    });
    expect(config).toMatchObject({
      temporalAddress: 'temporal.internal:7233',
      temporalNamespace: 'brand-prod',
      taskQueue: 'q1',
      traceabilityBaseUrl: 'https://api.example.com/api/v2',
      traceabilityApiKey: 'k-123456',
      dataDir: path.resolve('relative/data'),
      logLevel: 'debug',
      maxActivitiesPerSecond: 2.5,
    });
  });

  it('treats blank variables as unset (docker-compose passes empty strings)', () => {
    expect(loadConfig({ TEMPORAL_ADDRESS: '', TRACE_MAX_ACTIVITIES_PER_SECOND: ' ' })).toMatchObject({
      temporalAddress: undefined,
      maxActivitiesPerSecond: undefined,
    });
  });

  it.each([
    ['TEMPORAL_ADDRESS', 'temporal', 'host:port'],
    ['TEMPORAL_ADDRESS', 'http://temporal:7233', 'host:port'],
    ['TRACEABILITY_BASE_URL', 'api.example.com/api/v2', 'http(s) URL'],
    ['TRACEABILITY_BASE_URL', 'ftp://api.example.com', 'http(s) URL'],
    ['LOG_LEVEL', 'loud', 'one of fatal, error, warn, info, debug, trace, silent'],
    ['TRACE_SANDBOX_PORT', 'abc', 'port number'],
    ['TEMPORAL_PORT', '70000', 'port number'],
    ['TEMPORAL_UI_PORT', '-1', 'port number'],
    ['TRACE_MAX_ACTIVITIES_PER_SECOND', '0', 'positive number'],
    ['TRACE_MAX_ACTIVITIES_PER_SECOND', 'fast', 'positive number'],
  ])('names %s when it is %j, on one line', (variable, value, hint) => {
    const error = configError({ TRACEABILITY_API_KEY: 'k-123456', [variable]: value });
    expect(error.message).toContain(`${variable} must`);
    expect(error.message).toContain(hint);
    expect(error.message).not.toContain('\n');
    expect(error.problems.map((p) => p.variable)).toEqual([variable]);
  });

  it('serves worker metrics only where TRACE_METRICS_ADDRESS says, and names a malformed one', () => {
    expect(loadConfig({}).metricsAddress).toBeUndefined();
    expect(loadConfig({ TRACE_METRICS_ADDRESS: '0.0.0.0:9464' }).metricsAddress).toBe('0.0.0.0:9464');
    expect(configError({ TRACE_METRICS_ADDRESS: '9464' }).message).toBe(
      'Invalid configuration: TRACE_METRICS_ADDRESS must be host:port, for example 0.0.0.0:9464',
    );
  });

  it("keeps an ended run's staging for TRACE_STAGING_RETENTION_DAYS days: 7 unset, off never sweeps", () => {
    expect(loadConfig({}).stagingRetentionDays).toBe(7);
    expect(loadConfig({ TRACE_STAGING_RETENTION_DAYS: ' 30 ' }).stagingRetentionDays).toBe(30);
    expect(loadConfig({ TRACE_STAGING_RETENTION_DAYS: '' }).stagingRetentionDays).toBe(7);
    expect(loadConfig({ TRACE_STAGING_RETENTION_DAYS: 'OFF' }).stagingRetentionDays).toBeNull();
  });

  // 0 could mean "remove at once" as well as "never": it is refused, and off says never.
  it.each(['0', '7d', '-1', '1.5', '3651', 'never'])(
    'TRACE_STAGING_RETENTION_DAYS=%j: one line naming the variable, the value given and what it takes',
    (value) => {
      expect(configError({ TRACE_STAGING_RETENTION_DAYS: value }).message).toBe(
        `Invalid configuration: TRACE_STAGING_RETENTION_DAYS must be a whole number of days from 1 to 3650, or off to keep staged data until removed by hand (got "${value}")`,
      );
    },
  );

  it('requires TRACEABILITY_API_KEY when TRACEABILITY_BASE_URL is set', () => {
    const error = configError({ TRACEABILITY_BASE_URL: 'https://api.example.com/api/v2' });
    expect(error.message).toBe(
      'Invalid configuration: TRACEABILITY_API_KEY is required when TRACEABILITY_BASE_URL is set',
    );
  });

  it('names every bad variable at once and never echoes a value', () => {
    const error = configError({
      LOG_LEVEL: 'secret-looking-value',
      TEMPORAL_PORT: 'x',
      TEMPORAL_ADDRESS: 'nope',
    });
    expect(error.problems.map((p) => p.variable).sort()).toEqual([
      'LOG_LEVEL',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_PORT',
    ]);
    expect(error.message).not.toContain('secret-looking-value');
    expect(error.message).not.toContain('\n');
  });

  it('is documented: the README configuration table lists every variable', () => {
    const readme = readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
    for (const { name } of ENV_VARS) expect(readme).toContain(`| \`${name}\``);
  });
});

describe('trace-sync with a bad configuration', () => {
  it('prints one line naming the variable, no stack trace, and exits 2', () => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TRACEABILITY_BASE_URL: 'https://api.example.com/api/v2',
    };
    const result = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'worker'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'trace-sync: Invalid configuration: TRACEABILITY_API_KEY is required when TRACEABILITY_BASE_URL is set\n',
    );
  }, 60_000);

  // README: "A wrong or missing value stops the process with one line naming the variable, and exit code 2".
  it('LOG_FORMAT=xml: one line naming LOG_FORMAT and its values, exit 2 (was a plain error, exit 1)', () => {
    const result = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'worker'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_FORMAT: 'xml' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('trace-sync: Invalid configuration: LOG_FORMAT must be one of json, pretty\n');
  }, 60_000);

  it('TRACE_STAGING_RETENTION_DAYS=7d: the worker does not start, one line says what was given and what it takes', () => {
    const result = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'trace-sync.cjs'), 'worker'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TRACE_STAGING_RETENTION_DAYS: '7d' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'trace-sync: Invalid configuration: TRACE_STAGING_RETENTION_DAYS must be a whole number of days from 1 to 3650, or off to keep staged data until removed by hand (got "7d")\n',
    });
  }, 60_000);

  it('loadConfig checks LOG_FORMAT with the other variables', () => {
    expect(configError({ LOG_FORMAT: 'xml', LOG_LEVEL: 'loud' }).problems.map((p) => p.variable)).toEqual([
      'LOG_LEVEL',
      'LOG_FORMAT',
    ]);
    expect(ENV_VARS.map((v) => v.name)).toContain('LOG_FORMAT');
  });
});
