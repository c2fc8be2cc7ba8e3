import { heartbeat } from '@temporalio/activity';

/** Progress details a job reports while it works (the latest is heartbeated). */
export type Progress = (details: Record<string, unknown>) => void;

/**
 * Heartbeats every few seconds while `work` runs, with the latest details, so a killed worker is noticed within the
 * heartbeat timeout and a slow but live attempt (one waiting out a long Retry-After, say) is not mistaken for a dead
 * one and retried while it still writes.
 */
export async function withHeartbeats<T>(work: (progress: Progress) => Promise<T>, everyMs = 3000): Promise<T> {
  let details: Record<string, unknown> = {};
  const timer = setInterval(() => heartbeat(details), everyMs);
  try {
    heartbeat(details);
    return await work((next) => {
      details = next;
    });
  } finally {
    clearInterval(timer);
  }
}
