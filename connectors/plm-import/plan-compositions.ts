import type { DraftComposition, ProductLevel } from './draft';
import type { CatalogueIndex, ExistingProduct } from './catalogue';
import type { CurrentHeader } from './composition';
import type { ValidDraft } from './validate';

/**
 * The plan's composition checks: which composition each planned row wants (its own, or its nearest parent row's for
 * a blank cell) and what it owns and inherits now, to be compared once its lines are read (composition-steps.ts).
 */

/** A product whose composition the sheet gives: compared with what it owns once its lines are read. */
export interface CompositionCheck {
  externalId: string;
  level: ProductLevel;
  rowNumbers: number[];
  /** Platform id; null for a product this run creates. */
  id: string | null;
  column: string | null;
  desired: DraftComposition[];
  /** Headers the product owns (null when it is created by this run, so owns none). */
  owned: CurrentHeader[] | null;
  /** The product's ancestors, nearest first (externalIds), as far as the sheet and the catalogue tell. */
  ancestors: string[];
  /**
   * Headers it inherits now; for a product this run creates, those its nearest existing ancestor is linked to (a new
   * child inherits its parent's compositions).
   */
  inherited: Array<{ id: string; name: string }>;
  /** The product's cell is blank: `desired` is its nearest parent row's composition (`sameAs`). */
  blank: boolean;
  /**
   * A blank cell: the section names the sheet gives this product and its parent rows, the only headers its writes may
   * delete or detach (one set on the platform under another name stays). Null for a cell that gives the composition.
   */
  scope: string[] | null;
  /** The nearest parent row in the sheet whose composition `desired` equals, if any. */
  sameAs: string | null;
}

/** Equal for two compositions of the same sections (names ignoring case) and root lines, in any order. */
function compositionKey(sections: readonly DraftComposition[]): string {
  return sections
    .map(
      (section) =>
        `${section.name.trim().toLowerCase()}\u0001${section.lines
          .map((line) => `${line.rawMaterialId}\u0000${line.percentage}`)
          .sort()
          .join('\n')}`,
    )
    .sort()
    .join('\u0002');
}

/** The composition checks of one plan, made row by row, parents before children. */
export class CompositionPlanner {
  /** Each planned row's composition, its own or (blank cell) its nearest parent row's, by externalId. */
  private readonly sheetCompositions = new Map<
    string,
    { desired: DraftComposition[]; key: string; names: string[] }
  >();

  constructor(
    private readonly catalogue: CatalogueIndex,
    /** Each sheet row's parent (externalId), for every valid row. */
    private readonly sheetParents: ReadonlyMap<string, string | null>,
  ) {}

  /**
   * The check of a row the plan writes or leaves unchanged, or undefined when neither it nor a parent row gives a
   * composition. Spec 02: a header created on a style or variant "is linked to every variant and SKU below it", and a
   * detach is "Link removed" for that product only, so a child whose parent row gets its own composition would keep
   * the old link beside the new one. A blank cell therefore means the parent row's composition (the same header,
   * inherited).
   */
  check(draft: ValidDraft, current: ExistingProduct | undefined): CompositionCheck | undefined {
    const parentRow =
      draft.parentExternalId === null ? undefined : this.sheetCompositions.get(draft.parentExternalId);
    const desired = draft.fields.composition ?? parentRow?.desired;
    if (!desired || draft.referenceOnly) return undefined;
    const ancestors = this.ancestorsOf(draft.externalId);
    const key = compositionKey(desired);
    const names = [...new Set([...desired.map((section) => section.name), ...(parentRow?.names ?? [])])];
    this.sheetCompositions.set(draft.externalId, { desired, key, names });
    return {
      externalId: draft.externalId,
      level: draft.level,
      rowNumbers: draft.rowNumbers,
      id: current?.id ?? null,
      column: draft.origins.composition?.column ?? null,
      desired,
      owned: current ? (current.ownedCompositions ?? []) : null,
      ancestors,
      inherited: current ? (current.inheritedCompositions ?? []) : this.linksAtCreation(ancestors),
      blank: draft.fields.composition === undefined,
      scope: draft.fields.composition === undefined ? names : null,
      sameAs: parentRow?.key === key ? (draft.parentExternalId ?? null) : null,
    };
  }

  /** The product's parent and grandparent (externalIds), by its sheet row where there is one, else the catalogue. */
  private ancestorsOf(externalId: string): string[] {
    const chain: string[] = [];
    let at: string | null | undefined = externalId;
    while (chain.length < 2 && at) {
      const listed = this.catalogue.byExternalId.get(at);
      at = this.sheetParents.has(at)
        ? this.sheetParents.get(at)
        : listed
          ? this.catalogue.parentExternalIdOf(listed)
          : null;
      if (at && !chain.includes(at) && at !== externalId) chain.push(at);
      else at = null;
    }
    return chain;
  }

  /** Links a product this run creates gets from its parent: the nearest existing ancestor's, owned and inherited. */
  private linksAtCreation(ancestors: readonly string[]): Array<{ id: string; name: string }> {
    for (const ancestor of ancestors) {
      const listed = this.catalogue.byExternalId.get(ancestor);
      if (!listed) continue;
      return [...(listed.ownedCompositions ?? []), ...(listed.inheritedCompositions ?? [])].map(
        ({ id, name }) => ({ id, name }),
      );
    }
    return [];
  }
}
