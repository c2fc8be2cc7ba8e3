/**
 * The stack the ERP and PLM job test files start in beforeAll: a temp folder of their own (the runs' data under
 * `data/`) and a test stack whose allowance is out of the way; a file that needs other demo data passes its seed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { SandboxOptions } from '../../sandbox/options';
import { TraceJob } from '../../worker/search-attributes';
import { erpOrders } from '../../workflows';
import type { PushErpOrdersInput, PushErpOrdersResult } from '../../workflows/erp-orders';
import { cliEnv, startTestStack, traceSync, type TestStack } from '../harness';

export async function startJobStack(
  dirPrefix: string,
  options: { sandbox?: SandboxOptions; seed?: unknown } = {},
): Promise<{ dir: string; stack: TestStack }> {
  const dir = await mkdtemp(path.join(tmpdir(), dirPrefix));
  let seedFile: string | undefined;
  if (options.seed !== undefined) {
    seedFile = path.join(dir, 'seed.json');
    await writeFile(seedFile, JSON.stringify(options.seed));
  }
  const stack = await startTestStack({
    config: { dataDir: path.join(dir, 'data') },
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

/**
 * The plan-then-approve test files' shared setup (plan-approve.test.ts, plan-approve-erp.test.ts): per file, a job
 * stack started in beforeAll, `trace-sync` against it, and the waits for a run's decision point and its details.
 */
export function planApproveStack(dirPrefix: string) {
  let stack: TestStack | undefined;
  let dir = '';
  let env: NodeJS.ProcessEnv = {};
  const started = (): TestStack => {
    if (!stack) throw new Error('the test stack starts in beforeAll: use it inside a test or hook');
    return stack;
  };
  beforeAll(async () => {
    ({ dir, stack } = await startJobStack(dirPrefix));
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
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    return awaitingApproval(
      started().client.workflow.getHandle(/Started workflow (\S+)/.exec(run.stdout)?.[1] as string),
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

  return { stack: started, dir: () => dir, cli, startAwaiting, currentDetails };
}
