import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import type { TraceabilityClient } from '../../connectors/traceability';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import type { SandboxOptions } from '../../sandbox/options';
import { createApiClient } from '../../worker/api-client';
import { SANDBOX_API_KEY } from '../../worker/api-target';
import { apiTimeoutMsFromEnv, loadConfig, type AppConfig } from '../../worker/config';
import { createWorker, type CreateWorkerOptions } from '../../worker/create-worker';
import { createLogger, type AppLogger } from '../../worker/logger';
import { installTemporalRuntime } from '../../worker/runtime';
import { readHarnessInfo } from './harness-info';

export interface TestStackOptions {
  /** Merged over `{ port: 0, childLinkDelayMs: 0 }`. */
  sandbox?: SandboxOptions;
  /** Overrides of the config the activities see (dataDir defaults to the run's temp folder). */
  config?: Partial<AppConfig>;
  /** Activities to register; `createActivities(deps)` by default. */
  activities?: (deps: ActivityDeps) => object;
  /** Extra worker options (tuning, interceptors). */
  worker?: Partial<WorkerOptions>;
  /** The key the API client sends; the sandbox's demo key by default (a wrong one tests rejection). */
  apiKey?: string;
  /** Name of this file's log (`<name>.log` in the run's log folder); the test file's name by default. */
  logName?: string;
}

export interface TestStack {
  /** A Temporal client on the run's dev server. */
  client: Client;
  /** Unique to this stack, so test files never steal each other's tasks. */
  taskQueue: string;
  namespace: string;
  sandbox: RunningSandbox;
  /** The API client the activities use (pointed at this stack's sandbox). */
  apiClient: TraceabilityClient;
  apiKey: string;
  config: AppConfig;
  logger: AppLogger;
  logFile: string;
  /** The running worker (another one after `restartWorker`). */
  readonly worker: Worker;
  /**
   * Stops the worker and starts another on the same task queue with activities made afresh, as a deploy or restart
   * does: nothing the old one kept in memory survives; the data folder (or bucket) and the sandbox stay.
   */
  restartWorker(): Promise<void>;
  /** A workflow id that names the test and cannot collide. */
  workflowId(prefix: string): string;
  /** Stops the worker, closes connections and the sandbox. */
  stop(): Promise<void>;
}

function defaultLogName(): string {
  const testPath = expect.getState().testPath;
  return testPath ? path.basename(testPath).replace(/\.test\.ts$/, '') : 'integration';
}

/**
 * A sandbox on a free port, a worker on a unique task queue of the run's dev server (with the bundle
 * made once by global-setup) and a client. Call in beforeAll, and `stop()` in afterAll.
 */
/**
 * A worker on the harness's Temporal server, running until `stops` run (its connection, its run, then a client on
 * the same namespace, each registered there to stop in reverse).
 */
export async function runWorker(
  address: string,
  stops: (() => Promise<unknown>)[],
  options: Omit<CreateWorkerOptions, 'connection'>,
): Promise<{ worker: Worker; client: Client; stop: () => Promise<void> }> {
  const native = await NativeConnection.connect({ address });
  stops.push(() => native.close());
  const worker = await createWorker({ connection: native, ...options });
  const running = worker.run();
  const stop = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  };
  stops.push(stop);
  const connection = await Connection.connect({ address });
  stops.push(() => connection.close());
  return { worker, client: new Client({ connection, namespace: options.namespace }), stop };
}

export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const harness = readHarnessInfo();
  const logFile = path.join(harness.logDir, `${options.logName ?? defaultLogName()}.log`);
  // Configured as in production: the API key in use is scrubbed by value; any other key would show.
  const apiKey = options.apiKey ?? SANDBOX_API_KEY;
  const logger = createLogger({ level: 'debug', secrets: [apiKey], destination: logFile });
  installTemporalRuntime(logger);

  const sandbox = await startSandbox({ port: 0, childLinkDelayMs: 0, ...options.sandbox });
  const stops: (() => Promise<unknown>)[] = [() => sandbox.close()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    const config: AppConfig = {
      ...loadConfig({ TRACE_DATA_DIR: path.join(harness.tempDir, 'data') }),
      temporalAddress: harness.address,
      temporalNamespace: harness.namespace,
      taskQueue: `test-${randomUUID()}`,
      traceabilityBaseUrl: sandbox.baseUrl,
      traceabilityApiKey: apiKey,
      logLevel: 'debug',
      // As the worker reads it; loadConfig above is given TRACE_DATA_DIR only.
      apiTimeoutMs: apiTimeoutMsFromEnv(),
      ...options.config,
    };
    const { client: apiClient, rateLimits } = createApiClient(
      { baseUrl: sandbox.baseUrl, apiKey, sandbox: true },
      logger,
      { timeoutMs: config.apiTimeoutMs },
    );
    stops.push(() => apiClient.close());
    const deps: ActivityDeps = { client: apiClient, rateLimits, baseUrl: sandbox.baseUrl, config, logger };

    const startWorker = () =>
      runWorker(harness.address, stops, {
        namespace: config.temporalNamespace,
        taskQueue: config.taskQueue,
        activities: (options.activities ?? createActivities)(deps),
        workflowBundlePath: harness.workflowBundlePath,
        maxTaskQueueActivitiesPerSecond: config.maxActivitiesPerSecond,
        overrides: { shutdownGraceTime: '2s', ...options.worker },
      });
    let running = await startWorker();
    const { client } = running;

    let stopped: Promise<void> | undefined;
    return {
      client,
      taskQueue: config.taskQueue,
      namespace: config.temporalNamespace,
      sandbox,
      apiClient,
      apiKey,
      config,
      logger,
      logFile,
      get worker() {
        return running.worker;
      },
      restartWorker: async () => {
        await running.stop();
        running = await startWorker();
      },
      workflowId: (prefix) => `${prefix}-${randomUUID()}`,
      stop: () => (stopped ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
