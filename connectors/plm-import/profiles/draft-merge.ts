import { fieldWords, type DraftFieldName, type DraftFields, type ProductDraft } from '../draft';
import { rowIssue, type RowIssue } from '../issues';
import type { Piece } from './extract';
import type { ProductLevel } from './schema';

/* How one row's piece of a product starts its draft, or folds into the draft an earlier row started (flat layout). */

function comparable(field: DraftFieldName, value: DraftFields[DraftFieldName]): string {
  if (field === 'codes' && Array.isArray(value)) {
    return JSON.stringify(
      (value as NonNullable<DraftFields['codes']>).map((code) => `${code.codeId}=${code.codeValue}`).sort(),
    );
  }
  if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return JSON.stringify([...value].sort());
  return JSON.stringify(value);
}

/** Same value in the same order (the common case for continuation rows), without building strings. */
function sameInOrder(a: DraftFields[DraftFieldName], b: DraftFields[DraftFieldName]): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x: unknown = a[i];
    const y: unknown = b[i];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (
      'codeId' in x &&
      'codeId' in y &&
      'codeValue' in x &&
      'codeValue' in y &&
      x.codeId === y.codeId &&
      x.codeValue === y.codeValue
    )
      continue;
    return false;
  }
  return true;
}

function display(value: DraftFields[DraftFieldName]): string {
  if (Array.isArray(value)) {
    return value
      .map((item) =>
        typeof item === 'object' && item !== null && 'codeValue' in item
          ? `${item.codeId} ${item.codeValue}`
          : JSON.stringify(item).replace(/^"|"$/g, ''),
      )
      .join('; ');
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function newDraft(
  piece: Piece & { externalId: string },
  level: ProductLevel | null,
  parentExternalId: string | null,
  parentColumn: string | null,
  rowNumber: number,
): ProductDraft {
  return {
    externalId: piece.externalId,
    level,
    parentExternalId,
    rowNumbers: [rowNumber],
    fields: { ...piece.fields },
    origins: { ...piece.origins },
    externalIdColumn: piece.externalIdColumn,
    parentColumn,
    referenceOnly: !piece.hasOwnData,
  };
}

/**
 * Adds a row to a draft's rows once. Rows arrive in ascending order, so a row past the last one is new and the
 * list is searched only otherwise (a search on every row made one style over 80,000 rows quadratic).
 */
export function addRowNumber(rowNumbers: number[], rowNumber: number): void {
  const last = rowNumbers[rowNumbers.length - 1];
  if (last !== undefined && rowNumber <= last && rowNumbers.includes(rowNumber)) return;
  rowNumbers.push(rowNumber);
}

/** What the sheet wrote for a draft's converted fields (see `Piece.texts`), kept while the sheet is read. */
export type FieldTexts = Partial<Record<DraftFieldName, string>>;

/**
 * Folds another row's view of the same product into its draft (flat layout). A blank cell leaves the
 * value from earlier rows; a different non-blank value is a `conflicting_values` issue on that row, quoting both
 * rows' cells as the sheet wrote them (`texts`: the draft's, updated here).
 */
export function mergePiece(
  draft: ProductDraft,
  piece: Piece,
  rowNumber: number,
  levelLabel: string,
  texts: FieldTexts,
): RowIssue[] {
  const issues: RowIssue[] = [];
  addRowNumber(draft.rowNumbers, rowNumber);
  if (piece.hasOwnData) draft.referenceOnly = false;
  for (const field of Object.keys(piece.fields) as DraftFieldName[]) {
    const incoming = piece.fields[field];
    const current = draft.fields[field];
    if (incoming === undefined) continue;
    if (current === undefined) {
      (draft.fields as Record<string, unknown>)[field] = incoming;
      const origin = piece.origins[field];
      if (origin) draft.origins[field] = origin;
      const text = piece.texts[field];
      if (text !== undefined) texts[field] = text;
      continue;
    }
    if (current === incoming || sameInOrder(current, incoming)) continue;
    if (
      typeof current === 'object' &&
      typeof incoming === 'object' &&
      comparable(field, current) === comparable(field, incoming)
    )
      continue;
    const column = piece.origins[field]?.column ?? null;
    const earlier = draft.origins[field]?.rowNumber;
    issues.push(
      rowIssue(
        rowNumber,
        column,
        'conflicting_values',
        `${levelLabel} '${draft.externalId}' has the ${fieldWords[field]} '${piece.texts[field] ?? display(incoming)}' here but '${texts[field] ?? display(current)}' on row ${earlier ?? '?'}; ` +
          `give the same value on every row of the ${levelLabel} (or leave it blank)`,
        draft.externalId,
      ),
    );
  }
  return issues;
}
