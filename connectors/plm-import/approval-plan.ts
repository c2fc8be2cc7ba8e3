import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { stagingRefSchema, type StagingRef } from '../staging';
import { htmlDocument, htmlTable, tableMatrix, toXlsx, type Table } from '../reports';
import { isTraceabilityApiError, type TraceabilityClient } from '../traceability';
import { writeHeldBack, type HeldBackList } from '../held-back';
import { writeFileAtomically } from '../storage';
import { inheritableFields } from './draft';
import {
  compositionStepSchema,
  manifestSchema,
  plmRun,
  rejectIssueSchema,
  writeStepSchema,
  type CompositionStep,
  type CreateWrite,
  type Manifest,
  type PlmRun,
  type RejectIssue,
  type WriteStep,
} from './staged-run';

/**
 * Plan, then approve (PLM import): the human-readable plan a run awaiting approval shows (html and xlsx: creates,
 * updates with field-level before → after, deletes, rejects), the snapshot of exactly what was approved, and after
 * approval the comparison with a fresh plan, so a product changed on the platform in between is held back and
 * reported instead of written.
 */

/** Updates whose current values are read for the before → after columns; beyond, only the new values are shown. */
const MAX_BEFORE_READS = 500;

export const writePlanInputSchema = z.strictObject({
  runKey: z.string().min(1),
  manifest: stagingRefSchema,
  workflowId: z.string().min(1),
});
export type WritePlanInput = z.infer<typeof writePlanInputSchema>;

export interface ApprovalPlanFiles {
  /** Where the plans are: in the run-data store (`s3://…` on S3), else the run folder's path. */
  htmlFile: string;
  xlsxFile: string;
  /** The approved steps, compared with a fresh plan once approved. */
  approved: StagingRef;
  creates: number;
  updates: number;
  deletes: number;
  rejects: number;
  /** `4 rejected, 3 archived left as they are; 9 rows rejected (see Rejects)`: as plan.html says it, for the details. */
  rejected: string;
}

interface FieldChange {
  externalId: string;
  level: string;
  field: string;
  before: string;
  after: string;
}

const isInheritable = (field: string): boolean => (inheritableFields as ReadonlySet<string>).has(field);

function cell(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return '(empty)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

async function currentValues(
  client: TraceabilityClient,
  externalId: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    return (await client.products.get(externalId)) as unknown as Record<string, unknown>;
  } catch (error) {
    if (isTraceabilityApiError(error) && error.statusCode === 404) return undefined;
    throw error;
  }
}

/** The steps of the plan's batches of one kind: product writes, or material-composition writes (spec 02). */
async function readStaged<T>(
  run: PlmRun,
  manifest: Manifest,
  kind: Manifest['batches'][number]['kind'],
  schema: z.ZodType<T>,
): Promise<T[]> {
  const steps: T[] = [];
  for (const batch of manifest.batches) {
    if (batch.kind === kind)
      for await (const step of run.staging.readNdjson(batch.ref, schema)) steps.push(step);
  }
  return steps;
}

function compositionText(step: CompositionStep): string {
  return step.desired
    .map(
      (header) =>
        `${header.name}: ${header.lines.map((line) => `${line.percentage}% ${line.material}`).join(', ')}`,
    )
    .join('; ');
}

/**
 * `; 5 rows rejected, 1 naming no product (see Rejects)`: the rows as the result's `rejectedRows` counts them. A row
 * naming no product (a blank externalId) is in neither count before it, so it is named apart.
 */
function rowsRejected(issues: readonly RejectIssue[]): string {
  const named = new Map<number, boolean>();
  for (const { rowNumber, externalId } of issues)
    if (rowNumber > 0) named.set(rowNumber, named.get(rowNumber) === true || externalId !== undefined);
  if (named.size === 0) return '';
  const unnamed = [...named.values()].filter((isNamed) => !isNamed).length;
  const rows = `${named.size} ${named.size === 1 ? 'row' : 'rows'} rejected`;
  const noProduct = unnamed === 0 ? '' : `, ${unnamed === named.size ? '' : `${unnamed} `}naming no product`;
  return `; ${rows}${noProduct} (see Rejects)`;
}

export async function writeApprovalPlan(
  input: WritePlanInput,
  dataDir: string,
  client: TraceabilityClient,
): Promise<ApprovalPlanFiles> {
  const run = plmRun(dataDir, input.runKey);
  const manifest = await run.staging.getJson(input.manifest, manifestSchema);
  const steps = await readStaged(run, manifest, 'products', writeStepSchema);
  const compositionSteps = await readStaged(run, manifest, 'compositions', compositionStepSchema);
  const issues = await run.staging.readAllNdjson(manifest.issues, rejectIssueSchema);

  const creates = steps.filter((step): step is CreateWrite => step.action === 'create');
  const updates = steps.filter(
    (step): step is Extract<WriteStep, { action: 'update' }> => step.action === 'update',
  );
  const changes: FieldChange[] = [];
  /** updatedAt of each product to update, as the plan saw it: a later one means the platform changed it since. */
  const seenAt: Record<string, string | null> = {};
  for (const [index, step] of updates.entries()) {
    const before = index < MAX_BEFORE_READS ? await currentValues(client, step.externalId) : undefined;
    if (before) seenAt[step.externalId] = typeof before.updatedAt === 'string' ? before.updatedAt : null;
    const body = step.body as Record<string, unknown>;
    for (const field of step.changedFields) {
      const after = cell(body[field]);
      let shown = before ? cell(before[field]) : index < MAX_BEFORE_READS ? '(not found)' : '(not read)';
      // A GET gives inherited fields resolved (spec 01): on a child, a changed field reading as its new value is the
      // parent's, which the update makes the child's own.
      if (before && shown === after && step.level !== 'style' && isInheritable(field))
        shown = `${shown} (inherited from its parent; the update makes it its own)`;
      changes.push({ externalId: step.externalId, level: step.level, field, before: shown, after });
    }
  }

  const tables = {
    creates: {
      name: 'Creates',
      columns: [
        { header: 'externalId', value: (s) => s.externalId },
        { header: 'level', value: (s) => s.level },
        { header: 'parent', value: (s) => s.parentExternalId ?? '' },
        { header: 'rows', value: (s) => s.rowNumbers.join(' ') },
        { header: 'fields', value: (s) => JSON.stringify(s.body) },
      ],
      rows: creates,
    } satisfies Table<CreateWrite>,
    updates: {
      name: 'Updates',
      columns: [
        { header: 'externalId', value: (c) => c.externalId },
        { header: 'level', value: (c) => c.level },
        { header: 'field', value: (c) => c.field },
        { header: 'before', value: (c) => c.before },
        { header: 'after', value: (c) => c.after },
      ],
      rows: changes,
    } satisfies Table<FieldChange>,
    compositions: {
      name: 'Compositions',
      columns: [
        { header: 'externalId', value: (c) => c.externalId },
        { header: 'composition', value: (c) => compositionText(c) },
        { header: 'writes', value: (c) => c.ops.length },
        { header: 'note', value: (c) => c.note ?? '' },
      ],
      rows: compositionSteps,
    } satisfies Table<CompositionStep>,
    deletes: {
      name: 'Deletes',
      columns: [{ header: 'externalId', value: (d) => d.externalId }],
      rows: [] as { externalId: string }[],
    } satisfies Table<{ externalId: string }>,
    rejects: {
      name: 'Rejects',
      columns: [
        { header: 'row', value: (i) => i.rowNumber },
        { header: 'externalId', value: (i) => i.externalId ?? '' },
        { header: 'column', value: (i) => i.column ?? '' },
        { header: 'code', value: (i) => i.code },
        { header: 'message', value: (i) => i.message },
      ],
      rows: issues,
    } satisfies Table<RejectIssue>,
  };
  // As the run's result counts them: a flat row's issue names its style only, though its variant and SKUs go with it.
  const rejectedProducts = manifest.counts.invalid;
  const { archived } = manifest.counts;
  const rejected = `${rejectedProducts} rejected${archived > 0 ? `, ${archived} archived left as they are` : ''}${rowsRejected(issues)}`;
  const summary = `${creates.length} to create, ${updates.length} to update (${changes.length} field changes), 0 to delete (the import never deletes), ${rejected}`;
  const html = htmlDocument(
    `Plan awaiting approval: ${input.workflowId}`,
    [
      `<h1>Plan awaiting approval</h1>`,
      `<p>Run <code>${input.workflowId}</code>, sheet <code>${manifest.sourceFile}</code>: ${summary}.</p>`,
      `<p>Approve with <code>trace-sync approve ${input.workflowId}</code> (or the Web UI's signal <code>approve</code>); reject with <code>trace-sync reject ${input.workflowId}</code>.</p>`,
      `<h2>Creates (${creates.length})</h2>`,
      htmlTable(tables.creates, { emptyText: 'Nothing to create.' }),
      `<h2>Updates, field by field: before → after (${changes.length})</h2>`,
      htmlTable(tables.updates, { emptyText: 'Nothing to update.' }),
      `<h2>Material compositions to write (${compositionSteps.length})</h2>`,
      htmlTable(tables.compositions, { emptyText: 'No composition changes.' }),
      `<h2>Deletes (0)</h2><p>The PLM import never deletes.</p>`,
      `<h2>Rejects (${issues.length})</h2>`,
      htmlTable(tables.rejects, { emptyText: 'No rejects.' }),
    ].join('\n'),
  );
  const htmlFile = run.file('plan.html');
  const xlsxFile = run.file('plan.xlsx');
  await writeFileAtomically(htmlFile, html);
  await writeFileAtomically(
    xlsxFile,
    toXlsx([
      tableMatrix(tables.creates),
      tableMatrix(tables.updates),
      tableMatrix(tables.compositions),
      tableMatrix(tables.deletes),
      tableMatrix(tables.rejects),
    ]),
  );
  const approved = await run.staging.putNdjson(run.key('approved-steps.ndjson'), [
    { seenAt },
    ...steps,
    ...compositionSteps.map((composition) => ({ composition })),
  ]);
  return {
    htmlFile: await run.publishedLocation('plan.html'),
    xlsxFile: await run.publishedLocation('plan.xlsx'),
    approved,
    creates: creates.length,
    updates: updates.length,
    deletes: 0,
    rejects: rejectedProducts,
    rejected,
  };
}

export const holdBackInputSchema = z.strictObject({
  runKey: z.string().min(1),
  /** The fresh plan's manifest, made after approval. */
  manifest: stagingRefSchema,
  approved: stagingRefSchema,
});
export type HoldBackInput = z.infer<typeof holdBackInputSchema>;

export interface Replanned {
  externalId: string;
  /** What was approved (`none` when the product needed no write then). */
  approved: string;
  /** What the fresh plan wants now. */
  now: string;
}

/** Products whose write differs from the approved one: not written, reported (the first ones; every one in the file). */
export interface HoldBackResult extends HeldBackList<Replanned> {
  manifest: StagingRef;
  batchCount: number;
  /** Product writes held back, by action (the fresh plan's counts less these are the writes applied). */
  heldBack: { create: number; update: number };
}

function describe(step: WriteStep | undefined): string {
  if (!step) return 'none';
  return step.action === 'create' ? 'create' : `update ${step.changedFields.join(', ')}`;
}

/**
 * Compares the fresh plan with the approved one and stages batches holding only the writes that were approved
 * exactly as they are now: a product whose write changed (the platform changed in between) is held back.
 */
const approvedLineSchema = z.union([
  z.strictObject({ seenAt: z.record(z.string(), z.string().nullable()) }),
  z.strictObject({ composition: compositionStepSchema }),
  writeStepSchema,
]);

export async function holdBackChangedSteps(
  input: HoldBackInput,
  dataDir: string,
  client: TraceabilityClient,
): Promise<HoldBackResult> {
  const run = plmRun(dataDir, input.runKey);
  const manifest = await run.staging.getJson(input.manifest, manifestSchema);
  const approved = new Map<string, WriteStep>();
  const approvedCompositions = new Map<string, CompositionStep>();
  let seenAt: Record<string, string | null> = {};
  for await (const line of run.staging.readNdjson(input.approved, approvedLineSchema)) {
    if ('seenAt' in line) seenAt = line.seenAt;
    else if ('composition' in line) approvedCompositions.set(line.composition.externalId, line.composition);
    else approved.set(line.externalId, line);
  }
  /** The same write can still overwrite someone's edit (name Old → New approved, now Other → New): updatedAt tells. */
  const unchangedSince = async (step: WriteStep): Promise<boolean> => {
    const seen = seenAt[step.externalId];
    if (step.action !== 'update' || seen === undefined) return true;
    const now = await currentValues(client, step.externalId);
    return now !== undefined && (typeof now.updatedAt === 'string' ? now.updatedAt : null) === seen;
  };
  const replanned: Replanned[] = [];
  const seen = new Set<string>();
  const batches: Manifest['batches'] = [];
  const counts = { ...manifest.counts };
  const heldCounts = { create: 0, update: 0 };
  const heldBack = new Set<string>();
  const stage = async (index: number, batch: Manifest['batches'][number], kept: readonly unknown[]) => {
    if (kept.length === 0) return;
    const ref = await run.staging.putNdjson(
      run.key(`approved-batch-${String(index).padStart(5, '0')}.ndjson`),
      kept,
    );
    batches.push({ level: batch.level, kind: batch.kind, ref });
  };
  // Product batches come first in the manifest, so a product held back is known before its composition is seen.
  for (const [index, batch] of manifest.batches.entries()) {
    if (batch.kind === 'compositions') {
      // A composition is written only as approved, and not for a product whose own write was held back.
      const kept: CompositionStep[] = [];
      for await (const step of run.staging.readNdjson(batch.ref, compositionStepSchema)) {
        seen.add(`composition:${step.externalId}`);
        const was = approvedCompositions.get(step.externalId);
        const same =
          was !== undefined &&
          isDeepStrictEqual(was.desired, step.desired) &&
          isDeepStrictEqual(was.ops, step.ops);
        if (same && !heldBack.has(step.externalId)) kept.push(step);
        else
          replanned.push({
            externalId: step.externalId,
            approved: was ? `composition ${compositionText(was)}` : 'none',
            now: `composition ${compositionText(step)}${same ? ' (held back with its product)' : ''}`,
          });
      }
      await stage(index, batch, kept);
      continue;
    }
    const kept: WriteStep[] = [];
    for await (const step of run.staging.readNdjson(batch.ref, writeStepSchema)) {
      seen.add(step.externalId);
      const was = approved.get(step.externalId);
      if (was && isDeepStrictEqual(was, step) && (await unchangedSince(step))) kept.push(step);
      else {
        heldBack.add(step.externalId);
        replanned.push({
          externalId: step.externalId,
          approved: describe(was),
          now: isDeepStrictEqual(was, step)
            ? `${describe(step)} (changed on the platform since the plan)`
            : describe(step),
        });
        counts[step.action] -= 1;
        heldCounts[step.action] += 1;
      }
    }
    await stage(index, batch, kept);
  }
  for (const [externalId, step] of approvedCompositions)
    if (!seen.has(`composition:${externalId}`))
      replanned.push({ externalId, approved: `composition ${compositionText(step)}`, now: 'none' });
  for (const [externalId, step] of approved)
    if (!seen.has(externalId)) replanned.push({ externalId, approved: describe(step), now: 'none' });
  const ref = await run.staging.putJson(run.key('approved-manifest.json'), {
    ...manifest,
    batches,
    counts,
  } satisfies Manifest);
  const listed = await writeHeldBack(
    run,
    [
      { header: 'externalId', value: (r) => r.externalId },
      { header: 'approved', value: (r) => r.approved },
      { header: 'now', value: (r) => r.now },
    ],
    replanned,
  );
  return { manifest: ref, batchCount: batches.length, heldBack: heldCounts, ...listed };
}
