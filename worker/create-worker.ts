import path from 'node:path';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { AppLogger } from './logger';
import { temporalLoggerFor } from './runtime';
import { checkWorkflowBundle, defaultWorkflowBundleDir, workflowInterceptorModules } from './workflow-bundle';

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** From `createActivities(deps)`. */
  activities: object;
  /**
   * A bundle made once by `bundleWorkflowCode` (tests), used as it is. Otherwise the build's bundle when it is
   * current (`workflowBundleFor`), else the workflows are bundled at start.
   */
  workflowBundlePath?: string;
  /** Task-queue-wide limit enforced by the server (TRACE_MAX_ACTIVITIES_PER_SECOND). */
  maxTaskQueueActivitiesPerSecond?: number;
  /** Bundler messages at warn and above go here (its info line is webpack's whole report). */
  logger?: AppLogger;
  /** Anything else a caller needs to tune (tests shorten shutdown, for example). */
  overrides?: Partial<WorkerOptions>;
}

/** Path of the workflow entry point: workflows/index.ts from the sources, dist/workflows/index.js from the build. */
export function workflowsPath(): string {
  return require.resolve(path.join(__dirname, '..', 'workflows'));
}

/**
 * The bundle `npm run build` wrote (dist/workflow-bundle) while everything that went into it is unchanged; else, with
 * one line saying why, the workflows bundled now (seconds of webpack, tens of them on a loaded host).
 */
export async function workflowBundleFor(
  options: { workflowsPath?: string; dir?: string; logger?: AppLogger } = {},
): Promise<{ codePath: string } | { code: string }> {
  const entry = options.workflowsPath ?? workflowsPath();
  const prebuilt = await checkWorkflowBundle(options.dir ?? defaultWorkflowBundleDir(), entry);
  if (prebuilt.current) {
    options.logger?.debug({ bundle: prebuilt.codePath }, 'Using the prebuilt workflow bundle');
    return { codePath: prebuilt.codePath };
  }
  options.logger?.info(
    { reason: prebuilt.reason },
    'Bundling the workflows at start: the prebuilt bundle is not current',
  );
  const { code } = await bundleWorkflowCode({
    workflowsPath: entry,
    workflowInterceptorModules: workflowInterceptorModules(),
    ...(options.logger ? { logger: temporalLoggerFor(options.logger.child({}, { level: 'warn' })) } : {}),
  });
  return { code };
}

export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const workflowBundle = options.workflowBundlePath
    ? { codePath: options.workflowBundlePath }
    : await workflowBundleFor(options.logger ? { logger: options.logger } : {});
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    workflowBundle,
    // A cancel reaches an activity only in the answer to a heartbeat, and the SDK sends heartbeats at most every 80%
    // of the heartbeat timeout (16 s for a batch): at most every 2 s, a cancelled batch stops within seconds.
    maxHeartbeatThrottleInterval: '2 seconds',
    ...(options.maxTaskQueueActivitiesPerSecond !== undefined
      ? { maxTaskQueueActivitiesPerSecond: options.maxTaskQueueActivitiesPerSecond }
      : {}),
    ...options.overrides,
  });
}
