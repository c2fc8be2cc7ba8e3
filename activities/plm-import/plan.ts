import {
  CatalogueIndex,
  compositionOps,
  currentLineSchema,
  planImport,
  type CompositionCheck,
  type CurrentHeader,
  type CurrentLine,
  validateDrafts,
  type ImportPlan,
  type ProductDraft,
} from '../../connectors/plm-import';
import { rowIssue } from '../../connectors/plm-import/issues';
import type { StagingRef } from '../../connectors/staging';
import { writeFileAtomically } from '../../connectors/storage';
import { forEachBounded, type ApiCalls } from '../batch-kit';
import { readCatalogue, sheetKeys } from './catalogue';
import {
  compositionStepSchema,
  draftSchema,
  type CompositionStep,
  rowIssueSchema,
  sheetStageSchema,
  writeStepSchema,
  type CatalogueRead,
  type Manifest,
  type PlmRun,
  type PlanCounts,
  type PlanInput,
  type PlanResult,
  type RejectIssue,
  type WriteStep,
} from './types';

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
  for (const write of plan.writes) {
    const draft = drafts.get(write.externalId);
    const parentExternalId = draft?.parentExternalId ?? null;
    const parentColumn = draft?.parentColumn ?? null;
    const rowNumber = write.rowNumbers[0] ?? 0;
    const parentFailure = parentExternalId === null ? undefined : failed.get(parentExternalId);
    if (parentFailure) {
      const issue = rowIssue(
        rowNumber,
        parentColumn,
        'invalid_parent',
        `parent '${parentExternalId}' is rejected (row ${parentFailure.rowNumber}: ${parentFailure.code}), so '${write.externalId}' is not imported either`,
        write.externalId,
      );
      failed.set(write.externalId, issue);
      issues.push(...write.rowNumbers.map((row) => ({ ...issue, rowNumber: row })));
      continue;
    }
    const base = {
      externalId: write.externalId,
      level: write.level,
      rowNumbers: write.rowNumbers,
      parentExternalId,
      parentColumn,
    };
    let candidate: unknown;
    if (write.action === 'create') {
      const { styleLevelId, ...body } = write.body;
      candidate = {
        ...base,
        action: 'create',
        body,
        ...(styleLevelId !== undefined ? { styleLevelId } : {}),
      };
    } else {
      candidate = {
        ...base,
        action: 'update',
        id: write.id,
        changedFields: write.changedFields,
        body: write.body,
        ...(write.unarchive ? { unarchive: true } : {}),
      };
    }
    const parsed = writeStepSchema.safeParse(candidate);
    if (parsed.success) {
      steps.push(parsed.data);
      continue;
    }
    const problem = parsed.error.issues[0];
    const issue: RejectIssue = {
      rowNumber,
      column: null,
      code: 'invalid_request',
      message:
        `row ${rowNumber}: the API would refuse '${write.externalId}': ${problem?.path.join('.') ?? ''} ${problem?.message ?? ''}`.trim(),
      externalId: write.externalId,
    };
    failed.set(write.externalId, issue);
    issues.push(...write.rowNumbers.map((row) => ({ ...issue, rowNumber: row })));
  }
  return { steps, issues };
}

/** Cuts the ordered steps into batches of one level each, so a batch never waits on a parent of its own. */
function batchesOf(steps: readonly WriteStep[], size: number): WriteStep[][] {
  const batches: WriteStep[][] = [];
  let current: WriteStep[] = [];
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

export function toCurrentLine(line: {
  id: string;
  rawMaterialId: string;
  percentage: number;
  parentId: string | null;
  weights?: number | null;
  weightUnit?: string | null;
  countriesOfOrigin?: string[] | null;
}): CurrentLine {
  return currentLineSchema.parse({
    id: line.id,
    rawMaterialId: line.rawMaterialId,
    percentage: line.percentage,
    parentId: line.parentId,
    weights: line.weights ?? null,
    weightUnit: line.weightUnit ?? null,
    countriesOfOrigin: line.countriesOfOrigin ?? null,
  });
}

/** Lines of these headers: one list per header, or every line of the account when that takes fewer pages. */
async function readLines(api: ApiCalls, headerIds: readonly string[]): Promise<Map<string, CurrentLine[]>> {
  const byHeader = new Map<string, CurrentLine[]>(headerIds.map((id) => [id, []]));
  const add = (items: ReadonlyArray<Parameters<typeof toCurrentLine>[0] & { materialHeaderId: string }>) => {
    for (const item of items) byHeader.get(item.materialHeaderId)?.push(toCurrentLine(item));
  };
  if (headerIds.length === 0) return byHeader;
  if (headerIds.length >= 4) {
    const first = await api.one(() => api.client.materials.listLines({ page: 1, limit: 100 }));
    add(first.items);
    if (first.pagination.totalPages <= headerIds.length) {
      await api.remainingPages(first, (page) => api.client.materials.listLines({ page, limit: 100 }), add);
      return byHeader;
    }
    for (const id of headerIds) byHeader.set(id, []);
  }
  await forEachBounded(headerIds, 8, async (headerId) => {
    const first = await api.one(() =>
      api.client.materials.listLines({ materialHeaderId: headerId, page: 1, limit: 100 }),
    );
    add(first.items);
    await api.remainingPages(
      first,
      (page) => api.client.materials.listLines({ materialHeaderId: headerId, page, limit: 100 }),
      add,
    );
  });
  return byHeader;
}

/**
 * The composition writes of the sheet (spec 02): for products that exist, the lines of the owned headers the sheet
 * names are read and compared; an unchanged composition gives no step. New products get their headers created.
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
  }
  const lines = await readLines(api, [...wantedHeaders]);
  const steps: CompositionStep[] = [];
  let unchanged = 0;
  for (const check of checks) {
    const owned: CurrentHeader[] = (check.owned ?? []).map((header) => ({
      ...header,
      lines: lines.get(header.id) ?? null,
    }));
    const ops = compositionOps(check.desired, owned);
    if (ops.length === 0) {
      unchanged += 1;
      continue;
    }
    steps.push(
      compositionStepSchema.parse({
        externalId: check.externalId,
        level: check.level,
        rowNumbers: check.rowNumbers,
        column: check.column,
        id: check.id,
        desired: check.desired,
        ops,
      }),
    );
  }
  return { steps, unchanged };
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
      ...content.plan.unchanged.map((step) => ({
        externalId: step.externalId,
        level: step.level,
        action: 'unchanged',
        rows: step.rowNumbers,
      })),
      ...content.plan.invalid.map((step) => ({
        externalId: step.externalId,
        action: 'invalid',
        rows: step.rowNumbers,
        codes: [...new Set(step.issues.map((issue) => issue.code))],
      })),
      ...content.plan.archived.map((step) => ({
        externalId: step.externalId,
        level: step.level,
        action: 'archived',
        rows: step.rowNumbers,
      })),
      ...content.compositionSteps.map((step) => ({
        externalId: step.externalId,
        level: step.level,
        action: 'composition',
        rows: step.rowNumbers,
        ops: step.ops.map((op) => op.op),
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
 * Reads what the catalogue holds for the sheet, validates the drafts against it (parents outside the sheet,
 * required fields of new products), classifies every product and stages the writes in batches. Writes nothing
 * to the API, so a retry simply plans again.
 */
export async function planRun(
  input: PlanInput,
  run: PlmRun,
  api: ApiCalls,
  progress: (details: Record<string, unknown>) => void,
): Promise<PlanResult> {
  const started = Date.now();
  const stage = await run.staging.getJson(input.sheet, sheetStageSchema);
  const drafts = await run.staging.readAllNdjson(stage.drafts, draftSchema);
  const readIssues = await run.staging.readAllNdjson(stage.issues, rowIssueSchema);

  const withMaterial = drafts.some((draft) => draft.fields.composition !== undefined);
  const { products, read } = await readCatalogue(
    sheetKeys(drafts),
    api,
    (count) => progress({ phase: 'reading catalogue', products: count }),
    { withMaterial },
  );
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
  for (const [index, batch] of batchesOf(steps, input.batchSize).entries()) {
    const ref: StagingRef = await run.staging.putNdjson(
      run.key(`batch-${String(index).padStart(5, '0')}.ndjson`),
      batch,
    );
    batches.push({ level: batch[0]?.level ?? 'style', ref, kind: 'products' });
  }
  for (let start = 0; start < compositions.steps.length; start += input.batchSize) {
    const batch = compositions.steps.slice(start, start + input.batchSize);
    const ref: StagingRef = await run.staging.putNdjson(
      run.key(`batch-${String(batches.length).padStart(5, '0')}.ndjson`),
      batch,
    );
    batches.push({ level: batch[0]?.level ?? 'style', ref, kind: 'compositions' });
  }
  const issuesRef = await run.staging.putNdjson(run.key('plan-issues.ndjson'), issues);
  const planFile = run.file('plan.json');
  await writePlanFile(planFile, {
    sourceFile: stage.sourceFile,
    profile: stage.profileName,
    catalogue: read,
    counts,
    plan,
    steps,
    compositionSteps: compositions.steps,
    issues,
  });
  await run.publish('plan.json');
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
