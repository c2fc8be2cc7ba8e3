import {
  checkCodeType,
  fieldWords,
  levelFields,
  levelOrder,
  singleUseCodeTypes,
  type DraftFieldName,
  type MappedSheet,
  type ProductDraft,
  type ProductLevel,
} from './draft';
import { characterCount } from '../characters';
import { groupIssues, onRow, rowIssue, type RowIssue } from './issues';

export interface ValidDraft extends ProductDraft {
  level: ProductLevel;
}

export interface InvalidDraft {
  draft: ProductDraft;
  /** Why it is rejected: its own issues, and `invalid_parent` when its parent is rejected too. Never empty. */
  issues: RowIssue[];
}

export interface ValidatedSheet {
  /** Ready to plan: styles first, then variants, then SKUs, each in sheet order. */
  valid: ValidDraft[];
  invalid: InvalidDraft[];
  /**
   * Every issue found, by row; rows with an issue go to the rejects file. A row already told of an issue is not also
   * told that a product on it has a rejected parent (`invalid` says so), so its line names the cause.
   */
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
  /**
   * The catalogue's product of `level` whose key differs from `externalId` only in case (CatalogueIndex.caseTwin): a
   * parent missing in one case is told of it.
   */
  caseTwin?: CaseTwinLookup;
}

export type CaseTwinLookup = (
  externalId: string,
  level: ProductLevel,
) => { externalId: string | null; id: string } | undefined;

/**
 * Checks drafts before anything is written: hierarchy, required fields and limits per level, code
 * rules, and sheet-wide uniqueness. A child of a rejected product is rejected too (`invalid_parent`),
 * so a variant is never created under a style that failed.
 */
export function validateDrafts(mapped: MappedSheet, options: ValidateOptions = {}): ValidatedSheet {
  const existing = options.existing ?? new Map<string, ProductLevel>();
  const drafts = new Map(mapped.drafts.map((draft) => [draft.externalId, draft]));
  const issues: RowIssue[] = [...mapped.issues];
  const { levels, issues: hierarchyIssues } = resolveLevels(drafts, existing, options.caseTwin);
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
  const invalidParent = (child: ProductDraft, failure: RowIssue): RowIssue =>
    rowIssue(
      child.rowNumbers[0] ?? 0,
      child.parentColumn,
      'invalid_parent',
      `parent '${child.parentExternalId ?? ''}' is rejected (row ${failure.rowNumber}: ${failure.code}), so '${child.externalId}' is not imported either`,
      child.externalId,
    );
  // The nearest issue up a draft's parent chain; each product below it gets an invalid_parent issue naming its
  // parent's. A loop, not recursion: a hostile chain may be thousands of products long, and every row is told.
  const failureOf = (draft: ProductDraft): RowIssue | undefined => {
    const below: ProductDraft[] = [];
    const seen = new Set<string>();
    let failure: RowIssue | undefined;
    let current: ProductDraft | undefined = draft;
    while (current && !seen.has(current.externalId)) {
      failure = failedBy.get(current.externalId);
      if (failure || current.parentExternalId === null) break;
      seen.add(current.externalId);
      below.push(current);
      current = drafts.get(current.parentExternalId);
    }
    if (!failure) return undefined;
    for (let at = below.length - 1; at >= 0; at--) {
      const child = below[at];
      if (!child) continue;
      const issue = invalidParent(child, failure);
      failedBy.set(child.externalId, issue);
      for (const rowNumber of child.rowNumbers) {
        if (rowsWithIssues.has(rowNumber)) continue;
        issues.push(onRow(issue, rowNumber));
        rowsWithIssues.add(rowNumber);
      }
      failure = issue;
    }
    return failure;
  };

  const valid: ValidDraft[] = [];
  const invalidDrafts: ProductDraft[] = [];
  for (const draft of drafts.values()) {
    const level = levels.get(draft.externalId);
    if (failureOf(draft) || !level) invalidDrafts.push(draft);
    else valid.push({ ...draft, level });
  }
  valid.sort(
    (a, b) => levelOrder(a.level) - levelOrder(b.level) || (a.rowNumbers[0] ?? 0) - (b.rowNumbers[0] ?? 0),
  );
  // A row already told of an issue (a flat row of a rejected style, a SKU's own issue) got no invalid_parent above, but
  // each rejected product still says why: its own issues, and that its parent is rejected too (a loop's message names
  // the parent already).
  const byProduct = groupIssues(issues, (issue) => issue.externalId);
  const invalid = invalidDrafts.map((draft) => {
    const own = byProduct.get(draft.externalId) ?? [];
    const parentFailure = draft.parentExternalId === null ? undefined : failedBy.get(draft.parentExternalId);
    const told = own.some((issue) => issue.code === 'invalid_parent' || issue.code === 'cyclic_parent');
    return { draft, issues: parentFailure && !told ? [...own, invalidParent(draft, parentFailure)] : own };
  });
  issues.sort((a, b) => a.rowNumber - b.rowNumber);
  return { valid, invalid, issues, rowCount: mapped.rowCount, warnings: mapped.warnings };
}

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
            `a ${fieldWords[field]} is required to create a ${level} ('${draft.externalId}')` +
              (columns[field] === undefined ? `; the mapping reads it from no column (fields.${field})` : ''),
            draft.externalId,
          ),
        );
      }
    }
  }
  for (const [field, limit] of Object.entries(fieldLimits) as Array<[DraftFieldName, number]>) {
    const value = draft.fields[field];
    const length = typeof value === 'string' && value.length > limit ? characterCount(value) : 0;
    if (length > limit) {
      const origin = draft.origins[field];
      issues.push(
        rowIssue(
          origin?.rowNumber ?? firstRow,
          origin?.column ?? columns[field] ?? null,
          'too_long',
          `the ${fieldWords[field]} has ${length} characters, over the limit of ${limit}`,
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

/** How many other holders a duplicate_code_value message names before "and N more". */
const NAMED_OTHER_HOLDERS = 3;

/**
 * Code values must be unique per code type across the sheet: every product sharing one is reported once, naming
 * at most NAMED_OTHER_HOLDERS of the others (a placeholder EAN on 20,000 rows must not build 20,000² characters).
 */
export function checkCodeUniqueness(drafts: Iterable<ProductDraft>): RowIssue[] {
  type Owner = { draft: ProductDraft; rowNumber: number; column: string | null };
  const holders = new Map<
    string,
    { codeId: string; codeValue: string; owners: Owner[]; drafts: Set<ProductDraft> }
  >();
  for (const draft of drafts) {
    for (const code of draft.fields.codes ?? []) {
      const key = `${code.codeId}\u0000${code.codeValue}`;
      let entry = holders.get(key);
      if (!entry)
        holders.set(
          key,
          (entry = { codeId: code.codeId, codeValue: code.codeValue, owners: [], drafts: new Set() }),
        );
      if (entry.drafts.has(draft)) continue;
      entry.drafts.add(draft);
      entry.owners.push({ draft, rowNumber: code.rowNumber, column: code.column });
    }
  }
  const issues: RowIssue[] = [];
  for (const { codeId, codeValue, owners } of holders.values()) {
    if (owners.length < 2) continue;
    for (const owner of owners) {
      const named: string[] = [];
      for (const other of owners) {
        if (named.length === NAMED_OTHER_HOLDERS) break;
        if (other !== owner) named.push(`'${other.draft.externalId}' (row ${other.rowNumber})`);
      }
      const more = owners.length - 1 - named.length;
      issues.push(
        rowIssue(
          owner.rowNumber,
          owner.column,
          'duplicate_code_value',
          `${codeId} '${codeValue}' is also used by ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}; code values must be unique`,
          owner.draft.externalId,
        ),
      );
    }
  }
  return issues;
}

/** A loop of parents is named in full up to this many products; a longer one by its first five and its length. */
const NAMED_LOOP_MEMBERS = 10;

/** "'A' -> 'B' -> 'A'"; a loop longer than NAMED_LOOP_MEMBERS as "'A' -> ... -> 'E' -> ... (n more) -> 'A'". */
function loopText(ids: readonly string[]): string {
  const quoted = (id: string): string => `'${id}'`;
  const first = quoted(ids[0] ?? '');
  if (ids.length <= NAMED_LOOP_MEMBERS) return [...ids.map(quoted), first].join(' -> ');
  return [...ids.slice(0, 5).map(quoted), `... (${ids.length - 5} more)`, first].join(' -> ');
}

const CHILD_LEVEL: Record<ProductLevel, ProductLevel | null> = {
  style: 'variant',
  variant: 'sku',
  sku: null,
};

/** The level a parent of each level is (a sheet that states no level: a style or a variant). */
const PARENT_LEVELS: Record<ProductLevel, readonly ProductLevel[]> = {
  style: [],
  variant: ['style'],
  sku: ['variant'],
};

/**
 * `; the catalogue's style 'CASE1' (id ..) differs from it only in case: write it as 'CASE1'` for a missing parent the
 * catalogue holds in another case (among the products read: a level listed whole, see CatalogueIndex.caseTwin).
 */
function parentTwinHint(draft: ProductDraft, parentId: string, caseTwin: CaseTwinLookup | undefined): string {
  if (!caseTwin) return '';
  const levels = draft.level === null ? (['style', 'variant'] as const) : PARENT_LEVELS[draft.level];
  for (const level of levels) {
    const twin = caseTwin(parentId, level);
    if (twin?.externalId)
      return `; the catalogue's ${level} '${twin.externalId}' (id ${twin.id}) differs from it only in case: write it as '${twin.externalId}'`;
  }
  return '';
}

/**
 * Each draft's level from its parent chain (no parent = style, under a style = variant, under a variant
 * = SKU), checked against a level the sheet states. Parents may be on the sheet or already in the
 * catalogue (`existing`). Returns the levels found and the issues of drafts whose place is wrong.
 */
export function resolveLevels(
  drafts: ReadonlyMap<string, ProductDraft>,
  existing: ReadonlyMap<string, ProductLevel>,
  caseTwin?: CaseTwinLookup,
): { levels: Map<string, ProductLevel>; issues: RowIssue[] } {
  const levels = new Map<string, ProductLevel>();
  const failed = new Set<string>();
  const issues: RowIssue[] = [];
  const fail = (draft: ProductDraft, code: RowIssue['code'], reason: string): void => {
    failed.add(draft.externalId);
    issues.push(
      rowIssue(
        draft.rowNumbers[0] ?? 0,
        draft.parentColumn ?? draft.externalIdColumn,
        code,
        reason,
        draft.externalId,
      ),
    );
  };

  // Checks a draft once its parent's level is known (null: its parent failed or is absent).
  const settle = (draft: ProductDraft, parentLevel: ProductLevel | null): ProductLevel | null => {
    if (failed.has(draft.externalId)) return null;
    const parentId = draft.parentExternalId;
    let level: ProductLevel | null = 'style';
    if (parentId !== null) {
      if (parentLevel === null) {
        // A parent on the sheet that failed is reported later as invalid_parent; only a truly absent one is missing.
        if (!drafts.has(parentId))
          fail(
            draft,
            'missing_parent',
            `parent '${parentId}' is neither on this sheet nor in the catalogue${parentTwinHint(draft, parentId, caseTwin)}`,
          );
        else failed.add(draft.externalId);
        return null;
      }
      level = CHILD_LEVEL[parentLevel];
      if (level === null) {
        fail(draft, 'parent_level_mismatch', `parent '${parentId}' is a SKU, and a SKU cannot have children`);
        return null;
      }
    }
    if (draft.level !== null && draft.level !== level) {
      const why =
        parentId === null
          ? 'it has no parent'
          : `its parent '${parentId}' is a ${level === 'variant' ? 'style' : 'variant'}`;
      fail(
        draft,
        'parent_level_mismatch',
        `the sheet says ${draft.level} but ${why}, which makes it a ${level}`,
      );
      return null;
    }
    levels.set(draft.externalId, level);
    return level;
  };

  // Walks up the parent chain (a loop, not recursion: a chain may be thousands of products long) to a product whose
  // level is known or cannot be, then settles the chain from the top down.
  const resolve = (start: ProductDraft): void => {
    const chain: ProductDraft[] = [];
    const onChain = new Map<string, number>();
    let parentLevel: ProductLevel | null = null;
    let draft: ProductDraft | undefined = start;
    while (draft) {
      const known = levels.get(draft.externalId);
      if (known) {
        parentLevel = known;
        break;
      }
      if (failed.has(draft.externalId)) break;
      const loopStart = onChain.get(draft.externalId);
      if (loopStart !== undefined) {
        const loop = chain.slice(loopStart);
        const reason = `parents form a loop: ${loopText(loop.map((member) => member.externalId))}`;
        for (const member of loop) if (!failed.has(member.externalId)) fail(member, 'cyclic_parent', reason);
        break;
      }
      const parentId = draft.parentExternalId;
      if (parentId === draft.externalId) {
        fail(draft, 'cyclic_parent', `'${draft.externalId}' names itself as its parent`);
        break;
      }
      onChain.set(draft.externalId, chain.length);
      chain.push(draft);
      if (parentId === null) break;
      draft = drafts.get(parentId);
      if (!draft) parentLevel = existing.get(parentId) ?? null;
    }
    for (let at = chain.length - 1; at >= 0; at--) {
      const member = chain[at];
      if (member) parentLevel = settle(member, parentLevel);
    }
  };

  for (const draft of drafts.values()) resolve(draft);
  return { levels, issues };
}
