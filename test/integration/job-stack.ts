/**
 * The stack the ERP and PLM job test files start in beforeAll: a temp folder of their own (the runs' data under
 * `data/`) and a test stack whose allowance is out of the way; a file that needs other demo data passes its seed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { SandboxOptions } from '../../sandbox/options';
import type { AppConfig } from '../../worker/config';
import { TraceJob, TraceStatus } from '../../worker/search-attributes';
import { erpOrders, plmImport } from '../../workflows';
import type { PushErpOrdersInput, PushErpOrdersResult } from '../../workflows/erp-orders';
import { S3Store, s3ClientFor, type ObjectStore } from '../../connectors/storage';
import { cliEnv, cliProblems, readHarnessInfo, startTestStack, traceSync, type TestStack } from '../harness';
import { startS3, type RunningS3 } from '../harness/versitygw';

export async function startJobStack(
  dirPrefix: string,
  options: { sandbox?: SandboxOptions; seed?: unknown; config?: Partial<AppConfig> } = {},
): Promise<{ dir: string; stack: TestStack }> {
  const dir = await mkdtemp(path.join(tmpdir(), dirPrefix));
  let seedFile: string | undefined;
  if (options.seed !== undefined) {
    seedFile = path.join(dir, 'seed.json');
    await writeFile(seedFile, JSON.stringify(options.seed));
  }
  const stack = await startTestStack({
    config: { dataDir: path.join(dir, 'data'), ...options.config },
    sandbox: { rateLimitPerMinute: 100_000, ...(seedFile ? { seedFile } : {}), ...options.sandbox },
  });
  return { dir, stack };
}

/** Runs the erpOrders workflow on the stack's task queue to its result, its id starting with `prefix`. */
export const erpOrdersRunner =
  (stack: () => TestStack, defaultPrefix: string) =>
  (input: PushErpOrdersInput, prefix = defaultPrefix): Promise<PushErpOrdersResult> =>
    stack().client.workflow.execute(erpOrders, {
      args: [input],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId(prefix),
      typedSearchAttributes: [{ key: TraceJob, value: 'erp-orders' }],
    });

/**
 * Starts the erpOrders and plmImport (native profile) workflows on the stack's task queue, ids
 * `erp-orders-<name>-…` and `plm-import-<name>-…`; the test awaits the handle's result or failure.
 */
export const jobStarters = (stack: () => TestStack, name: string) => ({
  push: (file: string) =>
    stack().client.workflow.start(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId(`erp-orders-${name}`),
      args: [{ file }],
    }),
  importSheet: (file: string) =>
    stack().client.workflow.start(plmImport, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId(`plm-import-${name}`),
      args: [{ file, profile: 'native' }],
    }),
});

/** Waits until the run's progress phase is `awaiting approval` (its plan written, a decision awaited). */
export async function awaitingApproval<H extends WorkflowHandle>(handle: H): Promise<H> {
  for (let i = 0; i < 240; i++) {
    const progress = (await handle.query('progress').catch(() => undefined)) as
      { phase?: string } | undefined;
    if (progress?.phase === 'awaiting approval') return handle;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${handle.workflowId} never awaited approval`);
}

/** The activities a run's history has scheduled so far, by type name, in order. */
export async function scheduledActivities(handle: WorkflowHandle): Promise<string[]> {
  return ((await handle.fetchHistory()).events ?? []).flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });
}

/**
 * Waits until the run's history shows `activity` scheduled (read from the history, not the progress query, which may
 * answer only once the run has moved past it); throws after a minute.
 */
export async function scheduled<H extends WorkflowHandle>(handle: H, activity: string): Promise<H> {
  for (let i = 0; i < 240; i++) {
    if ((await scheduledActivities(handle)).includes(activity)) return handle;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${handle.workflowId} never scheduled ${activity}`);
}

/**
 * The plan-then-approve test files' shared setup (plan-approve.test.ts, plan-approve-erp.test.ts): per file, a job
 * stack started in beforeAll, `trace-sync` against it, and the waits for a run's decision point and its details.
 */
export function planApproveStack(dirPrefix: string, options: { config?: Partial<AppConfig> } = {}) {
  let stack: TestStack | undefined;
  let dir = '';
  let env: NodeJS.ProcessEnv = {};
  const started = (): TestStack => {
    if (!stack) throw new Error('the test stack starts in beforeAll: use it inside a test or hook');
    return stack;
  };
  beforeAll(async () => {
    ({ dir, stack } = await startJobStack(dirPrefix, options));
    env = cliEnv(stack);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => traceSync(args, env, 90_000);

  /** Starts `trace-sync plm-import FILE --approve` (or another job command) and waits until the run awaits a decision. */
  const startAwaiting = async (file: string, ...extra: string[]): Promise<WorkflowHandle> => {
    const command = extra[0] === 'erp-orders' ? (extra.shift() as string) : 'plm-import';
    const run = await cli(command, file, '--approve', ...extra);
    expect({ status: run.status, problems: cliProblems(run.stderr) }).toEqual({ status: 0, problems: [] });
    return awaitingApproval(
      started().client.workflow.getHandle(/Started workflow (\S+)/.exec(run.stderr)?.[1] as string),
    );
  };

  /** The run's current details (what the Web UI shows on its page), once `until` holds for them. */
  const currentDetails = async (handle: WorkflowHandle, until: (details: string) => boolean) => {
    let details = '';
    for (let i = 0; i < 120; i++) {
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      details = metadata.currentDetails ?? '';
      if (until(details)) return details;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return details;
  };

  /**
   * Cancels the run once `activity` of its plan is scheduled, and expects what `watch` then prints: cancelled while it
   * made its plan, nothing written, and TraceStatus `cancelled`.
   */
  const cancelWhilePlanning = async (handle: WorkflowHandle, activity: string): Promise<void> => {
    await scheduled(handle, activity);
    await handle.cancel();
    const out = await cli('watch', handle.workflowId);
    expect({ status: out.status, stdout: out.stdout, problems: cliProblems(out.stderr) }).toEqual({
      status: 3,
      stdout: '',
      problems: [
        `trace-sync: Workflow ${handle.workflowId} was cancelled by ${started().client.options.identity} while it made its plan: nothing was written, as the plan was never approved; run the same input again to make a new plan.`,
      ],
    });
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('cancelled');
  };

  return { stack: started, dir: () => dir, cli, startAwaiting, currentDetails, cancelWhilePlanning };
}

/**
 * The S3 test files' shared setup (jobs-on-s3.test.ts, cli-on-s3.test.ts): per file, a versitygw server and a job
 * stack whose store is `s3://<bucket>/trace` (TRACE_STORE_URL), started in beforeAll; the bucket as an ObjectStore,
 * the worker's local data folder (nothing may land there), and `trace-sync` with the worker's S3 store.
 */
export function s3JobStack(dirPrefix: string) {
  let s3: RunningS3 | undefined;
  let stack: TestStack | undefined;
  let store: ObjectStore | undefined;
  let dataDir = '';
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('the S3 stack starts in beforeAll: use it inside a test or hook');
    return value;
  };
  beforeAll(async () => {
    s3 = await startS3();
    dataDir = await mkdtemp(path.join(tmpdir(), dirPrefix));
    const settings = {
      url: s3.storeUrl('trace'),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    };
    stack = await startTestStack({
      config: { dataDir, store: settings },
      sandbox: { rateLimitPerMinute: 100_000 },
    });
    store = new S3Store(s3ClientFor(settings), s3.bucket, 'trace');
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** `trace-sync <args>` with the S3 store of the stack's worker; asynchronous: this process hosts that worker. */
  const runCli = async (
    args: string[],
    killAfterMs?: number,
  ): Promise<{ status: number | null; stdout: string; stderr: string }> => {
    const harness = readHarnessInfo();
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: harness.address,
      TEMPORAL_NAMESPACE: harness.namespace,
      TRACE_TASK_QUEUE: ready(stack).taskQueue,
      // The CLI's own data folder: nothing it prints may point there.
      TRACE_DATA_DIR: await mkdtemp(path.join(tmpdir(), `${dirPrefix}cli-`)),
      ...ready(s3).env('trace'),
    };
    return traceSync(args, env, killAfterMs);
  };
  return {
    s3: () => ready(s3),
    stack: () => ready(stack),
    store: () => ready(store),
    dataDir: () => dataDir,
    cli: (...args: string[]) => runCli(args),
    runCli,
    /** The object's text, '' when there is none. */
    text: async (key: string): Promise<string> =>
      ((await ready(store).get(key)) ?? Buffer.from('')).toString('utf8'),
  };
}
