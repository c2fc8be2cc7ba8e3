/**
 * The push run's first step: read the export, look up what it names, snapshot the platform and stage the drafts in
 * batches (activities/erp-orders.ts wraps it).
 */

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { z } from 'zod';
import { stagingRefSchema, type ApiCalls, type Progress } from '../staging';
import { copyInput, inputExists, isS3Url } from '../storage';
import type { OrderType } from '../traceability/schemas/orders';
import { buildOrders } from './orders/build';
import { checkExportColumns, companyCodesIn, givesCompanyIds } from './orders/export-needs';
import type { OrderDraft } from './orders/draft';
import { PARTY_FIELDS } from './orders/fields';
import { planWordsOf } from './plan-words';
import { buildContext, naturalKey, refsToResolve, resolveProducts, takeSnapshot } from './platform-reads';
import { READ_WARNINGS_KEPT } from './read-warnings';
import { DEFAULT_PROFILE, loadProfileFile } from './profile';
import { formatOfFile, readExportFile } from './read';
import { rejectedOutcome, type BatchRecord, type OrderRun, type RunManifest } from './push-run';

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
  // Before the first API call: a file that lacks a required column fails at once, not after an outage's retries.
  checkExportColumns(table, profile);

  const context = await buildContext(api, companyCodesIn(table, profile), givesCompanyIds(table, profile));
  const built = buildOrders(table, profile, context);
  const snapshot = await takeSnapshot(api, built.drafts);
  progress({ phase: 'snapshot', existing: snapshot.existing.size });
  // Every line's product, new orders' too: a dry run then refuses what the real run would (style_not_found).
  const products = await resolveProducts(api, refsToResolve(built.drafts), context.ownCompanyId);
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
    planWords: planWordsOf(
      profile,
      table.columns,
      context.companyCodes ?? new Map(),
      context.facilityProcesses,
      referencedCompanies(built.drafts),
      context.ownCompanyId,
    ),
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

/** The company ids the drafts name (a plan shows their codes; apply-batch looks up the platform's others). */
function referencedCompanies(drafts: readonly OrderDraft[]): Set<string> {
  const ids = new Set<string>();
  for (const draft of drafts) {
    for (const party of PARTY_FIELDS) {
      const id = draft[party.key];
      if (typeof id === 'string') ids.add(id);
    }
  }
  return ids;
}
