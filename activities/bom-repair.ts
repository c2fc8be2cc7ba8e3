import { join } from 'node:path';
import { log } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  markNameSchema,
  productSelectorSchema,
  type ProductSelector,
} from '../connectors/bom-repair/job-input';
import { hasFindings, repairProductBoms } from '../connectors/bom-repair/repair';
import { RepairReadCache } from '../connectors/bom-repair/repair-plan';
import { repairCandidateSchema, type RepairCandidate } from '../connectors/bom-repair/repair-schemas';
import { bomRepairRun, type BomRepairEntry, type LineWrite } from '../connectors/bom-repair/journal';
import { listBatchResults } from '../connectors/bom-repair/batch-listing';
import type { ListedProductResult } from '../connectors/bom-repair/listing';
import { ForkSnapshotStore } from '../connectors/bom-repair/fork-snapshots';
import { RepairRecordStore } from '../connectors/bom-repair/repair-records';
import {
  safeBomWrite,
  type SafeBomWriteInput,
  type SafeBomWriteResult,
} from '../connectors/bom-repair/safe-write';
import {
  bomMarkFile,
  CorruptBomMarkError,
  nextBomMark,
  readBomMark,
  scanRepairCandidates,
  storeBomMark,
  ScanReport,
} from '../connectors/bom-repair/scan';
import {
  readStoredJson,
  stagingRefSchema,
  storeJson,
  type OutcomeOf,
  type StagingRef,
} from '../connectors/staging';
import {
  RETRY_NOTE,
  retryFolder,
  retryNoteSchema,
  retryProductIds,
  unsettledReason,
  updateRetryEntry,
} from '../connectors/bom-repair/retry-list';
import { storedLocation } from '../connectors/storage';
import { isTraceabilityApiError } from '../connectors/traceability';
import {
  failureMapper,
  guarded,
  invalidInput,
  nonRetryable,
  toActivityFailure,
  withHeartbeats,
} from './batch-kit';
import type { ActivityDeps } from './deps';

const runKeySchema = z.string().regex(/^[A-Za-z0-9._-]+$/);
const stageInputSchema = z.object({ selector: productSelectorSchema, runKey: runKeySchema });
const batchInputSchema = z.object({
  runKey: runKeySchema,
  candidates: stagingRefSchema,
  offset: z.number().int().min(0),
  limit: z.number().int().min(1).max(500),
  dryRun: z.boolean(),
  sourceNames: z.record(z.string(), z.string()),
  acceptCurrentSource: z.boolean().default(false),
});
const storeMarkInputSchema = z.object({
  markName: markNameSchema,
  sinceMs: z.number().int().nonnegative(),
});
/** Line values are checked by the client against the API's write schema before any call. */
const lineValuesSchema = z.record(z.string(), z.unknown());
const safeWriteInputSchema = z.object({
  entityStyleId: z.string().min(1),
  bomHeaderId: z.string().min(1),
  edit: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('replace'), lineId: z.string().min(1), values: lineValuesSchema }),
    z.object({ kind: z.literal('create'), values: lineValuesSchema }),
    z.object({ kind: z.literal('delete'), lineIds: z.array(z.string().min(1)).min(1).max(100) }),
  ]),
  linkWait: z
    .object({
      initialDelayMs: z.number().positive(),
      maxDelayMs: z.number().positive(),
      timeoutMs: z.number().positive(),
      factor: z.number().min(1),
    })
    .partial()
    .optional(),
});

export interface StagedBomRepairCandidates extends ScanReport {
  /** NDJSON of `RepairCandidate`: products owning BOM headers (only they can hold a fork). */
  candidates: StagingRef;
  /** `sinceLastRun` only: the mark this scan used and the one to store once the run has finished. */
  highWaterMark?: { file: string; fromMs: number; nextMs: number };
}

export interface BomRepairBatchResult {
  processed: number;
  /**
   * Products with a fork or a problem; products with nothing to report are only counted. A payload: at most 100 lines
   * a product and 1,000 in all are listed, the counts are whole (see connectors/bom-repair/batch-listing.ts).
   */
  results: ListedProductResult[];
}

const NOT_FOUND_LISTED = 100;

/**
 * Products of a batch repaired at once (more where the key's allowance over the round trips asks for more, see
 * `TraceabilityClient.lanes`). Each product is a few calls in turn (its lines, its ancestors' headers, a PUT per
 * copied line, a re-read), so one at a time an API 100 ms away held the job to about a product a second whatever
 * the allowance. Products of one tree share only reads (`RepairReadCache` holds each ancestor's once); each
 * writes its own fork's lines.
 */
export const PRODUCT_LANES = 8;

const mapFailure = failureMapper(invalidInput, (error) =>
  error instanceof CorruptBomMarkError ? nonRetryable(error, 'CorruptHighWaterMark') : undefined,
);

/**
 * In a `sinceLastRun` run that is not a dry run (its scan left a note naming the mark), each product of the batch
 * is kept on the mark's to-retry list while its result leaves something unsettled, and dropped once nothing is.
 */
async function keepUnsettled(
  run: ReturnType<typeof bomRepairRun>,
  dryRun: boolean,
  order: readonly string[],
  outcomes: ReadonlyMap<string, OutcomeOf<BomRepairEntry>>,
): Promise<void> {
  if (dryRun) return;
  const note = await readStoredJson(run.file(RETRY_NOTE), retryNoteSchema);
  if (!note) return;
  const folder = retryFolder(run.dataDir, note.markName);
  const listed = new Set(note.listed);
  for (const id of order) {
    const outcome = outcomes.get(id);
    if (!outcome) continue;
    const reason = unsettledReason(outcome.result);
    if (reason === null && !listed.has(id)) continue;
    const externalId = outcome.result?.externalId ?? null;
    await updateRetryEntry(folder, { productId: id, externalId }, reason);
  }
}

export function createBomRepairActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  const { dataDir } = deps.config;
  const snapshots = new ForkSnapshotStore(join(dataDir, 'bom-repair', 'fork-snapshots'));
  const repairs = new RepairRecordStore(join(dataDir, 'bom-repair', 'repaired-lines'));

  return {
    /** Lists the selected products (pages of 100, `include=bom`) and stages those owning a BOM header. */
    stageBomRepairCandidates: guarded(
      mapFailure,
      async (raw: { selector: ProductSelector; runKey: string }): Promise<StagedBomRepairCandidates> => {
        const input = stageInputSchema.parse(raw);
        const run = bomRepairRun(dataDir, input.runKey);
        const report = new ScanReport();
        const scanStartedMs = Date.now();
        let highWaterMark: StagedBomRepairCandidates['highWaterMark'];
        if (input.selector.kind === 'sinceLastRun') {
          const file = bomMarkFile(dataDir, input.selector.markName);
          const fromMs = await readBomMark(file);
          // Named where it is kept: on S3 its s3:// location, not this worker's path.
          highWaterMark = { file: storedLocation(file), fromMs, nextMs: nextBomMark(fromMs, scanStartedMs) };
        }
        // A sinceLastRun run also looks again at the products earlier runs of its mark left unsettled.
        const retry =
          input.selector.kind === 'sinceLastRun' ? retryFolder(dataDir, input.selector.markName) : undefined;
        const retryIds = new Set(retry ? await retryProductIds(retry) : []);
        const filter = highWaterMark
          ? { headersChangedSinceMs: highWaterMark.fromMs, retryProductIds: retryIds }
          : {};
        const staged = new Set<string>();
        const ref = await withHeartbeats(async (progress) => {
          const candidates = (async function* () {
            let count = 0;
            for await (const candidate of scanRepairCandidates(deps.client, input.selector, report, filter)) {
              staged.add(candidate.id);
              progress({ candidates: ++count, scanned: report.scanned });
              yield candidate;
            }
          })();
          return run.staging.putNdjson(run.key('candidates.ndjson'), candidates);
        });
        // A listing that kept shifting may have hidden products with forks since the mark: the mark stays put.
        if (highWaterMark && report.listingsMoved.length > 0) highWaterMark.nextMs = highWaterMark.fromMs;
        if (retry && input.selector.kind === 'sinceLastRun') {
          // A kept product that owns no BOM header now (or is gone) has nothing left to repair.
          for (const id of retryIds)
            if (!staged.has(id)) await updateRetryEntry(retry, { productId: id, externalId: null }, null);
          const listed = [...retryIds].filter((id) => staged.has(id));
          await storeJson(run.file(RETRY_NOTE), { markName: input.selector.markName, listed });
        }
        log.info('BOM repair candidates staged', {
          retried: retryIds.size,
          scanned: report.scanned,
          candidates: ref.items,
          notFound: report.notFound.length,
          headerReads: report.headerReads,
          listingsMoved: report.listingsMoved,
        });
        return {
          ...report,
          candidates: ref,
          notFound: report.notFound.slice(0, NOT_FOUND_LISTED),
          ...(highWaterMark ? { highWaterMark } : {}),
        };
      },
    ),

    /**
     * Repairs (or, dry, plans) the forks of candidates [offset, offset + limit). Each product's findings are
     * journalled as it settles, so a retry resumes after the last settled product and keeps their findings (a
     * repaired line no longer looks broken, so a rerun from scratch would not report it). A cancel stops it before
     * its next product; the cancellation carries what the settled ones did (a BomRepairBatchResult).
     */
    repairBomBatch: guarded(
      mapFailure,
      async (raw: z.input<typeof batchInputSchema>): Promise<BomRepairBatchResult> => {
        const input = batchInputSchema.parse(raw);
        const run = bomRepairRun(dataDir, input.runKey);
        const journal = run.journal(Math.floor(input.offset / input.limit));
        const { done, pending: writes } = await journal.resume();
        const pending: RepairCandidate[] = [];
        const order: string[] = [];
        let index = 0;
        for await (const candidate of run.staging.readNdjson(input.candidates, repairCandidateSchema)) {
          if (index >= input.offset + input.limit) break;
          if (index >= input.offset) {
            order.push(candidate.id);
            if (!done.has(candidate.id)) pending.push(candidate);
          }
          index += 1;
        }
        const cache = new RepairReadCache(deps.client);
        const options = { ...input, snapshots, repairs };
        const batch = Math.floor(input.offset / input.limit);
        // (Listed in the candidates' order, not the order their lanes finished in.)
        const resultOf = async (
          outcomes: ReadonlyMap<string, OutcomeOf<BomRepairEntry>>,
        ): Promise<BomRepairBatchResult> => {
          const results = order.flatMap((id) => {
            const result = outcomes.get(id)?.result;
            return result ? [result] : [];
          });
          await keepUnsettled(run, input.dryRun, order, outcomes);
          return { processed: outcomes.size, results: await listBatchResults(run, batch, results) };
        };
        try {
          const outcomes = await withHeartbeats((progress, stop) =>
            journal.settleAll(
              done,
              pending,
              () => deps.client.lanes(PRODUCT_LANES),
              async (candidate) => {
                // Lines an earlier attempt wrote no longer look broken: they are reported and verified from the
                // journal, where each line repair is written before its PUT.
                const written = [...writes.values()].filter((write) => write.productId === candidate.id);
                const beforeWrite = (write: LineWrite) => journal.append(write);
                const result = await repairProductBoms(
                  deps.client,
                  candidate,
                  { ...options, written, beforeWrite },
                  cache,
                );
                return {
                  kind: 'outcome',
                  productId: candidate.id,
                  result: hasFindings(result) ? result : null,
                };
              },
              (settled) => progress({ settled }),
              stop,
            ),
          );
          return await resultOf(outcomes);
        } catch (error) {
          if (!(error instanceof CancelledFailure)) throw error;
          // Cancelled: no further product was begun; what the ones settled did travels with the cancellation.
          throw new CancelledFailure(error.message, [await resultOf((await journal.state()).done)]);
        }
      },
    ),

    /** Stores the `sinceLastRun` mark once a run has finished (never moved back). */
    async storeBomRepairMark(
      raw: z.input<typeof storeMarkInputSchema>,
    ): Promise<{ file: string; sinceMs: number }> {
      const input = storeMarkInputSchema.parse(raw);
      const file = bomMarkFile(dataDir, input.markName);
      const previous = await readBomMark(file).catch((error: unknown) => {
        if (error instanceof CorruptBomMarkError) return 0; // an unreadable mark is replaced by the newer one
        throw error;
      });
      const sinceMs = Math.max(previous, input.sinceMs);
      await storeBomMark(file, sinceMs);
      return { file, sinceMs };
    },

    /** Drops one run's staged candidates and journals (its `lines/` files, named in the result, stay). */
    async discardBomRepairStaging(input: { runKey: string }): Promise<void> {
      const run = bomRepairRun(dataDir, runKeySchema.parse(input.runKey));
      await run.staging.remove(run.key('candidates.ndjson'));
      await run.staging.remove(run.key('journal'));
      await run.staging.remove(run.key(RETRY_NOTE));
    },

    /** The connectors' own BOM edit through a product: forks are repaired from a snapshot (see `safeBomWrite`). */
    async safeWriteBomLine(raw: SafeBomWriteInput): Promise<SafeBomWriteResult> {
      const input = safeWriteInputSchema.parse(raw) as SafeBomWriteInput;
      try {
        return await safeBomWrite(deps.client, input, snapshots);
      } catch (error) {
        // A write that may have landed must not run again from the top: its snapshot would be of the wrong BOM.
        if (isTraceabilityApiError(error) && error.maybeCommitted) {
          throw ApplicationFailure.nonRetryable(
            `${error.message}; the BOM edit through ${input.entityStyleId} may have been applied: check it and run bom-repair --product ${input.entityStyleId}`,
            'BomWriteMaybeCommitted',
          );
        }
        throw toActivityFailure(error);
      }
    },
  };
}
