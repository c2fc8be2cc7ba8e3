import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { repoRoot } from '../../worker/paths';
import { readHarnessInfo } from '../harness';

/**
 * Histories recorded from the job workflows as they were before the batch-job kit (main at 4139cae), in
 * test/fixtures/histories: each a protobuf History in base64; `.first`/`.last` are the two ends of a run that
 * continued as new. Running workflows replay their history on a new worker, so the current code must issue the same
 * commands for them (activities, timers, search-attribute upserts, continue-as-new) or they fail with a
 * non-determinism error.
 *
 * Recorded before the approval signals were checked (main at 95cb5fd), for the `patched` branches that keep them:
 * `plm-import-early-approve` and `erp-orders-early-reject` (a decision sent before the plan was written, then taken),
 * `plm-import-approved-reason-number.first` (an approve whose `reason` was a number, taken); and before `resume` was
 * checked: `plm-import-resume-by-hand` (a continued run's input, `resume` included, started again as a new run).
 * Recorded with the checks (their patch markers in the history): `plm-import-signals-checked` (an early approve and
 * a `{"by": 42}` ignored, then an approve taken) and `plm-import-resume-refused`.
 * A PLM import cancelled mid-batch, recorded before a cancel waited for the batch (main at 6261578:
 * `plm-import-cancelled-before`, closed at once) and with the wait (`plm-import-cancelled`: its patch marker, the
 * batch's ActivityTaskCanceled, the finish, then the close). A BOM repair cancelled in its only batch:
 * `bom-repair-cancelled-before` (6261578, closed at once) and `bom-repair-cancelled` (the batch, already past its
 * last product, completes after the cancel; the staging is dropped and the run closes as cancelled).
 * A PLM import of a barcode swap cancelled after the swap's first write, with `plm-cancel-finishes-rings` (its patch
 * marker, finishPlmRings writing the rest of the swap, then the finish): `plm-import-cancelled-in-swap`.
 * An ERP push with approval and 12 one-order batches: `erp-orders-long-plan-before` (6261578: both dry passes in the
 * first run, 190 events) and, continuing as new during the passes, `erp-orders-long-plan.first` (the plan pass
 * carried), `.decided` (resumed in the plan pass: the plan, the approve signal, the recheck carried) and `.rechecked`
 * (resumed in the recheck, then the hold-back and the push).
 * A PLM import with approval cancelled while it awaited the decision, before the cancel set TraceStatus (main at
 * aaba1e8: `plm-import-cancelled-awaiting-before`), with it (`plm-import-cancelled-awaiting`) and with the memo that
 * says so (`plm-import-cancelled-awaiting-memo`, its `approval-cancel-memo` marker); an ERP dry run with
 * a reject, before a dry run was always `dry-run-done` (`erp-orders-dry-rejects-before`, `done-with-rejects`) and
 * after (`erp-orders-dry-rejects`).
 * An ERP push with approval cancelled in its plan's dry pass (an order read back from the platform 10 s a read),
 * before the cancel said so (main at b713186: `erp-orders-cancelled-planning-before`) and with its
 * `approval-cancel-planning` marker, TraceStatus and memo (`erp-orders-cancelled-planning`).
 * A PLM import with approval cancelled while it made its plan (planPlmImport, the platform's products read 10 s a
 * read), before the cancel said so (main at 065dc16: `plm-import-cancelled-planning-before`) and with its
 * `plm-approval-cancel-planning` marker, TraceStatus and memo (`plm-import-cancelled-planning`).
 * An inbox run with every inbox patch marker, `inbox-child-per-drop` and `inbox-keeps-drop-on-outage` included
 * (`inbox-outage-left`, recorded with the outage patch): the API answering 500 throughout, a good drop left in the inbox after its
 * child ran out of retries (its failure recorded), a drop that is not JSON filed to failed/ at once. Recorded with the
 * steps' retries 50 ms apart (the activities wrapped as in inbox-outage.test.ts).
 */
const dir = path.join(repoRoot(), 'test', 'fixtures', 'histories');
const files = readdirSync(dir).filter((name) => name.endsWith('.b64'));

describe('workflow code replays the histories recorded by earlier versions of it', () => {
  it.each(files)('%s replays without a non-determinism error', async (file) => {
    const history = temporal.api.history.v1.History.decode(
      Buffer.from(readFileSync(path.join(dir, file), 'utf8'), 'base64'),
    );
    // The run's own workflow id where the history records it: a continued run checks its `resume` against it.
    const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || file;
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: readHarnessInfo().workflowBundlePath } },
      history,
      workflowId,
    );
  });
});
