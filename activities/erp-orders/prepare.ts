import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { heartbeat } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  buildOrders,
  companyCodesIn,
  DEFAULT_PROFILE,
  formatOfFile,
  loadProfileFile,
  readExportFile,
  type MappingProfile,
  type OrderDraft,
} from '../../connectors/erp';
import { ApiCallCounter } from './api-calls';
import { buildContext, refsToResolve, resolveProducts } from './lookups';
import type { OrderRunFolder } from './run-files';
import { naturalKey, takeSnapshot } from './snapshot';
import type { BatchRecord, OrderOutcome, PrepareInput, PrepareResult, RunManifest } from './types';

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

/** Written whole through a temporary file, so a retried prepare replaces it rather than adding to it. */
async function writeAtomically(path: string, content: string): Promise<void> {
  const temp = `${path}.tmp`;
  await writeFile(temp, content, 'utf8');
  await rename(temp, path);
}

/**
 * Reads and validates the export, resolves companies, processes and products, takes the platform snapshot and
 * stages the drafts in batches under the run folder. Only references and counts go back to the workflow.
 */
export async function prepareRun(
  input: PrepareInput,
  run: OrderRunFolder,
  api: ApiCallCounter,
): Promise<PrepareResult> {
  const started = Date.now();
  await checkExportFile(input.file);
  const profile = await resolveProfile(input);
  const complete = input.complete ?? profile.complete;
  const format = formatOfFile(input.file);

  await mkdir(run.path, { recursive: true });
  const sourceCopy = run.file(`source${extname(input.file).toLowerCase()}`);
  await copyFile(input.file, `${sourceCopy}.tmp`);
  await rename(`${sourceCopy}.tmp`, sourceCopy);
  const sourceSha256 = await sha256Of(sourceCopy);
  const table = await readExportFile(sourceCopy, {
    format,
    onTick: () => heartbeat({ phase: 'read' }),
    ...(profile.sheet ? { sheet: profile.sheet } : {}),
  });
  heartbeat({ phase: 'read', rows: table.rows.length });

  const context = await buildContext(api, companyCodesIn(table, profile));
  const built = buildOrders(table, profile, context);
  const snapshot = await takeSnapshot(api, built.drafts);
  heartbeat({ phase: 'snapshot', existing: snapshot.existing.size });
  const compared = (draft: OrderDraft): boolean =>
    snapshot.mode === 'lookup' || snapshot.existing.has(naturalKey(draft.orderType, draft.orderNumber));
  const products = await resolveProducts(api, refsToResolve(built.drafts, compared));

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
  await rm(run.file('batches'), { recursive: true, force: true });
  await rm(run.file('outcomes'), { recursive: true, force: true });
  await mkdir(run.file('outcomes'), { recursive: true });
  const readLog = run.outcomeLog('read');
  await writeAtomically(readLog.path, readOutcomes.map((entry) => `${JSON.stringify(entry)}\n`).join(''));

  const batches = [];
  for (let start = 0; start < built.drafts.length; start += input.batchSize) {
    const records: BatchRecord[] = built.drafts.slice(start, start + input.batchSize).map((draft) => {
      const known = snapshot.existing.get(naturalKey(draft.orderType, draft.orderNumber));
      return {
        draft,
        lookup: snapshot.mode === 'listed' ? 'known' : 'unknown',
        existing: known?.order ?? null,
        linesKnown: known?.linesKnown ?? false,
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
    batches,
    resolvedStyleIds: Object.fromEntries(products.resolved),
    unresolvedRefs: products.unresolved,
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
    apiCalls: api.calls,
    durationMs: Date.now() - started,
  };
}
