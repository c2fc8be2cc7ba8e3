import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { copyInput, inputExists, isS3Url } from '../../connectors/storage';
import { basename, extname } from 'node:path';
import { heartbeat } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  buildOrders,
  companyCodesIn,
  DEFAULT_PROFILE,
  givesCompanyIds,
  formatOfFile,
  loadProfileFile,
  readExportFile,
  type MappingProfile,
} from '../../connectors/erp-orders';
import type { OrderType } from '../../connectors/traceability/schemas/orders';
import { ApiCalls } from '../batch-kit';
import { buildContext, refsToResolve, resolveProducts } from './lookups';
import { naturalKey, takeSnapshot } from './snapshot';
import type { BatchRecord, OrderOutcome, OrderRun, PrepareInput, PrepareResult, RunManifest } from './types';

export async function resolveProfile(
  input: Pick<PrepareInput, 'profile' | 'mappingFile'>,
): Promise<MappingProfile> {
  if (input.mappingFile !== undefined) return loadProfileFile(input.mappingFile);
  return DEFAULT_PROFILE;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The export must be a readable file on the worker's file system: a path the worker cannot see is the commonest
 * mistake (a path on the operator's machine, a folder not mounted into the worker's container), and no retry fixes
 * it, so it fails at once, saying so.
 */
export async function checkExportFile(file: string): Promise<void> {
  if (isS3Url(file)) {
    if (await inputExists(file)) return;
    throw ApplicationFailure.nonRetryable(
      `the export file ${file} was not found in the bucket`,
      'ExportFileError:file_not_found',
    );
  }
  // A run file of another worker (a retry of its rejects) is in the run-data store.
  if (!(await stat(file).catch(() => null)) && (await inputExists(file))) return;
  const what = (reason: string, type: string): ApplicationFailure =>
    ApplicationFailure.nonRetryable(
      `the export file ${file} ${reason}. Check the path; it is read by the worker, so it must be a path on the ` +
        "worker's file system (a folder mounted into the worker when it runs in a container), not on your machine",
      type,
    );
  try {
    const stats = await stat(file);
    if (!stats.isFile()) throw what('is not a file (a folder?)', 'ExportFileError:not_a_file');
  } catch (error) {
    if (error instanceof ApplicationFailure) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw what('was not found on the worker', 'ExportFileError:file_not_found');
    if (code === 'EACCES' || code === 'EPERM')
      throw what('cannot be read by the worker (permission denied)', 'ExportFileError:permission_denied');
    throw error;
  }
}

/**
 * Reads and validates the export, resolves companies, processes and products, takes the platform snapshot and
 * stages the drafts in batches under the run folder. Only references and counts go back to the workflow.
 */
export async function prepareRun(input: PrepareInput, run: OrderRun, api: ApiCalls): Promise<PrepareResult> {
  const started = Date.now();
  await checkExportFile(input.file);
  const profile = await resolveProfile(input);
  const complete = input.complete ?? profile.complete;
  const format = formatOfFile(input.file);

  await mkdir(run.path, { recursive: true });
  const sourceCopy = run.file(`source${extname(input.file).toLowerCase()}`);
  if (!(await copyInput(input.file, sourceCopy))) await checkExportFile(input.file);
  // For a worker that continues the run (run-data store).
  await run.publish(basename(sourceCopy));
  const sourceSha256 = await sha256Of(sourceCopy);
  const table = await readExportFile(sourceCopy, {
    format,
    onTick: () => heartbeat({ phase: 'read' }),
    ...(profile.sheet ? { sheet: profile.sheet } : {}),
  });
  heartbeat({ phase: 'read', rows: table.rows.length });

  const context = await buildContext(api, companyCodesIn(table, profile), givesCompanyIds(table, profile));
  const built = buildOrders(table, profile, context);
  const snapshot = await takeSnapshot(api, built.drafts);
  heartbeat({ phase: 'snapshot', existing: snapshot.existing.size });
  // Every line's product, new orders' too: a dry run then refuses what the real run would (style_not_found).
  const products = await resolveProducts(api, refsToResolve(built.drafts));
  const typesInFile = new Map<string, OrderType[]>();
  for (const draft of built.drafts)
    typesInFile.set(draft.orderNumber, [...(typesInFile.get(draft.orderNumber) ?? []), draft.orderType]);

  const readOutcomes: OrderOutcome[] = built.rejections.map((rejection) => ({
    kind: 'outcome',
    orderNumber: rejection.orderNumber,
    outcome: 'rejected',
    rows: rejection.rows,
    code: rejection.code,
    message: rejection.message,
    problems: rejection.problems.map(({ code, message, row }) => ({
      code,
      message,
      ...(row !== undefined ? { row } : {}),
    })),
  }));
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
    complete,
    allowTracedLineRemoval: input.allowTracedLineRemoval ?? false,
    batches,
    resolvedStyleIds: Object.fromEntries(products.resolved),
    unresolvedRefs: products.unresolved,
    archivedRefs: products.archived,
  };
  const manifestRef = await run.staging.putJson(run.key('manifest.json'), manifest);
  return {
    runKey: run.runKey,
    manifest: manifestRef,
    batchCount: batches.length,
    orders: built.drafts.length + built.rejections.length,
    rejectedAtRead: built.rejections.length,
    rows: table.rows.length,
    warnings: built.warnings.slice(0, 20),
    snapshot: {
      mode: snapshot.mode,
      existingOrders: snapshot.existing.size,
      linesListed: snapshot.linesListed,
    },
    apiCalls: api.count,
    durationMs: Date.now() - started,
  };
}
