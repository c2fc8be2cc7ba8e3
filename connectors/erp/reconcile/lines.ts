import type { OrderPatch } from '../../traceability/schemas/orders';
import { productRefKey, type LineDraft, type OrderDraft, type Problem, type ProductRef } from '../orders/draft';
import type { ExistingOrder, ExistingOrderLine } from './existing';
import { sameQuantity } from './normalise';

export type LinePatchEntry = NonNullable<OrderPatch['lines']>[number];

export interface LineSummary {
  created: number;
  updated: number;
  deleted: number;
  renamed: number;
  unchanged: number;
}

export interface LinePlan {
  /** `[]` when the lines already match; one `lines` array; or two when numbers must pass through temporary ones. */
  steps: LinePatchEntry[][];
  summary: LineSummary;
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

function matchLines(draft: OrderDraft, existing: ExistingOrder, problems: Problem[]): { matches: Match[]; added: LineDraft[]; unlisted: ExistingOrderLine[] } {
  const byId = new Map(existing.lines.map((line) => [line.id, line]));
  const taken = new Set<string>();
  const matches: Match[] = [];
  const pending: LineDraft[] = [];
  for (const line of draft.lines) {
    if (line.lineId === undefined) {
      pending.push(line);
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
  const byNumber = new Map(existing.lines.filter((line) => !taken.has(line.id)).map((line) => [line.orderLineNumber, line]));
  const added: LineDraft[] = [];
  for (const line of pending) {
    const target = byNumber.get(line.orderLineNumber);
    if (target === undefined) added.push(line);
    else {
      byNumber.delete(line.orderLineNumber);
      taken.add(target.id);
      matches.push({ draft: line, existing: target });
    }
  }
  return { matches, added, unlisted: existing.lines.filter((line) => !taken.has(line.id)) };
}

function lineChanges(match: Match, styleId: string): Omit<LinePatchEntry, 'id'> {
  const { draft, existing } = match;
  const changes: Omit<LinePatchEntry, 'id'> = {};
  if (draft.orderLineNumber !== existing.orderLineNumber) changes.orderLineNumber = draft.orderLineNumber;
  if (styleId !== existing.styleId) changes.styleId = styleId;
  if (!sameQuantity(draft.quantity, existing.quantity)) changes.quantity = draft.quantity;
  if (draft.unit !== existing.unit) changes.unit = draft.unit;
  if (draft.secondaryQuantity !== undefined && !sameQuantity(draft.secondaryQuantity, existing.secondaryQuantity)) {
    changes.secondaryQuantity = draft.secondaryQuantity;
  }
  return changes;
}

export function newLineEntry(line: LineDraft, resolved: ReadonlyMap<string, string>): LinePatchEntry | undefined {
  const styleId = styleIdFor(line.productRef, resolved) ?? ('externalId' in line.productRef ? line.productRef.externalId : undefined);
  if (styleId === undefined) return undefined;
  const entry: LinePatchEntry = { orderLineNumber: line.orderLineNumber, styleId, quantity: line.quantity, unit: line.unit };
  if (typeof line.secondaryQuantity === 'number') entry.secondaryQuantity = line.secondaryQuantity;
  return entry;
}

/**
 * Line reconciliation keyed by `lineId` when the export gives it, else by `orderLineNumber`: matched lines are updated
 * in place with only what changed (bare `{ id }` when nothing did), export-only lines are created, platform-only
 * lines are deleted when the export is complete and kept (bare `{ id }`) otherwise. A rename onto a number another
 * kept line holds right now (a swap, a shift) is split in two steps through temporary numbers: the server answers
 * 409 to it in one request.
 */
export function planLines(
  draft: OrderDraft,
  existing: ExistingOrder,
  resolvedStyleIds: ReadonlyMap<string, string>,
  complete: boolean,
): LinePlan | { problems: Problem[] } {
  const problems: Problem[] = [];
  const { matches, added, unlisted } = matchLines(draft, existing, problems);
  const unresolved = (line: LineDraft): void => {
    problems.push({
      code: 'product_not_resolved',
      field: 'product',
      row: line.rows[0],
      message: `row ${line.rows[0]}: product ${describeRef(line.productRef)} was not found in the catalogue`,
    });
  };
  const updates: LinePatchEntry[] = [];
  const summary: LineSummary = { created: 0, updated: 0, deleted: 0, renamed: 0, unchanged: 0 };
  for (const match of matches) {
    const styleId = styleIdFor(match.draft.productRef, resolvedStyleIds);
    if (styleId === undefined) {
      unresolved(match.draft);
      continue;
    }
    const changes = lineChanges(match, styleId);
    updates.push({ id: match.existing.id, ...changes });
    if (Object.keys(changes).length === 0) summary.unchanged += 1;
    else summary.updated += 1;
    if (changes.orderLineNumber !== undefined) summary.renamed += 1;
  }
  const creates: LinePatchEntry[] = [];
  for (const line of added) {
    const entry = newLineEntry(line, resolvedStyleIds);
    if (entry === undefined) unresolved(line);
    else creates.push(entry);
  }
  const kept = complete ? [] : unlisted;
  summary.deleted = complete ? unlisted.length : 0;
  summary.unchanged += kept.length;
  summary.created = creates.length;
  checkFinalNumbers(draft, matches, added, kept, problems);
  if (problems.length > 0) return { problems };
  if (summary.created + summary.updated + summary.deleted === 0) return { steps: [], summary };

  const final: LinePatchEntry[] = [...updates, ...kept.map((line) => ({ id: line.id })), ...creates];
  const keptNumbers = new Map([...matches.map((m) => m.existing), ...kept].map((line) => [line.orderLineNumber, line.id]));
  const renames = matches.filter((m) => m.draft.orderLineNumber !== m.existing.orderLineNumber);
  const collides = renames.some((m) => {
    const holder = keptNumbers.get(m.draft.orderLineNumber);
    return holder !== undefined && holder !== m.existing.id;
  });
  if (!collides) return { steps: [final], summary };
  // Step 1 moves every renamed line to its own temporary number and changes nothing else.
  const renamedIds = new Set(renames.map((m) => m.existing.id));
  const step1: LinePatchEntry[] = existing.lines.map((line) =>
    renamedIds.has(line.id) ? { id: line.id, orderLineNumber: temporaryLineNumber(line) } : { id: line.id },
  );
  return { steps: [step1, final], summary };
}

/** After the plan, every line the order keeps must have its own number (the server's 409 `order_not_unique`). */
function checkFinalNumbers(draft: OrderDraft, matches: readonly Match[], added: readonly LineDraft[], kept: readonly ExistingOrderLine[], problems: Problem[]): void {
  const keptByNumber = new Map(kept.map((line) => [line.orderLineNumber, line]));
  for (const line of [...matches.map((m) => m.draft), ...added]) {
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
