import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import pino from 'pino';
import { plmImport } from '../../workflows';
import type { PlmImportResult } from '../../workflows/plm-import';
import { LocalStore } from '../../connectors/storage';
import { openRuns, startStagingSweeps } from '../../worker/staging-sweeps';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';
import { planApproveStack } from './job-stack';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Runs leave their staging in the run-data store whichever way they end (a finished PLM import keeps `staging/` and
 * `journal/`; a terminated or failed run keeps whatever it staged). The worker's sweep removes it
 * TRACE_STAGING_RETENTION_DAYS after it was written (30 here, 7 by default) once Temporal says the run is no longer open, and leaves what the README says stays.
 */
describe('sweeping the staging of ended runs (real Temporal, sandbox over HTTP)', () => {
  const { stack, dir, cli, startAwaiting } = planApproveStack('staging-sweep-', {
    config: { stagingRetentionDays: 30 },
  });

  const sweeps = () =>
    startStagingSweeps({
      store: new LocalStore(stack().config.dataDir),
      openRuns: () => openRuns(stack().client.connection, stack().namespace),
      logger: pino({ level: 'silent' }),
      retentionDays: stack().config.stagingRetentionDays ?? undefined,
      everyMs: 24 * DAY,
    });
  const runFolder = (workflowId: string, ...parts: string[]) =>
    path.join(stack().config.dataDir, 'runs', workflowId, ...parts);
  const failureOf = (handle: WorkflowHandle) =>
    handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );

  /**
   * A run that fails after it staged its data: planned, its staged files altered, then approved (any failure once the
   * run has staged would do; this one comes at once and says why).
   */
  const failedRun = async (name: string): Promise<WorkflowHandle> => {
    const sheet = path.join(dir(), `${name}.csv`);
    writeFileSync(
      sheet,
      toCsv(nativeRows({ prefix: name.toUpperCase(), styles: 2, coloursPerStyle: 1, sizesPerColour: 1 })),
    );
    const handle = await startAwaiting(sheet);
    // Every staged file of the run altered: its plan, approved steps and batches no longer match what was staged.
    const dataDir = stack().config.dataDir;
    for (const file of readdirSync(path.join(dataDir, 'runs'), { recursive: true, encoding: 'utf8' }))
      if (file.startsWith(handle.workflowId) && file.includes(`${path.sep}staging${path.sep}`)) {
        const full = path.join(dataDir, 'runs', file);
        if (statSync(full).isFile()) writeFileSync(full, readFileSync(full, 'utf8') + ' ');
      }
    expect((await cli('approve', handle.workflowId, '--by', 'ops-lead')).status).toBe(0);
    const failure = await failureOf(handle);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toMatch(/content changed since it was staged/);
    return handle;
  };

  it('keeps an open run’s staging, and removes it once the run is terminated; plans, rejects and results stay', async () => {
    const shape = { prefix: 'SWP', coloursPerStyle: 1, sizesPerColour: 1 };
    const rows = nativeRows({ ...shape, styles: 3 }).map((row) =>
      row.externalId === 'SWP-S2' ? { ...row, styleType: 'No such type' } : row,
    );
    const sheet = path.join(dir(), 'swp.csv');
    writeFileSync(sheet, toCsv(rows));

    const finished = await stack().client.workflow.start(plmImport, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('swp-done'),
      args: [{ file: sheet }],
    });
    const result: PlmImportResult = await finished.result();
    expect(result.rejectedRows).toBeGreaterThan(0);
    const awaiting = await startAwaiting(sheet);
    for (const id of [finished.workflowId, awaiting.workflowId])
      expect(existsSync(runFolder(id, 'staging', 'manifest.json'))).toBe(true);
    expect(existsSync(runFolder(finished.workflowId, 'journal'))).toBe(true);

    const sweeper = sweeps();
    try {
      // Six days on, nothing goes, ended or not.
      expect(await sweeper.pass(Date.now() + 29 * DAY)).toMatchObject({ removed: 0 });
      expect(existsSync(runFolder(finished.workflowId, 'staging', 'manifest.json'))).toBe(true);

      // Eight days on: the finished run's staging and journals go; the run awaiting approval keeps everything.
      const later = await sweeper.pass(Date.now() + 31 * DAY);
      expect(later?.removed).toBeGreaterThan(0);
      expect(later?.keptOpen).toBeGreaterThan(0);
      expect(existsSync(runFolder(finished.workflowId, 'staging'))).toBe(false);
      expect(existsSync(runFolder(finished.workflowId, 'journal'))).toBe(false);
      for (const kept of ['result.json', 'plan.json', 'rejects.csv', 'source.csv', 'rejected-products.json'])
        expect([kept, existsSync(runFolder(finished.workflowId, kept))]).toEqual([kept, true]);
      expect(existsSync(runFolder(awaiting.workflowId, 'staging', 'manifest.json'))).toBe(true);

      // Terminated while awaiting approval: its staging goes in the next pass, its plan files stay.
      await awaiting.terminate('operator gave up');
      expect((await sweeper.pass(Date.now() + 31 * DAY))?.removed).toBeGreaterThan(0);
      expect(existsSync(runFolder(awaiting.workflowId, 'staging'))).toBe(false);
      for (const kept of ['plan.json', 'plan.html', 'plan.xlsx', 'source.csv'])
        expect([kept, existsSync(runFolder(awaiting.workflowId, kept))]).toEqual([kept, true]);
    } finally {
      await sweeper.stop();
    }
  }, 180_000);

  it('removes a failed run’s staging once the retention has passed, and keeps an open run’s', async () => {
    const failed = await failedRun('swpfail');
    const sheet = path.join(dir(), 'swpopen.csv');
    writeFileSync(
      sheet,
      toCsv(nativeRows({ prefix: 'SWPO', styles: 2, coloursPerStyle: 1, sizesPerColour: 1 })),
    );
    const open = await startAwaiting(sheet);
    const sweeper = sweeps();
    try {
      expect(await sweeper.pass(Date.now() + 29 * DAY)).toMatchObject({ removed: 0 });
      expect(existsSync(runFolder(failed.workflowId, 'staging', 'manifest.json'))).toBe(true);

      const later = await sweeper.pass(Date.now() + 31 * DAY);
      expect(later?.removed).toBeGreaterThan(0);
      expect(later?.keptOpen).toBeGreaterThan(0);
      expect(existsSync(runFolder(failed.workflowId, 'staging'))).toBe(false);
      for (const kept of ['plan.json', 'source.csv'])
        expect([kept, existsSync(runFolder(failed.workflowId, kept))]).toEqual([kept, true]);
      expect(existsSync(runFolder(open.workflowId, 'staging', 'manifest.json'))).toBe(true);
    } finally {
      await sweeper.stop();
      await open.terminate('test over');
    }
  }, 180_000);

  // An operator resets a failed run (to after its sheet was read) once its staging was swept: the run fails at once,
  // and its message says why the data is gone and which setting keeps it longer.
  it('a failed run reset after its staging was swept fails naming TRACE_STAGING_RETENTION_DAYS and the worker’s 30 days', async () => {
    const failed = await failedRun('swpreset');
    const sweeper = sweeps();
    try {
      expect((await sweeper.pass(Date.now() + 31 * DAY))?.removed).toBeGreaterThan(0);
    } finally {
      await sweeper.stop();
    }
    expect(existsSync(runFolder(failed.workflowId, 'staging'))).toBe(false);

    const { events } = await failed.fetchHistory();
    const read = (events ?? []).findIndex(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'readPlmSheet',
    );
    const afterRead = (events ?? []).find(
      (event, at) => at > read && event.workflowTaskCompletedEventAttributes != null,
    );
    expect(read).toBeGreaterThan(-1);
    const { runId } = await stack().client.workflowService.resetWorkflowExecution({
      namespace: stack().namespace,
      workflowExecution: { workflowId: failed.workflowId },
      reason: 'operator resets the failed run',
      workflowTaskFinishEventId: afterRead?.eventId,
      requestId: randomUUID(),
    });
    const reset = stack().client.workflow.getHandle(failed.workflowId, runId ?? undefined);
    const failure = await failureOf(reset);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const message = (failure as WorkflowFailedError).cause?.message ?? '';
    expect(message).toMatch(/^Staged data '.*' is unusable: it is missing\./);
    expect(message).toContain('TRACE_STAGING_RETENTION_DAYS days after it was written (30 on this worker)');
  }, 180_000);
});
