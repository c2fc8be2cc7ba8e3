import type { Client } from '@temporalio/client';

/**
 * Does any worker poll the task queue? Asked of Temporal (DescribeTaskQueue) before the CLI waits, so a typo in
 * TRACE_TASK_QUEUE or a stopped worker is said at once instead of an hour of silence.
 */

// temporal.api.enums.v1 values (TaskQueueType WORKFLOW/ACTIVITY, TaskQueueKind NORMAL): @temporalio/proto is not a
// direct dependency.
const TASK_QUEUE_TYPE_WORKFLOW = 1;
const TASK_QUEUE_TYPE_ACTIVITY = 2;
const TASK_QUEUE_KIND_NORMAL = 1;

/** A live worker polls again at least every minute (long polls); a poller older than this has gone. */
export const POLLER_STALE_MS = 90_000;

export interface PollerCheck {
  taskQueue: string;
  /** Pollers seen within POLLER_STALE_MS. */
  livePollers: number;
  /** When the most recent poller was last seen (a worker that stopped a while ago), if any. */
  lastSeen: Date | undefined;
}

export async function checkPollers(
  client: Client,
  namespace: string,
  taskQueue: string,
  now = Date.now(),
): Promise<PollerCheck> {
  let live = 0;
  let lastSeen: Date | undefined;
  for (const type of [TASK_QUEUE_TYPE_WORKFLOW, TASK_QUEUE_TYPE_ACTIVITY]) {
    const response = await client.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
      taskQueueType: type,
    });
    for (const poller of response.pollers ?? []) {
      const seconds = poller.lastAccessTime?.seconds;
      const at =
        seconds === undefined || seconds === null
          ? undefined
          : new Date(Number(seconds) * 1000 + Math.floor((poller.lastAccessTime?.nanos ?? 0) / 1e6));
      if (at && (!lastSeen || at > lastSeen)) lastSeen = at;
      if (at && now - at.getTime() <= POLLER_STALE_MS) live++;
    }
  }
  return { taskQueue, livePollers: live, lastSeen };
}

/** One line naming the queue and where its name comes from, and what to do. */
export function noWorkerMessage(check: PollerCheck, now = Date.now()): string {
  const since = check.lastSeen
    ? `; the last one polled ${Math.round((now - check.lastSeen.getTime()) / 1000)}s ago`
    : '';
  return (
    `No worker polls task queue "${check.taskQueue}" (TRACE_TASK_QUEUE=${process.env.TRACE_TASK_QUEUE?.trim() || '(unset: default trace-connectors)'})${since}: ` +
    'start one (`npm start` or `npx trace-sync worker`) with the same TRACE_TASK_QUEUE and TEMPORAL_NAMESPACE'
  );
}
