import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { boundMessage, quoteInput } from '../../connectors/input-limits';
import { parseMappingProfile, writeRejects } from '../../connectors/plm-import';
import { writeFileAtomically } from '../../connectors/storage';
import {
  manifestSchema,
  rejectIssueSchema,
  type FinishInput,
  type Outcome,
  type PlmImportResult,
  type PlmRun,
  type RejectIssue,
} from './types';

const SAMPLE = 10;

/** Rows of products the API refused (or whose parent it refused), one issue per row of the product. */
function applyIssues(outcomes: readonly Outcome[]): RejectIssue[] {
  return outcomes
    .filter((outcome) => outcome.outcome === 'rejected')
    .flatMap((outcome) =>
      outcome.rowNumbers.map((rowNumber) => ({
        rowNumber,
        column: outcome.column ?? null,
        code: outcome.code ?? 'rejected',
        message: `row ${rowNumber}: ${outcome.message ?? 'rejected by the API'}`,
        externalId: outcome.externalId,
      })),
    );
}

/**
 * Totals the run from its plan and batch journals, writes the rejects file (the sheet's own format, original
 * columns plus error_code and error_message) and result.json. Both are written through a temporary file and a
 * rename, so running it again after a crash gives the same files.
 */
export async function finishRun(input: FinishInput, run: PlmRun): Promise<PlmImportResult> {
  const started = Date.now();
  const manifest = await run.staging.getJson(input.manifest, manifestSchema);
  const planIssues = await run.staging.readAllNdjson(manifest.issues, rejectIssueSchema);
  const allOutcomes = input.dryRun ? [] : await run.outcomes();
  const outcomes = allOutcomes.filter((outcome) => outcome.target === undefined);
  const compositionOutcomes = allOutcomes.filter((outcome) => outcome.target === 'composition');
  const issues = [...planIssues, ...applyIssues(allOutcomes)]
    .filter((issue) => issue.rowNumber > 0)
    .sort((a, b) => a.rowNumber - b.rowNumber);
  const rejectedRows = new Set(issues.map((issue) => issue.rowNumber)).size;

  let rejectsFile: string | null = null;
  // A dry run writes the rejects file a real run would (its plan's rows), so it can be fixed before the real run.
  if (rejectedRows > 0) {
    const extension = extname(manifest.sourceCopy) || '.csv';
    rejectsFile = run.file(`rejects${extension}`);
    const temp = run.file(`.rejects-${randomUUID()}${extension}`);
    try {
      // The sheet the run read (--sheet or the mapping's `sheet`), so the rejects hold that sheet's rows.
      const read = input.sheetName ? { read: { sheetName: input.sheetName } } : {};
      // The copy may have been made by another worker (run-data store); the rejects file is published back there.
      const sourcePath = (await run.fetch(basename(manifest.sourceCopy))) ?? manifest.sourceCopy;
      await writeRejects({
        sourcePath,
        issues,
        profile: parseMappingProfile(manifest.profile),
        outputPath: temp,
        ...read,
      });
      await rename(temp, rejectsFile);
      await run.publish(basename(rejectsFile));
    } finally {
      await rm(temp, { force: true });
    }
  }

  const settled = { created: 0, updated: 0, unchanged: 0, rejected: 0 };
  let recovered = 0;
  let unarchived = 0;
  for (const outcome of outcomes) {
    settled[outcome.outcome] += 1;
    if (outcome.recovered) recovered += 1;
    if (outcome.unarchived) unarchived += 1;
  }
  const compositionsRejected = compositionOutcomes.filter((outcome) => outcome.outcome === 'rejected').length;
  const compositions = {
    written: compositionOutcomes.filter(
      (outcome) => outcome.outcome === 'created' || outcome.outcome === 'updated',
    ).length,
    unchanged:
      manifest.compositionsUnchanged +
      compositionOutcomes.filter((outcome) => outcome.outcome === 'unchanged').length,
    rejected: compositionsRejected,
  };
  const { counts } = manifest;
  const unchanged = counts.unchanged + settled.unchanged;
  const products = {
    total: counts.create + counts.update + counts.unchanged + counts.invalid + counts.archived,
    created: settled.created,
    updated: settled.updated,
    unchanged,
    archived: counts.archived,
    unarchived,
    rejected: counts.invalid + settled.rejected,
    rejectedAtValidation: counts.invalid,
    rejectedByApi: settled.rejected,
  };
  const firstByRow = new Map<number, RejectIssue>();
  for (const issue of issues) if (!firstByRow.has(issue.rowNumber)) firstByRow.set(issue.rowNumber, issue);
  const resultFile = run.file('result.json');
  const apiCalls = {
    ...input.apiCalls,
    total: input.apiCalls.read + input.apiCalls.plan + input.apiCalls.apply,
  };
  const finishMs = Date.now() - started;
  const result: PlmImportResult = {
    workflowId: input.workflowId,
    file: manifest.sourceFile,
    profile: manifest.profileName,
    dryRun: input.dryRun,
    retryOf: input.retryOf,
    rows: input.rows,
    skippedRows: input.skippedRows ?? 0,
    sheetName: input.sheetName ?? null,
    ignoredSheets: input.ignoredSheets ?? [],
    compositions,
    products,
    plan: counts,
    recovered,
    apiCalls,
    catalogueRead: input.catalogue,
    durationsMs: { ...input.durationsMs, finish: finishMs, total: Date.now() - input.startedAtMs },
    rejectsFile,
    rejectedRows,
    rejections: [...firstByRow.values()].slice(0, SAMPLE).map((issue) => ({
      rowNumber: issue.rowNumber,
      // Quoted input, bounded: a huge cell must not reach the workflow's result.
      externalId: issue.externalId === undefined ? null : quoteInput(issue.externalId),
      code: issue.code,
      message: boundMessage(issue.message, 500),
    })),
    planFile: manifest.planFile,
    resultFile,
    warnings: input.warnings,
  };
  await writeFileAtomically(resultFile, `${JSON.stringify(result, null, 2)}\n`);
  await run.publish('result.json');
  return result;
}
