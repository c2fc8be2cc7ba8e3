import { Client, type ConnectionLike } from '@temporalio/client';
import {
  legacyRunKeyOf,
  runKeyOf,
  STAGING_RETENTION_MS,
  sweepStaging,
  type OpenRuns,
  type StagingSweepResult,
} from '../connectors/staging';
import type { ObjectStore } from '../connectors/storage';
import { compactError, type AppLogger } from './logger';

/** How often a worker sweeps: each pass is bounded, so a large store is covered over several hours. */
export const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Every workflow of the namespace still running (any task queue: they may share the store). */
export async function openRuns(connection: ConnectionLike, namespace: string): Promise<OpenRuns> {
  const client = new Client({ connection, namespace });
  const runKeys = new Set<string>();
  const runIds = new Set<string>();
  for await (const execution of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
    runKeys.add(runKeyOf(execution.workflowId));
    runKeys.add(legacyRunKeyOf(execution.workflowId));
    runKeys.add(execution.workflowId.replace(/[^A-Za-z0-9._-]/g, '_'));
    runIds.add(execution.runId);
  }
  return { runKeys, runIds };
}

export interface StagingSweeps {
  /** One pass now (the next resumes where it stopped); null when the open runs could not be read. */
  pass(now?: number): Promise<StagingSweepResult | null>;
  stop(): Promise<void>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Sweeps the staged data of ended runs out of the run-data store: a pass at start, then one every `everyMs`. A pass
 * whose open runs cannot be read from Temporal removes nothing.
 */
export function startStagingSweeps(options: {
  store: ObjectStore;
  openRuns: () => Promise<OpenRuns>;
  logger: AppLogger;
  /** TRACE_STAGING_RETENTION_DAYS; 7 days by default. */
  retentionDays?: number;
  everyMs?: number;
}): StagingSweeps {
  const { store, logger } = options;
  const retentionMs =
    options.retentionDays !== undefined ? options.retentionDays * DAY_MS : STAGING_RETENTION_MS;
  const retentionDays = retentionMs / DAY_MS;
  logger.info(
    { store: store.url, retentionDays },
    `Staging sweep: the staged data of ended runs is removed ${retentionDays} days after it was written (TRACE_STAGING_RETENTION_DAYS)`,
  );
  let cursor: string | undefined;
  let running: Promise<StagingSweepResult | null> = Promise.resolve(null);
  let stopped = false;

  const once = async (now: number): Promise<StagingSweepResult | null> => {
    let open: OpenRuns;
    try {
      open = await options.openRuns();
    } catch (error) {
      logger.warn(
        { err: compactError(error) },
        'Staging sweep skipped: cannot list the open runs in Temporal',
      );
      return null;
    }
    try {
      const result = await sweepStaging({ store, now, open, retentionMs, startAfter: cursor });
      cursor = result.next;
      if (result.removed > 0 || result.keptOpen > 0)
        logger.info({ store: store.url, ...result }, 'Staged data of ended runs swept');
      return result;
    } catch (error) {
      logger.warn(
        { store: store.url, err: compactError(error) },
        'Staging sweep failed; it runs again later',
      );
      return null;
    }
  };

  const pass = (now = Date.now()): Promise<StagingSweepResult | null> => {
    running = running.then(() => (stopped ? null : once(now)));
    return running;
  };

  void pass();
  const timer = setInterval(() => void pass(), options.everyMs ?? SWEEP_EVERY_MS);
  timer.unref();
  return {
    pass,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
