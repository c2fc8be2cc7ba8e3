import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { writeHeldBack, type HeldBackList } from '../held-back';
import { boundMessage } from '../input-limits';
import { cliCommand } from '../cli-command';
import { counted } from '../counted';
import { escapeHtml, htmlDocument, htmlTable, tableMatrix, toXlsx, type Table } from '../reports';
import { stagingRefSchema, type StagingRef } from '../staging';
import { writeFileAtomically } from '../storage';
import { moreReadWarnings } from './read-warnings';
import { rejectedSaid } from './rejected-said';
import type { OrderType } from '../traceability/schemas/orders';
import {
  batchRecordSchema,
  orderRun,
  outcomeKey,
  runManifestSchema,
  type BatchRecord,
  type OrderOutcome,
  type RunManifest,
} from './push-run';

/**
 * Plan, then approve (ERP push): the plan is a dry pass of every batch under a run key of its own (reads only, its
 * outcome logs beside the run's), with the orders refused while reading, written as html and xlsx (an update lists
 * each order field it changes, before → after); after approval a second dry pass is compared with it, and the orders
 * whose outcome changed (kind, line counts, or fields and their values) are taken out of the batches the real pass
 * writes.
 */

export const writeErpPlanInputSchema = z.strictObject({
  runKey: z.string().min(1),
  /** Run key of the dry pass whose outcomes are the plan. */
  planRunKey: z.string().min(1),
  workflowId: z.string().min(1),
  /**
   * The warnings from reading the export (a hidden sheet not read, hidden rows), as the prepare step gave them; absent
   * from an input scheduled before they were passed.
   */
  readWarnings: z.array(z.string()).optional(),
  /** How many warnings from reading the export the prepare step left out of `readWarnings`. */
  moreReadWarnings: z.number().int().positive().optional(),
});
export type WriteErpPlanInput = z.infer<typeof writeErpPlanInputSchema>;

export interface ErpApprovalPlanFiles {
  /** Where the plans are: in the run-data store (`s3://…` on S3), else the run folder's path. */
  htmlFile: string;
  xlsxFile: string;
  creates: number;
  updates: number;
  deletes: number;
  rejects: number;
  /** `1 rejected (2 export rows); 1 with a warning, 2 warnings reading the export (see Warnings)`: as plan.html says it. */
  rejected: string;
  /** The first warnings of the Warnings table, for the run's details (plan.html has them all). */
  warnings: string[];
}

/** Warnings the details awaiting approval list; plan.html's Warnings table has every one. */
const WARNINGS_SHOWN = 5;

/** A row of the plan's Warnings table: an order's warning, or one from reading the export (no order). */
interface PlanWarning {
  orderNumber: string;
  orderType: string;
  warning: string;
}

/** `; 1 with a warning, 2 warnings reading the export (see Warnings)`, or nothing when there is none. */
function warningsSaid(orders: number, reading: number): string {
  const parts = [
    ...(orders > 0 ? [`${orders} with a warning`] : []),
    ...(reading > 0 ? [`${counted(reading, 'warning')} reading the export`] : []),
  ];
  return parts.length === 0 ? '' : `; ${parts.join(', ')} (see Warnings)`;
}

const lines = (o: OrderOutcome) => o.lines ?? { created: 0, updated: 0, deleted: 0 };
/** An update's order fields, `deliveryDate: 2026-06-01 → 2026-06-15; …`. */
const fieldsText = (o: OrderOutcome): string =>
  (o.fields ?? []).map((f) => `${f.field}: ${f.before} → ${f.after}`).join('; ');

export async function writeErpApprovalPlan(
  input: WriteErpPlanInput,
  dataDir: string,
): Promise<ErpApprovalPlanFiles> {
  const run = orderRun(dataDir, input.runKey);
  // Orders refused while reading the export never reach a batch: the run's `read` journal holds them, not the plan's.
  const refusedAtRead = (await run.journal('read').entries()).filter(
    (entry): entry is OrderOutcome => entry.kind === 'outcome' && entry.outcome === 'rejected',
  );
  // In the export's order: the journal holds them in the order its batches, run side by side, finished.
  const outcomes = [...refusedAtRead, ...(await orderRun(dataDir, input.planRunKey).outcomes())].sort(
    (a, b) => (a.rows[0] ?? 0) - (b.rows[0] ?? 0),
  );
  const of = (kind: OrderOutcome['outcome']) => outcomes.filter((o) => o.outcome === kind);
  const orderColumns = [
    { header: 'orderNumber', value: (o: OrderOutcome) => o.orderNumber },
    { header: 'orderType', value: (o: OrderOutcome) => o.orderType ?? '' },
    { header: 'rows', value: (o: OrderOutcome) => o.rows.join(' ') },
    { header: 'lines created', value: (o: OrderOutcome) => lines(o).created },
    { header: 'lines updated', value: (o: OrderOutcome) => lines(o).updated },
    { header: 'lines deleted', value: (o: OrderOutcome) => lines(o).deleted },
  ];
  const updateColumns = [
    ...orderColumns,
    { header: 'fields changed (before → after)', value: (o: OrderOutcome) => fieldsText(o) },
  ];
  const deletes = outcomes.filter((o) => lines(o).deleted > 0);
  const warned = outcomes.filter((o) => o.warning !== undefined);
  const readWarnings = input.readWarnings ?? [];
  // An order's warning first: it names a write the approval allows (an order a platform user made, updated); an
  // export may give many of its own (each profile column it lacks), which must not push those out of the details.
  const warnings: PlanWarning[] = [
    ...warned.map((o) => ({
      orderNumber: o.orderNumber,
      orderType: o.orderType ?? '',
      warning: o.warning ?? '',
    })),
    ...[...readWarnings, ...moreReadWarnings(input.moreReadWarnings)].map((warning) => ({
      orderNumber: '',
      orderType: '',
      warning,
    })),
  ];
  const tables: Table<OrderOutcome>[] = [
    { name: 'Creates', columns: orderColumns, rows: of('created') },
    { name: 'Updates', columns: updateColumns, rows: of('patched') },
    { name: 'Deletes', columns: orderColumns, rows: deletes },
    {
      name: 'Rejects',
      columns: [
        { header: 'orderNumber', value: (o) => o.orderNumber },
        { header: 'orderType', value: (o) => o.orderType ?? '' },
        { header: 'rows', value: (o) => o.rows.join(' ') },
        { header: 'code', value: (o) => o.code ?? '' },
        { header: 'message', value: (o) => o.message ?? '' },
      ],
      rows: of('rejected'),
    },
  ];
  const warningsTable: Table<PlanWarning> = {
    // What the run's result will warn of: reading the export (a hidden sheet not read, hidden rows), and an order a
    // platform user made under the export's number, say.
    name: 'Warnings',
    columns: [
      { header: 'orderNumber', value: (w) => w.orderNumber },
      { header: 'orderType', value: (w) => w.orderType },
      { header: 'warning', value: (w) => w.warning },
    ],
    rows: warnings,
  };
  const section = <R>(table: Table<R>) => ({
    heading: `<h2>${escapeHtml(table.name)} (${table.rows.length})</h2>`,
    html: htmlTable(table, { emptyText: 'None.', caption: false }),
    matrix: tableMatrix(table),
  });
  const sections = [...tables.map((table) => section(table)), section(warningsTable)];
  const counts = {
    creates: of('created').length,
    updates: of('patched').length,
    deletes: deletes.length,
    rejects: of('rejected').length,
  };
  const said = warningsSaid(warned.length, readWarnings.length + (input.moreReadWarnings ?? 0));
  // The rows the rejects file will hold: every export row of each rejected order.
  const rejectedRows = new Set(of('rejected').flatMap((o) => o.rows)).size;
  const rejectedCount = rejectedSaid(counts.rejects, rejectedRows);
  const rejected = `${rejectedCount}${said}`;
  const shownRun = escapeHtml(input.workflowId);
  const html = htmlDocument(
    `Plan awaiting approval: ${input.workflowId}`,
    [
      `<h1>Plan awaiting approval</h1>`,
      `<p>Run <code>${shownRun}</code>: ${counts.creates} orders to create, ${counts.updates} to update, ${counts.deletes} with lines to delete, ${rejectedCount}, ${of('unchanged').length} unchanged${said}.</p>`,
      `<p>Approve with <code>${cliCommand('approve', shownRun)}</code>; reject with <code>${cliCommand('reject', shownRun)}</code>.</p>`,
      ...sections.flatMap(({ heading, html }) => [heading, html]),
    ].join('\n'),
  );
  const htmlFile = run.file('plan.html');
  const xlsxFile = run.file('plan.xlsx');
  await writeFileAtomically(htmlFile, html);
  await writeFileAtomically(xlsxFile, toXlsx(sections.map(({ matrix }) => matrix)));
  return {
    htmlFile: await run.publishedLocation('plan.html'),
    xlsxFile: await run.publishedLocation('plan.xlsx'),
    ...counts,
    rejected,
    warnings: [
      ...warnings.slice(0, WARNINGS_SHOWN).map((w) => boundMessage(w.warning, 500)),
      ...(warnings.length > WARNINGS_SHOWN
        ? [`and ${warnings.length - WARNINGS_SHOWN} more in the plan`]
        : []),
    ],
  };
}

export const holdBackOrdersInputSchema = z.strictObject({
  runKey: z.string().min(1),
  manifest: stagingRefSchema,
  planRunKey: z.string().min(1),
  recheckRunKey: z.string().min(1),
});
export type HoldBackOrdersInput = z.infer<typeof holdBackOrdersInputSchema>;

/**
 * An order held back (the approval's report shape, shared with the PLM import: the number as `externalId`, with its
 * order type, since a number is unique per type only).
 */
export interface HeldBackOrder {
  externalId: string;
  orderType: OrderType;
  approved: string;
  now: string;
}

/** Orders held back: the first ones, and every one in the file. */
export interface HoldBackOrdersResult extends HeldBackList<HeldBackOrder> {
  manifest: StagingRef;
  batchCount: number;
}

function describe(outcome: OrderOutcome | undefined): string {
  if (!outcome) return 'none';
  const l = lines(outcome);
  const fields = outcome.fields?.length ? `; ${fieldsText(outcome)}` : '';
  return `${outcome.outcome === 'created' ? 'create' : outcome.outcome === 'patched' ? 'update' : outcome.outcome} (lines +${l.created} ~${l.updated} -${l.deleted}${fields})`;
}

/**
 * Orders whose outcome in the fresh dry pass differs from the approved one are taken out of the batches. Outcomes
 * are matched by order type and number (spec: the number is "Unique within the owner company for the same order
 * type"), so a purchase and a sales order sharing a number never stand in for each other.
 */
export async function holdBackChangedOrders(
  input: HoldBackOrdersInput,
  dataDir: string,
): Promise<HoldBackOrdersResult> {
  const byKey = async (runKey: string) =>
    new Map((await orderRun(dataDir, runKey).outcomes()).map((o) => [outcomeKey(o), o]));
  const approved = await byKey(input.planRunKey);
  const now = await byKey(input.recheckRunKey);
  const same = (a: OrderOutcome | undefined, b: OrderOutcome | undefined) =>
    a !== undefined &&
    b !== undefined &&
    a.outcome === b.outcome &&
    isDeepStrictEqual(lines(a), lines(b)) &&
    // The approved update is the fields it changes and their values: a platform edit in between changes them.
    isDeepStrictEqual(a.fields ?? [], b.fields ?? []) &&
    a.code === b.code;
  const replanned: HeldBackOrder[] = [];
  const { manifest, batchCount } = await rewriteBatches(dataDir, input, 'approved', (record) => {
    const key = outcomeKey(record.draft);
    if (same(approved.get(key), now.get(key))) return record;
    replanned.push({
      externalId: record.draft.orderNumber,
      orderType: record.draft.orderType,
      approved: describe(approved.get(key)),
      now: describe(now.get(key)),
    });
    return undefined;
  });
  const listed = await writeHeldBack(
    orderRun(dataDir, input.runKey),
    [
      { header: 'orderNumber', value: (r) => r.externalId },
      { header: 'orderType', value: (r) => r.orderType },
      { header: 'approved', value: (r) => r.approved },
      { header: 'now', value: (r) => r.now },
    ],
    replanned,
  );
  return { manifest, batchCount, ...listed };
}

export const freshLookupInputSchema = z.strictObject({
  runKey: z.string().min(1),
  manifest: stagingRefSchema,
});
export type FreshLookupInput = z.infer<typeof freshLookupInputSchema>;

/**
 * The same batches with every order marked for a fresh lookup, so a dry pass over them sees what the platform holds
 * now, not the snapshot taken before the plan waited.
 */
export async function freshLookupManifest(input: FreshLookupInput, dataDir: string): Promise<StagingRef> {
  const rewritten = await rewriteBatches(dataDir, input, 'recheck', (record) => ({
    ...record,
    lookup: 'unknown' as const,
    existing: null,
    linesKnown: false,
  }));
  return rewritten.manifest;
}

/** The run's batches staged again as `<name>-batch-*` under a manifest of their own, each record rewritten or dropped. */
async function rewriteBatches(
  dataDir: string,
  input: FreshLookupInput,
  name: string,
  rewrite: (record: BatchRecord) => BatchRecord | undefined,
): Promise<{ manifest: StagingRef; batchCount: number }> {
  const run = orderRun(dataDir, input.runKey);
  const manifest: RunManifest = await run.staging.getJson(input.manifest, runManifestSchema);
  const batches: StagingRef[] = [];
  for (const [index, ref] of manifest.batches.entries()) {
    const kept: BatchRecord[] = [];
    for await (const record of run.staging.readNdjson(ref, batchRecordSchema)) {
      const next = rewrite(record);
      if (next) kept.push(next);
    }
    if (kept.length > 0)
      batches.push(
        await run.staging.putNdjson(run.key(`${name}-batch-${String(index).padStart(5, '0')}.ndjson`), kept),
      );
  }
  const staged = await run.staging.putJson(run.key(`${name}-manifest.json`), {
    ...manifest,
    batches,
  } satisfies RunManifest);
  return { manifest: staged, batchCount: batches.length };
}
