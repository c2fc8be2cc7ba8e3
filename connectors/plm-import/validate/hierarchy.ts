import type { ProductDraft, ProductLevel } from '../draft';
import { rowIssue, type RowIssue } from '../issues';

const CHILD_LEVEL: Record<ProductLevel, ProductLevel | null> = {
  style: 'variant',
  variant: 'sku',
  sku: null,
};

/**
 * Each draft's level from its parent chain (no parent = style, under a style = variant, under a variant
 * = SKU), checked against a level the sheet states. Parents may be on the sheet or already in the
 * catalogue (`existing`). Returns the levels found and the issues of drafts whose place is wrong.
 */
export function resolveLevels(
  drafts: ReadonlyMap<string, ProductDraft>,
  existing: ReadonlyMap<string, ProductLevel>,
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

  const resolve = (draft: ProductDraft, path: string[]): ProductLevel | null => {
    const known = levels.get(draft.externalId);
    if (known) return known;
    if (failed.has(draft.externalId)) return null;
    if (path.includes(draft.externalId)) {
      const cycle = [...path.slice(path.indexOf(draft.externalId)), draft.externalId];
      for (const id of cycle.slice(0, -1)) {
        const member = drafts.get(id);
        if (member && !failed.has(id))
          fail(member, 'cyclic_parent', `parents form a loop: ${cycle.map((c) => `'${c}'`).join(' -> ')}`);
      }
      return null;
    }
    const parentId = draft.parentExternalId;
    let level: ProductLevel | null;
    if (parentId === null) {
      level = 'style';
    } else if (parentId === draft.externalId) {
      fail(draft, 'cyclic_parent', `'${draft.externalId}' names itself as its parent`);
      return null;
    } else {
      const parentDraft = drafts.get(parentId);
      const parentLevel = parentDraft
        ? resolve(parentDraft, [...path, draft.externalId])
        : (existing.get(parentId) ?? null);
      if (failed.has(draft.externalId)) return null;
      if (parentLevel === null) {
        // A parent on the sheet that failed is reported later as invalid_parent; only a truly absent one is missing.
        if (!parentDraft)
          fail(draft, 'missing_parent', `parent '${parentId}' is neither on this sheet nor in the catalogue`);
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

  for (const draft of drafts.values()) resolve(draft, []);
  return { levels, issues };
}
