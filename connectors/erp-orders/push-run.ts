/**
 * One ERP push run, without Temporal: prepare (read, look up, snapshot, stage batches), apply one staged batch
 * (journalled, safe to run again), finish (totals and the rejects file). activities/erp-orders.ts wraps each step.
 */

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { z } from 'zod';
import type { ApiCalls } from '../staging';
import { boundMessage, quoteInput } from '../input-limits';
import {
  RunFolder,
  runManifestBaseSchema,
  stagedBatchInputSchema,
  stagedRunInputSchema,
  stagingRefSchema,
  type IntentOf,
} from '../staging';
import { copyInput, inputExists, isS3Url, writeFileAtomically } from '../storage';
import { orderTypeSchema, type OrderType } from '../traceability/schemas/orders';
import { buildOrders, companyCodesIn, givesCompanyIds } from './orders/build';
import { orderDraftSchema } from './orders/draft';
import { buildContext, naturalKey, refsToResolve, resolveProducts, takeSnapshot } from './platform-reads';
import { READ_WARNINGS_KEPT } from './read-warnings';
import { DEFAULT_PROFILE, loadProfileFile } from './profile';
import { learnedPersonsFile, restoreLearnedPersons, storeLearnedPersons } from './persons-store';
import { formatOfFile, readExportFile } from './read';
import { existingOrderSchema } from './reconcile';
import { writeRejects } from './rejects';
import type { PersonDirectory } from './persons';
import { syncOrder, type OrderSyncContext } from './sync-order';

/** The workflow's input fields the prepare needs (workflows/erp-orders.ts documents them), the run's id, batch size. */
export const prepareInputSchema = z.strictObject({
  file: z.string().min(1),
  profile: z.enum(['default']).optional(),
  mappingFile: z.string().min(1).optional(),
  complete: z.boolean().optional(),
  allowTracedLineRemoval: z.boolean().optional(),
  unarchive: z.boolean().optional(),
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
  /** The first READ_WARNINGS_KEPT warnings from reading the export. */
  warnings: string[];
  /** How many more there were (absent when none, and from prepares of older workers). */
  moreWarnings?: number;
  snapshot: { mode: 'listed' | 'lookup'; existingOrders: number; linesListed: boolean };
  apiCalls: number;
  durationMs: number;
}

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

/** Progress details of a long step (the activity heartbeats the latest). */
export type Progress = (details: Record<string, unknown>) => void;

export interface FinishOutput {
  /** Its run-data store location (`s3://…` on S3, else the run folder's path); null when no order was rejected. */
  rejectsFile: string | null;
  rejectedRows: number;
  /** The first rejections, for the result and the Web UI (the file has them all). */
  sample: Array<{ orderNumber: string; code: string; message: string }>;
  /** Totals over every journal of the run (the authoritative counts, resumed attempts included). */
  totals: Pick<BatchResult, 'counts' | 'lines' | 'recoveries'>;
  /** The orders' warnings, the first ones (absent from finishes of older workers). */
  warnings?: string[];
  durationMs: number;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A path the worker cannot read as a file; the activity fails it as `ExportFileError:<code>`, never retried. */
export class ExportFileError extends Error {
  override readonly name = 'ExportFileError';
  constructor(
    message: string,
    readonly code: 'file_not_found' | 'not_a_file' | 'permission_denied',
  ) {
    super(message);
  }
}

/**
 * The export must be a readable file on the worker's file system: a path the worker cannot see is the commonest
 * mistake (a path on the operator's machine, a folder not mounted into the worker's container), and no retry fixes
 * it, so it fails at once, saying so.
 */
async function checkExportFile(file: string): Promise<void> {
  if (isS3Url(file)) {
    if (await inputExists(file)) return;
    throw new ExportFileError(`the export file ${file} was not found in the bucket`, 'file_not_found');
  }
  // A run file of another worker (a retry of its rejects) is in the run-data store.
  if (!(await stat(file).catch(() => null)) && (await inputExists(file))) return;
  const what = (reason: string, code: ExportFileError['code']): ExportFileError =>
    new ExportFileError(
      `the export file ${file} ${reason}. Check the path; it is read by the worker, so it must be a path on the ` +
        "worker's file system (a folder mounted into the worker when it runs in a container), not on your machine",
      code,
    );
  try {
    const stats = await stat(file);
    if (!stats.isFile()) throw what('is not a file (a folder?)', 'not_a_file');
  } catch (error) {
    if (error instanceof ExportFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw what('was not found on the worker', 'file_not_found');
    if (code === 'EACCES' || code === 'EPERM')
      throw what('cannot be read by the worker (permission denied)', 'permission_denied');
    throw error;
  }
}

/**
 * Reads and validates the export, resolves companies, processes and products, takes the platform snapshot and
 * stages the drafts in batches under the run folder. Only references and counts go back to the workflow.
 */
export async function prepareRun(
  input: PrepareInput,
  run: OrderRun,
  api: ApiCalls,
  progress: Progress,
): Promise<PrepareResult> {
  const started = Date.now();
  await checkExportFile(input.file);
  const profile =
    input.mappingFile !== undefined ? await loadProfileFile(input.mappingFile) : DEFAULT_PROFILE;
  const complete = input.complete ?? profile.complete;
  const format = formatOfFile(input.file);

  await mkdir(run.path, { recursive: true });
  const sourceCopy = run.file(`source${extname(input.file).toLowerCase()}`);
  if (!(await copyInput(input.file, sourceCopy))) await checkExportFile(input.file);
  // For a worker that continues the run (run-data store).
  await run.publish(basename(sourceCopy));
  const sourceSha256 = await sha256Of(sourceCopy);
  const mappedColumns = Object.values(profile.columns).filter((column) => column !== undefined);
  const table = await readExportFile(sourceCopy, {
    format,
    onTick: () => progress({ phase: 'read' }),
    ...(profile.sheet ? { sheet: profile.sheet } : {}),
    mappedColumns,
  });
  progress({ phase: 'read', rows: table.rows.length });

  const context = await buildContext(api, companyCodesIn(table, profile), givesCompanyIds(table, profile));
  const built = buildOrders(table, profile, context);
  const snapshot = await takeSnapshot(api, built.drafts);
  progress({ phase: 'snapshot', existing: snapshot.existing.size });
  // Every line's product, new orders' too: a dry run then refuses what the real run would (style_not_found).
  const products = await resolveProducts(api, refsToResolve(built.drafts));
  const typesInFile = new Map<string, OrderType[]>();
  for (const draft of built.drafts)
    typesInFile.set(draft.orderNumber, [...(typesInFile.get(draft.orderNumber) ?? []), draft.orderType]);

  const readOutcomes = built.rejections.map((rejection) =>
    rejectedOutcome(rejection, rejection.code, rejection.message, rejection.problems),
  );
  // Prepare runs before any batch: journals of an earlier execution with the same workflow id (a re-run of a failed
  // one) must not make this one skip orders.
  await run.staging.remove(run.key('batches'));
  await run.staging.remove(run.key('outcomes'));
  await mkdir(run.file('outcomes'), { recursive: true });
  await run.journal('read').writeAll(readOutcomes);

  const batches = [];
  for (let start = 0; start < built.drafts.length; start += input.batchSize) {
    const records: BatchRecord[] = built.drafts.slice(start, start + input.batchSize).map((draft) => {
      const known = snapshot.existing.get(naturalKey(draft.orderType, draft.orderNumber));
      return {
        draft,
        lookup: snapshot.mode === 'listed' ? 'known' : 'unknown',
        existing: known?.order ?? null,
        linesKnown: known?.linesKnown ?? false,
        typesInFile: (typesInFile.get(draft.orderNumber) ?? []).filter((type) => type !== draft.orderType),
        typesOnPlatform:
          snapshot.mode === 'listed' ? (snapshot.typesByNumber.get(draft.orderNumber) ?? []) : null,
      };
    });
    const index = String(batches.length).padStart(5, '0');
    batches.push(await run.staging.putNdjson(run.key('batches', `batch-${index}.ndjson`), records));
  }
  const manifest: RunManifest = {
    runKey: run.runKey,
    sourceFile: input.file,
    sourceCopy,
    sourceSha256,
    format,
    ...(profile.sheet ? { sheet: profile.sheet } : {}),
    mappedColumns,
    complete,
    allowTracedLineRemoval: input.allowTracedLineRemoval ?? false,
    unarchive: input.unarchive ?? false,
    batches,
    resolvedStyleIds: Object.fromEntries(products.resolved),
    unresolvedRefs: products.unresolved,
    archivedRefs: products.archived,
    responsiblePersonIds: profile.responsiblePersonIds,
    ownCompanyId: context.ownCompanyId,
  };
  const manifestRef = await run.staging.putJson(run.key('manifest.json'), manifest);
  const readWarnings = [...(table.warnings ?? []), ...built.warnings];
  return {
    runKey: run.runKey,
    manifest: manifestRef,
    batchCount: batches.length,
    orders: built.drafts.length + built.rejections.length,
    rejectedAtRead: built.rejections.length,
    rows: table.rows.length,
    warnings: readWarnings.slice(0, READ_WARNINGS_KEPT),
    ...(readWarnings.length > READ_WARNINGS_KEPT
      ? { moreWarnings: readWarnings.length - READ_WARNINGS_KEPT }
      : {}),
    snapshot: {
      mode: snapshot.mode,
      existingOrders: snapshot.existing.size,
      linesListed: snapshot.linesListed,
    },
    apiCalls: api.count,
    durationMs: Date.now() - started,
  };
}

/**
 * Orders in flight at once within a batch, more where the key's allowance over the round trips asks for more
 * (`ApiCalls.lanes`); the client paces and bounds the requests themselves.
 */
const ORDER_CONCURRENCY = 4;

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

const SAMPLE_SIZE = 20;

/**
 * Totals from the run's journals and, when orders were rejected, the rejects file: every row of each rejected order
 * in the export's own format with `error_code` and `error_message`, ready to fix and push again.
 */
export async function finishRun(input: FinishInput, run: OrderRun): Promise<FinishOutput> {
  const started = Date.now();
  const manifest = await run.staging.getJson(input.manifest, runManifestSchema);
  const outcomes = await run.outcomes();
  const { counts, lines, recoveries } = summarise(0, outcomes, 0, 0);
  const rejected = outcomes.filter((outcome) => outcome.outcome === 'rejected');
  let rejectsFile: string | null = null;
  let rejectedRows = 0;
  if (rejected.length > 0) {
    // The copy may have been made by another worker (run-data store).
    const sourcePath = (await run.fetch(basename(manifest.sourceCopy))) ?? manifest.sourceCopy;
    const table = await readExportFile(sourcePath, {
      format: manifest.format,
      ...(manifest.sheet ? { sheet: manifest.sheet } : {}),
      ...(manifest.mappedColumns ? { mappedColumns: manifest.mappedColumns } : {}),
    });
    const file = writeRejects(
      table,
      rejected.map((outcome) => {
        const code = outcome.code ?? 'rejected';
        const message = outcome.message ?? 'rejected';
        return { rows: outcome.rows, code, message, problems: outcome.problems ?? [{ code, message }] };
      }),
    );
    await writeFileAtomically(run.file(`rejects${file.extension}`), file.content);
    rejectsFile = await run.publishedLocation(`rejects${file.extension}`);
    rejectedRows = file.rowCount;
  }
  // The staged drafts are spent; journals, manifest and the export copy stay with the run for the record.
  await run.staging.remove(run.key('batches'));
  return {
    rejectsFile,
    rejectedRows,
    sample: rejected.slice(0, SAMPLE_SIZE).map((outcome) => ({
      // Quoted input: a 3 MB order number must not reach the workflow's result.
      orderNumber: quoteInput(outcome.orderNumber),
      code: outcome.code ?? 'rejected',
      message: boundMessage(outcome.message ?? '', 500),
    })),
    totals: { counts, lines, recoveries },
    warnings: firstWarnings(outcomes),
    durationMs: Date.now() - started,
  };
}

function firstWarnings(outcomes: readonly OrderOutcome[]): string[] {
  const warnings = outcomes.flatMap((outcome) =>
    outcome.warning ? [boundMessage(outcome.warning, 500)] : [],
  );
  if (warnings.length <= SAMPLE_SIZE) return warnings;
  return [
    ...warnings.slice(0, SAMPLE_SIZE),
    `and ${warnings.length - SAMPLE_SIZE} more orders with a warning`,
  ];
}
