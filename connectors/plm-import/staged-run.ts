import { z } from 'zod';
import { compositionOpSchema, inheritedHeaderSchema } from './composition';
import { draftFieldsSchema } from './draft';
import { rowIssueCodes, type RowIssue } from './issues';
import { productLevels } from './profiles/schema';
import {
  RunFolder,
  runManifestBaseSchema,
  stagedBatchInputSchema,
  stagedRunInputSchema,
  stagingRefSchema,
} from '../staging';
import { productCreateSchema, productUpdateSchema } from '../traceability';

export const levelSchema = z.enum(productLevels);

export const readInputSchema = z.strictObject({
  /** Absolute path of the sheet on the worker's file system. */
  file: z.string().min(1),
  /** A built-in mapping profile, or a mapping JSON file on the worker. */
  profile: z.enum(['native', 'flat']).optional(),
  mappingFile: z.string().min(1).optional(),
  /** xlsx/xls: the sheet to read (overrides the mapping's `sheet`). */
  sheet: z.string().min(1).optional(),
  workflowId: z.string().min(1),
  /** The run whose rejects file this run re-imports (`trace-sync retry`). */
  retryOf: z.string().min(1).optional(),
});
export type ReadInput = z.infer<typeof readInputSchema>;

export interface ReadResult {
  runKey: string;
  /** Staged `SheetStage` document (drafts and issues are NDJSON files it names). */
  sheet: z.infer<typeof stagingRefSchema>;
  rows: number;
  products: number;
  /** Rows refused while reading (bad cells, unknown reference names...). */
  rowIssues: number;
  /** Rows the mapping's `skipRows` says hold no product (counted, not rejected). */
  skippedRows: number;
  /** xlsx/xls: the sheet read, and the other sheets of the workbook, which were not. */
  sheetName: string | null;
  ignoredSheets: string[];
  profileName: string;
  warnings: string[];
  apiCalls: number;
  durationMs: number;
}

// ---- staged records (written and read by these activities only; re-validated on read) ----

/** A reason a row is rejected: the sheet's own codes, or an API error code (`codes_not_unique`...). */
export const rejectIssueSchema = z.object({
  rowNumber: z.number().int(),
  column: z.string().nullable(),
  code: z.string(),
  message: z.string(),
  externalId: z.string().optional(),
  meantKey: z.string().optional(),
});
export type RejectIssue = z.infer<typeof rejectIssueSchema>;
export const rowIssueSchema: z.ZodType<RowIssue> = rejectIssueSchema.extend({ code: z.enum(rowIssueCodes) });

const levelColumnsSchema = z.partialRecord(draftFieldsSchema.keyof(), z.string());
export const sheetStageSchema = z.strictObject({
  sourceFile: z.string(),
  /** Copy of the sheet in the run folder: planning and the rejects file read the very bytes that were parsed. */
  sourceCopy: z.string(),
  /** The resolved mapping profile (mappingProfileSchema output), re-parsed by each activity. */
  profile: z.unknown(),
  profileName: z.string(),
  rowCount: z.number().int(),
  skippedRows: z.number().int(),
  warnings: z.array(z.string()),
  fieldColumns: z.object({ style: levelColumnsSchema, variant: levelColumnsSchema, sku: levelColumnsSchema }),
  drafts: stagingRefSchema,
  issues: stagingRefSchema,
  /**
   * A retry: the products its original run rejected (REJECTED_PRODUCTS of that run), or null when that run left no
   * such list (it predates it, or its folder is gone).
   */
  retry: z.object({ of: z.string(), rejected: z.array(z.string()).nullable() }).optional(),
});
export type SheetStage = z.infer<typeof sheetStageSchema>;

/** A write of the plan, as staged for its batch. `styleLevelId` cannot be sent on create: it follows by PUT. */
/** Batches of wave n follow those of wave n-1: a code another sheet product gives up is taken after its PUT. */
const waveSchema = z.number().int().min(1).optional();
/** Codes the product takes from other products of the sheet: refused without a call should such a giver be refused. */
const takesSchema = z
  .array(
    z.strictObject({
      giver: z.string(),
      giverRow: z.number().int(),
      codeId: z.string(),
      codeValue: z.string(),
      column: z.string().nullable(),
    }),
  )
  .optional();
/**
 * Codes the product takes from a ring's freed product (whose early write gives them up): a cancel inside the ring
 * writes this product too. Absent from plans staged before it (such a cancel leaves it to the rerun).
 */
const takesFreedSchema = takesSchema;
export const writeStepSchema = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('create'),
    externalId: z.string(),
    level: levelSchema,
    rowNumbers: z.array(z.number().int()),
    parentExternalId: z.string().nullable(),
    parentColumn: z.string().nullable(),
    body: productCreateSchema,
    styleLevelId: z.string().optional(),
    /** body.isComponent is the mapping's default: not held against a product the create meets (spec 01). */
    isComponentFromMapping: z.literal(true).optional(),
    /** The code types the sheet's codes give: a create that meets the product drops the others as an update would. */
    givesTypes: z.array(z.string()).optional(),
    wave: waveSchema,
    takes: takesSchema,
    takesFreed: takesFreedSchema,
  }),
  z.strictObject({
    action: z.literal('update'),
    externalId: z.string(),
    level: levelSchema,
    rowNumbers: z.array(z.number().int()),
    parentExternalId: z.string().nullable(),
    parentColumn: z.string().nullable(),
    id: z.string(),
    changedFields: z.array(z.string()),
    body: productUpdateSchema,
    /** Archived in the catalogue: unarchived (children left as they are) before the PUT. */
    unarchive: z.boolean().optional(),
    wave: waveSchema,
    takes: takesSchema,
    takesFreed: takesFreedSchema,
    /** A product of a ring of codes taken round (a swap); its ring's name. */
    ring: z.string().optional(),
    /** The first of the product's two writes in its ring: without the codes it takes; counted as no product. */
    release: z.literal(true).optional(),
    /** The codes it held before the run, put back should the API refuse its second write (after a release). */
    restoreCodes: z.array(z.strictObject({ codeId: z.string(), codeValue: z.string() })).optional(),
  }),
]);

/** A product's composition change (spec 02), applied after every product batch; `ops` were planned from a read. */
export const compositionStepSchema = z.strictObject({
  externalId: z.string(),
  level: levelSchema,
  rowNumbers: z.array(z.number().int()),
  column: z.string().nullable(),
  /** Null for a product this run creates: its id comes from the product batch's outcome. */
  id: z.string().nullable(),
  desired: draftFieldsSchema.shape.composition.unwrap(),
  /** A blank cell: the only header names its writes may delete or detach (compositionOps); null otherwise. */
  scope: z.array(z.string()).nullable().default(null),
  ops: z.array(compositionOpSchema),
  /** What the product inherits once its ancestors' writes land, as the plan saw it (a retry plans again from it). */
  inherited: z.array(inheritedHeaderSchema).default([]),
  /** Shown in plan.json: the product keeps its own header, edited to equal its parent's (it cannot re-attach). */
  note: z.string().optional(),
  /**
   * A SKU of the catalogue that is not on the sheet, detaching what its variant (this externalId) detaches so that it
   * holds only the variant's composition; its ops are only that detach, run again as they are on a retry.
   */
  detachesWith: z.string().optional(),
});
export type CompositionStep = z.infer<typeof compositionStepSchema>;
export type WriteStep = z.infer<typeof writeStepSchema>;
export type CreateWrite = Extract<WriteStep, { action: 'create' }>;

export const catalogueReadSchema = z.object({
  /** `lists`: every page of every level; `gets`: one GET per product; `mixed`: lists for some levels. */
  strategy: z.enum(['none', 'lists', 'gets', 'mixed']),
  listedLevels: z.array(levelSchema),
  listCalls: z.number().int(),
  getCalls: z.number().int(),
  /** Pages per level as the API reported them (null when that level was not probed). */
  pages: z.object({
    style: z.number().nullable(),
    variant: z.number().nullable(),
    sku: z.number().nullable(),
  }),
  productsRead: z.number().int(),
});
export type CatalogueRead = z.infer<typeof catalogueReadSchema>;

const planCountsSchema = z.object({
  create: z.number().int(),
  update: z.number().int(),
  unchanged: z.number().int(),
  invalid: z.number().int(),
  archived: z.number().int(),
  skipped: z.number().int(),
  compositions: z.number().int(),
});
export type PlanCounts = z.infer<typeof planCountsSchema>;

export const manifestSchema = runManifestBaseSchema.extend({
  profile: z.unknown(),
  profileName: z.string(),
  /** Write batches in order: every style batch, then variants, then SKUs; one level per batch. */
  batches: z.array(
    z.object({
      level: levelSchema,
      ref: stagingRefSchema,
      kind: z.enum(['products', 'compositions']).default('products'),
    }),
  ),
  /** Validation and planning issues (RejectIssue NDJSON). */
  issues: stagingRefSchema,
  counts: planCountsSchema,
  /** Compositions the plan found already as the sheet gives them. */
  compositionsUnchanged: z.number().int().default(0),
  /** Composition steps whose plan.json entry carries a note (a product that keeps its own copy); `finishRun` lists them. */
  compositionNotes: z.number().int().default(0),
  /** `<run folder>/plan.json` (on S3, its `s3://` location): every product's planned action, and the issues. */
  planFile: z.string(),
  /** First writes of a ring (a swap) in the batches; absent in manifests staged before swaps were written. */
  releases: z.number().int().min(0).optional(),
  /** Writes taking a code another product of the sheet gives up; absent in manifests staged before a cancel finished them. */
  takers: z.number().int().min(0).optional(),
});
export type Manifest = z.infer<typeof manifestSchema>;

export const planInputSchema = z.strictObject({
  runKey: z.string().min(1),
  sheet: stagingRefSchema,
  batchSize: z.number().int().min(1).max(1000),
  unarchive: z.boolean().optional(),
});
export type PlanInput = z.infer<typeof planInputSchema>;

export interface PlanResult {
  manifest: z.infer<typeof stagingRefSchema>;
  batchCount: number;
  counts: PlanCounts;
  /** Rows with a validation or planning issue. */
  issueRows: number;
  planFile: string;
  catalogue: CatalogueRead;
  apiCalls: number;
  durationMs: number;
}

export const applyInputSchema = stagedBatchInputSchema;
export type ApplyInput = z.infer<typeof applyInputSchema>;

const outcomeKinds = ['created', 'updated', 'unchanged', 'rejected'] as const;

/** One line of a batch journal: an `intent` before a write, an `outcome` once the product is settled. */
export const journalEntrySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('intent'), externalId: z.string(), write: z.enum(['create', 'update']) }),
  z.strictObject({
    kind: z.literal('outcome'),
    externalId: z.string(),
    level: levelSchema,
    outcome: z.enum(outcomeKinds),
    id: z.string().nullable(),
    rowNumbers: z.array(z.number().int()),
    /** For rejections: the API's code (or `invalid_parent`), the message and the column it concerns. */
    code: z.string().optional(),
    message: z.string().optional(),
    column: z.string().nullable().optional(),
    /** How a create that met an existing product converged: its own earlier write, or someone else's product. */
    recovered: z.enum(['own_write', 'existing_product']).optional(),
    /** The product was archived and this run unarchived it. */
    unarchived: z.boolean().optional(),
    /** A composition outcome (spec 02), not a product's: counted apart. */
    target: z.literal('composition').optional(),
  }),
]);
export type JournalEntry = z.infer<typeof journalEntrySchema>;
export type Outcome = Extract<JournalEntry, { kind: 'outcome' }>;

/**
 * Everything a PLM import run keeps lives in `<dataDir>/runs/<runKey>/`: a copy of the sheet, the staged drafts,
 * issues and batches (`staging/`), one journal per batch (`journal/`), plan.json, rejects.<ext> and result.json.
 */
export type PlmRun = RunFolder<JournalEntry>;

/**
 * `<run folder>/rejected-products.json`, beside the rejects file: the externalIds of the products the run rejected.
 * A retry of the run writes only those (and products new to the catalogue); the others' cells in the rejects file
 * are carried context, as they were on the original run's day.
 */
export const REJECTED_PRODUCTS = 'rejected-products.json';
export const rejectedProductsSchema = z.object({ externalIds: z.array(z.string()) });
export const plmRun = (dataDir: string, runKey: string): PlmRun =>
  new RunFolder(dataDir, runKey, ['staging'], {
    folder: 'journal',
    schema: journalEntrySchema,
    keyOf: (entry) => entry.externalId,
    // A composition outcome (spec 02) sits beside its product's outcome, never over it.
    outcomeKeyOf: (outcome) => `${outcome.target ?? 'product'}\u0000${outcome.externalId}`,
  });

export type BatchCounts = Record<(typeof outcomeKinds)[number], number>;

export interface BatchResult {
  batch: number;
  counts: BatchCounts;
  /** Composition batches only: compositions written and rejected. */
  compositions?: { written: number; rejected: number };
  /** Creates that met an existing product (409 or a code already taken) and were re-read. */
  recovered: number;
  apiCalls: number;
  durationMs: number;
}

export const finishInputSchema = stagedRunInputSchema.extend({
  workflowId: z.string(),
  dryRun: z.boolean(),
  retryOf: z.string().nullable(),
  rows: z.number().int(),
  skippedRows: z.number().int().optional(),
  sheetName: z.string().nullable().optional(),
  ignoredSheets: z.array(z.string()).optional(),
  startedAtMs: z.number(),
  apiCalls: z.object({ read: z.number().int(), plan: z.number().int(), apply: z.number().int() }),
  durationsMs: z.object({ read: z.number(), plan: z.number(), apply: z.number() }),
  catalogue: catalogueReadSchema,
  warnings: z.array(z.string()),
  /** The run was cancelled during its batches: the totals are of what was written before it stopped. */
  cancelled: z.boolean().optional(),
  /** Cancelled: the rings (swaps) written whole before it stopped, each its products' externalIds (finishRings). */
  ringsFinished: z.array(z.array(z.string())).optional(),
  /** Cancelled: the code moves outside rings whose takers it wrote before it stopped (finishRings `chains`). */
  chainsFinished: z.array(z.array(z.string())).optional(),
});
export type FinishInput = z.infer<typeof finishInputSchema>;

/** The run's result: returned by the workflow and written to `<run folder>/result.json`. */
export interface PlmImportResult {
  workflowId: string;
  file: string;
  /** Built-in profile name, or the mapping file's path. */
  profile: string;
  dryRun: boolean;
  /** Cancelled during its batches: the counts are of what was written before it stopped (the rest was not). */
  cancelled?: true;
  /**
   * Cancelled: the rings (swaps) of codes the run wrote whole before it stopped, so none of their products is left
   * without the codes it gave up; each ring its products (the freed one first) with their rows in the sheet.
   */
  ringsFinished?: Array<Array<{ externalId: string; rowNumbers: number[] }>>;
  /**
   * Cancelled: the codes moved outside rings (a giver written before the cancel, its taker not yet) whose takers the run
   * wrote before it stopped, so no code is left on no product; each move its products (givers first) with their rows.
   */
  chainsFinished?: Array<Array<{ externalId: string; rowNumbers: number[] }>>;
  retryOf: string | null;
  /** Data rows of the sheet. */
  rows: number;
  /** Rows that hold no product per the mapping's `skipRows` (counted, not rejected). */
  skippedRows: number;
  /** xlsx/xls: the sheet read and the sheets that were not. */
  sheetName: string | null;
  ignoredSheets: string[];
  /** Material compositions (spec 02) of the sheet's products: written (created or changed), unchanged, rejected. */
  compositions: { written: number; unchanged: number; rejected: number };
  /** Per product (a style, variant or SKU) after the run; in a dry run nothing is created or updated. */
  products: {
    total: number;
    created: number;
    updated: number;
    unchanged: number;
    /** Archived in the catalogue and left alone (their rows are in the rejects file); see `unarchive`. */
    archived: number;
    /** Archived products this run unarchived (and updated; one whose update the API refused is also rejectedByApi). */
    unarchived: number;
    /** rejectedAtValidation + rejectedByApi. */
    rejected: number;
    rejectedAtValidation: number;
    rejectedByApi: number;
  };
  /** What planning decided before any write. */
  plan: PlanCounts;
  /** Creates that met an existing product and converged by re-reading it (lost answers, restarts). */
  recovered: number;
  apiCalls: { read: number; plan: number; apply: number; total: number };
  catalogueRead: CatalogueRead;
  durationsMs: { read: number; plan: number; apply: number; finish: number; total: number };
  /**
   * Bad rows in the sheet's format with `error_code` and `error_message`; null when none (and in dry runs). This and
   * the other files are named by their run-data store location: `s3://…` on S3, else the run folder's path.
   */
  rejectsFile: string | null;
  rejectedRows: number;
  /** The first rejections, to read without opening the file. */
  rejections: Array<{ rowNumber: number; externalId: string | null; code: string; message: string }>;
  planFile: string;
  resultFile: string;
  warnings: string[];
}
