import { Command, InvalidArgumentError } from 'commander';
import {
  Client,
  Connection,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { connectableTemporalAddress, loadConfig, type AppConfig } from '../worker/config';
import { TraceJob, TraceSource } from '../worker/search-attributes';
import { runAction } from './run-action';
import { planNotApplied, requireWorker, waitAndPrint, watchHandle } from './run-waiter';
import { bucketStore, printStoreLinks, storeLinksIn, uploadLocalInput } from './store-files';

/** commander parser for `--timeout <seconds>`. */
export function positiveSeconds(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) === 0)
    throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

/** An id that says what a run is and when it was asked for: `<prefix>-2025-01-31T08-15-00-123Z`. */
export function timestampedId(prefix: string, now = new Date()): string {
  return `${prefix}-${now.toISOString().replace(/[:.]/g, '-')}`;
}

/** Connects to Temporal with the process's config; a clear message when nothing answers. */
export async function withTemporalClient<T>(
  body: (client: Client, config: AppConfig) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const address = connectableTemporalAddress(config);
  const connection = await Connection.connect({ address, connectTimeout: 5000 }).catch((error: unknown) => {
    throw new Error(
      `Cannot reach Temporal at ${address} (${(error as Error).message}): run \`npm start\`, or set TEMPORAL_ADDRESS`,
    );
  });
  try {
    return await body(new Client({ connection, namespace: config.temporalNamespace }), config);
  } finally {
    await connection.close();
  }
}

/**
 * The handle of a run a command acts on (cancel, approve, reject) and its description, once it is known to be
 * running; otherwise one line naming the run and, after its state, `nothingToDo` (`there is nothing to cancel`).
 */
export async function runningHandle(
  client: Client,
  workflowId: string,
  nothingToDo: string,
): Promise<{ handle: WorkflowHandle; described: WorkflowExecutionDescription }> {
  const handle = client.workflow.getHandle(workflowId);
  const described = await handle.describe().catch((error: unknown) => {
    throw new Error(`No workflow ${workflowId} (${(error as Error).message})`);
  });
  if (described.status.name !== 'RUNNING')
    throw new Error(`Workflow ${workflowId} is ${described.status.name.toLowerCase()}: ${nothingToDo}`);
  return { handle, described };
}

export interface JobRun<W extends Workflow> {
  workflow: W | string;
  args: Parameters<W>;
  workflowId: string;
  /** TraceJob search attribute (which job). */
  job: string;
  /** TraceSource search attribute (a file name, `api`...). */
  source: string;
  summary: string;
  wait: boolean;
  timeoutSeconds: number;
}

/**
 * Starts a job's workflow on the configured task queue. stdout holds only what a script reads: the run's id, or with
 * `wait` its result as one JSON document; everything else (started on which queue, uploads, progress, links) is on
 * stderr. A failed workflow becomes one line on stderr naming the workflow and the cause.
 */
export async function startJob<W extends Workflow>(run: JobRun<W>): Promise<void> {
  await withTemporalClient((client, config) => startJobOn(client, config, run));
}

/** startJob on a connection the command already holds (it read a schedule or a run first): one connect, not two. */
export async function startJobOn<W extends Workflow>(
  client: Client,
  config: AppConfig,
  run: JobRun<W>,
): Promise<void> {
  const note = (line: string): void => void process.stderr.write(`${line}\n`);
  // With TRACE_STORE_URL=s3://…, a local input goes to the bucket first: the worker may be on another machine.
  await requireWorker(client, config.temporalNamespace, config.taskQueue, run.wait);
  const store = bucketStore(config);
  const args = await uploadLocalInput(store, run.workflowId, run.args, note);
  const options = {
    taskQueue: config.taskQueue,
    workflowId: run.workflowId,
    args,
    typedSearchAttributes: [
      { key: TraceJob, value: run.job },
      { key: TraceSource, value: run.source },
    ],
    staticSummary: run.summary,
    // WorkflowStartOptions spells `args` as a conditional type that a generic W cannot satisfy directly.
  } as unknown as WorkflowStartOptions<W>;
  const handle = await client.workflow.start(run.workflow as W, options);
  note(`Started workflow ${handle.workflowId} on task queue ${config.taskQueue}`);
  if (!run.wait) {
    process.stdout.write(`${handle.workflowId}\n`);
    return;
  }
  const result = await waitAndPrint(handle, {
    timeoutSeconds: run.timeoutSeconds,
    taskQueue: config.taskQueue,
    ...(store ? { links: (details: string) => storeLinksIn(store, details) } : {}),
  });
  await printStoreLinks(store, result, note);
  const notApplied = planNotApplied(handle.workflowId, result);
  if (notApplied) throw notApplied;
}

/**
 * `trace-sync watch <workflowId>`: follows a run started anywhere until it ends and prints its result (stdout, the
 * progress on stderr); with an S3 store, where its run files are, as `--wait` does.
 */
export async function watchRun(workflowId: string): Promise<void> {
  await withTemporalClient(async (client, config) => {
    const store = bucketStore(config);
    const result = await watchHandle(
      client,
      config.temporalNamespace,
      client.workflow.getHandle(workflowId),
      process.stderr,
      store ? (details: string) => storeLinksIn(store, details) : undefined,
    );
    await printStoreLinks(store, result, (line) => void process.stderr.write(`${line}\n`));
    const notApplied = planNotApplied(workflowId, result);
    if (notApplied) throw notApplied;
  });
}

export function watchCommand(): Command {
  return new Command('watch')
    .description(
      "Follow a run's progress until it ends (on stderr: a bar on a terminal, JSON lines otherwise), then print its result JSON on stdout; works for runs started anywhere (CLI, Web UI, schedules, inbox)",
    )
    .argument('<workflowId>', 'the run to follow')
    .action((workflowId: string) => runAction(() => watchRun(workflowId)));
}
