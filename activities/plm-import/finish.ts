import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { extname } from 'node:path';
import { boundMessage, quoteInput } from '../../connectors/input-limits';
import { parseMappingProfile, writeRejects } from '../../connectors/plm';
import { writeFileAtomically, type PlmRunFolder } from './run-folder';
import { manifestSchema, rejectIssueSchema, type FinishInput, type Outcome, type PlmImportResult, type RejectIssue } from './types';

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
export async function finishRun(input: FinishInput, run: PlmRunFolder): Promise<PlmImportResult> {
  const started = Date.now();
  const manifest = await run.staging.getJson(input.manifest, manifestSchema);
  const planIssues: RejectIssue[] = [];
  for await (const issue of run.staging.readNdjson(manifest.issues, rejectIssueSchema)) planIssues.push(issue);
  const outcomes = input.dryRun ? [] : await run.outcomes();
  const issues = [...planIssues, ...applyIssues(outcomes)].filter((issue) => issue.rowNumber > 0).sort((a, b) => a.rowNumber - b.rowNumber);
  const rejectedRows = new Set(issues.map((issue) => issue.rowNumber)).size;

  let rejectsFile: string | null = null;
  if (!input.dryRun && rejectedRows > 0) {
    const extension = extname(manifest.sourceCopy) || '.csv';
    rejectsFile = run.file(`rejects${extension}`);
    const temp = run.file(`.rejects-${randomUUID()}${extension}`);
    try {
      await writeRejects({ sourcePath: manifest.sourceCopy, issues, profile: parseMappingProfile(manifest.profile), outputPath: temp });
      await rename(temp, rejectsFile);
    } finally {
      await rm(temp, { force: true });
    }
  }

  const settled = { created: 0, updated: 0, unchanged: 0, rejected: 0 };
  let recovered = 0;
  for (const outcome of outcomes) {
    settled[outcome.outcome] += 1;
    if (outcome.recovered) recovered += 1;
  }
  const { counts } = manifest;
  const unchanged = counts.unchanged + settled.unchanged;
  const products = {
    total: counts.create + counts.update + counts.unchanged + counts.invalid,
    created: settled.created,
    updated: settled.updated,
    unchanged,
    rejected: counts.invalid + settled.rejected,
    rejectedAtValidation: counts.invalid,
    rejectedByApi: settled.rejected,
  };
  const firstByRow = new Map<number, RejectIssue>();
  for (const issue of issues) if (!firstByRow.has(issue.rowNumber)) firstByRow.set(issue.rowNumber, issue);
  const resultFile = run.file('result.json');
  const apiCalls = { ...input.apiCalls, total: input.apiCalls.read + input.apiCalls.plan + input.apiCalls.apply };
  const finishMs = Date.now() - started;
  const result: PlmImportResult = {
    workflowId: input.workflowId,
    file: manifest.sourceFile,
    profile: manifest.profileName,
    dryRun: input.dryRun,
    retryOf: input.retryOf,
    rows: input.rows,
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
  return result;
}
