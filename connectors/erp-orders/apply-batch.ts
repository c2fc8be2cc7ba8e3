/** The push run's middle step: apply one staged batch, journalled and safe to run again. */

import { z } from 'zod';
import { stagedBatchInputSchema, type ApiCalls, type Progress } from '../staging';
import { learnedPersonsFile, restoreLearnedPersons, storeLearnedPersons } from './persons-store';
import type { PersonDirectory } from './persons';
import {
  batchRecordSchema,
  outcomeKey,
  runManifestSchema,
  summarise,
  type BatchRecord,
  type BatchResult,
  type OrderRun,
} from './push-run';
import { syncOrder, type OrderSyncContext } from './sync-order';

export const applyBatchInputSchema = stagedBatchInputSchema.extend({ dryRun: z.boolean() });
export type ApplyBatchInput = z.infer<typeof applyBatchInputSchema>;

/**
 * Orders in flight at once within a batch, more where the key's allowance over the round trips asks for more
 * (`ApiCalls.lanes`); the client paces and bounds the requests themselves.
 */
const ORDER_CONCURRENCY = 4;

/**
 * Plans and applies one staged batch. Each order's outcome is journalled as it settles; a retried attempt skips
 * settled orders, re-reads the rest before any write, and treats a journalled write without outcome as its own.
 */
export async function applyBatch(
  input: ApplyBatchInput,
  run: OrderRun,
  api: ApiCalls,
  persons: PersonDirectory,
  /**
   * `retry`: this attempt follows a failed one (the snapshot may predate our own writes). `stop`: once aborted (the
   * run is cancelled) no further order is begun; those under way finish (a renumbering's two requests are never
   * split) and are journalled, then its reason is thrown.
   */
  { retry, progress, stop }: { retry: boolean; progress: Progress; stop?: AbortSignal },
): Promise<BatchResult> {
  const started = Date.now();
  const { manifest, entry: ref } = await run.stagedBatch(input.manifest, runManifestSchema, input.batch);
  const records = await run.staging.readAllNdjson(ref, batchRecordSchema);
  const company = manifest.ownCompanyId;
  const personsFile = company === undefined ? undefined : learnedPersonsFile(run.dataDir, company);
  if (company !== undefined && personsFile) await restoreLearnedPersons(personsFile, company, persons);
  persons.seed(manifest.responsiblePersonIds);

  const log = run.journal(input.batch);
  const { done, pending } = await log.resume();
  const context: OrderSyncContext = {
    api,
    log,
    complete: manifest.complete,
    dryRun: input.dryRun,
    resolvedStyleIds: new Map(Object.entries(manifest.resolvedStyleIds)),
    unresolvedRefs: new Set(manifest.unresolvedRefs),
    archivedRefs: new Set(manifest.archivedRefs),
    allowTracedLineRemoval: manifest.allowTracedLineRemoval,
    unarchive: manifest.unarchive,
    persons,
    ownCompanyId: company,
    ...(manifest.planWords ? { words: manifest.planWords } : {}),
  };
  // Journals written before entries carried the order type key by number alone.
  const journalled = <T>(map: ReadonlyMap<string, T>, record: BatchRecord): T | undefined =>
    map.get(outcomeKey(record.draft)) ?? map.get(outcomeKey({ orderNumber: record.draft.orderNumber }));
  const todo = records.filter((record) => journalled(done, record) === undefined);
  // What the writes taught is kept even when the batch fails part way: those writes were made.
  const keepLearned = async () => {
    if (company !== undefined && personsFile) await storeLearnedPersons(personsFile, company, persons);
  };
  const outcomes = await log
    .settleAll(
      done,
      todo,
      api.lanes(ORDER_CONCURRENCY),
      (record) => {
        const waiting = journalled(pending, record);
        return syncOrder(record, context, { retry, ...(waiting ? { pending: waiting } : {}) });
      },
      (settled) => progress({ batch: input.batch, settled, of: records.length }),
      stop,
    )
    .catch(async (error: unknown) => {
      await keepLearned().catch(() => undefined);
      throw error;
    });
  await keepLearned();
  return summarise(input.batch, [...outcomes.values()], api.count, Date.now() - started);
}
