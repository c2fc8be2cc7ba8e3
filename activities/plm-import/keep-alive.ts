import { heartbeat } from '@temporalio/activity';

/**
 * Heartbeats every few seconds while `work` runs, with the latest details, so a killed worker is noticed within the
 * heartbeat timeout and a slow but live attempt is not mistaken for a dead one.
 */
export async function withHeartbeats<T>(
  work: (progress: (details: Record<string, unknown>) => void) => Promise<T>,
  everyMs = 3000,
): Promise<T> {
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
