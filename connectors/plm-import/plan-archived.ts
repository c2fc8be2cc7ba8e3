import type { CatalogueIndex, ExistingProduct } from './catalogue';
import { rowIssue, type RowIssue } from './issues';
import type { UpdateStep } from './plan';
import type { ValidDraft } from './validate';

/**
 * Archived products in the plan (spec 01: "Archived products are excluded from default lists", and archiving "Always
 * cascades to all variants and SKUs"): a row of one is refused unless the run unarchives (option `unarchive`), and so
 * is a product created under one; with the option, the run unarchives such ancestors first.
 */

/**
 * Why the row of an archived product is refused when the run does not unarchive: externalId stays unique across
 * levels, archived ones included, so a create would meet 409.
 */
export function archivedRowIssue(draft: ValidDraft): RowIssue {
  return rowIssue(
    draft.rowNumbers[0] ?? 0,
    draft.externalIdColumn,
    'archived_product',
    `'${draft.externalId}' is archived in the catalogue; unarchive it there or re-run with --unarchive (workflow input "unarchive": true) to unarchive and update it`,
    draft.externalId,
  );
}

/**
 * The archived ancestors (parent, grandparent) of a product this run creates or unarchives that the sheet does not
 * name as rows (a row of its own is planned as archived or unarchived itself): a child created or unarchived under one
 * would be live in an archived family.
 */
export function archivedAncestorsOf(
  draft: ValidDraft,
  catalogue: CatalogueIndex,
  sheetRows: ReadonlyMap<string, unknown>,
): ExistingProduct[] {
  const found: ExistingProduct[] = [];
  let at = draft.parentExternalId === null ? undefined : catalogue.byExternalId.get(draft.parentExternalId);
  for (let depth = 0; at && depth < 2; depth += 1) {
    if (at.isArchived && !(at.externalId && sheetRows.has(at.externalId))) found.push(at);
    const parentId: string | null = at.parentPlatformId;
    at = parentId ? (catalogue.byId.get(parentId) ?? catalogue.byExternalId.get(parentId)) : undefined;
  }
  return found;
}

/** Why a product the run would create under archived ancestors is refused when the run does not unarchive. */
export function archivedAncestorsIssue(
  draft: ValidDraft,
  archivedAbove: readonly ExistingProduct[],
): RowIssue {
  const names = archivedAbove.map((ancestor) => `'${ancestor.externalId ?? ancestor.id}'`).join(' and ');
  const them = archivedAbove.length > 1 ? 'them' : 'it';
  return rowIssue(
    draft.rowNumbers[0] ?? 0,
    draft.parentColumn,
    'archived_product',
    `'${draft.externalId}' would be created under ${names}, archived in the catalogue (spec 01: archiving "Always cascades to all variants and SKUs"); unarchive ${them} there or re-run with --unarchive (workflow input "unarchive": true) to unarchive ${them} (children left as they are) and create '${draft.externalId}'`,
    draft.externalId,
  );
}

/** The unarchive of each archived ancestor planned rows go under: one update an ancestor, with every such row. */
export class AncestorUnarchives {
  /** By platform id. */
  private readonly byId = new Map<string, { step: UpdateStep; rows: Set<number> }>();

  add(draft: ValidDraft, archivedAbove: readonly ExistingProduct[]): void {
    for (const ancestor of archivedAbove) {
      const known = this.byId.get(ancestor.id);
      // The Set beside the list: rebuilding the list for each new product under one archived variant took 80,000 SKUs
      // over 8 minutes.
      if (known) {
        for (const rowNumber of draft.rowNumbers) {
          if (known.rows.has(rowNumber)) continue;
          known.rows.add(rowNumber);
          known.step.rowNumbers.push(rowNumber);
        }
      } else
        this.byId.set(ancestor.id, {
          step: {
            action: 'update',
            externalId: ancestor.externalId ?? ancestor.id,
            level: ancestor.level,
            rowNumbers: [...draft.rowNumbers],
            id: ancestor.id,
            changedFields: ['isArchived'],
            body: {},
            unarchive: true,
          },
          rows: new Set(draft.rowNumbers),
        });
    }
  }

  steps(): UpdateStep[] {
    return [...this.byId.values()].map(({ step }) => step);
  }
}
