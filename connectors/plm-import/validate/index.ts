import type { MappedSheet, ProductDraft, ProductLevel } from '../draft';
import { rowIssue, type RowIssue } from '../issues';
import { checkCodeUniqueness, checkFields, keepLevelFields } from './fields';
import { resolveLevels } from './hierarchy';

export { requiredFields, fieldLimits } from './fields';

export interface ValidDraft extends ProductDraft {
  level: ProductLevel;
}

export interface InvalidDraft {
  draft: ProductDraft;
  issues: RowIssue[];
}

export interface ValidatedSheet {
  /** Ready to plan: styles first, then variants, then SKUs, each in sheet order. */
  valid: ValidDraft[];
  invalid: InvalidDraft[];
  /** Every issue found, by row; rows with an issue go to the rejects file. */
  issues: RowIssue[];
  rowCount: number;
  warnings: string[];
}

export interface ValidateOptions {
  /**
   * Products the catalogue already holds, by externalId (from the API's list pages). A parent outside
   * the sheet must be here; a product found here is updated, so required fields need not be on the sheet.
   */
  existing?: ReadonlyMap<string, ProductLevel>;
}

const LEVEL_ORDER: Record<ProductLevel, number> = { style: 0, variant: 1, sku: 2 };

/**
 * Checks drafts before anything is written: hierarchy, required fields and limits per level, code
 * rules, and sheet-wide uniqueness. A child of a rejected product is rejected too (`invalid_parent`),
 * so a variant is never created under a style that failed.
 */
export function validateDrafts(mapped: MappedSheet, options: ValidateOptions = {}): ValidatedSheet {
  const existing = options.existing ?? new Map<string, ProductLevel>();
  const drafts = new Map(mapped.drafts.map((draft) => [draft.externalId, draft]));
  const issues: RowIssue[] = [...mapped.issues];
  const { levels, issues: hierarchyIssues } = resolveLevels(drafts, existing);
  issues.push(...hierarchyIssues);

  // A cell that failed to convert already explains why its field is empty: no second "missing" issue for it.
  const failedCells = new Set(
    mapped.issues.map((issue) => `${issue.externalId ?? ''}\u0000${issue.column ?? ''}`),
  );
  for (const draft of drafts.values()) {
    const level = levels.get(draft.externalId);
    if (!level) continue;
    keepLevelFields(draft, level);
    const exists = existing.has(draft.externalId);
    if (draft.referenceOnly && exists) continue;
    const found = checkFields(draft, level, exists, mapped.fieldColumns[level]);
    issues.push(
      ...found.filter(
        (issue) =>
          issue.code !== 'missing_required' ||
          !failedCells.has(`${draft.externalId}\u0000${issue.column ?? ''}`),
      ),
    );
  }
  issues.push(...checkCodeUniqueness(drafts.values()));

  const failedBy = new Map<string, RowIssue>();
  for (const issue of issues)
    if (issue.externalId !== undefined && !failedBy.has(issue.externalId))
      failedBy.set(issue.externalId, issue);
  const rowsWithIssues = new Set(issues.map((issue) => issue.rowNumber));
  const failureOf = (draft: ProductDraft, depth = 0): RowIssue | undefined => {
    const own = failedBy.get(draft.externalId);
    if (own || draft.parentExternalId === null || depth > 3) return own;
    const parent = drafts.get(draft.parentExternalId);
    const parentFailure = parent ? failureOf(parent, depth + 1) : undefined;
    if (!parentFailure) return undefined;
    const reason = `parent '${draft.parentExternalId}' is rejected (row ${parentFailure.rowNumber}: ${parentFailure.code}), so '${draft.externalId}' is not imported either`;
    const issue = rowIssue(
      draft.rowNumbers[0] ?? 0,
      draft.parentColumn,
      'invalid_parent',
      reason,
      draft.externalId,
    );
    failedBy.set(draft.externalId, issue);
    for (const rowNumber of draft.rowNumbers) {
      if (rowsWithIssues.has(rowNumber)) continue;
      issues.push({ ...issue, rowNumber, message: issue.message.replace(/^row \d+/, `row ${rowNumber}`) });
      rowsWithIssues.add(rowNumber);
    }
    return issue;
  };

  const valid: ValidDraft[] = [];
  const invalidDrafts: ProductDraft[] = [];
  for (const draft of drafts.values()) {
    const level = levels.get(draft.externalId);
    if (failureOf(draft) || !level) invalidDrafts.push(draft);
    else valid.push({ ...draft, level });
  }
  valid.sort(
    (a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || (a.rowNumbers[0] ?? 0) - (b.rowNumbers[0] ?? 0),
  );
  const byProduct = new Map<string, RowIssue[]>();
  for (const issue of issues) {
    if (issue.externalId === undefined) continue;
    const list = byProduct.get(issue.externalId);
    if (list) list.push(issue);
    else byProduct.set(issue.externalId, [issue]);
  }
  const invalid = invalidDrafts.map((draft) => ({ draft, issues: byProduct.get(draft.externalId) ?? [] }));
  issues.sort((a, b) => a.rowNumber - b.rowNumber);
  return { valid, invalid, issues, rowCount: mapped.rowCount, warnings: mapped.warnings };
}
