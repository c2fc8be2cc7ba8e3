import { levelOrder, type DraftComposition, type ProductLevel } from './draft';
import { CatalogueIndex, type ExistingProduct } from './catalogue';
import type { CurrentHeader } from './composition';
import { newParentsNote, onRow, rowIssue, type RowIssue } from './issues';
import {
  codeClashes,
  codeMoves,
  plannedGiverRejection,
  refusedGivers,
  releaseCodes,
  takenFromFreed,
  writtenOnce,
  type CodeMoves,
  type TakenCode,
} from './code-moves';
import {
  createBody,
  givenCodeTypes,
  sheetCodes,
  updateBody,
  type ProductCreateBody,
  type ProductUpdateBody,
} from './product-bodies';
import type { InvalidDraft, ValidatedSheet, ValidDraft } from './validate';

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

export type TakesCode = {
  giver: string;
  giverRow: number;
  codeId: string;
  codeValue: string;
  column: string | null;
};
interface StepBase {
  externalId: string;
  level: ProductLevel;
  rowNumbers: number[];
}
interface WriteBase extends StepBase {
  /**
   * Writes of wave n go in batches after every write of wave n-1 (absent: 0): a product taking a code another sheet
   * product gives up in this run is written after that one's PUT (spec 01: code values are unique on every write).
   */
  wave?: number;
  /** Codes it takes from other products of the sheet (codeMoves `takes`), each with the giver's first row. */
  takes?: TakesCode[];
  /**
   * Codes it takes from a freed product of a ring (takenFromFreed), each with the giver's first row: toWriteSteps
   * rejects the taker should it refuse that product, and a cancel inside the ring writes the taker (finishRings).
   */
  takesFreed?: TakesCode[];
}
export interface CreateStep extends WriteBase {
  action: 'create';
  parentExternalId: string | null;
  body: ProductCreateBody;
  /** The body's isComponent is the mapping's default, for this create only (see statedIsComponent). */
  isComponentFromMapping?: true;
  /** The code types the sheet's codes give (givenCodeTypes), for a create that meets an existing product. */
  givesTypes?: string[];
}
export interface UpdateStep extends WriteBase {
  action: 'update';
  id: string;
  changedFields: string[];
  body: ProductUpdateBody;
  /** The product is archived and the run unarchives it before the update (option `unarchive`). */
  unarchive?: boolean;
  /** A product of a ring of codes taken round (a swap): the ring's name (codeMoves). */
  ring?: string;
  /**
   * The first of the product's two writes in its ring: its codes without those it takes (held by others until their
   * writes land), so that it gives its own up first. Counted as no product of its own.
   */
  release?: true;
  /** Its second write, after a release: the codes it held before the run, put back should the API refuse this one. */
  restoreCodes?: Array<{ codeId: string; codeValue: string }>;
}
export interface UnchangedStep extends StepBase {
  action: 'unchanged';
  id: string;
}
/** An archived product the sheet names: rejected unless the run unarchives (spec 01: lists hide archived products). */
export interface ArchivedStep extends StepBase {
  action: 'archived';
  id: string;
  issue: RowIssue;
}
/** A product whose composition the sheet gives: compared with what it owns once its lines are read. */
export interface CompositionCheck extends StepBase {
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
export interface InvalidStep {
  action: 'invalid';
  externalId: string;
  rowNumbers: number[];
  issues: RowIssue[];
}

export interface ImportPlan {
  /** Creates and updates in the order to apply them: styles, then variants, then SKUs. */
  writes: Array<CreateStep | UpdateStep>;
  unchanged: UnchangedStep[];
  invalid: InvalidStep[];
  archived: ArchivedStep[];
  compositions: CompositionCheck[];
  counts: { create: number; update: number; unchanged: number; invalid: number; archived: number };
  /** Validation and planning issues by row: the rejects file's content. */
  issues: RowIssue[];
}

/**
 * Why an existing product cannot become the one the sheet describes (level, parent and isComponent are fixed once
 * created), or null. `currentParent` is the parent's externalId, `{ platformId }` for a parent known to be another
 * one than the sheet's (by its platform id only), or undefined when nothing says.
 */
export function immutableProblem(
  wanted: {
    externalId: string;
    level: ProductLevel;
    parentExternalId: string | null;
    isComponent?: boolean | undefined;
  },
  current: ExistingProduct,
  currentParent: string | null | { platformId: string } | undefined,
): string | null {
  if (current.level !== wanted.level)
    return `'${wanted.externalId}' exists as a ${current.level}; the sheet makes it a ${wanted.level}, and the level cannot change`;
  const cannotMove = `not '${wanted.parentExternalId ?? '(none)'}'; a product cannot move to another parent`;
  if (typeof currentParent === 'object' && currentParent !== null)
    return `'${wanted.externalId}' sits under another parent in the catalogue (id ${currentParent.platformId}), ${cannotMove}`;
  if (currentParent !== undefined && currentParent !== wanted.parentExternalId) {
    return `'${wanted.externalId}' sits under '${currentParent ?? '(none)'}' in the catalogue, ${cannotMove}`;
  }
  if (
    wanted.isComponent !== undefined &&
    current.isComponent !== null &&
    current.isComponent !== wanted.isComponent
  ) {
    return `'${wanted.externalId}' is ${current.isComponent ? 'a component' : 'not a component'} in the catalogue and the sheet says it is${current.isComponent ? ' not' : ''}; whether a product is a component is fixed once it is created`;
  }
  return null;
}

/**
 * The isComponent the sheet states, or undefined when it states none: a value from the mapping's constant or
 * default is for creating only. Spec 01: "`parentId` and `isComponent` cannot be changed after creation".
 */
export function statedIsComponent(draft: Pick<ValidDraft, 'fields' | 'origins'>): boolean | undefined {
  return draft.origins.isComponent?.fromMapping ? undefined : draft.fields.isComponent;
}

export interface PlanOptions {
  /** Unarchive archived products the sheet names, then update them (default: reject their rows). */
  unarchive?: boolean;
}

/**
 * Classifies every product of a validated sheet against the catalogue read from the API: create,
 * update (with the changed fields and the minimal PUT body), unchanged, or invalid. A product that
 * turns out invalid here (a level or parent it cannot change to, a code another product holds) takes
 * its children down with it, as in validation.
 */
export function planImport(
  validated: ValidatedSheet,
  existing: readonly ExistingProduct[],
  options: PlanOptions = {},
): ImportPlan {
  // A product taking a code from one rejected here: that one is never written and keeps the code, so the taker's write
  // could only be refused (codes_not_unique, naming neither row). Rejected too, it may give a code on (a chain) or be a
  // parent (its children rejected with it), so the plan is made again until no giver's taker is left; in practice
  // once, and again only when a sheet moves codes from a rejected row.
  const forced = new Map<string, RowIssue>();
  for (;;) {
    const { plan, failed, moves, rowsOf } = planPass(validated, existing, options, forced);
    const rejected = new Map(failed);
    let more = false;
    for (let grew = true; grew;) {
      grew = false;
      for (const [taker, codes] of moves.taking) {
        if (rejected.has(taker)) continue;
        const refused = refusedGivers(codes, (giver) => rejected.get(giver)?.code).map((code) => ({
          ...code,
          giverRow: rowsOf.get(code.giver)?.[0] ?? rejected.get(code.giver)?.rowNumber ?? 0,
        }));
        if (refused.length === 0) continue;
        const issue = plannedGiverRejection(taker, rowsOf.get(taker)?.[0] ?? 0, refused);
        forced.set(taker, issue);
        rejected.set(taker, issue);
        grew = true;
        more = true;
      }
    }
    if (!more) return plan;
  }
}

/** One plan of the sheet, the products of `forced` rejected with its issue (unless rejected for another reason). */
function planPass(
  validated: ValidatedSheet,
  existing: readonly ExistingProduct[],
  options: PlanOptions,
  forced: ReadonlyMap<string, RowIssue>,
): { plan: ImportPlan; failed: Map<string, RowIssue>; moves: CodeMoves; rowsOf: Map<string, number[]> } {
  const catalogue = new CatalogueIndex(existing);
  const issues: RowIssue[] = [...validated.issues];
  const invalid: InvalidStep[] = validated.invalid.map((item: InvalidDraft) => ({
    action: 'invalid',
    externalId: item.draft.externalId,
    rowNumbers: item.draft.rowNumbers,
    issues: item.issues,
  }));
  const failed = new Map<string, RowIssue>();
  const writes: Array<CreateStep | UpdateStep> = [];
  const unchanged: UnchangedStep[] = [];
  const archived: ArchivedStep[] = [];
  const compositions: CompositionCheck[] = [];
  /** Each planned row's composition, its own or (blank cell) its nearest parent row's, by externalId. */
  const sheetCompositions = new Map<string, { desired: DraftComposition[]; key: string; names: string[] }>();

  const ordered = [...validated.valid].sort((a, b) => levelOrder(a.level) - levelOrder(b.level));
  const sheetParents = new Map(ordered.map((draft) => [draft.externalId, draft.parentExternalId]));
  const ancestorsOf = (externalId: string): string[] => {
    const chain: string[] = [];
    let at: string | null | undefined = externalId;
    while (chain.length < 2 && at) {
      const listed = catalogue.byExternalId.get(at);
      at = sheetParents.has(at) ? sheetParents.get(at) : listed ? catalogue.parentExternalIdOf(listed) : null;
      if (at && !chain.includes(at) && at !== externalId) chain.push(at);
      else at = null;
    }
    return chain;
  };
  /** Links a product this run creates gets from its parent: the nearest existing ancestor's, owned and inherited. */
  const linksAtCreation = (ancestors: readonly string[]): Array<{ id: string; name: string }> => {
    for (const ancestor of ancestors) {
      const listed = catalogue.byExternalId.get(ancestor);
      if (!listed) continue;
      return [...(listed.ownedCompositions ?? []), ...(listed.inheritedCompositions ?? [])].map(
        ({ id, name }) => ({ id, name }),
      );
    }
    return [];
  };
  /**
   * The parent an existing product sits under. The catalogue read takes every parent the sheet names (when it exists),
   * so one it did not read (a small sheet is read by GET only) is another parent: a move, known without another call.
   */
  const currentParentOf = (current: ExistingProduct): string | null | { platformId: string } => {
    const parent = catalogue.parentExternalIdOf(current);
    return parent === undefined || (parent === null && current.parentPlatformId)
      ? { platformId: current.parentPlatformId ?? '' }
      : parent;
  };
  const moves = codeMoves(ordered, catalogue);
  const rowsOf = new Map(ordered.map((draft) => [draft.externalId, draft.rowNumbers]));
  /** The batch wave of each write: after the givers of the codes it takes, and not before its parent's create. */
  const waveOf = (draft: ValidDraft): number => {
    const parent = draft.parentExternalId === null ? undefined : createWaves.get(draft.parentExternalId);
    return Math.max(moves.waves.get(draft.externalId) ?? 0, parent ?? 0);
  };
  const createWaves = new Map<string, number>();
  const sheetRows = new Set(ordered.map((draft) => draft.externalId));
  /** Products this run creates, as planned so far (parents before children). */
  const creating = new Set<string>();
  /** Ancestors the run unarchives (option `unarchive`) because a new product goes under them, by platform id. */
  const unarchivedAncestors = new Map<string, { step: UpdateStep; rows: Set<number> }>();
  /**
   * The archived ancestors (parent, grandparent) of a product this run creates or unarchives that the sheet does not
   * name as rows (a row of its own is planned as archived or unarchived itself): spec 01, archiving "Always cascades to
   * all variants and SKUs", so a child created or unarchived under one would be live in an archived family.
   */
  const archivedAncestorsOf = (draft: ValidDraft): ExistingProduct[] => {
    const found: ExistingProduct[] = [];
    let at = draft.parentExternalId === null ? undefined : catalogue.byExternalId.get(draft.parentExternalId);
    for (let depth = 0; at && depth < 2; depth += 1) {
      if (at.isArchived && !(at.externalId && sheetRows.has(at.externalId))) found.push(at);
      const parentId: string | null = at.parentPlatformId;
      at = parentId ? (catalogue.byId.get(parentId) ?? catalogue.byExternalId.get(parentId)) : undefined;
    }
    return found;
  };
  for (const draft of ordered) {
    const current = catalogue.byExternalId.get(draft.externalId);
    const base = { externalId: draft.externalId, level: draft.level, rowNumbers: draft.rowNumbers };
    const parentFailure = draft.parentExternalId === null ? undefined : failed.get(draft.parentExternalId);
    const own: RowIssue[] = [];
    if (current?.isArchived && !options.unarchive) {
      // Spec 01: "Archived products are excluded from default lists" and externalId stays unique across levels,
      // archived ones included: a create would meet 409. The row is refused unless the run unarchives.
      const issue = rowIssue(
        draft.rowNumbers[0] ?? 0,
        draft.externalIdColumn,
        'archived_product',
        `'${draft.externalId}' is archived in the catalogue; unarchive it there or re-run with --unarchive (workflow input "unarchive": true) to unarchive and update it`,
        draft.externalId,
      );
      failed.set(draft.externalId, issue);
      // A loop, not push(...rows): a spread of 200,000 rows overflows the stack.
      for (const rowNumber of draft.rowNumbers) issues.push(onRow(issue, rowNumber));
      archived.push({ action: 'archived', ...base, id: current.id, issue });
      continue;
    }
    if (parentFailure) {
      own.push(
        rowIssue(
          draft.rowNumbers[0] ?? 0,
          draft.parentColumn,
          'invalid_parent',
          `parent '${draft.parentExternalId}' is rejected (row ${parentFailure.rowNumber}: ${parentFailure.code}), so '${draft.externalId}' is not imported either`,
          draft.externalId,
        ),
      );
    } else if (current && !draft.referenceOnly) {
      const problem = immutableProblem(
        { ...draft, isComponent: statedIsComponent(draft) },
        current,
        currentParentOf(current),
      );
      if (problem)
        own.push(
          rowIssue(
            draft.rowNumbers[0] ?? 0,
            draft.externalIdColumn,
            'immutable_field_changed',
            problem,
            draft.externalId,
          ),
        );
    }
    const giverRejected = own.length === 0 ? forced.get(draft.externalId) : undefined;
    if (giverRejected) own.push(giverRejected);
    // An archived product the run unarchives has archived ancestors too, archiving cascading down: they come back first.
    const unarchived = current?.isArchived === true && options.unarchive === true;
    const archivedAbove =
      (current && !unarchived) || draft.referenceOnly || own.length > 0 ? [] : archivedAncestorsOf(draft);
    if (archivedAbove.length > 0 && !options.unarchive) {
      const names = archivedAbove.map((ancestor) => `'${ancestor.externalId ?? ancestor.id}'`).join(' and ');
      own.push(
        rowIssue(
          draft.rowNumbers[0] ?? 0,
          draft.parentColumn,
          'archived_product',
          `'${draft.externalId}' would be created under ${names}, archived in the catalogue (spec 01: archiving "Always cascades to all variants and SKUs"); unarchive ${archivedAbove.length > 1 ? 'them' : 'it'} there or re-run with --unarchive (workflow input "unarchive": true) to unarchive ${archivedAbove.length > 1 ? 'them' : 'it'} (children left as they are) and create '${draft.externalId}'`,
          draft.externalId,
        ),
      );
    }
    if (own.length === 0 && !draft.referenceOnly)
      own.push(...codeClashes(draft, catalogue, moves.released, moves.swapping));
    for (const ancestor of options.unarchive && own.length === 0 ? archivedAbove : []) {
      const known = unarchivedAncestors.get(ancestor.id);
      // The Set beside the list: rebuilding the list for each new product under one archived variant took 80,000 SKUs
      // over 8 minutes.
      if (known) {
        for (const rowNumber of draft.rowNumbers) {
          if (known.rows.has(rowNumber)) continue;
          known.rows.add(rowNumber);
          known.step.rowNumbers.push(rowNumber);
        }
      } else
        unarchivedAncestors.set(ancestor.id, {
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
    if (own.length > 0) {
      // New parents are products of their own, still created; a flat row's colour variant exists for its SKU, though.
      const created: string[] = [];
      for (
        let at = draft.parentExternalId;
        at !== null && creating.has(at);
        at = sheetParents.get(at) ?? null
      )
        created.push(at);
      if (created.length > 0 && own[0])
        own[0] = {
          ...own[0],
          message: `${own[0].message}${newParentsNote(created, draft.externalId, 'planned')}`,
        };
      failed.set(draft.externalId, own[0] as RowIssue);
      issues.push(...own);
      invalid.push({
        action: 'invalid',
        externalId: draft.externalId,
        rowNumbers: draft.rowNumbers,
        issues: own,
      });
      continue;
    }
    // Spec 02: a header created on a style or variant "is linked to every variant and SKU below it", and a detach is
    // "Link removed" for that product only, so a child whose parent row gets its own composition would keep the old
    // link beside the new one. A blank cell therefore means the parent row's composition (the same header, inherited).
    const parentRow =
      draft.parentExternalId === null ? undefined : sheetCompositions.get(draft.parentExternalId);
    const desired = draft.fields.composition ?? parentRow?.desired;
    if (desired && !draft.referenceOnly) {
      const ancestors = ancestorsOf(draft.externalId);
      const key = compositionKey(desired);
      const names = [...new Set([...desired.map((section) => section.name), ...(parentRow?.names ?? [])])];
      sheetCompositions.set(draft.externalId, { desired, key, names });
      compositions.push({
        ...base,
        id: current?.id ?? null,
        column: draft.origins.composition?.column ?? null,
        desired,
        owned: current ? (current.ownedCompositions ?? []) : null,
        ancestors,
        inherited: current ? (current.inheritedCompositions ?? []) : linksAtCreation(ancestors),
        blank: draft.fields.composition === undefined,
        scope: draft.fields.composition === undefined ? names : null,
        sameAs: parentRow?.key === key ? (draft.parentExternalId ?? null) : null,
      });
    }
    const wave = waveOf(draft);
    const withRows = (codes: readonly TakenCode[]): TakesCode[] =>
      codes.map(({ giver, ...code }) => ({ giver, giverRow: rowsOf.get(giver)?.[0] ?? 0, ...code }));
    const taken = writtenOnce(moves, draft.externalId);
    const fromFreed = takenFromFreed(moves, draft.externalId);
    const waved = {
      ...(wave > 0 ? { wave } : {}),
      ...(taken ? { takes: withRows(taken) } : {}),
      ...(fromFreed ? { takesFreed: withRows(fromFreed) } : {}),
    };
    if (!current) {
      creating.add(draft.externalId);
      createWaves.set(draft.externalId, wave);
      const givesTypes = givenCodeTypes(draft.fields);
      writes.push({
        action: 'create',
        ...base,
        ...waved,
        parentExternalId: draft.parentExternalId,
        body: createBody(draft),
        ...(draft.fields.isComponent !== undefined && statedIsComponent(draft) === undefined
          ? { isComponentFromMapping: true as const }
          : {}),
        ...(givesTypes ? { givesTypes } : {}),
      });
      continue;
    }
    const { body, changed } = draft.referenceOnly
      ? { body: {}, changed: [] }
      : updateBody({ ...draft.fields, codes: sheetCodes(draft.fields) }, current);
    const unarchive = current.isArchived ? { unarchive: true } : {};
    const ring = moves.rings.get(draft.externalId);
    if (changed.length === 0 && !current.isArchived)
      unchanged.push({ action: 'unchanged', ...base, id: current.id });
    else {
      writes.push({
        action: 'update',
        ...base,
        ...waved,
        id: current.id,
        changedFields: current.isArchived ? ['isArchived', ...changed] : changed,
        body,
        ...unarchive,
        ...(ring === undefined ? {} : { ring }),
        ...(moves.freed.has(draft.externalId)
          ? { restoreCodes: current.codes.map(({ codeId, codeValue }) => ({ codeId, codeValue })) }
          : {}),
      });
      if (moves.freed.has(draft.externalId) && ring !== undefined) {
        const codes = releaseCodes(draft, current, catalogue);
        writes.push({
          action: 'update',
          ...base,
          id: current.id,
          changedFields: ['codes'],
          body: { codes },
          ...unarchive,
          ring,
          release: true,
        });
      }
    }
  }
  // A ring one of whose products is not written (rejected here) cannot turn: its first write would free a code for
  // nothing. Its other products take a code from that one, so planImport rejects them too (code_giver_rejected).
  const turning = new Set(
    writes.flatMap((step) => (step.action === 'update' && step.ring !== undefined ? [step.externalId] : [])),
  );
  const stuck = new Set([...moves.rings].filter(([id]) => !turning.has(id)).map(([, ring]) => ring));
  const planned =
    stuck.size === 0
      ? writes
      : writes.filter((step) => !(step.action === 'update' && step.release && stuck.has(step.ring ?? '')));
  issues.sort((a, b) => a.rowNumber - b.rowNumber);
  // Before the products created under them: one level a batch, parents first (a stable sort keeps the sheet's order).
  const sortedWrites = [...[...unarchivedAncestors.values()].map(({ step }) => step), ...planned].sort(
    (a, b) => (a.wave ?? 0) - (b.wave ?? 0) || levelOrder(a.level) - levelOrder(b.level),
  );
  const creates = sortedWrites.filter((step) => step.action === 'create').length;
  const releases = sortedWrites.filter((step) => step.action === 'update' && step.release).length;
  const plan: ImportPlan = {
    writes: sortedWrites,
    unchanged,
    invalid,
    archived,
    compositions,
    counts: {
      create: creates,
      update: sortedWrites.length - creates - releases,
      unchanged: unchanged.length,
      invalid: invalid.length,
      archived: archived.length,
    },
    issues,
  };
  return { plan, failed, moves, rowsOf };
}
