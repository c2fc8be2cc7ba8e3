import { Command } from 'commander';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { z } from 'zod';
import { JOBS, jobOfWorkflowType, type JobName } from '../../worker/jobs';
import { runAction } from '../run-action';
import { positiveSeconds, startJobOn, timestampedId, withTemporalClient } from '../workflow-runner';

/** Jobs whose runs leave a rejects file that can be pushed again. */
const RETRYABLE_JOBS = ['erp-orders', 'plm-import'] as const;
type RetryableJob = (typeof RETRYABLE_JOBS)[number];
const isRetryable = (job: JobName | undefined): job is RetryableJob =>
  RETRYABLE_JOBS.some((retryable) => retryable === job);

/**
 * Both jobs share this input convention: `{ file, profile?, mappingFile?, unarchive?, retryOf? }` (ERP adds `complete`
 * and `allowTracedLineRemoval`, PLM `sheet`).
 */
const originalInputSchema = z.looseObject({
  file: z.string(),
  profile: z.string().optional(),
  mappingFile: z.string().optional(),
  complete: z.boolean().optional(),
  unarchive: z.boolean().optional(),
  /** ERP: lines sent to tracing may be deleted or renamed (`--allow-traced-line-removal`). */
  allowTracedLineRemoval: z.boolean().optional(),
  /** PLM: the sheet of a workbook the run read (`--sheet`), when not the mapping's. */
  sheet: z.string().optional(),
  dryRun: z.boolean().optional(),
  /** The approval gate as given (`true` or its options): the retry's fixed rows are planned and wait for it too. */
  approval: z.unknown().optional(),
});
type OriginalInput = z.infer<typeof originalInputSchema>;
const resultSchema = z.looseObject({
  rejectsFile: z.string().nullable().optional(),
  /** PLM, xlsx/xls: the sheet the run read, the name of its rejects workbook's one sheet. */
  sheetName: z.string().nullable().optional(),
  approval: z
    .looseObject({ decision: z.string(), by: z.string().optional(), timedOut: z.boolean().optional() })
    .optional(),
});

export interface RetryPlan {
  workflowType: (typeof JOBS)[RetryableJob]['workflow'];
  job: RetryableJob;
  workflowId: string;
  /** The original input's file (now the rejects file), profile, mapping and job flags, and `retryOf`. */
  input: Pick<
    OriginalInput,
    | 'file'
    | 'profile'
    | 'mappingFile'
    | 'complete'
    | 'unarchive'
    | 'allowTracedLineRemoval'
    | 'sheet'
    | 'dryRun'
    | 'approval'
  > & {
    retryOf: string;
  };
}

/** The first argument the run was started (or last continued) with. */
async function startInput(client: Client, workflowId: string): Promise<unknown> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
}

/**
 * What `trace-sync retry <workflowId>` starts: the same job, on the finished run's rejects file, with the same
 * profile and options (a dry run's retry is a dry run; a gated run's waits for approval), and `retryOf` naming the run. Refuses runs that are not finished, failed, had no rejects, or whose plan was rejected.
 */
export async function retryPlanFor(client: Client, workflowId: string, now = new Date()): Promise<RetryPlan> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const job = jobOfWorkflowType(description.type);
  if (!isRetryable(job)) {
    const name = job ?? description.type;
    const article = /^[aeiou]/i.test(name) ? 'an' : 'a';
    throw new Error(
      `${workflowId} is ${article} ${name} run; retry works on ${RETRYABLE_JOBS.join(' and ')} runs`,
    );
  }
  const status = description.status.name;
  if (status === 'RUNNING') throw new Error(`${workflowId} is still running: retry it once it has finished`);
  if (status !== 'COMPLETED') {
    const what =
      job === 'plm-import'
        ? 'no row was rejected one by one: fix the cause and import the sheet again'
        : 'no order was rejected one by one: fix the cause and push the file again';
    throw new Error(`${workflowId} ended ${status.toLowerCase()}, so ${what}`);
  }
  const result = resultSchema.safeParse(await handle.result());
  const rejectsFile = result.success ? result.data.rejectsFile : undefined;
  if (!rejectsFile) throw new Error(`${workflowId} rejected nothing: there is nothing to retry`);
  const original = originalInputSchema.safeParse(await startInput(client, workflowId));
  if (!original.success) throw new Error(`cannot read the input ${workflowId} was started with`);
  // A rejected plan wrote nothing, yet its rejects file holds only the rows the plan rejected: a retry of it would
  // import those alone and leave out every row the plan would have written.
  const decided = result.success ? result.data.approval : undefined;
  if (decided?.decision === 'rejected') {
    const how =
      decided.timedOut === true ? 'no one decided within its timeout' : `by ${decided.by ?? 'someone'}`;
    throw new Error(
      `the plan of ${workflowId} was rejected (${how}), so nothing was written; its rejects file holds only the rows the plan rejected, and a retry would import those alone: start the job on ${original.data.file} again instead`,
    );
  }
  const { profile, mappingFile, complete, unarchive, allowTracedLineRemoval, dryRun, approval } =
    original.data;
  // A PLM rejects workbook holds one sheet named as the one the run read (31 characters at most, as Excel allows):
  // the retry reads that one, not the mapping's `sheet`.
  const sheet = (result.success ? result.data.sheetName?.slice(0, 31) : undefined) ?? original.data.sheet;
  return {
    workflowType: JOBS[job].workflow,
    job,
    workflowId: timestampedId(`${workflowId.replace(/-retry-\d{4}-\d{2}-\d{2}T[\dZ-]+$/, '')}-retry`, now),
    input: {
      file: rejectsFile,
      ...(profile !== undefined ? { profile } : {}),
      ...(mappingFile !== undefined ? { mappingFile } : {}),
      ...(complete !== undefined && job === 'erp-orders' ? { complete } : {}),
      ...(unarchive === true ? { unarchive } : {}),
      ...(allowTracedLineRemoval === true && job === 'erp-orders' ? { allowTracedLineRemoval } : {}),
      ...(sheet !== undefined && job === 'plm-import' ? { sheet } : {}),
      ...(dryRun === true ? { dryRun } : {}),
      ...(approval !== undefined ? { approval } : {}),
      retryOf: workflowId,
    },
  };
}

export function retryCommand(): Command {
  return new Command('retry')
    .description(
      'Run the rejected rows of a finished plm-import or erp-orders run again, from its rejects file',
    )
    .argument(
      '<workflowId>',
      'the finished run whose rejects to re-run (first fix, in place, the rejects file its result names as rejectsFile)',
    )
    .option('--wait', 'wait for the result and print it')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 3600)
    .action((workflowId: string, flags: { wait?: boolean; timeout: number }) =>
      runAction(async () => {
        await withTemporalClient(async (client, config) => {
          const plan = await retryPlanFor(client, workflowId);
          await startJobOn(client, config, {
            workflow: plan.workflowType,
            args: [plan.input],
            workflowId: plan.workflowId,
            job: plan.job,
            source: plan.input.file.split(/[\\/]/).pop() ?? plan.input.file,
            summary: `Retry of ${workflowId}: its rejected rows from ${plan.input.file}`,
            wait: Boolean(flags.wait),
            timeoutSeconds: flags.timeout,
          }).catch((error: unknown) => {
            if (error instanceof WorkflowExecutionAlreadyStartedError)
              throw new Error(`a retry with id ${plan.workflowId} is already running`);
            throw error;
          });
        });
      }),
    );
}
