import {
  checkCodeType,
  levelFields,
  singleUseCodeTypes,
  type DraftFieldName,
  type ProductDraft,
  type ProductLevel,
} from '../draft';
import { rowIssue, type RowIssue } from '../issues';

export const requiredFields: Record<ProductLevel, readonly DraftFieldName[]> = {
  style: ['name', 'codes', 'styleTypeId', 'isComponent'],
  variant: ['name', 'codes', 'color'],
  sku: ['name', 'codes', 'dimension'],
};

export const fieldLimits: Partial<Record<DraftFieldName, number>> = {
  name: 255,
  description: 4000,
  gender: 50,
  color: 255,
  dimension: 255,
};

/** Drops fields the level does not carry (a style type given on a SKU row, say). */
export function keepLevelFields(draft: ProductDraft, level: ProductLevel): void {
  for (const field of Object.keys(draft.fields) as DraftFieldName[]) {
    if (!levelFields[level].has(field)) {
      delete draft.fields[field];
      delete draft.origins[field];
    }
  }
}

/**
 * Required fields (only for products to create: an existing product already has them), length limits
 * and the per-product code rules.
 */
export function checkFields(
  draft: ProductDraft,
  level: ProductLevel,
  exists: boolean,
  columns: Partial<Record<DraftFieldName, string>>,
): RowIssue[] {
  const issues: RowIssue[] = [];
  const firstRow = draft.rowNumbers[0] ?? 0;
  if (!exists) {
    for (const field of requiredFields[level]) {
      const value = draft.fields[field];
      if (value === undefined || (Array.isArray(value) && value.length === 0)) {
        issues.push(
          rowIssue(
            firstRow,
            columns[field] ?? null,
            'missing_required',
            `${field} is required to create a ${level} ('${draft.externalId}')`,
            draft.externalId,
          ),
        );
      }
    }
  }
  for (const [field, limit] of Object.entries(fieldLimits) as Array<[DraftFieldName, number]>) {
    const value = draft.fields[field];
    if (typeof value === 'string' && value.length > limit) {
      const origin = draft.origins[field];
      issues.push(
        rowIssue(
          origin?.rowNumber ?? firstRow,
          origin?.column ?? columns[field] ?? null,
          'too_long',
          `${field} has ${value.length} characters, over the limit of ${limit}`,
          draft.externalId,
        ),
      );
    }
  }
  const seenTypes = new Map<string, number>();
  for (const code of draft.fields.codes ?? []) {
    const check = checkCodeType(code.codeId);
    if (!check.ok) {
      issues.push(rowIssue(code.rowNumber, code.column, 'invalid_code_type', check.reason, draft.externalId));
      continue;
    }
    const times = (seenTypes.get(code.codeId) ?? 0) + 1;
    seenTypes.set(code.codeId, times);
    if (times === 2 && singleUseCodeTypes.has(code.codeId)) {
      issues.push(
        rowIssue(
          code.rowNumber,
          code.column,
          'duplicate_code_type',
          `code type ${code.codeId} may appear only once per product`,
          draft.externalId,
        ),
      );
    }
  }
  return issues;
}

/** Code values must be unique per code type across the sheet: every product sharing one is reported. */
export function checkCodeUniqueness(drafts: Iterable<ProductDraft>): RowIssue[] {
  type Owner = { draft: ProductDraft; rowNumber: number; column: string | null };
  const first = new Map<string, Owner>();
  const shared = new Map<string, Owner[]>();
  for (const draft of drafts) {
    for (const code of draft.fields.codes ?? []) {
      const key = `${code.codeId}\u0000${code.codeValue}`;
      const owner = { draft, rowNumber: code.rowNumber, column: code.column };
      const earlier = first.get(key);
      if (!earlier) first.set(key, owner);
      else if (earlier.draft !== draft) {
        const list = shared.get(key) ?? [earlier];
        if (!list.some((item) => item.draft === draft)) list.push(owner);
        shared.set(key, list);
      }
    }
  }
  const issues: RowIssue[] = [];
  for (const [key, list] of shared) {
    const [codeId, codeValue] = key.split('\u0000');
    for (const owner of list) {
      const others = list
        .filter((other) => other !== owner)
        .map((other) => `'${other.draft.externalId}' (row ${other.rowNumber})`);
      issues.push(
        rowIssue(
          owner.rowNumber,
          owner.column,
          'duplicate_code_value',
          `${codeId} '${codeValue}' is also used by ${others.join(', ')}; code values must be unique`,
          owner.draft.externalId,
        ),
      );
    }
  }
  return issues;
}
