/**
 * What an ERP push run keeps in its folder: the staged batch records, the manifest, and the outcome journal each batch
 * writes (with the totals over it). The steps are prepare-run.ts, apply-batch.ts and finish-run.ts.
 */

import { z } from 'zod';
import { RunFolder, runManifestBaseSchema, stagingRefSchema, type IntentOf } from '../staging';
import { orderTypeSchema, type OrderType } from '../traceability/schemas/orders';
import { orderDraftSchema } from './orders/draft';
import { planWordsSchema } from './plan-words';
import { existingOrderSchema } from './reconcile';

/** One staged unit of work: the draft and what the platform held for it when the run started. */
export const batchRecordSchema = z.strictObject({
  draft: orderDraftSchema,
  /**
   * `known`: the run's snapshot says whether the order exists (`existing`); `unknown`: the batch must look it up.
   * `linesKnown`: `existing.lines` is complete (else the batch reads the order before comparing lines).
   */
  lookup: z.enum(['known', 'unknown']),
  existing: existingOrderSchema.nullable(),
  linesKnown: z.boolean(),
  /** Order types the export itself gives this number (besides the draft's): those are other orders, not a change. */
  typesInFile: z.array(orderTypeSchema).default([]),
  /** listed snapshot: the types the platform holds this number under (null: not known, the batch looks). */
  typesOnPlatform: z.array(orderTypeSchema).nullable().default(null),
});
export type BatchRecord = z.infer<typeof batchRecordSchema>;

/** `sourceCopy`: the rejects file is cut from the run's copy of the export even if the original moves. */
export const runManifestSchema = runManifestBaseSchema.extend({
  sourceSha256: z.string(),
  format: z.enum(['csv', 'xlsx', 'json', 'ndjson']),
  sheet: z.string().optional(),
  /** The profile's column names: the rejects file is read again as the export was (`ReadOptions.mappedColumns`). */
  mappedColumns: z.array(z.string()).optional(),
  complete: z.boolean(),
  allowTracedLineRemoval: z.boolean().default(false),
  /** Archived orders the export names are unarchived and updated (else rejected as `order_archived`). */
  unarchive: z.boolean().default(false),
  batches: z.array(stagingRefSchema),
  /** `productRefKey` → platform product id, for refs the snapshot needed. */
  resolvedStyleIds: z.record(z.string(), z.string()),
  /** Product refs looked up and not found: their orders are rejected without a call. */
  unresolvedRefs: z.array(z.string()),
  /** Product refs whose product is archived: a line may keep one, but not take one (the API's `style_not_found`). */
  archivedRefs: z.array(z.string()).default([]),
  /** The mapping profile's responsible persons' e-mails (lower-cased) → user ids. */
  responsiblePersonIds: z.record(z.string(), z.string()).default({}),
  /** The key's company: whose learned responsible persons the batches read and store (absent in older runs). */
  ownCompanyId: z.string().optional(),
  /** The export's words for the order fields and ids an update plan shows (absent in older runs: the API's). */
  planWords: planWordsSchema.optional(),
});
export type RunManifest = z.infer<typeof runManifestSchema>;

const OUTCOMES = ['created', 'patched', 'unchanged', 'rejected'] as const;

const lineCountsSchema = z.strictObject({ created: z.number(), updated: z.number(), deleted: z.number() });

/** One order's key in the journals: number and type (a number is unique per order type only). */
export const outcomeKey = (entry: { orderNumber: string; orderType?: string | undefined }): string =>
  `${entry.orderType ?? ''}\u0000${entry.orderNumber}`;

/** One line of a batch's outcome log. `intent` lines precede writes, so a crashed attempt's work is recognised. */
export const outcomeEntrySchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('intent'),
    orderNumber: z.string(),
    orderType: orderTypeSchema.optional(),
    write: z.enum(['create', 'patch']),
    /** What the write does to lines, so a resumed attempt that finds it done still counts them. */
    lines: lineCountsSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('outcome'),
    orderNumber: z.string(),
    /** Absent for orders refused before their type was known. */
    orderType: orderTypeSchema.optional(),
    outcome: z.enum(OUTCOMES),
    orderId: z.string().optional(),
    rows: z.array(z.number().int().positive()),
    code: z.string().optional(),
    message: z.string().optional(),
    /** Every problem of a rejected order, by row where it has one (the rejects file shows them per row). */
    problems: z
      .array(
        z.strictObject({
          code: z.string(),
          message: z.string(),
          row: z.number().int().positive().optional(),
        }),
      )
      .optional(),
    lines: lineCountsSchema.optional(),
    /** A patch: each order field it changes, the platform's value before and the file's after (as shown in a plan). */
    fields: z.array(z.strictObject({ field: z.string(), before: z.string(), after: z.string() })).optional(),
    /** How the order got there when a write's answer was lost or the number was already taken. */
    recovered: z.enum(['lost_answer', 'number_taken', 'resumed']).optional(),
    /** Something the run's result should say of a written order (one made in the platform UI, say). */
    warning: z.string().optional(),
  }),
]);
export type OutcomeEntry = z.infer<typeof outcomeEntrySchema>;
export type OrderOutcome = Extract<OutcomeEntry, { kind: 'outcome' }>;
/** A rejected order's outcome; its problems by row where they have one (the rejects file shows them per row). */
export function rejectedOutcome(
  order: { orderNumber: string; orderType?: OrderType; rows: number[] },
  code: string,
  message: string,
  problems: ReadonlyArray<{ code: string; message: string; row?: number | undefined }> = [{ code, message }],
): OrderOutcome {
  return {
    kind: 'outcome',
    orderNumber: order.orderNumber,
    ...(order.orderType ? { orderType: order.orderType } : {}),
    outcome: 'rejected',
    rows: order.rows,
    code,
    message,
    problems: problems.map(({ code, message, row }) => ({
      code,
      message,
      ...(row !== undefined ? { row } : {}),
    })),
  };
}

/** A write journalled by an attempt that died before its outcome, with what it was to do to the lines. */
export type PendingWrite = IntentOf<OutcomeEntry>;

/**
 * Everything a push run keeps lives in `<dataDir>/runs/<runKey>/`: the staged batches and manifest, a copy of the
 * export, one outcome log per batch (`outcomes/`, and `read` for orders refused while reading), rejects and result.
 */
export type OrderRun = RunFolder<OutcomeEntry>;
export const orderRun = (dataDir: string, runKey: string): OrderRun =>
  new RunFolder(dataDir, runKey, [], {
    folder: 'outcomes',
    schema: outcomeEntrySchema,
    keyOf: outcomeKey,
    // Each log keeps its own orders; those refused while reading carry no type: their rows tell them apart.
    outcomeKeyOf: (outcome, log) =>
      `${log}|${outcome.orderType === undefined ? `row:${outcome.rows.join(',')}` : outcomeKey(outcome)}`,
  });

export interface OutcomeCounts {
  created: number;
  patched: number;
  unchanged: number;
  rejected: number;
}

export interface BatchResult {
  batch: number;
  counts: OutcomeCounts;
  lines: { created: number; updated: number; deleted: number };
  /** Writes whose answer was lost and that were re-read, and creates that met an existing number. */
  recoveries: { lostAnswer: number; numberTaken: number; resumed: number };
  apiCalls: number;
  durationMs: number;
}

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
