import { forEachBounded, type ApiCalls, type Progress } from '../staging';
import { writeFileAtomically } from '../storage';
import { CatalogueIndex, parseExistingProducts, type ExistingProduct } from './catalogue';
import { readCatalogue, sheetKeys } from './catalogue-read';
import { compositionSteps } from './composition-steps';
import { newParentsNote, onRow, rowIssue } from './issues';
import { planImport, type ImportPlan } from './plan';
import { plannedGiverRejection, refusedGivers } from './code-moves';
import {
  rowIssueSchema,
  sheetStageSchema,
  writeStepSchema,
  type CatalogueRead,
  type CompositionStep,
  type Manifest,
  type PlanCounts,
  type PlanInput,
  type PlanResult,
  type PlmRun,
  type RejectIssue,
  type WriteStep,
} from './staged-run';
import { retryReferences } from './retry-scope';
import { validateDrafts } from './validate';
import { productDraftSchema, type ProductDraft, type ProductLevel } from './draft';

/**
 * The PLM import's plan step: the staged sheet (read-sheet.ts) planned against the catalogue (validated, classified,
 * cut into batches, plan.json). Nothing here writes to the API.
 */

/**
 * Turns the planner's writes into staged steps the client accepts. A body the API schema refuses (which the
 * sheet's validation should have caught) rejects its product here, and its children with it, before any write.
 */
export function toWriteSteps(
  plan: ImportPlan,
  drafts: ReadonlyMap<string, ProductDraft>,
): { steps: WriteStep[]; issues: RejectIssue[] } {
  // A product of a swap taking a code from its freed product comes before that product's full write: should that write
  // be refused here, the ring cannot turn and the freed product keeps the code, known only once it is reached. So the
  // steps are made again, knowing the products refused, until no more are (once more, in practice, and only then).
  let known = new Map<string, RejectIssue>();
  for (;;) {
    const pass = writeStepsPass(plan, drafts, known);
    if ([...pass.failed.keys()].every((id) => known.has(id))) return pass;
    known = new Map([...known, ...pass.failed]);
  }
}

/** One pass of toWriteSteps; `known`: products a previous pass refused (for the takers of a freed product's codes). */
function writeStepsPass(
  plan: ImportPlan,
  drafts: ReadonlyMap<string, ProductDraft>,
  known: ReadonlyMap<string, RejectIssue>,
): { steps: WriteStep[]; issues: RejectIssue[]; failed: Map<string, RejectIssue> } {
  const steps: WriteStep[] = [];
  const issues: RejectIssue[] = [];
  const failed = new Map<string, RejectIssue>();
  /** Parents of the creates staged so far: a product refused here names those created without it. */
  const created = new Map<string, string | null>();
  const newParentsOf = (parentExternalId: string | null): string[] => {
    const parents: string[] = [];
    let at = parentExternalId;
    while (at !== null && created.has(at) && !parents.includes(at)) {
      parents.push(at);
      at = created.get(at) ?? null;
    }
    return parents;
  };
  const reject = (write: ImportPlan['writes'][number], issue: RejectIssue) => {
    failed.set(write.externalId, issue);
    issues.push(...write.rowNumbers.map((rowNumber) => onRow(issue, rowNumber)));
  };
  for (const write of plan.writes) {
    const draft = drafts.get(write.externalId);
    const parentExternalId = draft?.parentExternalId ?? null;
    const parentColumn = draft?.parentColumn ?? null;
    const rowNumber = write.rowNumbers[0] ?? 0;
    // Refused by a previous pass: for the same reason (a freed product refused for its own body is not then said to be
    // refused for its partner's reject), once for its two writes.
    const refusedBefore = known.get(write.externalId);
    if (refusedBefore) {
      if (!failed.has(write.externalId)) reject(write, refusedBefore);
      continue;
    }
    const parentFailure = parentExternalId === null ? undefined : failed.get(parentExternalId);
    if (parentFailure) {
      reject(
        write,
        rowIssue(
          rowNumber,
          parentColumn,
          'invalid_parent',
          `parent '${parentExternalId}' is rejected (row ${parentFailure.rowNumber}: ${parentFailure.code}), so '${write.externalId}' is not imported either`,
          write.externalId,
        ),
      );
      continue;
    }
    // A giver refused here keeps the code it was to give up: the taker could only be refused codes_not_unique.
    const givers = [
      ...refusedGivers(write.takes ?? [], (giver) => failed.get(giver)?.code),
      ...refusedGivers(write.takesFreed ?? [], (giver) => (failed.get(giver) ?? known.get(giver))?.code),
    ];
    if (givers.length > 0) {
      reject(write, plannedGiverRejection(write.externalId, rowNumber, givers));
      continue;
    }
    let candidate: unknown = { ...write, parentExternalId, parentColumn };
    if (write.action === 'create') {
      const { styleLevelId, ...body } = write.body;
      candidate = { ...write, parentColumn, body, ...(styleLevelId !== undefined ? { styleLevelId } : {}) };
    }
    const parsed = writeStepSchema.safeParse(candidate);
    if (parsed.success) {
      steps.push(parsed.data);
      if (parsed.data.action === 'create') created.set(write.externalId, parentExternalId);
      continue;
    }
    const problem = parsed.error.issues[0];
    const refusal =
      `row ${rowNumber}: the API would refuse '${write.externalId}': ${problem?.path.join('.') ?? ''} ${problem?.message ?? ''}`.trim();
    reject(write, {
      rowNumber,
      column: null,
      code: 'invalid_request',
      message: `${refusal}${newParentsNote(newParentsOf(parentExternalId), write.externalId, 'planned')}`,
      externalId: write.externalId,
    });
  }
  // A ring with a product refused here cannot turn: its release would free a code for nothing (see planImport).
  const stuck = new Set(
    plan.writes.flatMap((write) =>
      write.action === 'update' && write.ring !== undefined && failed.has(write.externalId)
        ? [write.ring]
        : [],
    ),
  );
  return {
    steps: steps.filter((step) => !(step.action === 'update' && step.release && stuck.has(step.ring ?? ''))),
    issues,
    failed,
  };
}

/**
 * Cuts the ordered steps into batches of one level (and one wave) each, so a batch never waits on a parent of its own
 * nor on a code another product of the batch gives up.
 */
function batchesOf<S extends { level: ProductLevel; wave?: number | undefined }>(
  steps: readonly S[],
  size: number,
): S[][] {
  const batches: S[][] = [];
  let current: S[] = [];
  for (const step of steps) {
    const first = current[0];
    if (
      current.length >= size ||
      (first !== undefined && (first.level !== step.level || (first.wave ?? 0) !== (step.wave ?? 0)))
    ) {
      batches.push(current);
      current = [];
    }
    current.push(step);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

interface PlanFileContent {
  sourceFile: string;
  profile: string;
  catalogue: CatalogueRead;
  counts: PlanCounts;
  plan: ImportPlan;
  steps: readonly WriteStep[];
  compositionSteps: readonly CompositionStep[];
  issues: readonly RejectIssue[];
}

/** plan.json, one product per line so a large plan streams out and stays readable; written atomically. */
async function writePlanFile(path: string, content: PlanFileContent): Promise<void> {
  const lines = async function* (): AsyncGenerator<string> {
    yield `{\n"sourceFile": ${JSON.stringify(content.sourceFile)},\n"profile": ${JSON.stringify(content.profile)},\n`;
    yield `"catalogue": ${JSON.stringify(content.catalogue)},\n"counts": ${JSON.stringify(content.counts)},\n"products": [\n`;
    const entries: unknown[] = [
      ...content.steps.map((step) => ({
        externalId: step.externalId,
        level: step.level,
        action: step.action,
        rows: step.rowNumbers,
        ...(step.action === 'update'
          ? { changedFields: step.changedFields, ...(step.release ? { release: true } : {}) }
          : { parent: step.parentExternalId }),
      })),
      ...[...content.plan.unchanged, ...content.plan.archived].map((step) => ({
        externalId: step.externalId,
        level: step.level,
        action: step.action,
        rows: step.rowNumbers,
      })),
      ...content.plan.invalid.map((step) => ({
        externalId: step.externalId,
        action: 'invalid',
        rows: step.rowNumbers,
        codes: [...new Set(step.issues.map((issue) => issue.code))],
      })),
      ...content.compositionSteps.map((step) => ({
        externalId: step.externalId,
        level: step.level,
        action: 'composition',
        rows: step.rowNumbers,
        ops: step.ops.map((op) => op.op),
        ...(step.detachesWith === undefined ? {} : { detachesWith: step.detachesWith }),
        ...(step.note === undefined ? {} : { note: step.note }),
      })),
    ];
    for (const [index, entry] of entries.entries())
      yield `${JSON.stringify(entry)}${index < entries.length - 1 ? ',' : ''}\n`;
    yield `],\n"issues": [\n`;
    for (const [index, issue] of content.issues.entries())
      yield `${JSON.stringify(issue)}${index < content.issues.length - 1 ? ',' : ''}\n`;
    yield `]\n}\n`;
  };
  await writeFileAtomically(path, lines());
}

/**
 * The styles above the catalogue's variants that new SKUs of the sheet go under (and, with `unarchive`, archived SKUs
 * of the sheet sit under), when the catalogue read did not find them (it reads the sheet's products and their parents;
 * lists hide archived ones): the plan must know whether one is archived (spec 01: archiving "Always cascades to all
 * variants and SKUs"). One GET each.
 */
async function readGrandparents(
  products: readonly ExistingProduct[],
  drafts: readonly ProductDraft[],
  api: ApiCalls,
  unarchive: boolean,
): Promise<ExistingProduct[]> {
  const index = new CatalogueIndex(products);
  const wanted = new Set<string>();
  for (const draft of drafts) {
    const current = index.byExternalId.get(draft.externalId);
    if (draft.parentExternalId === null || (current && !(unarchive && current.isArchived))) continue;
    const parentId = index.byExternalId.get(draft.parentExternalId)?.parentPlatformId;
    if (parentId && !index.byId.has(parentId) && !index.byExternalId.has(parentId)) wanted.add(parentId);
  }
  const found: unknown[] = [];
  await forEachBounded([...wanted], api.lanes(8), async (id) => {
    found.push(await api.one(() => api.client.products.get(id)));
  });
  return parseExistingProducts(found);
}

/**
 * Reads what the catalogue holds for the sheet, validates the drafts against it (parents outside the sheet,
 * required fields of new products), classifies every product and stages the writes in batches. Writes nothing
 * to the API, so a retry simply plans again.
 */
export async function planRun(
  input: PlanInput,
  run: PlmRun,
  api: ApiCalls,
  progress: Progress,
): Promise<PlanResult> {
  const started = Date.now();
  const stage = await run.staging.getJson(input.sheet, sheetStageSchema);
  const drafts = await run.staging.readAllNdjson(stage.drafts, productDraftSchema);
  const readIssues = await run.staging.readAllNdjson(stage.issues, rowIssueSchema);

  const withMaterial = drafts.some((draft) => draft.fields.composition !== undefined);
  const { products, read } = await readCatalogue(
    sheetKeys(drafts),
    api,
    (count) => progress({ phase: 'reading catalogue', products: count }),
    { withMaterial },
  );
  products.push(...(await readGrandparents(products, drafts, api, input.unarchive ?? false)));
  const planned = retryReferences(drafts, products, stage.retry);
  const catalogue = new CatalogueIndex(products);
  const validated = validateDrafts(
    {
      drafts: planned,
      issues: readIssues,
      warnings: stage.warnings,
      rowCount: stage.rowCount,
      skippedRows: stage.skippedRows,
      fieldColumns: stage.fieldColumns,
    },
    {
      existing: catalogue.levels(),
      caseTwin: (externalId, level) => catalogue.caseTwin(externalId, level),
    },
  );
  const plan = planImport(validated, products, { unarchive: input.unarchive ?? false });
  const { steps, issues: stepIssues } = toWriteSteps(
    plan,
    new Map(planned.map((draft) => [draft.externalId, draft])),
  );
  const issues: RejectIssue[] = [...plan.issues, ...stepIssues].sort((a, b) => a.rowNumber - b.rowNumber);
  const creates = steps.filter((step) => step.action === 'create').length;
  // A release is the first of a product's two writes (a swap): one product.
  const releases = steps.filter((step) => step.action === 'update' && step.release).length;
  const stepRejectedIds = new Set(stepIssues.map((issue) => issue.externalId));
  const stepRejected = stepRejectedIds.size;
  progress({ phase: 'reading compositions', products: plan.compositions.length });
  const compositions = await compositionSteps(
    plan.compositions.filter((check) => !stepRejectedIds.has(check.externalId)),
    api,
  );
  const counts: PlanCounts = {
    create: creates,
    update: steps.length - creates - releases,
    unchanged: plan.counts.unchanged,
    invalid: plan.counts.invalid + stepRejected,
    archived: plan.counts.archived,
    skipped: stage.skippedRows,
    compositions: compositions.steps.length,
  };

  const batches: Manifest['batches'] = [];
  const stageBatch = async (
    kind: 'products' | 'compositions',
    batch: ReadonlyArray<WriteStep | CompositionStep>,
  ) => {
    const ref = await run.staging.putNdjson(
      run.key(`batch-${String(batches.length).padStart(5, '0')}.ndjson`),
      batch,
    );
    batches.push({ level: batch[0]?.level ?? 'style', ref, kind });
  };
  for (const batch of batchesOf(steps, input.batchSize)) await stageBatch('products', batch);
  // One level a batch, as for products: a child's step runs after its ancestors' (it may detach what they create).
  for (const batch of batchesOf(compositions.steps, input.batchSize)) await stageBatch('compositions', batch);
  const issuesRef = await run.staging.putNdjson(run.key('plan-issues.ndjson'), issues);
  await writePlanFile(run.file('plan.json'), {
    sourceFile: stage.sourceFile,
    profile: stage.profileName,
    catalogue: read,
    counts,
    plan,
    steps,
    compositionSteps: compositions.steps,
    issues,
  });
  const planFile = await run.publishedLocation('plan.json');
  const manifest: Manifest = {
    runKey: run.runKey,
    sourceFile: stage.sourceFile,
    sourceCopy: stage.sourceCopy,
    profile: stage.profile,
    profileName: stage.profileName,
    batches,
    issues: issuesRef,
    counts,
    compositionsUnchanged: compositions.unchanged,
    compositionNotes: compositions.steps.filter((step) => step.note !== undefined).length,
    planFile,
    releases,
    takers: steps.filter((step) => step.takes !== undefined).length,
  };
  return {
    manifest: await run.staging.putJson(run.key('manifest.json'), manifest),
    batchCount: batches.length,
    counts,
    issueRows: new Set(issues.map((issue) => issue.rowNumber)).size,
    planFile,
    catalogue: read,
    apiCalls: api.count,
    durationMs: Date.now() - started,
  };
}
