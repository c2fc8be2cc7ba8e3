/**
 * The stack the ERP and PLM job test files start in beforeAll: a temp folder of their own (the runs' data under
 * `data/`) and a test stack whose allowance is out of the way; a file that needs other demo data passes its seed.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { SandboxOptions } from '../../sandbox/options';
import { TraceJob } from '../../worker/search-attributes';
import { erpOrders } from '../../workflows';
import type { PushErpOrdersInput, PushErpOrdersResult } from '../../workflows/erp-orders';
import { startTestStack, type TestStack } from '../harness';

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
