import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { bomRepair, erpOrders, plmImport } from '../../workflows';
import type { PlmImportResult } from '../../workflows/plm-import';
import { startTestStack, type TestStack } from '../harness';
import { nativeRows, toCsv, type NativeRow } from '../unit/plm-activities/native-sheet';

/**
 * `resume` is what a run hands the run it continues as: references to its staged plan and the batches done. The Web
 * UI shows the latest run of a chain, `resume` in its input, and offers "start a workflow like this one"; such a run
 * re-applied the old staged plan, skipped approval, ignored the file's new rows and overwrote the old run's result.
 * DESIGN: "every workflow input is plain, documented JSON"; "Boundaries are validated with zod: … workflow inputs."
 */

const REFUSED = "`resume` is a continuation's own input: start the job without it";

describe('a job input with `resume` is only a continuation’s', () => {
  let stack: TestStack;
  let dir: string;

  const sheet = (name: string, rows: readonly NativeRow[]) => {
    const file = path.join(dir, name);
    writeFileSync(file, toCsv(rows));
    return file;
  };

  /** The run failed at once, non-retryable, before any activity. */
  const refusedAtOnce = async (handle: WorkflowHandle) => {
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).message).toContain(REFUSED);
    expect((cause as ApplicationFailure).nonRetryable).toBe(true);
    const history = await handle.fetchHistory();
    expect((history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'resume-input-'));
    stack = await startTestStack({
      sandbox: { rateLimitPerMinute: 100_000 },
      config: { dataDir: path.join(dir, 'data') },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('PLM import: the input of a continued run, started again, fails at once and touches nothing; the chain itself completes', async () => {
    const rows = nativeRows({ prefix: 'RSM', styles: 2, coloursPerStyle: 1, sizesPerColour: 1 });
    const file = sheet('resume.csv', rows);
    const first = await stack.client.workflow.start(plmImport, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('chain'),
      args: [{ file, batchSize: 1 }],
    });
    const done = (await first.result()) as PlmImportResult;
    expect(done.products).toMatchObject({ created: 6 });
    const latest = await first.describe();
    expect(latest.runId).not.toBe(first.firstExecutionRunId);
    const history = await stack.client.workflow.getHandle(first.workflowId, latest.runId).fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = JSON.parse(Buffer.from(payload?.data as Uint8Array).toString()) as Record<string, unknown>;
    expect(input.resume).toBeDefined();
    const resultBefore = readFileSync(done.resultFile, 'utf8');

    // The operator adds a row and starts "a workflow like this one".
    writeFileSync(
      file,
      toCsv([...rows, { ...rows[0]!, externalId: 'RSM-NEW', PLM_ID: 'RSM-NEW', name: 'New' }]),
    );
    const again = await stack.client.workflow.start(plmImport, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('like-this-one'),
      args: [input as never],
    });
    await refusedAtOnce(again);
    expect(readFileSync(done.resultFile, 'utf8')).toBe(resultBefore);

    // Without it, the job plans the sheet as it is now.
    const { resume: _resume, ...fresh } = input;
    const rerun = await stack.client.workflow.execute(plmImport, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('fresh'),
      args: [fresh as never],
    });
    expect(rerun.products).toMatchObject({ created: 1, unchanged: 6 });
  }, 300_000);

  it('ERP push: an input with `resume` on a run that did not continue from another fails at once', async () => {
    const file = path.join(dir, 'orders.csv');
    writeFileSync(
      file,
      'order_number,supplier_code,buyer_facility_process,supplier_facility_process,order_date,line_number,product_external_id,quantity,unit\n' +
        'RSM-PO-1,SUP-1001,Warehouse,Cut make trim,2025-03-01,1,PLM-TEE-001-BLK,5,PIECES\n',
    );
    const handle = await stack.client.workflow.start(erpOrders, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-resume'),
      args: [{ file, resume: { nextBatch: 0, prepared: { runKey: 'someone-else' } } } as never],
    });
    await refusedAtOnce(handle);
  }, 120_000);

  it('BOM repair: a `resume` argument on a run that did not continue from another fails at once', async () => {
    const handle = await stack.client.workflow.start(bomRepair, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('bom-resume'),
      args: [{ products: ['PLM-TEE-001'] }, { runKey: 'someone-else', offset: 0 } as never],
    });
    await refusedAtOnce(handle);
  }, 120_000);
});
