/** The lines half of the reconciliation: which platform line each draft line is, and the PATCH `lines` entries. */

import { quoteInput } from '../input-limits';
import type { OrderPatch } from '../traceability/schemas/orders';
import { roundHalfUp2 } from './cell-values';
import {
  productRefKey,
  type LineDraft,
  type OrderDraft,
  type Problem,
  type ProductRef,
} from './orders/draft';
import type { ExistingOrder, ExistingOrderLine } from './reconcile';

export type LinePatchEntry = NonNullable<OrderPatch['lines']>[number];

export interface LineSummary {
  created: number;
  updated: number;
  deleted: number;
  renamed: number;
  unchanged: number;
}

/** A line the first of two steps moves to a temporary number. */
export interface TemporaryMove {
  id: string;
  orderLineNumber: string;
  temporary: string;
}

export interface LinePlan {
  /** `[]` when the lines already match; one `lines` array; or two when numbers must pass through temporary ones. */
  steps: LinePatchEntry[][];
  summary: LineSummary;
  /** Two steps only: the lines step 1 moves, and the `lines` array that puts their numbers back (step 2 refused). */
  undo?: { moved: TemporaryMove[]; lines: LinePatchEntry[] };
}

/**
 * A platform id for a product ref. The server also takes an externalId as `styleId`, so a new line may fall back
 * to it; comparing with an existing line needs the platform id.
 */
export function styleIdFor(ref: ProductRef, resolved: ReadonlyMap<string, string>): string | undefined {
  return resolved.get(productRefKey(ref));
}

function describeRef(ref: ProductRef): string {
  return 'externalId' in ref ? `externalId '${ref.externalId}'` : `${ref.codeId} '${ref.codeValue}'`;
}

/** Unique per line and never a real number: lines pass through it when numbers are swapped or shifted. */
export function temporaryLineNumber(line: ExistingOrderLine): string {
  return `~tmp~${line.id}`.slice(0, 255);
}

interface Match {
  draft: LineDraft;
  existing: ExistingOrderLine;
}

/** How lines are told apart: the platform id, else the export's line number, else the line's content. */
function matchLines(
  draft: OrderDraft,
  existing: ExistingOrder,
  resolved: ReadonlyMap<string, string>,
  problems: Problem[],
): { matches: Match[]; added: LineDraft[]; unlisted: ExistingOrderLine[] } {
  const byId = new Map(existing.lines.map((line) => [line.id, line]));
  const taken = new Set<string>();
  const matches: Match[] = [];
  const numbered: LineDraft[] = [];
  const unnumbered: LineDraft[] = [];
  for (const line of draft.lines) {
    if (line.lineId === undefined) {
      (line.orderLineNumber === undefined ? unnumbered : numbered).push(line);
      continue;
    }
    const target = byId.get(line.lineId);
    if (target === undefined) {
      problems.push({
        code: 'unknown_line_id',
        field: 'lineId',
        row: line.rows[0],
        message: `row ${line.rows[0]}: line id '${line.lineId}' is not a line of order '${draft.orderNumber}'`,
      });
      continue;
    }
    taken.add(target.id);
    matches.push({ draft: line, existing: target });
  }
  const byNumber = new Map(
    existing.lines.filter((line) => !taken.has(line.id)).map((line) => [line.orderLineNumber, line]),
  );
  const added: LineDraft[] = [];
  for (const line of numbered) {
    const target = line.orderLineNumber === undefined ? undefined : byNumber.get(line.orderLineNumber);
    if (target === undefined) added.push(line);
    else {
      byNumber.delete(target.orderLineNumber);
      taken.add(target.id);
      matches.push({ draft: line, existing: target });
    }
  }
  // `lineNo` is a display position, not identity: without numbers a line is the same line when it holds the same
  // product in the same unit, the same quantity first, then any quantity (a changed quantity), in the order listed.
  // The platform lines are queued by those keys, so each draft line finds its match without a scan.
  const kindKey = (styleId: string, unit: string): string => JSON.stringify([styleId, unit]);
  const quantityKey = (styleId: string, unit: string, quantity: number): string =>
    JSON.stringify([styleId, unit, cents(quantity)]);
  const byQuantity = queuesBy(existing.lines, (line) => quantityKey(line.styleId, line.unit, line.quantity));
  const byKind = queuesBy(existing.lines, (line) => kindKey(line.styleId, line.unit));
  const passes: Array<(line: LineDraft, styleId: string) => ExistingOrderLine | undefined> = [
    (line, styleId) => firstUntaken(byQuantity, quantityKey(styleId, line.unit, line.quantity), taken),
    (line, styleId) => firstUntaken(byKind, kindKey(styleId, line.unit), taken),
  ];
  let pending = unnumbered;
  for (const find of passes) {
    const left: LineDraft[] = [];
    for (const line of pending) {
      const styleId = styleIdFor(line.productRef, resolved);
      const target = styleId === undefined ? undefined : find(line, styleId);
      if (target === undefined) left.push(line);
      else {
        taken.add(target.id);
        matches.push({ draft: line, existing: target });
      }
    }
    pending = left;
  }
  added.push(...pending);
  return { matches, added, unlisted: existing.lines.filter((line) => !taken.has(line.id)) };
}

interface LineQueue {
  lines: ExistingOrderLine[];
  /** Lines before it are all taken. */
  next: number;
}

/** Platform lines grouped by a key, each group in platform order. */
function queuesBy(
  lines: readonly ExistingOrderLine[],
  keyOf: (line: ExistingOrderLine) => string,
): Map<string, LineQueue> {
  const queues = new Map<string, LineQueue>();
  for (const line of lines) {
    const key = keyOf(line);
    const queue = queues.get(key);
    if (queue === undefined) queues.set(key, { lines: [line], next: 0 });
    else queue.lines.push(line);
  }
  return queues;
}

/** The first line of a group not yet taken; taken lines stay taken, so the queue never looks at them again. */
function firstUntaken(
  queues: ReadonlyMap<string, LineQueue>,
  key: string,
  taken: ReadonlySet<string>,
): ExistingOrderLine | undefined {
  const queue = queues.get(key);
  if (queue === undefined) return undefined;
  for (; queue.next < queue.lines.length; queue.next += 1) {
    const line = queue.lines[queue.next];
    if (line !== undefined && !taken.has(line.id)) return line;
  }
  return undefined;
}

function lineChanges(match: Match, styleId: string): Omit<LinePatchEntry, 'id'> {
  const { draft, existing } = match;
  const changes: Omit<LinePatchEntry, 'id'> = {};
  if (draft.orderLineNumber !== undefined && draft.orderLineNumber !== existing.orderLineNumber)
    changes.orderLineNumber = draft.orderLineNumber;
  if (styleId !== existing.styleId) changes.styleId = styleId;
  if (!sameQuantity(draft.quantity, existing.quantity)) changes.quantity = draft.quantity;
  if (draft.unit !== existing.unit) changes.unit = draft.unit;
  if (
    draft.secondaryQuantity !== undefined &&
    !sameQuantity(draft.secondaryQuantity, existing.secondaryQuantity)
  ) {
    changes.secondaryQuantity = draft.secondaryQuantity;
  }
  return changes;
}

export function newLineEntry(
  line: LineDraft,
  resolved: ReadonlyMap<string, string>,
): LinePatchEntry | undefined {
  const styleId =
    styleIdFor(line.productRef, resolved) ??
    ('externalId' in line.productRef ? line.productRef.externalId : undefined);
  if (styleId === undefined) return undefined;
  const entry: LinePatchEntry = { styleId, quantity: line.quantity, unit: line.unit };
  if (line.orderLineNumber !== undefined) entry.orderLineNumber = line.orderLineNumber;
  if (typeof line.secondaryQuantity === 'number') entry.secondaryQuantity = line.secondaryQuantity;
  return entry;
}

/** The problem of a line whose product the API will refuse: not in the catalogue, or archived. */
export function productProblem(line: LineDraft, archived: boolean): Problem {
  const row = line.rows[0];
  return {
    code: 'style_not_found',
    field: 'product',
    row,
    message: archived
      ? `row ${row}: product ${describeRef(line.productRef)} is archived; the API takes only non-archived products on order lines (unarchive it or change the line)`
      : `row ${row}: product ${describeRef(line.productRef)} was not found among your company's own products (the API takes no other company's on an order line, not even one you created for it)`,
  };
}

export interface LineOptions {
  /** The profile's `complete`: platform lines the export does not list are deleted. */
  complete: boolean;
  /** Lines reflected into tracing (`tracingReflectionOrderId`) may be deleted or renamed. */
  allowTracedLineRemoval?: boolean;
  /** `productRefKey`s of archived products: a line may keep one, not take one. */
  archivedRefs?: ReadonlySet<string>;
}

/**
 * Line reconciliation keyed by `lineId` when the export gives it, else by `orderLineNumber`, else by content:
 * matched lines are updated in place with only what changed (bare `{ id }` when nothing did), export-only lines are
 * created, platform-only lines are deleted when the export is complete and kept (bare `{ id }`) otherwise. A line
 * sent to tracing is neither deleted nor renamed without `allowTracedLineRemoval` (the spec's "Tracing coupling":
 * removing it deletes the counterparty's tracing request). A rename onto a number another kept line holds right now
 * (a swap, a shift) is split in two steps through temporary numbers: the server answers 409 to it in one request.
 */
export function planLines(
  draft: OrderDraft,
  existing: ExistingOrder,
  resolvedStyleIds: ReadonlyMap<string, string>,
  options: LineOptions,
): LinePlan | { problems: Problem[] } {
  const { complete } = options;
  const problems: Problem[] = [];
  const { matches, added, unlisted } = matchLines(draft, existing, resolvedStyleIds, problems);
  const archived = (line: LineDraft): boolean =>
    options.archivedRefs?.has(productRefKey(line.productRef)) ?? false;
  const updates: LinePatchEntry[] = [];
  const summary: LineSummary = { created: 0, updated: 0, deleted: 0, renamed: 0, unchanged: 0 };
  for (const match of matches) {
    const styleId = styleIdFor(match.draft.productRef, resolvedStyleIds);
    if (styleId === undefined) {
      problems.push(productProblem(match.draft, false));
      continue;
    }
    const changes = lineChanges(match, styleId);
    if (changes.styleId !== undefined && archived(match.draft))
      problems.push(productProblem(match.draft, true));
    updates.push({ id: match.existing.id, ...changes });
    if (Object.keys(changes).length === 0) summary.unchanged += 1;
    else summary.updated += 1;
    if (changes.orderLineNumber !== undefined) summary.renamed += 1;
  }
  const creates: LinePatchEntry[] = [];
  for (const line of added) {
    const entry = archived(line) ? undefined : newLineEntry(line, resolvedStyleIds);
    if (entry === undefined) problems.push(productProblem(line, archived(line)));
    else creates.push(entry);
  }
  if (!complete) ambiguousLines(draft, added, unlisted, resolvedStyleIds, problems);
  const kept = complete ? [] : unlisted;
  summary.deleted = complete ? unlisted.length : 0;
  summary.unchanged += kept.length;
  summary.created = creates.length;
  if (!options.allowTracedLineRemoval) protectTracedLines(draft, matches, complete ? unlisted : [], problems);
  checkFinalNumbers(draft, matches, added, kept, problems);
  if (problems.length > 0) return { problems };
  if (summary.created + summary.updated + summary.deleted === 0) return { steps: [], summary };

  const final: LinePatchEntry[] = [...updates, ...kept.map((line) => ({ id: line.id })), ...creates];
  const keptNumbers = new Map(
    [...matches.map((m) => m.existing), ...kept].map((line) => [line.orderLineNumber, line.id]),
  );
  const renames = matches.filter(
    (m) => m.draft.orderLineNumber !== undefined && m.draft.orderLineNumber !== m.existing.orderLineNumber,
  );
  const collides = renames.some((m) => {
    const holder =
      m.draft.orderLineNumber === undefined ? undefined : keptNumbers.get(m.draft.orderLineNumber);
    return holder !== undefined && holder !== m.existing.id;
  });
  if (!collides) return { steps: [final], summary };
  // Step 1 moves every renamed line to its own temporary number and changes nothing else.
  const renamedIds = new Set(renames.map((m) => m.existing.id));
  const step1: LinePatchEntry[] = existing.lines.map((line) =>
    renamedIds.has(line.id) ? { id: line.id, orderLineNumber: temporaryLineNumber(line) } : { id: line.id },
  );
  const moved = existing.lines
    .filter((line) => renamedIds.has(line.id))
    .map((line) => ({
      id: line.id,
      orderLineNumber: line.orderLineNumber,
      temporary: temporaryLineNumber(line),
    }));
  const undo = existing.lines.map((line) =>
    renamedIds.has(line.id) ? { id: line.id, orderLineNumber: line.orderLineNumber } : { id: line.id },
  );
  return { steps: [step1, final], summary, undo: { moved, lines: undo } };
}

/**
 * Spec 03, line reconciliation: "an entry without `id` creates a line; any existing line absent from the array is
 * deleted". Without a line id or number, a row that matches no platform line by content (its product or unit
 * changed) is new to the push; when platform lines are left unmatched too and the export is not complete, the row
 * may replace one of them or be a line beside them, and keeping both (what an incomplete export does) would leave
 * the order with the old line and the new. Only `complete` (or line numbers) tells which, so the order is refused.
 * Rows that only add lines, or change a quantity (matched by product and unit), are not in doubt.
 */
function ambiguousLines(
  draft: OrderDraft,
  added: readonly LineDraft[],
  unlisted: readonly ExistingOrderLine[],
  resolved: ReadonlyMap<string, string>,
  problems: Problem[],
): void {
  const guessed = added.filter((line) => line.lineId === undefined && line.orderLineNumber === undefined);
  if (guessed.length === 0 || unlisted.length === 0) return;
  const refOf = new Map([...resolved].map(([key, id]) => [id, key]));
  const productOf = (styleId: string): string => {
    const key = refOf.get(styleId);
    const line = key === undefined ? undefined : draft.lines.find((l) => productRefKey(l.productRef) === key);
    return line === undefined ? `product ${styleId}` : shownRef(line.productRef);
  };
  const rows = listed(
    guessed.map(
      (line) => `row ${line.rows[0]} (${shownRef(line.productRef)}, ${line.quantity} ${line.unit})`,
    ),
  );
  const lines = listed(
    unlisted.map(
      (line) =>
        `'${quoteInput(line.orderLineNumber, 80)}' (${productOf(line.styleId)}, ${line.quantity} ${line.unit})`,
    ),
  );
  problems.push({
    code: 'lines_ambiguous',
    field: 'lines',
    message:
      `order '${quoteInput(draft.orderNumber)}': ${rows} ${guessed.length > 1 ? 'have' : 'has'} no line number and ` +
      `match${guessed.length > 1 ? '' : 'es'} no line of the order on the platform, while its platform ` +
      `line${unlisted.length > 1 ? 's' : ''} ${lines} ${unlisted.length > 1 ? 'are' : 'is'} not in the export: the push cannot tell ` +
      `whether the export replaces ${unlisted.length > 1 ? 'those lines' : 'that line'} or adds ` +
      `${guessed.length > 1 ? 'lines' : 'a line'} beside ${unlisted.length > 1 ? 'them' : 'it'}, so the order is left as it is. If the export ` +
      'lists every line of an order, set "complete": true in the profile (or push with --complete): lines it does not ' +
      'list are then deleted. Otherwise give the export line numbers',
  });
}

function shownRef(ref: ProductRef): string {
  return quoteInput('externalId' in ref ? ref.externalId : `${ref.codeId} ${ref.codeValue}`, 80);
}

/** The first ten, then how many more. */
function listed(items: readonly string[]): string {
  const shown = items.slice(0, 10).join(', ');
  return items.length > 10 ? `${shown} and ${items.length - 10} more` : shown;
}

/** Spec, "Tracing coupling of lines and orders" 1 and 2: deleting or renaming a traced line reaches the counterparty. */
function protectTracedLines(
  draft: OrderDraft,
  matches: readonly Match[],
  deleted: readonly ExistingOrderLine[],
  problems: Problem[],
): void {
  const traced = (line: ExistingOrderLine): boolean =>
    typeof line.tracingReflectionOrderId === 'string' && line.tracingReflectionOrderId !== '';
  for (const line of deleted.filter(traced)) {
    problems.push({
      code: 'traced_line_protected',
      field: 'lines',
      message:
        `order '${draft.orderNumber}': platform line '${line.orderLineNumber}' (${line.id}) is not in the export, but it was sent to ` +
        `tracing (${line.tracingReflectionOrderId}); deleting it would delete the counterparty's tracing request, so the order is ` +
        'left as it is. Add the line back to the export, or push with --allow-traced-line-removal (allowTracedLineRemoval) to delete it',
    });
  }
  for (const match of matches) {
    const number = match.draft.orderLineNumber;
    if (!traced(match.existing) || number === undefined || number === match.existing.orderLineNumber)
      continue;
    problems.push({
      code: 'traced_line_protected',
      field: 'orderLineNumber',
      row: match.draft.rows[0],
      message:
        `row ${match.draft.rows[0]}: order '${draft.orderNumber}' would rename traced line '${match.existing.orderLineNumber}' to ` +
        `'${number}', which renames the counterparty's tracing request; the order is left as it is. Push with ` +
        '--allow-traced-line-removal (allowTracedLineRemoval) to allow it',
    });
  }
}

/** After the plan, every line the order keeps must have its own number (the server's 409 `order_not_unique`). */
function checkFinalNumbers(
  draft: OrderDraft,
  matches: readonly Match[],
  added: readonly LineDraft[],
  kept: readonly ExistingOrderLine[],
  problems: Problem[],
): void {
  const keptByNumber = new Map(kept.map((line) => [line.orderLineNumber, line]));
  for (const line of [...matches.map((m) => m.draft), ...added]) {
    if (line.orderLineNumber === undefined) continue;
    const holder = keptByNumber.get(line.orderLineNumber);
    if (holder === undefined) continue;
    problems.push({
      code: 'line_number_taken',
      field: 'orderLineNumber',
      row: line.rows[0],
      message:
        `row ${line.rows[0]}: line number '${line.orderLineNumber}' of order '${draft.orderNumber}' is held by platform line ` +
        `${holder.id}, which the export does not list; the profile says the export is not complete, so that line is kept`,
    });
  }
}

/** Quantities compare in hundredths, as the server stores them. */
export function cents(value: number): number {
  return Math.round(roundHalfUp2(String(value)) * 100);
}

export function sameQuantity(a: number | null | undefined, b: number | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return cents(a) === cents(b);
}
