import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { z } from 'zod';
import { wroteBeforeStop } from './stop-words';
import { cliCommand } from '../connectors/cli-command';
import { stoppedAtGate } from './stopped-at-gate';
import { PlanNotAppliedError, RunStoppedError, StillRunningError } from './run-action';
import { followProgress, sinkFor, type ProgressOutput, type ProgressSink } from './progress';
import { linksValidity, type StoreLink } from './store-files';
import { checkPollers, noWorkerMessage, type PollerCheck } from './task-queue-check';

/**
 * Waiting for a run as an operator sees it: the worker check before, the progress bar (or JSON lines) during, the
 * result JSON or one failure line after. Only the result goes to stdout, so `--wait | jq` and `$(…)` get it alone;
 * the bar, the JSON lines and the notices go to stderr.
 */

/** Asks Temporal whether a worker polls the queue; undefined when the server cannot say (old server, no rights). */
export async function pollerCheck(
  client: Client,
  namespace: string,
  taskQueue: string,
): Promise<PollerCheck | undefined> {
  return checkPollers(client, namespace, taskQueue).catch(() => undefined);
}

/**
 * Before starting a run: with `wait`, no worker is an error (nothing is started, exit 1 within seconds); without,
 * a warning on stderr and the run is started for a worker to come.
 */
export async function requireWorker(
  client: Client,
  namespace: string,
  taskQueue: string,
  wait: boolean,
): Promise<void> {
  const check = await pollerCheck(client, namespace, taskQueue);
  if (!check || check.livePollers > 0) return;
  if (wait) throw new Error(`${noWorkerMessage(check)}. Nothing was started.`);
  process.stderr.write(
    `trace-sync: warning: ${noWorkerMessage(check)}; the run waits on the queue until one does.\n`,
  );
}

export interface WaitOptions {
  timeoutSeconds: number;
  taskQueue: string;
  /** Where the progress goes, stderr by default: a bar on a terminal, JSON lines otherwise. */
  out?: ProgressOutput;
  /** Where the result JSON goes: stdout by default. */
  resultOut?: ProgressOutput;
  /** With an S3 store: links to the run files a run's details name (the plan awaiting approval). */
  links?: (details: string) => Promise<StoreLink[]>;
}

/**
 * Once a run awaits approval, says so once with its current details (the plan files, the approve command): a line
 * above the bar on a terminal, a JSON line `{"awaitingApproval": ...}` otherwise; with an S3 store, each plan file
 * with a link to open it (`files`).
 */
function withApprovalNotice(
  sink: ProgressSink,
  out: ProgressOutput,
  handle: WorkflowHandle,
  links: WaitOptions['links'],
): ProgressSink {
  let noticed = false;
  return {
    update(snapshot, now) {
      if (snapshot.phase === 'awaiting approval' && !noticed) {
        noticed = true;
        void handle
          .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
          .then(async (metadata) => {
            const details =
              metadata.currentDetails ?? `Awaiting approval: ${cliCommand('approve', handle.workflowId)}`;
            const files = links ? await links(details).catch(() => []) : [];
            if (out.isTTY) {
              sink.finish();
              out.write(`${details.replace(/\*\*/g, '').replace(/`/g, '')}\n`);
              if (files.length > 0)
                out.write(`Plan files (${linksValidity(new Date(files[0]!.expiresAt))}):\n`);
              for (const file of files) out.write(`  ${file.url}\n    ${file.link}\n`);
            } else {
              const notice = {
                workflowId: handle.workflowId,
                details,
                ...(files.length > 0 ? { files } : {}),
              };
              out.write(`${JSON.stringify({ awaitingApproval: notice })}\n`);
            }
          })
          .catch(() => undefined);
      }
      sink.update(snapshot, now);
    },
    finish: () => sink.finish(),
  };
}

/** How long an activity's retries can still go on, from the retry policy and timeouts the server reports for it. */
export interface RetryLimit {
  /** The attempt after which the activity is failed; 0 when the policy sets no limit. */
  lastAttempt: number;
  /** The waits between the attempts left (the backoff), from now; each attempt's own time adds to them. */
  backoffSeconds?: number;
  /** Each attempt's own limit (start-to-close). */
  attemptTimeoutSeconds?: number;
  /** Schedule-to-close: no attempt goes on past it. */
  deadline?: string;
  /** The same in words, with what Ctrl-C does. */
  text: string;
}

/** What `--wait` says of an activity that is retrying: which call, which attempt, why (one bounded line). */
export interface RetryNotice {
  activity: string;
  attempt: number;
  /** 0 when the retry policy sets no limit. */
  maximumAttempts: number;
  lastFailure: string;
  nextAttemptAt?: string;
  limit: RetryLimit;
}

type PendingActivity = NonNullable<
  Awaited<ReturnType<WorkflowHandle['describe']>>['raw']['pendingActivities']
>[number];

/** `45s`, `5m 2s`, `1h 30m`. */
export function formatSeconds(total: number): string {
  const seconds = Math.max(0, Math.round(total));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${seconds % 60 ? ` ${seconds % 60}s` : ''}`;
  const minutes = Math.round((seconds % 3600) / 60);
  return `${Math.floor(seconds / 3600)}h${minutes ? ` ${minutes}m` : ''}`;
}

/**
 * The most an activity can still retry: its remaining backoff, which is what a down API costs since each attempt then
 * fails fast, and each attempt's own timeout, which a hanging API costs; both capped by schedule-to-close.
 */
export function retryLimit(activity: PendingActivity, nowMs: number): RetryLimit {
  const options = activity.activityOptions;
  const policy = options?.retryPolicy;
  const attempt = activity.attempt ?? 1;
  const lastAttempt = activity.maximumAttempts || policy?.maximumAttempts || 0;
  const deadlineMs = optionalTsToMs(activity.expirationTime);
  const deadline = deadlineMs && deadlineMs > nowMs ? deadlineMs : undefined;
  const attemptMs = optionalTsToMs(options?.startToCloseTimeout);
  let backoffMs: number | undefined;
  const initialMs = optionalTsToMs(policy?.initialInterval);
  if (lastAttempt > 0 && initialMs) {
    const coefficient = policy?.backoffCoefficient || 2;
    const maximumMs = optionalTsToMs(policy?.maximumInterval) || 100 * initialMs;
    const nextMs = optionalTsToMs(activity.nextAttemptScheduleTime);
    backoffMs = nextMs ? Math.max(0, nextMs - nowMs) : 0;
    for (let next = attempt + 1; next <= lastAttempt; next++)
      backoffMs += Math.min(initialMs * coefficient ** (next - 2), maximumMs);
    if (deadline !== undefined) backoffMs = Math.min(backoffMs, deadline - nowMs);
  }
  const until = deadline !== undefined ? new Date(deadline).toISOString() : undefined;
  const words: string[] = [];
  if (lastAttempt > 0) {
    words.push(`It retries up to attempt ${lastAttempt}`);
    if (backoffMs !== undefined)
      words.push(
        `: about ${formatSeconds(backoffMs / 1000)} more of waits between attempts` +
          (attemptMs
            ? `, plus each attempt's own time (at most ${formatSeconds(attemptMs / 1000)} each)`
            : ''),
      );
  } else words.push('It retries with no limit on attempts');
  if (until)
    words.push(`${lastAttempt > 0 ? ',' : ''} and never past ${until} (its schedule-to-close timeout)`);
  words.push(lastAttempt > 0 || until ? ', then it gives up.' : '.');
  words.push(' Ctrl-C stops only this waiting; the run goes on.');
  return {
    lastAttempt,
    ...(backoffMs !== undefined ? { backoffSeconds: Math.round(backoffMs / 1000) } : {}),
    ...(attemptMs ? { attemptTimeoutSeconds: Math.round(attemptMs / 1000) } : {}),
    ...(until ? { deadline: until } : {}),
    text: words.join(''),
  };
}

/** The run's activities on their second attempt or later, with their last failure, from `describe`. */
export async function retryingActivities(handle: WorkflowHandle, nowMs = Date.now()): Promise<RetryNotice[]> {
  const described = await handle.describe();
  return (described.raw.pendingActivities ?? []).flatMap((activity) => {
    const message = activity.lastFailure?.message;
    if ((activity.attempt ?? 0) < 2 || !message) return [];
    const line = message.replace(/\s+/g, ' ').trim();
    const next = activity.nextAttemptScheduleTime?.seconds;
    return [
      {
        activity: activity.activityType?.name ?? 'activity',
        attempt: activity.attempt ?? 0,
        maximumAttempts: activity.maximumAttempts ?? 0,
        lastFailure: line.length > 300 ? `${line.slice(0, 299)}…` : line,
        ...(next ? { nextAttemptAt: new Date(Number(next) * 1000).toISOString() } : {}),
        limit: retryLimit(activity, nowMs),
      },
    ];
  });
}

/**
 * While a run's activity retries (the API down, answering 5xx, or slow), says so once per attempt: which call fails,
 * which attempt of how many, and why, so a stall is not a silent bar; the first time for each call, also how long its
 * retries can go on and that Ctrl-C stops only the waiting. A line above the bar on a terminal, a JSON line
 * `{"retrying": ...}` otherwise (`limit` on the first). Asked every `everyMs` at most (a describe call each).
 */
function withRetryNotice(
  sink: ProgressSink,
  out: ProgressOutput,
  handle: WorkflowHandle,
  everyMs = 3000,
): ProgressSink {
  let lastAsked = -Infinity;
  const said = new Set<string>();
  const limitSaid = new Set<string>();
  return {
    update(snapshot, now) {
      if (now - lastAsked >= everyMs) {
        lastAsked = now;
        void retryingActivities(handle)
          .then((notices) => {
            for (const { limit, ...notice } of notices) {
              const key = `${notice.activity}#${notice.attempt}`;
              if (said.has(key)) continue;
              said.add(key);
              const first = !limitSaid.has(notice.activity);
              limitSaid.add(notice.activity);
              if (out.isTTY) {
                sink.finish();
                const of = notice.maximumAttempts > 0 ? ` of ${notice.maximumAttempts}` : '';
                out.write(
                  `Retrying ${notice.activity} (attempt ${notice.attempt}${of}): ${notice.lastFailure}\n`,
                );
                if (first) out.write(`  ${limit.text}\n`);
              } else {
                out.write(`${JSON.stringify({ retrying: first ? { ...notice, limit } : notice })}\n`);
              }
            }
          })
          .catch(() => undefined);
      }
      sink.update(snapshot, now);
    },
    finish: () => sink.finish(),
  };
}

/** Follows the run's progress until it ends, prints its result JSON and returns it; a failure becomes one line. */
export async function waitAndPrint(handle: WorkflowHandle, options: WaitOptions): Promise<unknown> {
  const out = options.out ?? process.stderr;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StillRunningError(
            `No result after ${options.timeoutSeconds}s: the run ${handle.workflowId} goes on (follow it with \`${cliCommand('watch', handle.workflowId)}\`)`,
          ),
        ),
      options.timeoutSeconds * 1000,
    );
    timer.unref();
  });
  const sink = withRetryNotice(withApprovalNotice(sinkFor(out), out, handle, options.links), out, handle);
  // Ctrl-C stops the waiting, not the run: an operator who believes the import stopped must learn it did not.
  const onInterrupt = () => {
    sink.finish();
    process.stderr.write(
      `trace-sync: stopped waiting; the run ${handle.workflowId} goes on (follow it with \`${cliCommand('watch', handle.workflowId)}\`, stop it with \`${cliCommand('cancel', handle.workflowId)}\`)\n`,
    );
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    const result: unknown = await followProgress({
      query: () => handle.query('progress'),
      ended: Promise.race([handle.result(), timeout]),
      sink,
    });
    (options.resultOut ?? process.stdout).write(`${JSON.stringify(result, null, 2)}\n`);
    return result;
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      const stopped = await stoppedRunError(handle, error);
      if (stopped) throw stopped;
      throw new Error(`Workflow ${handle.workflowId} failed: ${error.cause?.message ?? error.message}`);
    }
    throw error;
  } finally {
    clearTimeout(timer);
    process.removeListener('SIGINT', onInterrupt);
  }
}

type HistoryEvent = NonNullable<
  Awaited<ReturnType<Client['workflowService']['getWorkflowExecutionHistoryReverse']>>['history']
>['events'] extends (infer E)[] | null | undefined
  ? E
  : never;

/** The latest event of the run that `pick` accepts, read from the end of its history (a few pages at most). */
async function latestEvent(handle: WorkflowHandle, pick: (event: HistoryEvent) => boolean) {
  const { workflowService, options } = handle.client;
  let nextPageToken: Uint8Array | undefined;
  for (let page = 0; page < 20; page++) {
    const response = await workflowService.getWorkflowExecutionHistoryReverse({
      namespace: options.namespace,
      execution: { workflowId: handle.workflowId },
      maximumPageSize: 100,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    const found = response.history?.events?.find(pick);
    if (found) return found;
    if (!response.nextPageToken?.length) return undefined;
    nextPageToken = response.nextPageToken;
  }
  return undefined;
}

/**
 * A run someone cancelled or terminated, or that ran past its execution timeout, in the operator's words: who
 * stopped it and why (as Temporal recorded them), that it writes nothing more and what it wrote; undefined for a run
 * that failed on its own. Cancelled and terminated exit 3 (a deliberate stop); timed out exits 1.
 */
async function stoppedRunError(
  handle: WorkflowHandle,
  error: WorkflowFailedError,
): Promise<Error | undefined> {
  const id = handle.workflowId;
  const cause = error.cause;
  if (!(
    cause instanceof CancelledFailure ||
    cause instanceof TerminatedFailure ||
    cause instanceof TimeoutFailure
  ))
    return undefined;
  const described = await handle.describe().catch(() => undefined);
  const memo = (await described?.memo) as Record<string, unknown> | undefined;
  const wrote = wroteBeforeStop(memo);
  const wroteLine = wrote ? ` What it wrote before the stop: ${wrote}.` : '';
  const by = (identity: string | null | undefined, reason: string | null | undefined) =>
    `${identity ? ` by ${identity}` : ''}${reason ? ` (reason: ${reason})` : ''}`;
  if (cause instanceof CancelledFailure) {
    const event = await latestEvent(handle, (e) => !!e.workflowExecutionCancelRequestedEventAttributes).catch(
      () => undefined,
    );
    const asked = event?.workflowExecutionCancelRequestedEventAttributes;
    const atGate = stoppedAtGate(memo);
    if (atGate)
      return new RunStoppedError(
        `Workflow ${id} was cancelled${by(asked?.identity, asked?.cause)} ${atGate}.`,
      );
    return new RunStoppedError(
      `Workflow ${id} was cancelled${by(asked?.identity, asked?.cause)}: it stopped before its next write and writes nothing more.${wroteLine}`,
    );
  }
  if (cause instanceof TerminatedFailure) {
    const event = await latestEvent(handle, (e) => !!e.workflowExecutionTerminatedEventAttributes).catch(
      () => undefined,
    );
    const ended = event?.workflowExecutionTerminatedEventAttributes;
    return new RunStoppedError(
      `Workflow ${id} was terminated${by(ended?.identity, ended?.reason)}: Temporal stopped it at once, wherever it was, and it writes nothing more.${wroteLine}`,
    );
  }
  const limitMs =
    optionalTsToMs(described?.raw.executionConfig?.workflowExecutionTimeout) ||
    optionalTsToMs(described?.raw.executionConfig?.workflowRunTimeout);
  return new Error(
    `Workflow ${id} timed out: it ran past the ${limitMs ? `${formatSeconds(limitMs / 1000)} ` : ''}execution timeout it was started with, and Temporal stopped it; it writes nothing more.${wroteLine}`,
  );
}

const rejectedPlanSchema = z.object({
  approval: z.object({
    decision: z.literal('rejected'),
    by: z.string(),
    reason: z.string().optional(),
    timedOut: z.boolean(),
    // Optional: results of runs from before the outcome carried it.
    timeoutSeconds: z.number().optional(),
  }),
});

/**
 * A completed run whose plan was rejected, or not decided on in time, wrote nothing: its own exit code, so a script
 * need not read `.approval.decision` to tell it from a run that wrote; undefined for any other result.
 */
export function planNotApplied(workflowId: string, result: unknown): PlanNotAppliedError | undefined {
  const parsed = rejectedPlanSchema.safeParse(result);
  if (!parsed.success) return undefined;
  const { by, reason, timedOut, timeoutSeconds } = parsed.data.approval;
  const why = timedOut
    ? `nobody approved or rejected its plan within ${timeoutSeconds !== undefined ? formatSeconds(timeoutSeconds) : 'its approval timeout'}, so it was rejected`
    : `its plan was rejected by ${by}${reason ? ` (reason: ${reason})` : ''}`;
  return new PlanNotAppliedError(`Workflow ${workflowId} completed without writing anything: ${why}.`);
}

/** `trace-sync watch <id>`: a run started anywhere, followed until it ends; returns its result. */
export async function watchHandle(
  client: Client,
  namespace: string,
  handle: WorkflowHandle,
  out: ProgressOutput = process.stderr,
  links?: WaitOptions['links'],
): Promise<unknown> {
  const described = await handle.describe().catch((error: unknown) => {
    throw new Error(
      `No workflow ${handle.workflowId} in namespace ${namespace} (${(error as Error).message})`,
    );
  });
  if (described.status.name === 'RUNNING') {
    const check = await pollerCheck(client, namespace, described.taskQueue);
    if (check && check.livePollers === 0)
      process.stderr.write(
        `trace-sync: warning: ${noWorkerMessage(check)}: the run cannot move until one does.\n`,
      );
  }
  return waitAndPrint(handle, {
    timeoutSeconds: 7 * 24 * 3600,
    taskQueue: described.taskQueue,
    out,
    ...(links ? { links } : {}),
  });
}
