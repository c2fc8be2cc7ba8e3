import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { boundMessage, count, quoteInput } from '../input-limits';
import { writeFileAtomically } from '../storage';
import { newParentsNote } from './issues';
import { parseMappingProfile } from './profiles/schema';
import { writeRejects } from './rejects';
import { storeRejectedProducts } from './retry-scope';
import {
  compositionStepSchema,
  manifestSchema,
  rejectIssueSchema,
  writeStepSchema,
  type FinishInput,
  type Manifest,
  type Outcome,
  type PlmImportResult,
  type PlmRun,
  type RejectIssue,
} from './staged-run';

/**
 * The PLM import's finish step: the run's outcomes (plan and batch journals) turned into its totals, the rejects
 * file (plan-time rejects and the API's refusals, one issue per row) and result.json.
 */

const SAMPLE = 10;

/**
 * The products this run created that a product the API refused was to go under, nearest first, by the refused
 * product: they stay, without it. Read from the staged creates only when the API refused a product.
 */
async function createdParentsOf(
  run: PlmRun,
  manifest: Manifest,
  outcomes: readonly Outcome[],
): Promise<Map<string, string[]>> {
  const products = outcomes.filter((outcome) => outcome.target === undefined);
  const refused = products.filter(
    (outcome) => outcome.outcome === 'rejected' && outcome.code !== 'invalid_parent',
  );
  const found = new Map<string, string[]>();
  if (refused.length === 0) return found;
  const created = new Set(
    products.filter((outcome) => outcome.outcome === 'created').map((outcome) => outcome.externalId),
  );
  const parentOf = new Map<string, string>();
  for (const batch of manifest.batches) {
    if (batch.kind !== 'products') continue;
    for await (const step of run.staging.readNdjson(batch.ref, writeStepSchema))
      if (step.action === 'create' && step.parentExternalId !== null)
        parentOf.set(step.externalId, step.parentExternalId);
  }
  for (const { externalId } of refused) {
    const parents: string[] = [];
    for (let at = parentOf.get(externalId); at !== undefined && created.has(at); at = parentOf.get(at)) {
      if (parents.includes(at)) break;
      parents.push(at);
    }
    if (parents.length > 0) found.set(externalId, parents);
  }
  return found;
}

/**
 * Rows of products the API refused (or whose parent it refused), one issue per row of the product. A refused product
 * names the new parents created for it, as the plan does for its own rejects (plan.ts), so an empty style says why.
 */
function applyIssues(
  outcomes: readonly Outcome[],
  createdParents: ReadonlyMap<string, readonly string[]>,
): RejectIssue[] {
  return outcomes
    .filter((outcome) => outcome.outcome === 'rejected')
    .flatMap((outcome) => {
      const parents = outcome.target === undefined ? createdParents.get(outcome.externalId) : undefined;
      const stay = newParentsNote(parents ?? [], outcome.externalId, 'done');
      return outcome.rowNumbers.map((rowNumber) => ({
        rowNumber,
        column: outcome.column ?? null,
        code: outcome.code ?? 'rejected',
        message: `row ${rowNumber}: ${outcome.message ?? 'rejected by the API'}${stay}`,
        externalId: outcome.externalId,
      }));
    });
}

/** The rings (or code moves) a cancel finished (their products' externalIds), with each product's rows from its staged write. */
async function ringRows(
  run: PlmRun,
  manifest: Manifest,
  rings: readonly (readonly string[])[],
): Promise<Array<Array<{ externalId: string; rowNumbers: number[] }>>> {
  const rowsOf = new Map<string, number[]>(rings.flat().map((externalId) => [externalId, []]));
  for (const batch of manifest.batches) {
    if (batch.kind !== 'products') continue;
    for await (const step of run.staging.readNdjson(batch.ref, writeStepSchema)) {
      const rows = rowsOf.get(step.externalId);
      // A ring's product is staged twice (its release, then its write): the same rows.
      if (rows?.length === 0) rows.push(...step.rowNumbers);
    }
  }
  return rings.map((ring) =>
    ring.map((externalId) => ({
      externalId: quoteInput(externalId),
      rowNumbers: rowsOf.get(externalId) ?? [],
    })),
  );
}

const KEPT_COPY_EXAMPLES = 3;

/**
 * The plan's "keeps its own composition header" note (import-plan.ts, on plan.json entries) as one result warning,
 * so `--wait`, `watch` and the Web UI show it too: a count and the first few products.
 */
export function keptCopiesWarning(externalIds: readonly string[], dryRun: boolean): string {
  const one = externalIds.length === 1;
  const shown = externalIds
    .slice(0, KEPT_COPY_EXAMPLES)
    .map((id) => `'${quoteInput(id, 80)}'`)
    .join(', ');
  const more =
    externalIds.length > KEPT_COPY_EXAMPLES
      ? ` and ${count(externalIds.length - KEPT_COPY_EXAMPLES)} more`
      : '';
  const keep = dryRun ? 'would keep' : one ? 'keeps' : 'keep';
  const subject = one ? 'product' : 'products';
  const their = one
    ? "its own composition header, edited to equal its parent row's"
    : "their own composition headers, edited to equal their parent rows'";
  return `${count(externalIds.length)} ${subject} ${keep} ${their}: a product that once differed cannot inherit again (spec 02: "There is no operation to re-attach"): ${shown}${more}; plan.json names each parent row`;
}

/** Products whose composition step carries the plan's note; in a real run only those whose composition was written. */
async function keptCopies(
  run: PlmRun,
  manifest: Manifest,
  outcomes: readonly Outcome[],
  dryRun: boolean,
): Promise<string[]> {
  if (manifest.compositionNotes === 0) return [];
  const written = new Set(
    outcomes
      .filter(
        (outcome) =>
          outcome.target === 'composition' &&
          (outcome.outcome === 'created' || outcome.outcome === 'updated'),
      )
      .map((outcome) => outcome.externalId),
  );
  const noted: string[] = [];
  for (const batch of manifest.batches) {
    if (batch.kind !== 'compositions') continue;
    for await (const step of run.staging.readNdjson(batch.ref, compositionStepSchema))
      if (step.note !== undefined && (dryRun || written.has(step.externalId))) noted.push(step.externalId);
  }
  return noted;
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
  const createdParents = await createdParentsOf(run, manifest, allOutcomes);
  const issues = [...planIssues, ...applyIssues(allOutcomes, createdParents)]
    .filter((issue) => issue.rowNumber > 0)
    .sort((a, b) => a.rowNumber - b.rowNumber);
  const rejectedRows = new Set(issues.map((issue) => issue.rowNumber)).size;

  let rejectsFile: string | null = null;
  // A dry run writes the rejects file a real run would (its plan's rows), so it can be fixed before the real run.
  if (rejectedRows > 0) {
    const extension = extname(manifest.sourceCopy) || '.csv';
    const rejectsName = `rejects${extension}`;
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
      await rename(temp, run.file(rejectsName));
      rejectsFile = await run.publishedLocation(rejectsName);
    } finally {
      await rm(temp, { force: true });
    }
    await storeRejectedProducts(run, issues);
  }

  const settled = { created: 0, updated: 0, unchanged: 0, rejected: 0, recovered: 0, unarchived: 0 };
  const composed = { created: 0, updated: 0, unchanged: 0, rejected: 0 };
  for (const outcome of allOutcomes) {
    if (outcome.target === 'composition') {
      composed[outcome.outcome] += 1;
      continue;
    }
    settled[outcome.outcome] += 1;
    if (outcome.recovered) settled.recovered += 1;
    if (outcome.unarchived) settled.unarchived += 1;
  }
  const compositions = {
    written: composed.created + composed.updated,
    unchanged: manifest.compositionsUnchanged + composed.unchanged,
    rejected: composed.rejected,
  };
  const { counts } = manifest;
  const products = {
    total: counts.create + counts.update + counts.unchanged + counts.invalid + counts.archived,
    created: settled.created,
    updated: settled.updated,
    unchanged: counts.unchanged + settled.unchanged,
    archived: counts.archived,
    unarchived: settled.unarchived,
    rejected: counts.invalid + settled.rejected,
    rejectedAtValidation: counts.invalid,
    rejectedByApi: settled.rejected,
  };
  const firstByRow = new Map<number, RejectIssue>();
  for (const issue of issues) if (!firstByRow.has(issue.rowNumber)) firstByRow.set(issue.rowNumber, issue);
  const resultFile = run.location('result.json');
  const apiCalls = {
    ...input.apiCalls,
    total: input.apiCalls.read + input.apiCalls.plan + input.apiCalls.apply,
  };
  const kept = await keptCopies(run, manifest, allOutcomes, input.dryRun);
  const finishMs = Date.now() - started;
  const result: PlmImportResult = {
    workflowId: input.workflowId,
    file: manifest.sourceFile,
    profile: manifest.profileName,
    dryRun: input.dryRun,
    ...(input.cancelled ? { cancelled: true as const } : {}),
    ...(input.ringsFinished?.length
      ? { ringsFinished: await ringRows(run, manifest, input.ringsFinished) }
      : {}),
    ...(input.chainsFinished?.length
      ? { chainsFinished: await ringRows(run, manifest, input.chainsFinished) }
      : {}),
    retryOf: input.retryOf,
    rows: input.rows,
    skippedRows: input.skippedRows ?? 0,
    sheetName: input.sheetName ?? null,
    ignoredSheets: input.ignoredSheets ?? [],
    compositions,
    products,
    plan: counts,
    recovered: settled.recovered,
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
    warnings: kept.length > 0 ? [...input.warnings, keptCopiesWarning(kept, input.dryRun)] : input.warnings,
  };
  await writeFileAtomically(run.file('result.json'), `${JSON.stringify(result, null, 2)}\n`);
  await run.publish('result.json');
  return result;
}
