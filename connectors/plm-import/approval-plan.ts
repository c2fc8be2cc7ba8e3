import { z } from 'zod';
import { stagingRefSchema, type StagingRef } from '../staging';
import { cliCommand } from '../cli-command';
import { counted } from '../counted';
import { escapeHtml, htmlDocument, htmlTable, tableMatrix, toXlsx, type Table } from '../reports';
import { isTraceabilityApiError, type TraceabilityClient } from '../traceability';
import { writeFileAtomically } from '../storage';
import { fieldWords, inheritableFields, type ProductLevel } from './draft';
import { REFERENCE_FIELDS } from './read-sheet';
import { mappingProfileSchema, type MappingProfile } from './profiles/schema';
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
 * updates with field-level before → after, deletes, rejects) and the snapshot of exactly what was approved. What
 * changed after approval is held back in changed-since-approval.ts.
 */

/** Updates whose current values are read for the before → after columns; beyond, only the new values are shown. */
const MAX_BEFORE_READS = 500;
/** Rows each section of plan.html lists (it says how many more); plan.xlsx and plan.json hold every one. */
export const PLAN_HTML_ROWS = 500;

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
  /** The sheet's column for the field. */
  column: string;
  before: string;
  after: string;
}

const isInheritable = (field: string): boolean => (inheritableFields as ReadonlySet<string>).has(field);

type ReferenceField = keyof typeof REFERENCE_FIELDS;
const isReferenceField = (field: string): field is ReferenceField => field in REFERENCE_FIELDS;

/**
 * What the plan calls a field and how it writes a value: the sheet's column (a run planned before the manifest kept
 * them: the field's words) and the names the sheet gave, where the API holds ids (a style type, brands...).
 */
class SheetWords {
  constructor(
    private readonly profile: MappingProfile | undefined,
    private readonly names: ReadonlyMap<ReferenceField, ReadonlyMap<string, string>>,
  ) {}

  private mapping(level: ProductLevel) {
    if (!this.profile) return undefined;
    return this.profile.layout === 'native' ? this.profile.mapping : this.profile[level];
  }

  /** The column the field came from; a template's or a constant's field is named in words (the template beside). */
  column(level: ProductLevel, field: string): string {
    const words = (fieldWords as Record<string, string | undefined>)[field] ?? field;
    const fields: Partial<Record<string, { column?: string; template?: string }>> =
      this.mapping(level)?.fields ?? {};
    const source = fields[field === 'weight' ? 'weightValue' : field];
    if (source?.column !== undefined) return source.column;
    return source?.template !== undefined ? `${words} (${source.template})` : words;
  }

  value(field: string, value: unknown): string {
    if (value === undefined) return '';
    if (value === null) return '(empty)';
    if (typeof value === 'boolean') return value ? 'yes' : 'no';
    if (field === 'codes' && Array.isArray(value))
      return (value as Array<{ codeId?: unknown; codeValue?: unknown }>)
        .map((code) => `${String(code.codeId)} ${String(code.codeValue)}`)
        .join(', ');
    if (field === 'weight' && typeof value === 'object' && 'value' in value && 'unit' in value)
      return `${String(value.value)} ${String(value.unit)}`;
    const names = isReferenceField(field) ? this.names.get(field) : undefined;
    const named = (item: unknown): string =>
      typeof item === 'string' ? (names?.get(item) ?? item) : JSON.stringify(item);
    if (Array.isArray(value)) return value.map(named).join(', ');
    return named(value);
  }

  /** `Style Number (PLM_ID): S1`: a code under the column the mapping reads it from, else its type (a code column's header). */
  private codes(level: ProductLevel, codes: unknown): string[] {
    if (!Array.isArray(codes)) return [`${this.column(level, 'codes')}: ${this.value('codes', codes)}`];
    const sources = this.mapping(level)?.codes ?? [];
    return (codes as Array<{ codeId?: unknown; codeValue?: unknown }>).map((code) => {
      const column = sources.find((source) => source.codeId === code.codeId)?.source.column;
      const type = String(code.codeId);
      return `${column === undefined ? type : `${column} (${type})`}: ${String(code.codeValue)}`;
    });
  }

  /** `Style Name: Tee; Style Number (PLM_ID): S1; Brand: Acme`: a create's values, under the sheet's columns. */
  values(level: ProductLevel, body: Record<string, unknown>): string {
    return Object.entries(body)
      .filter(([field, value]) => field !== 'externalId' && field !== 'parentId' && value !== undefined)
      .flatMap(([field, value]) =>
        field === 'codes'
          ? this.codes(level, value)
          : [`${this.column(level, field)}: ${this.value(field, value)}`],
      )
      .join('; ');
  }
}

/** `3–522, 530`: a product's rows as runs, the first 10 of them and how many rows more (a style may span thousands). */
function rowsText(rows: readonly number[]): string {
  const runs: Array<[number, number]> = [];
  for (const row of [...rows].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && row <= last[1] + 1) last[1] = Math.max(last[1], row);
    else runs.push([row, row]);
  }
  const shown = runs.slice(0, 10).map(([from, to]) => (from === to ? `${from}` : `${from}–${to}`));
  const rest = runs.slice(10).reduce((count, [from, to]) => count + to - from + 1, 0);
  return shown.join(', ') + (rest > 0 ? `, and ${rest} more` : '');
}

/** The names of the reference ids the plan's writes carry (one cached list read per kind). */
async function referenceNames(
  client: TraceabilityClient,
  bodies: ReadonlyArray<Record<string, unknown>>,
): Promise<Map<ReferenceField, Map<string, string>>> {
  const names = new Map<ReferenceField, Map<string, string>>();
  for (const [field, { kind }] of Object.entries(REFERENCE_FIELDS) as Array<
    [ReferenceField, (typeof REFERENCE_FIELDS)[ReferenceField]]
  >) {
    if (!bodies.some((body) => body[field] !== undefined)) continue;
    const index = await client.reference.index(kind);
    names.set(field, new Map(index.items.map(({ id, name }) => [id, name])));
  }
  return names;
}

/** `<h2>`, the table (its first PLAN_HTML_ROWS rows) and how many more plan.xlsx lists. */
function section<R>(heading: string, table: Table<R>, emptyText: string): string {
  const shown = { ...table, rows: table.rows.slice(0, PLAN_HTML_ROWS) };
  const more = table.rows.length - shown.rows.length;
  return [
    `<h2>${escapeHtml(heading)} (${table.rows.length})</h2>`,
    htmlTable(shown, { emptyText, caption: false }),
    ...(more > 0
      ? [
          `<p class="more">The first ${PLAN_HTML_ROWS} are shown; ${more} more are not: plan.xlsx (sheet ${escapeHtml(table.name)}) lists every one.</p>`,
        ]
      : []),
  ].join('\n');
}

export async function currentValues(
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

export function compositionText(step: CompositionStep): string {
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
  const rows = `${counted(named.size, 'row')} rejected`;
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
  const profile = mappingProfileSchema.safeParse(manifest.profile);
  const words = new SheetWords(
    profile.success ? profile.data : undefined,
    await referenceNames(
      client,
      steps.map((step) => step.body as Record<string, unknown>),
    ),
  );
  const changes: FieldChange[] = [];
  /** updatedAt of each product to update, as the plan saw it: a later one means the platform changed it since. */
  const seenAt: Record<string, string | null> = {};
  for (const [index, step] of updates.entries()) {
    const before = index < MAX_BEFORE_READS ? await currentValues(client, step.externalId) : undefined;
    if (before) seenAt[step.externalId] = typeof before.updatedAt === 'string' ? before.updatedAt : null;
    const body = step.body as Record<string, unknown>;
    for (const field of step.changedFields) {
      // A swap's product is written twice: without the codes it takes, then (a later batch) with them.
      const after = `${words.value(field, body[field])}${step.release ? ' (first of two writes, a swap: without the codes it takes, freeing those it gives up)' : ''}`;
      let shown = before
        ? words.value(field, before[field] ?? null)
        : index < MAX_BEFORE_READS
          ? '(not found)'
          : '(not read)';
      // A GET gives inherited fields resolved (spec 01): on a child, a changed field reading as its new value is the
      // parent's, which the update makes the child's own.
      if (before && shown === after && step.level !== 'style' && isInheritable(field))
        shown = `${shown} (inherited from its parent; the update makes it its own)`;
      changes.push({
        externalId: step.externalId,
        level: step.level,
        column: words.column(step.level, field),
        before: shown,
        after,
      });
    }
  }

  const tables = {
    creates: {
      name: 'Creates',
      columns: [
        { header: 'product', value: (s) => s.externalId },
        { header: 'level', value: (s) => s.level },
        { header: 'parent', value: (s) => s.parentExternalId ?? '' },
        { header: 'rows', value: (s) => rowsText(s.rowNumbers) },
        {
          header: 'values (column: value)',
          value: (s) =>
            words.values(s.level, {
              ...(s.body as Record<string, unknown>),
              ...(s.styleLevelId === undefined ? {} : { styleLevelId: s.styleLevelId }),
            }),
        },
      ],
      rows: creates,
    } satisfies Table<CreateWrite>,
    updates: {
      name: 'Updates',
      columns: [
        { header: 'product', value: (c) => c.externalId },
        { header: 'level', value: (c) => c.level },
        { header: 'column', value: (c) => c.column },
        { header: 'before', value: (c) => c.before },
        { header: 'after', value: (c) => c.after },
      ],
      rows: changes,
    } satisfies Table<FieldChange>,
    compositions: {
      name: 'Compositions',
      columns: [
        { header: 'product', value: (c) => c.externalId },
        { header: 'composition', value: (c) => compositionText(c) },
        { header: 'writes', value: (c) => c.ops.length },
        { header: 'note', value: (c) => c.note ?? '' },
      ],
      rows: compositionSteps,
    } satisfies Table<CompositionStep>,
    deletes: {
      name: 'Deletes',
      columns: [{ header: 'product', value: (d) => d.externalId }],
      rows: [] as { externalId: string }[],
    } satisfies Table<{ externalId: string }>,
    rejects: {
      name: 'Rejects',
      columns: [
        { header: 'row', value: (i) => i.rowNumber },
        { header: 'product', value: (i) => i.externalId ?? '' },
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
  const updated = new Set(updates.map((step) => step.externalId)).size;
  const summary = `${creates.length} to create, ${updated} to update (${changes.length} field changes), 0 to delete (the import never deletes), ${rejected}`;
  const shownRun = escapeHtml(input.workflowId);
  const html = htmlDocument(
    `Plan awaiting approval: ${input.workflowId}`,
    [
      `<h1>Plan awaiting approval</h1>`,
      `<p>Run <code>${shownRun}</code>, sheet <code>${escapeHtml(manifest.sourceFile)}</code>: ${escapeHtml(summary)}.</p>`,
      `<p>Approve with <code>${cliCommand('approve', shownRun)}</code> (or the Web UI's signal <code>approve</code>); reject with <code>${cliCommand('reject', shownRun)}</code>.</p>`,
      section('Creates', tables.creates, 'Nothing to create.'),
      section('Updates, column by column: before → after', tables.updates, 'Nothing to update.'),
      section('Material compositions to write', tables.compositions, 'No composition changes.'),
      `<h2>Deletes (0)</h2><p>The PLM import never deletes.</p>`,
      section('Rejects', tables.rejects, 'No rejects.'),
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
    updates: updated,
    deletes: 0,
    rejects: rejectedProducts,
    rejected,
  };
}
