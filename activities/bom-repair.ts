import { join } from 'node:path';
import { activityInfo, heartbeat, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  bomMarkFile,
  CorruptBomMarkError,
  emptyScanReport,
  ForkSnapshotStore,
  hasFindings,
  nextBomMark,
  readBomMark,
  storeBomMark,
  productSelectorSchema,
  repairProductBoms,
  RepairReadCache,
  safeBomWrite,
  scanRepairCandidates,
  type ProductRepairResult,
  type ProductSelector,
  type RepairCandidate,
  type SafeBomWriteInput,
  type SafeBomWriteResult,
  type ScanReport,
} from '../connectors/bom-repair';
import { StagingStore, stagingRefSchema, type StagingRef } from '../connectors/staging';
import { isTraceabilityApiError } from '../connectors/traceability';
import { guarded, toActivityFailure } from './batch-kit';
import type { ActivityDeps } from './deps';

const repairCandidateSchema: z.ZodType<RepairCandidate> = z.object({
  id: z.string().min(1),
  externalId: z.string().nullable(),
  styleId: z.string().nullish(),
  variantId: z.string().nullish(),
  ownedHeaders: z.array(
    z.object({ id: z.string().min(1), name: z.string(), createdAt: z.string().nullish() }),
  ),
});

const stageInputSchema = z.object({
  selector: productSelectorSchema,
  runKey: z.string().regex(/^[A-Za-z0-9._-]+$/),
});
const batchInputSchema = z.object({
  candidates: stagingRefSchema,
  offset: z.number().int().min(0),
  limit: z.number().int().min(1).max(500),
  dryRun: z.boolean(),
  sourceNames: z.record(z.string(), z.string()),
  acceptCurrentSource: z.boolean().default(false),
});
const storeMarkInputSchema = z.object({
  markName: z.string().regex(/^[A-Za-z0-9._-]{1,80}$/),
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
const batchProgressSchema = z.object({
  done: z.number().int().min(0),
  results: z.array(z.custom<ProductRepairResult>()),
});

export interface StagedBomRepairCandidates extends ScanReport {
  /** NDJSON of `RepairCandidate`: products owning BOM headers (only they can hold a fork). */
  candidates: StagingRef;
  /** `sinceLastRun` only: the mark this scan used and the one to store once the run has finished. */
  highWaterMark?: { file: string; fromMs: number; nextMs: number };
}

export interface BomRepairBatchResult {
  processed: number;
  /** Products with a fork or a problem; products with nothing to report are only counted. */
  results: ProductRepairResult[];
}

const NOT_FOUND_LISTED = 100;

export function createBomRepairActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  const staging = new StagingStore(join(deps.config.dataDir, 'staging'));
  const snapshots = new ForkSnapshotStore(join(deps.config.dataDir, 'bom-repair', 'fork-snapshots'));

  return {
    /** Lists the selected products (pages of 100, `include=bom`) and stages those owning a BOM header. */
    stageBomRepairCandidates: guarded(
      toActivityFailure,
      async (raw: { selector: ProductSelector; runKey: string }): Promise<StagedBomRepairCandidates> => {
        const input = stageInputSchema.parse(raw);
        const report: ScanReport = emptyScanReport();
        const scanStartedMs = Date.now();
        let highWaterMark: StagedBomRepairCandidates['highWaterMark'];
        if (input.selector.kind === 'sinceLastRun') {
          const file = bomMarkFile(deps.config.dataDir, input.selector.markName);
          let fromMs: number;
          try {
            fromMs = await readBomMark(file);
          } catch (error) {
            if (error instanceof CorruptBomMarkError)
              throw ApplicationFailure.nonRetryable(error.message, 'CorruptHighWaterMark');
            throw error;
          }
          highWaterMark = { file, fromMs, nextMs: nextBomMark(fromMs, scanStartedMs) };
        }
        const filter = highWaterMark ? { headersChangedSinceMs: highWaterMark.fromMs } : {};
        const candidates = (async function* () {
          let count = 0;
          for await (const candidate of scanRepairCandidates(deps.client, input.selector, report, filter)) {
            count += 1;
            if (count % 200 === 0) heartbeat({ candidates: count, scanned: report.scanned });
            yield candidate;
          }
        })();
        const ref = await staging.putNdjson(`bom-repair/${input.runKey}/candidates.ndjson`, candidates);
        log.info('BOM repair candidates staged', {
          scanned: report.scanned,
          candidates: ref.items,
          notFound: report.notFound.length,
          headerReads: report.headerReads,
        });
        return {
          candidates: ref,
          scanned: report.scanned,
          notFound: report.notFound.slice(0, NOT_FOUND_LISTED),
          includeUsed: report.includeUsed,
          headerReads: report.headerReads,
          includeProblem: report.includeProblem,
          ...(highWaterMark ? { highWaterMark } : {}),
        };
      },
    ),

    /**
     * Repairs (or, dry, plans) the forks of candidates [offset, offset + limit). Progress is heartbeated so a
     * retry resumes after the last finished product and keeps its outcomes (a repaired line no longer looks
     * broken, so a rerun from scratch would not report it).
     */
    repairBomBatch: guarded(
      toActivityFailure,
      async (raw: z.input<typeof batchInputSchema>): Promise<BomRepairBatchResult> => {
        const input = batchInputSchema.parse(raw);
        const resumed = batchProgressSchema.safeParse(activityInfo().heartbeatDetails);
        const progress = resumed.success ? resumed.data : { done: 0, results: [] };
        const cache = new RepairReadCache(deps.client);
        let index = 0;
        for await (const candidate of staging.readNdjson(input.candidates, repairCandidateSchema)) {
          if (index >= input.offset + input.limit) break;
          if (index >= input.offset + progress.done) {
            const result = await repairProductBoms(
              deps.client,
              candidate,
              {
                dryRun: input.dryRun,
                sourceNames: input.sourceNames,
                acceptCurrentSource: input.acceptCurrentSource,
                snapshots,
              },
              cache,
            );
            if (hasFindings(result)) progress.results.push(result);
            progress.done += 1;
            heartbeat(progress);
          }
          index += 1;
        }
        return { processed: progress.done, results: progress.results };
      },
    ),

    /** Stores the `sinceLastRun` mark once a run has finished (never moved back). */
    async storeBomRepairMark(
      raw: z.input<typeof storeMarkInputSchema>,
    ): Promise<{ file: string; sinceMs: number }> {
      const input = storeMarkInputSchema.parse(raw);
      const file = bomMarkFile(deps.config.dataDir, input.markName);
      let previous = 0;
      try {
        previous = await readBomMark(file);
      } catch {
        // an unreadable mark is replaced by the newer one
      }
      const sinceMs = Math.max(previous, input.sinceMs);
      await storeBomMark(file, sinceMs);
      return { file, sinceMs };
    },

    /** Drops one run's staged candidates. */
    async discardBomRepairStaging(input: { runKey: string }): Promise<void> {
      await staging.remove(`bom-repair/${stageInputSchema.shape.runKey.parse(input.runKey)}`);
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
