import type { WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';

type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;
type PendingWorkflowTask = temporal.api.workflow.v1.IPendingWorkflowTaskInfo;

const ACTIVITY_STATES: Record<number, string> = {
  [temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED]: 'scheduled',
  [temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED]: 'started',
  [temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED]: 'cancel requested',
  [temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_PAUSED]: 'paused',
  [temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_PAUSE_REQUESTED]: 'pause requested',
};

const ago = (ms: number | undefined, now: number): string =>
  ms === undefined ? 'never' : `${Math.round((now - ms) / 100) / 10} s ago`;

/** `1234@host` (the SDK's default worker identity) is process 1234: says so when that process was SIGKILLed. */
function workerOf(identity: string | null | undefined, killedPids: readonly number[]): string {
  if (!identity) return 'no worker yet';
  const pid = Number(identity.split('@')[0]);
  return killedPids.includes(pid) ? `worker ${identity} (SIGKILLed)` : `worker ${identity}`;
}

/**
 * One pending activity as the deadline report shows it: what it is, where it stands (attempt, state, which worker
 * took it and whether that worker was killed, its last heartbeat) and why it is not done (its last failure, or
 * when the next attempt is due).
 */
export function describePendingActivity(
  activity: PendingActivity,
  killedPids: readonly number[],
  now: number,
): string {
  const name = activity.activityType?.name ?? '(unknown activity)';
  const state = ACTIVITY_STATES[activity.state ?? 0] ?? `state ${activity.state ?? '?'}`;
  const of = activity.maximumAttempts ? ` of ${activity.maximumAttempts}` : '';
  const parts = [
    `${name} (activity ${activity.activityId ?? '?'}): ${state}, attempt ${activity.attempt ?? '?'}${of}`,
    `scheduled ${ago(optionalTsToMs(activity.scheduledTime), now)}`,
    `last started ${ago(optionalTsToMs(activity.lastStartedTime), now)} on ${workerOf(activity.lastWorkerIdentity, killedPids)}`,
    `last heartbeat ${ago(optionalTsToMs(activity.lastHeartbeatTime), now)}`,
  ];
  const next = optionalTsToMs(activity.nextAttemptScheduleTime);
  if (next !== undefined) parts.push(`next attempt in ${Math.round((next - now) / 100) / 10} s`);
  parts.push(`last failure: ${activity.lastFailure?.message ?? 'none'}`);
  return parts.join(', ');
}

function describeWorkflowTask(task: PendingWorkflowTask, now: number): string {
  const started = optionalTsToMs(task.startedTime);
  return (
    `workflow task attempt ${task.attempt ?? '?'}, scheduled ${ago(optionalTsToMs(task.scheduledTime), now)}` +
    (started === undefined ? ', not started' : `, started ${ago(started, now)}`)
  );
}

const progressSchema = z.object({ phase: z.string() }).passthrough();

/**
 * Where each job stands, for the message of a run that missed its deadline: the workflow's status, its `progress`
 * query (when a worker answers it), its pending workflow task and each pending activity (see
 * describePendingActivity). Each question is bounded (a stalled run may have no worker to answer a query).
 */
export async function whereJobsWait(
  jobs: Record<string, WorkflowHandle>,
  killedPids: readonly number[],
): Promise<string[]> {
  const lines: string[] = [];
  for (const [name, handle] of Object.entries(jobs)) {
    // gRPC deadlines, not races: each call ends by itself, none is left running when the connection closes.
    const [description, progress] = await Promise.all([
      handle.client.withDeadline(Date.now() + 10_000, () => handle.describe()).catch(() => undefined),
      handle.client
        .withDeadline(Date.now() + 5_000, () => handle.query('progress'))
        .then((answer) => progressSchema.parse(answer))
        .catch(() => undefined),
    ]);
    const now = Date.now();
    if (!description) {
      lines.push(`${name} (${handle.workflowId}): no description within 10 s`);
      continue;
    }
    const { phase, ...counters } = progress ?? { phase: undefined };
    lines.push(
      `${name} (${handle.workflowId}, run ${description.runId}): ${description.status.name}, ` +
        (phase === undefined ? 'progress query unanswered' : `phase "${phase}" ${JSON.stringify(counters)}`) +
        `, ${description.historyLength} events`,
    );
    const { pendingActivities, pendingWorkflowTask } = description.raw;
    if (pendingWorkflowTask) lines.push(`  ${describeWorkflowTask(pendingWorkflowTask, now)}`);
    for (const activity of pendingActivities ?? [])
      lines.push(`  ${describePendingActivity(activity, killedPids, now)}`);
    if (description.status.name === 'RUNNING' && !pendingWorkflowTask && !pendingActivities?.length)
      lines.push('  nothing pending (a timer, or a workflow waiting on a signal)');
  }
  return lines;
}

/** One activity of a job that needed more than one attempt (a kill, a timeout, a failure), from the history. */
export interface RetriedActivity {
  activity: string;
  /** The attempt that completed (or closed the activity otherwise). */
  attempts: number;
  /** From scheduled to closed: what the retries cost the job. */
  seconds: number;
  /** The failure of the attempt before the last (`activity Heartbeat timeout` after a kill). */
  lastFailure: string;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * The activities of a job's runs (continue-as-new followed from `firstRunId`) that took more than one attempt: their
 * attempt count, what they cost from scheduled to closed, and why the attempt before the last failed. Temporal keeps
 * the retries of an activity out of the history; its ActivityTaskStarted (written when the activity closes) carries
 * the final attempt and the previous attempt's failure.
 */
export async function retriedActivities(
  handleOf: (runId: string) => WorkflowHandle,
  firstRunId: string,
): Promise<RetriedActivity[]> {
  const retried: RetriedActivity[] = [];
  let runId: string | undefined = firstRunId;
  for (let runs = 0; runId !== undefined && runs < 100; runs += 1) {
    const history = await handleOf(runId).fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    const byId = new Map<string, HistoryEvent>();
    for (const event of events) if (event.eventId != null) byId.set(String(event.eventId), event);
    for (const event of events) {
      const started = event.activityTaskStartedEventAttributes;
      if (!started || (started.attempt ?? 1) <= 1) continue;
      const scheduled = byId.get(String(started.scheduledEventId));
      const closed = events.find((later) => {
        const attributes =
          later.activityTaskCompletedEventAttributes ??
          later.activityTaskFailedEventAttributes ??
          later.activityTaskTimedOutEventAttributes ??
          later.activityTaskCanceledEventAttributes;
        return attributes != null && String(attributes.scheduledEventId) === String(started.scheduledEventId);
      });
      const from = optionalTsToMs(scheduled?.eventTime);
      const to = optionalTsToMs(closed?.eventTime);
      retried.push({
        activity: scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? '(unknown)',
        attempts: started.attempt ?? 0,
        seconds: from !== undefined && to !== undefined ? Math.round((to - from) / 100) / 10 : NaN,
        lastFailure: started.lastFailure?.message ?? 'none',
      });
    }
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return retried;
}
