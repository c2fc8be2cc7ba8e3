import { mkdir } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { forEachBounded, type ApiCalls, type Progress } from '../staging';
import { boundMessage } from '../input-limits';
import { copyInput, readInputText, writeFileAtomically } from '../storage';
import type { ReferenceKind, TraceabilityClient } from '../traceability';
import {
  CatalogueIndex,
  parseExistingProducts,
  readCatalogue,
  sheetKeys,
  type ExistingProduct,
} from './catalogue';
import { planCompositions, readLines, type DetachTarget } from './composition';
import { PlmFileError, rowIssue } from './issues';
import { planImport, type CompositionCheck, type ImportPlan } from './plan';
import { builtinProfile } from './profiles/builtin';
import { parseProductSheet } from './profiles/map-rows';
import type { ReferenceLists } from './profiles/references';
import { parseMappingProfile, type MappingProfile } from './profiles/schema';
import {
  compositionStepSchema,
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
  type ReadInput,
  type ReadResult,
  type RejectIssue,
  type SheetStage,
  type WriteStep,
} from './staged-run';
import { validateDrafts } from './validate';
import { productDraftSchema, type ProductDraft, type ProductLevel } from './draft';

/**
 * The PLM import up to its write batches: the sheet read and staged in the run folder, then planned against the
 * catalogue (validated, classified, cut into batches, plan.json). Nothing here writes to the API.
 */

/** A problem with the run's input that no retry can fix (a bad mapping file, both profile and mappingFile...). */
export class PlmInputError extends Error {
  override readonly name = 'PlmInputError';
}

/** The mapping profile of a run: a built-in one by name (default `native`) or a JSON file on the worker. */
export async function resolveProfile(choice: {
  profile?: string | undefined;
  mappingFile?: string | undefined;
}): Promise<{ profile: MappingProfile; name: string }> {
  if (choice.profile !== undefined && choice.mappingFile !== undefined) {
    throw new PlmInputError('give either profile or mappingFile, not both');
  }
  if (choice.mappingFile === undefined) {
    const name = choice.profile ?? 'native';
    return { profile: builtinProfile(name), name };
  }
  let text: string;
  try {
    text = await readInputText(choice.mappingFile); // a worker path or an s3:// reference
  } catch {
    throw new PlmInputError(
      `mapping file ${choice.mappingFile} cannot be read (the path is read on the worker)`,
    );
  }
  try {
    return { profile: parseMappingProfile(JSON.parse(text)), name: choice.mappingFile };
  } catch (error) {
    throw new PlmInputError(`mapping file ${choice.mappingFile}: ${(error as Error).message}`);
  }
}

const REFERENCE_FIELDS = {
  styleTypeId: { list: 'styleTypes', kind: 'styleTypes' },
  brands: { list: 'brands', kind: 'styleProperties:brands' },
  seasons: { list: 'seasons', kind: 'styleProperties:seasons' },
  collections: { list: 'collections', kind: 'styleProperties:collections' },
  departments: { list: 'departments', kind: 'styleProperties:departments' },
} as const satisfies Record<string, { list: keyof ReferenceLists; kind: ReferenceKind }>;

function mappedFieldNames(profile: MappingProfile): Set<string> {
  const mappings =
    profile.layout === 'native' ? [profile.mapping] : [profile.style, profile.variant, profile.sku];
  return new Set(mappings.flatMap((mapping) => Object.keys(mapping.fields)));
}

/**
 * Only the reference lists the profile maps a column to, from the client's cache (all pages, loaded once). The
 * style types also give the valid style levels (their parentIds), so a mapped styleLevelId reads them too.
 */
async function referenceLists(client: TraceabilityClient, profile: MappingProfile): Promise<ReferenceLists> {
  const mapped = mappedFieldNames(profile);
  if (mapped.has('styleLevelId')) mapped.add('styleTypeId');
  const lists: ReferenceLists = {};
  await Promise.all(
    Object.entries(REFERENCE_FIELDS)
      .filter(([field]) => mapped.has(field))
      .map(async ([, { list, kind }]) => {
        const index = await client.reference.index(kind);
        lists[list] = index.items.map(({ id, name, parentId }) =>
          parentId === undefined ? { id, name } : { id, name, parentId },
        );
      }),
  );
  return lists;
}

/**
 * Reads the sheet with its profile and stages the drafts and row issues. The sheet is copied into the run
 * folder first: planning and the rejects file then read the very bytes that were parsed, even if the original
 * is moved (an inbox) or overwritten meanwhile. File errors name the original path.
 */
export async function readSheet(
  input: ReadInput,
  run: PlmRun,
  client: TraceabilityClient,
): Promise<ReadResult> {
  const started = Date.now();
  const { profile, name } = await resolveProfile(input);
  await mkdir(run.path, { recursive: true });
  const sourceCopy = run.file(`source${extname(input.file).toLowerCase()}`);
  // A worker path or an s3:// reference; the copy goes to the run-data store, for a worker that continues the run.
  if (!(await copyInput(input.file, sourceCopy))) {
    throw new PlmFileError(
      'file_not_found',
      `${input.file} does not exist or is not a file (the path is read on the worker).`,
    );
  }
  await run.publish(basename(sourceCopy));

  const before = { ...client.stats().byEndpoint };
  const references = await referenceLists(client, profile);
  const apiCalls = referenceCallsSince(client, before);

  let parsed;
  try {
    parsed = await parseProductSheet(sourceCopy, {
      profile,
      references,
      read: input.sheet !== undefined ? { sheetName: input.sheet } : {},
    });
  } catch (error) {
    if (error instanceof PlmFileError)
      throw new PlmFileError(error.code, error.message.split(sourceCopy).join(input.file));
    throw error;
  }
  const drafts = await run.staging.putNdjson(run.key('drafts.ndjson'), parsed.drafts);
  const issues = await run.staging.putNdjson(run.key('read-issues.ndjson'), parsed.issues);
  const stage: SheetStage = {
    sourceFile: input.file,
    sourceCopy,
    profile,
    profileName: name,
    rowCount: parsed.rowCount,
    skippedRows: parsed.skippedRows,
    warnings: parsed.warnings.map((warning) => warning.split(sourceCopy).join(input.file)),
    fieldColumns: parsed.fieldColumns,
    drafts,
    issues,
  };
  const sheet = await run.staging.putJson(run.key('sheet.json'), stage);
  return {
    runKey: run.runKey,
    sheet,
    rows: parsed.rowCount,
    products: parsed.drafts.length,
    rowIssues: new Set(parsed.issues.map((issue) => issue.rowNumber)).size,
    skippedRows: parsed.skippedRows,
    sheetName: parsed.sheet.sheetName,
    ignoredSheets: parsed.sheet.ignoredSheets,
    profileName: name,
    warnings: stage.warnings.slice(0, 20).map((warning) => boundMessage(warning, 500)),
    apiCalls,
    durationMs: Date.now() - started,
  };
}

/** Calls the client made to the reference lists since `before` (they go through its shared cache). */
function referenceCallsSince(client: TraceabilityClient, before: Record<string, number>): number {
  const now = client.stats().byEndpoint;
  return Object.keys(now)
    .filter(
      (endpoint) => endpoint.startsWith('GET /style-types') || endpoint.startsWith('GET /style-properties'),
    )
    .reduce((sum, endpoint) => sum + (now[endpoint] ?? 0) - (before[endpoint] ?? 0), 0);
}

/**
 * Turns the planner's writes into staged steps the client accepts. A body the API schema refuses (which the
 * sheet's validation should have caught) rejects its product here, and its children with it, before any write.
 */
function toWriteSteps(
  plan: ImportPlan,
  drafts: ReadonlyMap<string, ProductDraft>,
): { steps: WriteStep[]; issues: RejectIssue[] } {
  const steps: WriteStep[] = [];
  const issues: RejectIssue[] = [];
  const failed = new Map<string, RejectIssue>();
  const reject = (write: ImportPlan['writes'][number], issue: RejectIssue) => {
    failed.set(write.externalId, issue);
    issues.push(...write.rowNumbers.map((rowNumber) => ({ ...issue, rowNumber })));
  };
  for (const write of plan.writes) {
    const draft = drafts.get(write.externalId);
    const parentExternalId = draft?.parentExternalId ?? null;
    const parentColumn = draft?.parentColumn ?? null;
    const rowNumber = write.rowNumbers[0] ?? 0;
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
    let candidate: unknown = { ...write, parentExternalId, parentColumn };
    if (write.action === 'create') {
      const { styleLevelId, ...body } = write.body;
      candidate = { ...write, parentColumn, body, ...(styleLevelId !== undefined ? { styleLevelId } : {}) };
    }
    const parsed = writeStepSchema.safeParse(candidate);
    if (parsed.success) {
      steps.push(parsed.data);
      continue;
    }
    const problem = parsed.error.issues[0];
    reject(write, {
      rowNumber,
      column: null,
      code: 'invalid_request',
      message:
        `row ${rowNumber}: the API would refuse '${write.externalId}': ${problem?.path.join('.') ?? ''} ${problem?.message ?? ''}`.trim(),
      externalId: write.externalId,
    });
  }
  return { steps, issues };
}

/** Cuts the ordered steps into batches of one level each, so a batch never waits on a parent of its own. */
function batchesOf<S extends { level: ProductLevel }>(steps: readonly S[], size: number): S[][] {
  const batches: S[][] = [];
  let current: S[] = [];
  for (const step of steps) {
    if (current.length >= size || (current.length > 0 && current[0]?.level !== step.level)) {
      batches.push(current);
      current = [];
    }
    current.push(step);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * The composition writes of the sheet (spec 02): the lines of the headers the products own and inherit are read,
 * and each product is compared, parents first, with what it will own and inherit once its ancestors' writes land;
 * an unchanged composition gives no step. New products get their headers created unless they inherit the same.
 */
async function compositionSteps(
  checks: readonly CompositionCheck[],
  api: ApiCalls,
): Promise<{ steps: CompositionStep[]; unchanged: number }> {
  const wantedHeaders = new Set<string>();
  for (const check of checks) {
    const names = new Set(check.desired.map((section) => section.name.trim().toLowerCase()));
    for (const header of check.owned ?? [])
      if (names.has(header.name.trim().toLowerCase())) wantedHeaders.add(header.id);
    for (const header of check.inherited) wantedHeaders.add(header.id);
  }
  const lines = await readLines(api, [...wantedHeaders]);
  const planned = planCompositions(
    checks.map((check) => ({
      externalId: check.externalId,
      ancestors: check.ancestors,
      desired: check.desired,
      scope: check.scope,
      owned: (check.owned ?? []).map((header) => ({ ...header, lines: lines.get(header.id) ?? null })),
      inherited: check.inherited.map((header) => ({ ...header, lines: lines.get(header.id) ?? null })),
    })),
  );
  const steps: CompositionStep[] = [];
  let unchanged = 0;
  for (const [index, check] of checks.entries()) {
    const { ops, inherited } = planned[index] ?? { ops: [], inherited: [] };
    if (ops.length === 0) {
      // A blank cell that leaves the product as it is counts nowhere: the sheet gave no composition to compare.
      if (!check.blank) unchanged += 1;
      continue;
    }
    const names = new Set(check.desired.map((section) => section.name.trim().toLowerCase()));
    const keepsCopy =
      check.sameAs !== null &&
      (check.owned ?? []).some((header) => names.has(header.name.trim().toLowerCase()));
    steps.push(
      compositionStepSchema.parse({
        externalId: check.externalId,
        level: check.level,
        rowNumbers: check.rowNumbers,
        column: check.column,
        id: check.id,
        desired: check.desired,
        scope: check.scope,
        ops,
        inherited,
        ...(keepsCopy
          ? {
              note: `'${check.externalId}' keeps its own composition header, edited to equal the one of its parent row '${check.sameAs}': a product that once differed cannot inherit again (spec 02: "There is no operation to re-attach")`,
            }
          : {}),
      }),
    );
  }
  steps.push(...(await offSheetDetachSteps(steps, new Set(checks.map((check) => check.externalId)), api)));
  return { steps, unchanged };
}

const nameKey = (name: string): string => name.trim().toLowerCase();

/**
 * Spec 02: a header created on a variant is linked "to that variant's SKUs", but a detach through the variant is
 * "Link removed (detach)" for the variant alone ("Shared header untouched"). So each SKU of a variant that detaches
 * an inherited header keeps its own link to it unless it detaches it too; SKUs on the sheet do (planCompositions),
 * these are the catalogue's SKUs that are not: one detach each, else each would hold two main compositions. A SKU
 * that inherits detaches what the variant detaches and it is linked to (or will be: a header an ancestor creates in
 * this run reaches every SKU below it), and ends with the variant's. A SKU that owns its composition (it once
 * differed) stays as it was: it detaches the variant's new header of a name it owns one of. A style inherits
 * nothing: only variants detach.
 */
async function offSheetDetachSteps(
  steps: readonly CompositionStep[],
  onSheet: ReadonlySet<string>,
  api: ApiCalls,
): Promise<CompositionStep[]> {
  const found: CompositionStep[] = [];
  for (const step of steps) {
    if (step.level !== 'variant' || step.id === null) continue;
    const detached = step.ops.flatMap((op) => (op.op === 'detachInherited' ? op.headers : []));
    const created = step.ops.flatMap((op): DetachTarget[] =>
      op.op === 'createHeader' ? [{ owner: step.externalId, name: op.name }] : [],
    );
    if (detached.length === 0 && created.length === 0) continue;
    const variantId = step.id;
    const skus = await api.all((page, limit) =>
      api.client.products.list({ level: 'sku', variantId, page, limit }),
    );
    const offSheet = skus.filter((sku) => !onSheet.has(sku.externalId ?? sku.id));
    await forEachBounded(offSheet, api.lanes(8), async (sku) => {
      const linked = await api.all((page, limit) =>
        api.client.materials.listHeaders({ styleId: sku.id, page, limit }),
      );
      const inheritedIds = new Set(
        linked.filter((header) => header.link?.isOwner !== true).map((header) => header.id),
      );
      const ownedNames = new Set(
        linked.filter((header) => header.link?.isOwner === true).map((header) => nameKey(header.name)),
      );
      const detach = [
        ...detached.filter((target) => !('id' in target) || inheritedIds.has(target.id)),
        ...created.filter((target) => ownedNames.has(nameKey(target.name))),
      ];
      if (detach.length === 0) return;
      found.push(
        compositionStepSchema.parse({
          externalId: sku.externalId ?? sku.id,
          level: 'sku',
          rowNumbers: step.rowNumbers,
          column: step.column,
          id: sku.id,
          desired: step.desired,
          ops: [{ op: 'detachInherited', headers: detach }],
          detachesWith: step.externalId,
        }),
      );
    });
  }
  return found.sort((a, b) => a.externalId.localeCompare(b.externalId));
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
          ? { changedFields: step.changedFields }
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
 * The styles above the catalogue's variants that new SKUs of the sheet go under, when the catalogue read did not
 * find them (it reads the sheet's products and their parents; lists hide archived ones): the plan must know whether
 * one is archived (spec 01: archiving "Always cascades to all variants and SKUs"). One GET each.
 */
async function readGrandparents(
  products: readonly ExistingProduct[],
  drafts: readonly ProductDraft[],
  api: ApiCalls,
): Promise<ExistingProduct[]> {
  const index = new CatalogueIndex(products);
  const wanted = new Set<string>();
  for (const draft of drafts) {
    if (draft.parentExternalId === null || index.byExternalId.has(draft.externalId)) continue;
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
  products.push(...(await readGrandparents(products, drafts, api)));
  const validated = validateDrafts(
    {
      drafts,
      issues: readIssues,
      warnings: stage.warnings,
      rowCount: stage.rowCount,
      skippedRows: stage.skippedRows,
      fieldColumns: stage.fieldColumns,
    },
    { existing: new CatalogueIndex(products).levels() },
  );
  const plan = planImport(validated, products, { unarchive: input.unarchive ?? false });
  const { steps, issues: stepIssues } = toWriteSteps(
    plan,
    new Map(drafts.map((draft) => [draft.externalId, draft])),
  );
  const issues: RejectIssue[] = [...plan.issues, ...stepIssues].sort((a, b) => a.rowNumber - b.rowNumber);
  const creates = steps.filter((step) => step.action === 'create').length;
  const stepRejectedIds = new Set(stepIssues.map((issue) => issue.externalId));
  const stepRejected = stepRejectedIds.size;
  progress({ phase: 'reading compositions', products: plan.compositions.length });
  const compositions = await compositionSteps(
    plan.compositions.filter((check) => !stepRejectedIds.has(check.externalId)),
    api,
  );
  const counts: PlanCounts = {
    create: creates,
    update: steps.length - creates,
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
