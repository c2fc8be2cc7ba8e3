import { NativeConnection, type Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { apiTarget, type ApiTarget } from './api-target';
import { connectableTemporalAddress, loadConfig, type AppConfig } from './config';
import { createWorker } from './create-worker';
import { checkStoreWritable } from './data-folder-check';
import { Lifecycle } from './lifecycle';
import { compactError, createLogger, exitWithError, type AppLogger } from './logger';
import { installTemporalRuntime } from './runtime';
import { checkSearchAttributes } from './search-attributes-check';
import { createApiClient } from './api-client';
import { openStore } from '../connectors/storage';
import { openRuns, startStagingSweeps } from './staging-sweeps';

export { createWorker } from './create-worker';
export type { CreateWorkerOptions } from './create-worker';

export interface StartWorkerOptions {
  config: AppConfig;
  logger: AppLogger;
  /** Temporal frontend `host:port`. */
  address: string;
  api: ApiTarget;
  /** Tests pass a bundle made once; the worker bundles the workflows itself otherwise. */
  workflowBundlePath?: string;
}

export interface RunningWorker {
  worker: Worker;
  taskQueue: string;
  /** Settles when the worker has stopped (rejects if it failed). */
  done: Promise<void>;
  /** Graceful: stops polling, lets running tasks finish, closes the connection. */
  stop(): Promise<void>;
}

/** Connects to Temporal and runs a worker with every workflow and the activities wired to the API. */
export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const { config, logger } = options;
  // Bad or missing store credentials stop the worker here, with one line, rather than fail every job later.
  const store = openStore(config.store ?? {}, config.dataDir);
  await checkStoreWritable(store, config.store?.url !== undefined);
  await store.check();
  installTemporalRuntime(logger, { metricsAddress: config.metricsAddress });
  const { client, rateLimits } = createApiClient(options.api, logger, { timeoutMs: config.apiTimeoutMs });
  const connection = await NativeConnection.connect({ address: options.address }).catch(
    async (error: unknown) => {
      await client.close();
      throw new Error(`Cannot reach Temporal at ${options.address}: ${(error as Error).message}`);
    },
  );
  try {
    await checkSearchAttributes(connection, options.address, config.temporalNamespace).catch(
      (error: unknown) => {
        // A cluster may not let this worker's identity list them (PERMISSION_DENIED, UNIMPLEMENTED): say so, go on.
        const code = (error as { code?: unknown }).code;
        if (code !== 7 && code !== 12) throw error;
        logger.warn(
          { namespace: config.temporalNamespace, err: compactError(error) },
          'Cannot list the search attributes; make sure TraceJob, TraceSource and TraceStatus are registered',
        );
      },
    );
    const worker = await createWorker({
      connection,
      namespace: config.temporalNamespace,
      taskQueue: config.taskQueue,
      activities: createActivities({ client, rateLimits, baseUrl: options.api.baseUrl, config, logger }),
      workflowBundlePath: options.workflowBundlePath,
      logger,
      maxTaskQueueActivitiesPerSecond: config.maxActivitiesPerSecond,
    });
    // Staged data of runs that ended (failed, cancelled, terminated, or kept by a finished run) would stay for ever.
    const sweeps =
      config.stagingRetentionDays === null
        ? undefined
        : startStagingSweeps({
            store,
            openRuns: () => openRuns(connection, config.temporalNamespace),
            logger,
            retentionDays: config.stagingRetentionDays,
          });
    if (!sweeps)
      logger.info(
        { store: store.url, retentionDays: 'off' },
        'Staging sweep off (TRACE_STAGING_RETENTION_DAYS=off): the staged data of ended runs stays until removed by hand',
      );
    const done = worker.run().finally(async () => {
      await sweeps?.stop();
      await client.close();
      await connection.close();
    });
    logger.info(
      {
        address: options.address,
        namespace: config.temporalNamespace,
        taskQueue: config.taskQueue,
        api: options.api.baseUrl,
        store: store.url,
      },
      'Worker running',
    );
    const stop = async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    };
    return { worker, taskQueue: config.taskQueue, done, stop };
  } catch (error) {
    await client.close();
    await connection.close();
    throw error;
  }
}

/**
 * `trace-sync worker` and `node dist/worker/main.js`: a worker only, against TEMPORAL_ADDRESS. The chaos tests give
 * it the workflow bundle they made once, so a restarted worker does not bundle again.
 */
export async function main(options: Pick<StartWorkerOptions, 'workflowBundlePath'> = {}): Promise<void> {
  const config = loadConfig();
  const address = connectableTemporalAddress(config);
  const api = apiTarget(config);
  const logger = createLogger({ level: config.logLevel, secrets: [api.apiKey], destination: 2 });
  if (!config.temporalAddress) {
    logger.warn({ address }, 'TEMPORAL_ADDRESS is not set: using the local dev server');
  }
  if (api.sandbox)
    logger.warn({ baseUrl: api.baseUrl }, 'TRACEABILITY_BASE_URL is not set: using the local sandbox');
  const lifecycle = new Lifecycle(logger).handleSignals();
  const running = await startWorker({
    config,
    logger,
    address,
    api,
    workflowBundlePath: options.workflowBundlePath,
  });
  lifecycle.add('worker', running.stop);
  // A worker that fails on its own (lost server...) also ends the process, with its error.
  await Promise.race([running.done, lifecycle.whenStopped()]);
  await lifecycle.stop();
  await running.done;
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => exitWithError(error),
  );
}
