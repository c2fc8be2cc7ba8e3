import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { DEFAULT_SETTLE_SECONDS } from '../../activities/inbox';
import { plmImport } from '../../workflows';
import type { ProcessInboxResult } from '../../workflows/inbox';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';
import { cliProblems, type CliRun } from '../harness/cli';
import { awaitingApproval, planApproveStack } from './job-stack';

/**
 * How `--wait` and `watch` end when the run did not simply complete or fail, as a script and an operator at 2 a.m.
 * read it: the exit code tells a deliberate stop (cancel, terminate) from a crash, and the one stderr line says who
 * stopped it and why, in the words Temporal recorded.
 */
describe('how trace-sync --wait and watch end', () => {
  const { stack, dir, cli, startAwaiting } = planApproveStack('cli-run-ends-');
  let n = 0;
  const sheet = (prefix: string) => {
    const file = path.join(dir(), `${prefix.toLowerCase()}-${++n}.csv`);
    writeFileSync(file, toCsv(nativeRows({ prefix, styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })));
    return file;
  };
  /** `trace-sync watch` on a run awaiting approval, once it follows it (its progress on stderr). */
  const watching = async (handle: WorkflowHandle): Promise<{ ended: Promise<CliRun> }> => {
    const ended = cli('watch', handle.workflowId);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    return { ended };
  };

  /** `plm-import <sheet> --approve --wait …` under way, and its run once it awaits the decision. */
  const waitingOnPlan = async (prefix: string, ...extra: string[]) => {
    const file = sheet(prefix);
    const waiting = cli('plm-import', file, '--approve', '--wait', ...extra);
    let handle: WorkflowHandle | undefined;
    for (let i = 0; i < 120 && !handle; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      for await (const run of stack().client.workflow.list({
        query: `TraceSource = '${path.basename(file)}' AND ExecutionStatus = 'Running'`,
      }))
        handle = stack().client.workflow.getHandle(run.workflowId);
    }
    if (!handle) throw new Error(`no run of ${file} started`);
    return { waiting, handle: await awaitingApproval(handle) };
  };

  it('watch on a run an operator cancels while it awaits approval: exit 3, stdout empty, one line saying cancelled, by whom, and that nothing was written', async () => {
    const handle = await startAwaiting(sheet('CWA'));
    const watch = await watching(handle);
    await handle.cancel();
    const out = await watch.ended;
    expect({ status: out.status, stdout: out.stdout, problems: cliProblems(out.stderr) }).toEqual({
      status: 3,
      stdout: '',
      problems: [
        `trace-sync: Workflow ${handle.workflowId} was cancelled by ${stack().client.options.identity} while its plan awaited approval: nothing was written, as the plan was never approved; run the same input again to make a new plan.`,
      ],
    });
    expect(out.stderr).not.toContain('failed');
  }, 300_000);

  // Not "run it again to write the rest": a run stopped at its gate wrote nothing, and its plan is gone with it.
  it('cancel --wait on a run awaiting approval: says nothing was written, the plan was not approved, and to run the input again for a new plan', async () => {
    const handle = await startAwaiting(sheet('CGW'));
    const out = await cli('cancel', handle.workflowId, '--wait', '--by', 'ops-lead');
    expect({ status: out.status, stdout: out.stdout, problems: cliProblems(out.stderr) }).toEqual({
      status: 0,
      stdout: `Workflow ${handle.workflowId} cancelled (TraceStatus cancelled) while its plan awaited approval: nothing was written, as the plan was never approved; run the same input again to make a new plan.\n`,
      problems: [],
    });
  }, 300_000);

  it('--wait on a run an operator terminates: exit 3, the reason and identity Temporal recorded', async () => {
    const { waiting, handle } = await waitingOnPlan('TWA');
    await handle.terminate('wrong season loaded');
    const out = await waiting;
    expect({ status: out.status, stdout: out.stdout, problems: cliProblems(out.stderr) }).toEqual({
      status: 3,
      stdout: '',
      problems: [
        `trace-sync: Workflow ${handle.workflowId} was terminated by ${stack().client.options.identity} (reason: wrong season loaded): Temporal stopped it at once, wherever it was, and it writes nothing more.`,
      ],
    });
  }, 300_000);

  it('watch on a run Temporal timed out (its execution timeout): says timed out and the limit, exit 1', async () => {
    const handle = await stack().client.workflow.start(plmImport, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('timed-out'),
      args: [{ file: sheet('TMO'), profile: 'native', approval: true }],
      workflowExecutionTimeout: '8s',
    });
    await awaitingApproval(handle);
    const out = await cli('watch', handle.workflowId);
    expect({ status: out.status, stdout: out.stdout, problems: cliProblems(out.stderr) }).toEqual({
      status: 1,
      stdout: '',
      problems: [
        `trace-sync: Workflow ${handle.workflowId} timed out: it ran past the 8s execution timeout it was started with, and Temporal stopped it; it writes nothing more.`,
      ],
    });
  }, 300_000);

  it('--wait on a run whose plan was rejected: exit 4, one line saying nothing was written and who rejected it; the result still on stdout', async () => {
    const { waiting, handle } = await waitingOnPlan('RJW');
    expect(
      (await cli('reject', handle.workflowId, '--by', 'ops-lead', '--reason', 'wrong season')).status,
    ).toBe(0);
    const out = await waiting;
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({
      status: 4,
      problems: [
        `trace-sync: Workflow ${handle.workflowId} completed without writing anything: its plan was rejected by ops-lead (reason: wrong season).`,
      ],
    });
    expect(JSON.parse(out.stdout)).toMatchObject({
      approval: { decision: 'rejected', by: 'ops-lead' },
      products: { created: 0 },
    });
  }, 300_000);

  it('--wait on a run whose plan nobody decided on in time: exit 4, one line saying so', async () => {
    const { waiting, handle } = await waitingOnPlan('NDW', '--approve-timeout', '3');
    const out = await waiting;
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({
      status: 4,
      problems: [
        `trace-sync: Workflow ${handle.workflowId} completed without writing anything: nobody approved or rejected its plan within 3s, so it was rejected.`,
      ],
    });
    // A script reads how long the plan waited as a number, not out of the reason text.
    expect(JSON.parse(out.stdout)).toMatchObject({
      approval: { decision: 'rejected', timedOut: true, timeoutSeconds: 3 },
    });
  }, 300_000);

  it('trace-sync inbox <folder> --job plm-import --wait: a hand-started inbox run processes a drop as a scheduled one does', async () => {
    const folder = path.join(dir(), 'inbox-plm');
    mkdirSync(folder);
    const file = path.join(folder, 'drop.csv');
    writeFileSync(
      file,
      toCsv(nativeRows({ prefix: 'INH', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })),
    );
    // A drop whose copy ended a while ago: one changed within the settle time may still be being copied in.
    const past = new Date(Date.now() - 2 * DEFAULT_SETTLE_SECONDS * 1000);
    utimesSync(file, past, past);

    const out = await cli('inbox', folder, '--job', 'plm-import', '--profile', 'native', '--wait');
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({ status: 0, problems: [] });
    const result = JSON.parse(out.stdout) as ProcessInboxResult;
    expect(result).toMatchObject({ job: 'plm-import', folder });
    expect(result.files.map(({ name, outcome }) => ({ name, outcome }))).toEqual([
      { name: 'drop.csv', outcome: 'processed' },
    ]);
    expect(readdirSync(path.join(folder, 'processed'))).toEqual(['drop.csv']);
    expect(existsSync(file)).toBe(false);
    expect(await stack().apiClient.products.get('INH-S1')).toMatchObject({ externalId: 'INH-S1' });
    const id = /Started workflow (\S+)/.exec(out.stderr)?.[1] as string;
    const described = await stack().client.workflow.getHandle(id).describe();
    expect(described.type).toBe('inbox');
  }, 300_000);

  it('trace-sync inbox refuses an input the inbox run would refuse, before starting anything (exit 1, one line)', async () => {
    const folder = path.join(dir(), 'inbox-bad');
    mkdirSync(folder);
    const out = await cli('inbox', folder, '--job', 'erp-orders', '--profile', 'flat');
    expect({ status: out.status, stdout: out.stdout }).toEqual({ status: 1, stdout: '' });
    expect(cliProblems(out.stderr)).toEqual([
      expect.stringMatching(
        /^trace-sync: Invalid inbox input: profile: .*\(as erp-orders reads it\)\. Nothing was started\.$/,
      ),
    ]);
    expect(out.stderr).not.toContain('Started workflow');
  }, 300_000);
});
