import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { ApiCalls, Progress } from '../staging';
import { boundMessage, count, quoteInput } from '../input-limits';
import type { BatchJournal, StagingRef } from '../staging';
import { writeFileAtomically } from '../storage';
import { isTraceabilityApiError, type TraceabilityApiError } from '../traceability';
import { readBack } from './catalogue';
import { CompositionDeleteError, compositionOps, readOwned, runOp } from './composition';
import { immutableProblem } from './plan';
import { updateBody } from './product-bodies';
import { parseMappingProfile } from './profiles/schema';
import { writeRejects } from './rejects';
import { storeRejectedProducts } from './retry-scope';
import {
  compositionStepSchema,
  manifestSchema,
  rejectIssueSchema,
  writeStepSchema,
  type ApplyInput,
  type BatchResult,
  type CompositionStep,
  type CreateWrite,
  type FinishInput,
  type JournalEntry,
  type Manifest,
  type Outcome,
  type PlmImportResult,
  type PlmRun,
  type RejectIssue,
  type WriteStep,
} from './staged-run';

/**
 * The PLM import's writes: one staged batch at a time (products, then their material compositions), each product's
 * outcome journalled as it settles; then the run's totals, its rejects file and result.json.
 */

/**
 * Products written at once within a batch, more where the key's allowance over the round trips asks for more
 * (`ApiCalls.lanes`); the client paces and bounds the requests themselves.
 */
const LANES = 8;

/** API answers after which a create is re-read: the product may exist already (our own lost write, or older). */
const EXISTS_CODES = new Set(['external_id_already_exists', 'codes_not_unique']);

interface StepContext {
  api: ApiCalls;
  journal: BatchJournal<JournalEntry>;
  /** Products rejected in earlier batches: their children are rejected without a call. */
  rejectedParents: ReadonlyMap<string, Outcome>;
  /** Writes an earlier attempt of this batch began and did not settle. */
  pending: ReadonlyMap<string, { write: 'create' | 'update' }>;
}

function outcome(
  step: WriteStep | CompositionStep,
  kind: Outcome['outcome'],
  extra: Partial<Outcome> = {},
): Outcome {
  return {
    kind: 'outcome',
    externalId: step.externalId,
    level: step.level,
    outcome: kind,
    id: null,
    rowNumbers: step.rowNumbers,
    ...extra,
  };
}

function rejection(step: WriteStep, error: TraceabilityApiError): Outcome {
  return outcome(step, 'rejected', {
    code: error.code,
    message: `the API refused '${step.externalId}' (${error.statusCode} ${error.code}): ${error.message}`,
    column: null,
  });
}

/** Row-level API answers (4xx) become the product's rejection; anything retryable is thrown for a retry. */
function rowLevel(error: unknown): error is TraceabilityApiError {
  return isTraceabilityApiError(error) && !error.retryable;
}

/** Sends one write: undefined once done, the product's rejection on a row-level answer (anything else is thrown). */
async function rejectedBy(step: WriteStep, write: () => Promise<unknown>): Promise<Outcome | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    if (rowLevel(error)) return rejection(step, error);
    throw error;
  }
}

/** A create met an existing product: re-read it and make it match (or reject it when it cannot be that product). */
async function convergeExisting(
  step: CreateWrite,
  error: TraceabilityApiError,
  context: StepContext,
): Promise<Outcome> {
  const found = await readBack(context.api, step);
  if (!found) return rejection(step, error);
  const mismatch = immutableProblem(
    { ...step, isComponent: step.isComponentFromMapping ? undefined : step.body.isComponent },
    found.product,
    found.parentExternalId,
  );
  if (mismatch)
    return outcome(step, 'rejected', {
      id: found.product.id,
      code: 'immutable_field_changed',
      message: mismatch,
      column: null,
    });
  // Our own create whose answer was lost (the client says so), or that an attempt killed mid-write had begun.
  const own = error.maybeCommitted || context.pending.get(step.externalId)?.write === 'create';
  const recovered = own ? 'own_write' : 'existing_product';
  // The PUT a planned update would send: a code type the sheet gives replaces the product's (desiredCodes).
  const codes = step.body.codes.map((code) => ({ ...code, givesTypes: step.givesTypes }));
  const { body, changed } = updateBody(
    { ...step.body, codes, styleLevelId: step.styleLevelId },
    found.product,
  );
  if (changed.length === 0)
    return outcome(step, own ? 'created' : 'unchanged', { id: found.product.id, recovered });
  const refused = await rejectedBy(step, () =>
    context.api.one(() => context.api.client.products.update(found.product.id, body)),
  );
  return refused ?? outcome(step, own ? 'created' : 'updated', { id: found.product.id, recovered });
}

async function applyCreate(step: CreateWrite, context: StepContext): Promise<Outcome> {
  let id: string;
  try {
    id = (await context.api.one(() => context.api.client.products.create(step.body))).id;
  } catch (error) {
    if (!rowLevel(error)) throw error;
    if (EXISTS_CODES.has(error.code)) return convergeExisting(step, error, context);
    return rejection(step, error);
  }
  // The create body cannot carry styleLevelId (spec: settable on update); a failure here is the row's.
  const { styleLevelId } = step;
  const refused =
    styleLevelId === undefined
      ? undefined
      : await rejectedBy(step, () =>
          context.api.one(() => context.api.client.products.update(id, { styleLevelId })),
        );
  return refused ? { ...refused, id } : outcome(step, 'created', { id });
}

async function applyStep(step: WriteStep, context: StepContext): Promise<Outcome> {
  const parentRejected =
    step.parentExternalId === null ? undefined : context.rejectedParents.get(step.parentExternalId);
  if (parentRejected) {
    return outcome(step, 'rejected', {
      code: 'invalid_parent',
      message: `parent '${step.parentExternalId}' was rejected (${parentRejected.code ?? 'error'}), so '${step.externalId}' is not imported either`,
      column: step.parentColumn,
    });
  }
  await context.journal.append({ kind: 'intent', externalId: step.externalId, write: step.action });
  if (step.action === 'create') return applyCreate(step, context);
  const refused =
    Object.keys(step.body).length === 0
      ? undefined
      : await rejectedBy(step, () =>
          context.api.one(() => context.api.client.products.update(step.id, step.body)),
        );
  if (refused && step.unarchive)
    // unarchiveAll ran before the PUT: the product is live again whatever the PUT's answer.
    return {
      ...refused,
      id: step.id,
      unarchived: true,
      message: `${refused.message ?? ''}; '${step.externalId}' was unarchived by this run, it stays live; its fields were not updated`,
    };
  return (
    refused ?? outcome(step, 'updated', { id: step.id, ...(step.unarchive ? { unarchived: true } : {}) })
  );
}

/**
 * Archived products the run unarchives (option `unarchive`), up to 100 ids a call, children left archived: the sheet
 * names the children it wants back. Unarchiving an unarchived product changes nothing, so a retry is harmless.
 */
async function unarchiveAll(steps: readonly WriteStep[], api: ApiCalls): Promise<void> {
  const ids = steps.flatMap((step) => (step.action === 'update' && step.unarchive ? [step.id] : []));
  for (let start = 0; start < ids.length; start += 100) {
    const chunk = ids.slice(start, start + 100);
    await api.one(() => api.client.products.unarchive(chunk, { shouldUnarchiveChildren: false }));
  }
}

/**
 * Writes one product's composition change. A step an earlier attempt began is planned again from a fresh read, so
 * a retry never adds a header or line twice. A row-level API answer (a percentage sum over 100, say) rejects the
 * composition's rows with the API's code; the product itself stays as written.
 */
async function applyComposition(
  step: CompositionStep,
  productId: string,
  context: StepContext,
): Promise<Outcome> {
  const began = context.pending.has(step.externalId);
  await context.journal.append({
    kind: 'intent',
    externalId: step.externalId,
    write: step.id === null ? 'create' : 'update',
  });
  const composition = { target: 'composition' as const, id: productId };
  try {
    const ops =
      began && step.detachesWith === undefined
        ? compositionOps(step.desired, await readOwned(context.api, productId), step.inherited, step.scope)
        : step.ops;
    for (const op of ops) await runOp(context.api, productId, op, { productIsNew: step.id === null });
    const kind = ops.length === 0 ? 'unchanged' : step.id === null ? 'created' : 'updated';
    return outcome(step, kind, composition);
  } catch (error) {
    if (error instanceof CompositionDeleteError)
      return outcome(step, 'rejected', {
        ...composition,
        code: error.code,
        message: `the composition of '${step.externalId}' is not as the sheet gives it: ${error.message}; re-run the import to retry`,
        column: step.column,
      });
    if (!rowLevel(error)) throw error;
    return outcome(step, 'rejected', {
      ...composition,
      code: error.code,
      message: `the API refused the composition of '${step.externalId}' (${error.statusCode} ${error.code}): ${error.message}`,
      column: step.column,
    });
  }
}

async function applyCompositionBatch(
  input: ApplyInput,
  run: PlmRun,
  api: ApiCalls,
  progress: Progress,
  ref: StagingRef,
  stop: AbortSignal | undefined,
): Promise<BatchResult> {
  const started = Date.now();
  const steps = await run.staging.readAllNdjson(ref, compositionStepSchema);
  const products = new Map<string, Outcome>();
  for (const earlier of await run.outcomes(input.batch))
    if (earlier.target === undefined) products.set(earlier.externalId, earlier);
  const journal = run.journal(input.batch);
  const { done, pending } = await journal.resume();
  const context: StepContext = { api, journal, rejectedParents: new Map(), pending };
  const outcomes = await journal.settleAll(
    done,
    steps.filter((step) => !done.has(step.externalId)),
    api.lanes(LANES),
    async (step) => {
      const product = products.get(step.externalId);
      const productId = step.id ?? (product && product.outcome !== 'rejected' ? product.id : null);
      if (productId === null || product?.outcome === 'rejected') return undefined; // the product's own rejection says why
      return applyComposition(step, productId, context);
    },
    (settled) => progress({ batch: input.batch, settled, of: steps.length }),
    stop,
  );
  const compositions = { written: 0, rejected: 0 };
  for (const settled of outcomes.values()) {
    if (settled.outcome === 'rejected') compositions.rejected += 1;
    else if (settled.outcome !== 'unchanged') compositions.written += 1;
  }
  return {
    batch: input.batch,
    counts: { created: 0, updated: 0, unchanged: 0, rejected: 0 },
    compositions,
    recovered: 0,
    apiCalls: api.count,
    durationMs: Date.now() - started,
  };
}

/**
 * Applies one staged batch (one level). Each product's outcome is journalled as it settles; a retried attempt
 * skips settled products and writes the rest again, which converges: a create that had gone through answers 409
 * (or codes_not_unique) and is re-read, and a PUT of the same fields is harmless. Once `stop` is aborted (the run
 * is cancelled) no further product is begun: those under way are written and journalled, then its reason is thrown.
 */
export async function applyBatch(
  input: ApplyInput,
  run: PlmRun,
  api: ApiCalls,
  progress: Progress,
  stop?: AbortSignal,
): Promise<BatchResult> {
  const started = Date.now();
  const { entry } = await run.stagedBatch(input.manifest, manifestSchema, input.batch);
  if (entry.kind === 'compositions') return applyCompositionBatch(input, run, api, progress, entry.ref, stop);
  const steps = await run.staging.readAllNdjson(entry.ref, writeStepSchema);

  const journal = run.journal(input.batch);
  const { done, pending } = await journal.resume();
  const rejectedParents = new Map<string, Outcome>();
  if (entry.level !== 'style') {
    for (const earlier of await run.outcomes(input.batch))
      if (earlier.outcome === 'rejected') rejectedParents.set(earlier.externalId, earlier);
  }
  const context: StepContext = { api, journal, rejectedParents, pending };
  const todo = steps.filter((step) => !done.has(step.externalId));
  await unarchiveAll(todo, api);
  const outcomes = await journal.settleAll(
    done,
    todo,
    api.lanes(LANES),
    (step) => applyStep(step, context),
    (settled) => progress({ batch: input.batch, settled, of: steps.length }),
    stop,
  );

  const counts = { created: 0, updated: 0, unchanged: 0, rejected: 0 };
  let recovered = 0;
  for (const settled of outcomes.values()) {
    counts[settled.outcome] += 1;
    if (settled.recovered) recovered += 1;
  }
  return { batch: input.batch, counts, recovered, apiCalls: api.count, durationMs: Date.now() - started };
}

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
      const names = parents?.map((id) => `'${id}'`).join(' and ');
      const stay =
        parents && parents.length > 1
          ? `; its new parents ${names} were created by this run and stay, without '${outcome.externalId}'`
          : parents
            ? `; its new parent ${names} was created by this run and stays, without '${outcome.externalId}'`
            : '';
      return outcome.rowNumbers.map((rowNumber) => ({
        rowNumber,
        column: outcome.column ?? null,
        code: outcome.code ?? 'rejected',
        message: `row ${rowNumber}: ${outcome.message ?? 'rejected by the API'}${stay}`,
        externalId: outcome.externalId,
      }));
    });
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
