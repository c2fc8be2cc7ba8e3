import { activityInfo } from '@temporalio/activity';
import { withHeartbeats, type ApiCalls } from '../batch-kit';
import type { PersonDirectory } from './persons';
import { syncOrder, type OrderSyncContext } from './sync-order';
import {
  batchRecordSchema,
  runManifestSchema,
  type ApplyBatchInput,
  type BatchRecord,
  type BatchResult,
  type OrderOutcome,
  type OrderRun,
  outcomeKey,
} from './types';

/** Orders in flight at once within a batch; the client paces and bounds the requests themselves. */
const ORDER_CONCURRENCY = 4;
/**
 * Heartbeats go out on a timer, not only per order: one order may wait out a long Retry-After, and a batch that
 * stopped heartbeating would be retried while this attempt still writes.
 */
const HEARTBEAT_EVERY_MS = 5_000;

export function summarise(
  batch: number,
  outcomes: readonly OrderOutcome[],
  apiCalls: number,
  durationMs: number,
): BatchResult {
  const result: BatchResult = {
    batch,
    counts: { created: 0, patched: 0, unchanged: 0, rejected: 0 },
    lines: { created: 0, updated: 0, deleted: 0 },
    recoveries: { lostAnswer: 0, numberTaken: 0, resumed: 0 },
    apiCalls,
    durationMs,
  };
  for (const outcome of outcomes) {
    result.counts[outcome.outcome] += 1;
    if (outcome.lines) {
      result.lines.created += outcome.lines.created;
      result.lines.updated += outcome.lines.updated;
      result.lines.deleted += outcome.lines.deleted;
    }
    if (outcome.recovered === 'lost_answer') result.recoveries.lostAnswer += 1;
    if (outcome.recovered === 'number_taken') result.recoveries.numberTaken += 1;
    if (outcome.recovered === 'resumed') result.recoveries.resumed += 1;
  }
  return result;
}

/**
 * Plans and applies one staged batch. Each order's outcome is journalled as it settles; a retried attempt skips
 * settled orders, re-reads the rest before any write, and treats a journalled write without outcome as its own.
 */
export async function applyBatch(
  input: ApplyBatchInput,
  run: OrderRun,
  api: ApiCalls,
  persons: PersonDirectory,
): Promise<BatchResult> {
  const started = Date.now();
  const { manifest, entry: ref } = await run.stagedBatch(input.manifest, runManifestSchema, input.batch);
  const records = await run.staging.readAllNdjson(ref, batchRecordSchema);

  const log = run.journal(input.batch);
  const { done, pending } = await log.resume();
  const retry = activityInfo().attempt > 1;
  const context: OrderSyncContext = {
    api,
    log,
    complete: manifest.complete,
    dryRun: input.dryRun,
    resolvedStyleIds: new Map(Object.entries(manifest.resolvedStyleIds)),
    unresolvedRefs: new Set(manifest.unresolvedRefs),
    archivedRefs: new Set(manifest.archivedRefs),
    allowTracedLineRemoval: manifest.allowTracedLineRemoval,
    persons,
  };
  // Journals written before entries carried the order type key by number alone.
  const journalled = <T>(map: ReadonlyMap<string, T>, record: BatchRecord): T | undefined =>
    map.get(outcomeKey(record.draft)) ?? map.get(outcomeKey({ orderNumber: record.draft.orderNumber }));
  const todo = records.filter((record) => journalled(done, record) === undefined);
  const outcomes = await withHeartbeats(
    (progress) =>
      log.settleAll(
        done,
        todo,
        ORDER_CONCURRENCY,
        (record) => {
          const waiting = journalled(pending, record);
          return syncOrder(record, context, { retry, ...(waiting ? { pending: waiting } : {}) });
        },
        (settled) => progress({ batch: input.batch, settled, of: records.length }),
      ),
    HEARTBEAT_EVERY_MS,
  );
  return summarise(input.batch, [...outcomes.values()], api.count, Date.now() - started);
}
