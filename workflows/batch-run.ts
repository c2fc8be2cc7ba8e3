import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
  type QueryDefinition,
} from '@temporalio/workflow';
import { z } from 'zod';
import { inputProblems } from '../connectors/config-problems';
import { profileChoiceProblem } from '../connectors/profile-choice';
import { isRunKeyOf } from '../connectors/staging/run-key';
import { TraceJob, TraceSource, TraceStatus } from '../worker/search-attributes';

/**
 * The workflow side of the batch-job kit: what every job's workflow does the same way (input checks, the Web UI's
 * search attributes and progress query, activity options, failure messages, the batch loop with continue-as-new),
 * so each job's workflow file holds only its own steps.
 */

const STEP_RETRY: ActivityOptions['retry'] = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 10,
};

/**
 * A job's whole-run steps (read, plan, finish...). Every one heartbeats every few seconds (`withHeartbeats`): the
 * timeout runs from the activity's start, so one that never heartbeats is timed out on every attempt that takes
 * longer. The 2 minutes' margin covers a large xlsx that SheetJS writes on the event loop (a rejects file, a plan).
 */
export const stepActivityOptions: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: STEP_RETRY,
};

/** Short steps that do not heartbeat (an inbox's list, claim and move). */
export const quickActivityOptions: ActivityOptions = { startToCloseTimeout: '10 minutes', retry: STEP_RETRY };

/**
 * One batch of writes. A batch only waits on the API, so its heartbeats are steady and a killed worker is noticed
 * within 20 s; the batch then resumes elsewhere.
 */
export const batchActivityOptions: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 25,
  },
};

/** An input the schema refused: parse it with `{ reportInput: true }` so the problems can say what was given. */
export interface RefusedInput {
  schema: z.ZodType;
  error: z.ZodError;
}

/**
 * A non-retryable failure naming each bad field of a workflow input (or saying what is wrong with it), in one bounded
 * line: the field, what was given and what is allowed, "did you mean" for a misspelt key (see inputProblems).
 */
export function invalidInput(workflow: string, problem: RefusedInput | string): ApplicationFailure {
  const problems = typeof problem === 'string' ? problem : inputProblems(problem.schema, problem.error);
  return ApplicationFailure.nonRetryable(`Invalid ${workflow} input: ${problems}`, 'InvalidInput');
}

/** patched: runs started before `resume` was checked replay without the check. */
const RESUME_CHECKED_PATCH = 'resume-only-in-continuation';

/** The run key a `resume` names at `at` (`{ [at]: { runKey } }`, or `{ runKey }` without `at`), if it names one. */
export function resumeRunKey(resume: unknown, at?: string): string | undefined {
  const holder = z.record(z.string(), z.unknown()).safeParse(resume);
  if (!holder.success) return undefined;
  const keyed = z.object({ runKey: z.string() }).safeParse(at === undefined ? holder.data : holder.data[at]);
  return keyed.success ? keyed.data.runKey : undefined;
}

/**
 * `resume` is what a run hands the run it continues as (continueWithResume), never given by hand. The Web UI shows the
 * latest run of a chain, `resume` in its input, and offers "start a workflow like this one": that run would re-apply
 * the old staged plan, skip approval, ignore the file's new rows and overwrite the old run's result. So a run that did
 * not continue from another, or whose `resume` names another workflow's run key, fails at once.
 */
export function checkResume(
  workflow: string,
  runKey: string | undefined,
  isOwn: (runKey: string, workflowId: string) => boolean = isRunKeyOf,
): void {
  if (!patched(RESUME_CHECKED_PATCH)) return;
  const { continuedFromExecutionRunId, workflowId } = workflowInfo();
  if (continuedFromExecutionRunId === undefined || (runKey !== undefined && !isOwn(runKey, workflowId))) {
    throw invalidInput(workflow, "`resume` is a continuation's own input: start the job without it");
  }
}

/**
 * A mapping job's input: checked by its schema, with the `resume` a continued run carries set aside (it is the run's
 * own, never given by hand: see checkResume; it names its run key at `resumeKeyAt`); `profile` and `mappingFile`
 * exclude each other.
 */
export function parseJobInput<S extends z.ZodType<{ profile?: string; mappingFile?: string }>, R>(
  workflow: string,
  schema: S,
  raw: unknown,
  resumeKeyAt: string,
): z.infer<S> & { resume?: R } {
  const { resume, ...rest } = (raw ?? {}) as Record<string, unknown>;
  const parsed = schema.safeParse(rest, { reportInput: true });
  if (!parsed.success) throw invalidInput(workflow, { schema, error: parsed.error });
  const choice = profileChoiceProblem(parsed.data);
  if (choice !== undefined) throw invalidInput(workflow, choice);
  if (resume) checkResume(workflow, resumeRunKey(resume, resumeKeyAt));
  return { ...parsed.data, ...(resume ? { resume: resume as R } : {}) };
}

/** patched: runs that failed before a failed run said so in TraceStatus replay without the upsert. */
const FAILED_STATUS_PATCH = 'status-failed';

/**
 * A known failure the run ends with (an activity's own, a bad inbox input): TraceStatus says `failed`, not the
 * `running` it had, so the Web UI's `TraceStatus = "failed"` finds it, and the run's details in the Web UI say why.
 * Returns the failure, for the caller to throw.
 */
export function failedRun(failure: ApplicationFailure): ApplicationFailure {
  if (patched(FAILED_STATUS_PATCH)) setStatus('failed');
  // Not a command: the details are the run's metadata, so setting them needs no patch.
  setCurrentDetails(`Failed: ${oneLine(failure.message)}`);
  return failure;
}

function oneLine(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}

/** What an activity's timeout means for the operator, by its type. */
const TIMED_OUT_BECAUSE: Record<string, string> = {
  HEARTBEAT: 'no heartbeat within its heartbeat timeout: its worker may have stopped or be overloaded',
  START_TO_CLOSE: 'it ran past its start-to-close timeout',
  SCHEDULE_TO_START: 'no worker picked it up',
  SCHEDULE_TO_CLOSE: 'its attempts ran past its schedule-to-close timeout',
};

/**
 * An activity's own failure as the run's, or undefined when `error` is not one (a cancel...). An activity whose last
 * attempt timed out fails the run too, naming it and what timed out.
 */
function explained(error: unknown, fallbackType: string): ApplicationFailure | undefined {
  if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) {
    const kind = error.cause.timeoutType;
    const because = (kind && TIMED_OUT_BECAUSE[kind]) ?? `its ${kind ?? ''} timeout passed`;
    return failedRun(
      ApplicationFailure.create({
        message: `${error.activityType} timed out (${because}); check that a worker is running and its log`,
        type: 'ActivityTimedOut',
        nonRetryable: true,
        cause: error,
      }),
    );
  }
  if (!(error instanceof ActivityFailure && error.cause instanceof ApplicationFailure)) return undefined;
  return failedRun(
    ApplicationFailure.create({
      message: error.cause.message,
      type: error.cause.type ?? fallbackType,
      nonRetryable: true,
      cause: error,
    }),
  );
}

/**
 * An activity's own failure (a bad file, a missing column, a missing mapping file...) becomes the workflow's failure
 * message, so the Web UI and `--wait` say what went wrong instead of "Activity task failed". The activity's failure
 * stays the cause, with its type (`fallbackType` when it has none).
 */
export function explainer(fallbackType: string): <T>(call: Promise<T>) => Promise<T> {
  return async (call) => {
    try {
      return await call;
    } catch (error) {
      throw explained(error, fallbackType) ?? error;
    }
  };
}

/**
 * A whole job run, any activity's own failure explained as `explainer` does (a wrong API key in the first call of
 * the report as in the last batch of a repair): for jobs whose every activity may meet the API.
 */
export async function explainedRun<T>(fallbackType: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw explained(error, fallbackType) ?? error;
  }
}

/** The last path segment, for the Web UI's TraceSource column (no Node `path` in workflow code). */
export function baseName(file: string): string {
  return (
    file
      .split(/[\\/]/)
      .filter((part) => part.length > 0)
      .pop() ?? file
  );
}

/**
 * The start of every job run: answer the job's `progress` query and tell the Web UI the job, its source and its status
 * (set again after continue-as-new too, so the Web UI finds every run of a chain).
 */
export function startJob<P>(run: {
  job: string;
  source: string;
  status: string;
  progress: P;
  query: QueryDefinition<P>;
}): P {
  setHandler(run.query, () => run.progress);
  upsertSearchAttributes([
    { key: TraceJob, value: run.job },
    { key: TraceSource, value: run.source },
    { key: TraceStatus, value: run.status },
  ]);
  return run.progress;
}

/** Sets the run's TraceStatus (`done`, `done-with-rejects`, `dry-run-done`...). */
export function setStatus(status: string): void {
  upsertSearchAttributes([{ key: TraceStatus, value: status }]);
}

/** Continues as new with the same input, carrying `resume` (what the run has done so far, never rows). */
export async function continueWithResume<I extends { resume?: R }, R>(input: I, resume: R): Promise<never> {
  const { resume: _previous, ...original } = input;
  return continueAsNew<(arg: I) => Promise<unknown>>({ ...original, resume } as I);
}

/**
 * The batch loop: runs `step` (one batch, which moves `at()` on) until `at()` reaches `end`, and continues as new
 * through `carry` when Temporal suggests it, so a run of any size stays within the history limits.
 */
export async function runBatches(loop: {
  at: () => number;
  end: number;
  step: () => Promise<void>;
  carry: () => Promise<never>;
}): Promise<void> {
  while (loop.at() < loop.end) {
    await loop.step();
    if (loop.at() < loop.end && workflowInfo().continueAsNewSuggested) {
      log.info('Continuing as new', { at: loop.at(), of: loop.end });
      await loop.carry();
    }
  }
}

/** patched: runs whose batches began before a cancel waited for the running batch replay without the wait. */
const BATCH_CANCEL_PATCH = 'cancel-waits-for-batch';

/**
 * The batch loop of a job that writes, as an operator cancelling it (Web UI, `temporal workflow cancel`) expects:
 * each batch activity is called with `options`, which make a cancel wait until the batch has stopped
 * (WAIT_CANCELLATION_COMPLETED: the batch stops before its next record, the records under way are written and
 * journalled). Returns the cancellation when the run was cancelled in the loop, once nothing writes any more, so
 * the job totals what was written (in a non-cancellable scope) and then throws it to close as cancelled; undefined
 * when every batch ran.
 */
export async function runStoppableBatches(loop: {
  at: () => number;
  end: number;
  step: (options: ActivityOptions) => Promise<void>;
  carry: () => Promise<never>;
}): Promise<CancelledFailure | undefined> {
  const waits = patched(BATCH_CANCEL_PATCH);
  const options: ActivityOptions = waits
    ? { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED }
    : {};
  try {
    await runBatches({ ...loop, step: () => loop.step(options) });
    // Cancelled while the last batch wrote its last records: all is written, and the run still closes as cancelled.
    return waits && CancellationScope.current().consideredCancelled
      ? new CancelledFailure('Workflow cancelled')
      : undefined;
  } catch (error) {
    if (!waits || !isCancellation(error)) throw error;
    if (error instanceof CancelledFailure) return error;
    return error instanceof ActivityFailure && error.cause instanceof CancelledFailure
      ? error.cause
      : new CancelledFailure('Workflow cancelled');
  }
}
