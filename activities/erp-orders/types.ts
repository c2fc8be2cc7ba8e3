import { z } from 'zod';
import { existingOrderSchema, orderDraftSchema } from '../../connectors/erp-orders';
import { orderTypeSchema } from '../../connectors/traceability/schemas/orders';
import {
  RunFolder,
  runManifestBaseSchema,
  stagedBatchInputSchema,
  stagedRunInputSchema,
  stagingRefSchema,
  type IntentOf,
} from '../../connectors/staging';

/** Built-in profile names a workflow input may give (`profile`); a custom one comes as `mappingFile`. */
export const BUILT_IN_PROFILES = ['default'] as const;

export const prepareInputSchema = z.strictObject({
  /** Absolute path of the export (the worker reads it). */
  file: z.string().min(1),
  profile: z.enum(BUILT_IN_PROFILES).optional(),
  mappingFile: z.string().min(1).optional(),
  /** Overrides the profile's `complete`. */
  complete: z.boolean().optional(),
  /** Lines sent to tracing may be deleted or renamed. */
  allowTracedLineRemoval: z.boolean().optional(),
  /** The run's folder is `<dataDir>/runs/<workflow id made safe for a folder name>`. */
  workflowId: z.string().min(1),
  batchSize: z.number().int().min(1).max(1000),
});
export type PrepareInput = z.infer<typeof prepareInputSchema>;

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
  complete: z.boolean(),
  allowTracedLineRemoval: z.boolean().default(false),
  batches: z.array(stagingRefSchema),
  /** `productRefKey` → platform product id, for refs the snapshot needed. */
  resolvedStyleIds: z.record(z.string(), z.string()),
  /** Product refs looked up and not found: their orders are rejected without a call. */
  unresolvedRefs: z.array(z.string()),
  /** Product refs whose product is archived: a line may keep one, but not take one (the API's `style_not_found`). */
  archivedRefs: z.array(z.string()).default([]),
});
export type RunManifest = z.infer<typeof runManifestSchema>;

export interface PrepareResult {
  runKey: string;
  manifest: z.infer<typeof stagingRefSchema>;
  batchCount: number;
  orders: number;
  /** Orders refused while reading the export (bad values, unknown companies...). */
  rejectedAtRead: number;
  /** Data rows of the export. */
  rows: number;
  warnings: string[];
  snapshot: { mode: 'listed' | 'lookup'; existingOrders: number; linesListed: boolean };
  apiCalls: number;
  durationMs: number;
}

export const OUTCOMES = ['created', 'patched', 'unchanged', 'rejected'] as const;
export type OutcomeKind = (typeof OUTCOMES)[number];

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
    /** How the order got there when a write's answer was lost or the number was already taken. */
    recovered: z.enum(['lost_answer', 'number_taken', 'resumed']).optional(),
  }),
]);
export type OutcomeEntry = z.infer<typeof outcomeEntrySchema>;
export type OrderOutcome = Extract<OutcomeEntry, { kind: 'outcome' }>;
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

export const applyBatchInputSchema = stagedBatchInputSchema.extend({ dryRun: z.boolean() });
export type ApplyBatchInput = z.infer<typeof applyBatchInputSchema>;

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

export const finishInputSchema = stagedRunInputSchema;
export type FinishInput = z.infer<typeof finishInputSchema>;

export interface FinishResult {
  /** Null when no order was rejected. */
  rejectsFile: string | null;
  rejectedRows: number;
  /** The first rejections, for the result and the Web UI (the file has them all). */
  sample: Array<{ orderNumber: string; code: string; message: string }>;
  durationMs: number;
}

export const EMPTY_COUNTS: OutcomeCounts = { created: 0, patched: 0, unchanged: 0, rejected: 0 };
