import { levelOrder, type ProductLevel } from './draft';
import { CatalogueIndex, type ExistingProduct } from './catalogue';
import {
  AncestorUnarchives,
  archivedAncestorsIssue,
  archivedAncestorsOf,
  archivedRowIssue,
} from './plan-archived';
import { CompositionPlanner, type CompositionCheck } from './plan-compositions';
import { caseTwinIssue, newParentsNote, onRow, rowIssue, type RowIssue } from './issues';
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
   * rejects the taker should it refuse that product, and a cancel inside the ring writes the taker (finishRings); a
   * cancel before the ring, with the taker written for a code another product gave up, writes the ring whole first.
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
export type { CompositionCheck } from './plan-compositions';
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
    const pass = planPass(validated, existing, options, forced);
    const more = takersOfRejected(pass);
    if (more.size === 0) return pass.plan;
    for (const [taker, issue] of more) forced.set(taker, issue);
  }
}

/**
 * The takers a pass left planned whose givers it rejected, each with its code_giver_rejected issue; takers rejected so
 * are givers in turn (a chain), so the search goes on until none is added.
 */
function takersOfRejected({ failed, moves, rowsOf }: PassResult): Map<string, RowIssue> {
  const rejected = new Map(failed);
  const added = new Map<string, RowIssue>();
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
      added.set(taker, issue);
      rejected.set(taker, issue);
      grew = true;
    }
  }
  return added;
}

interface PassResult {
  plan: ImportPlan;
  /** The first issue of each product the pass rejected (archived or invalid here), by externalId. */
  failed: Map<string, RowIssue>;
  moves: CodeMoves;
  rowsOf: Map<string, number[]>;
}

/** What one pass reads: the catalogue, the sheet's valid rows and the codes they move. */
interface PassInput {
  catalogue: CatalogueIndex;
  options: PlanOptions;
  /** Products rejected as takers of a rejected giver (planImport), with that issue. */
  forced: ReadonlyMap<string, RowIssue>;
  moves: CodeMoves;
  /** Each valid row's sheet rows, by externalId. */
  rowsOf: Map<string, number[]>;
  /** Each valid row's parent (externalId), by externalId. */
  sheetParents: Map<string, string | null>;
}

/** What one pass has planned so far, row by row (parents before children). */
interface PassState {
  issues: RowIssue[];
  invalid: InvalidStep[];
  failed: Map<string, RowIssue>;
  writes: Array<CreateStep | UpdateStep>;
  unchanged: UnchangedStep[];
  archived: ArchivedStep[];
  compositions: CompositionCheck[];
  /** Products this run creates, as planned so far (parents before children). */
  creating: Set<string>;
  /** The wave of each create, by externalId: a child is not written before its parent's create. */
  createWaves: Map<string, number>;
  /** Ancestors the run unarchives (option `unarchive`) because a new product goes under them. */
  unarchivedAncestors: AncestorUnarchives;
}

/** One plan of the sheet, the products of `forced` rejected with its issue (unless rejected for another reason). */
function planPass(
  validated: ValidatedSheet,
  existing: readonly ExistingProduct[],
  options: PlanOptions,
  forced: ReadonlyMap<string, RowIssue>,
): PassResult {
  const catalogue = new CatalogueIndex(existing);
  const ordered = [...validated.valid].sort((a, b) => levelOrder(a.level) - levelOrder(b.level));
  const input: PassInput = {
    catalogue,
    options,
    forced,
    moves: codeMoves(ordered, catalogue),
    rowsOf: new Map(ordered.map((draft) => [draft.externalId, draft.rowNumbers])),
    sheetParents: new Map(ordered.map((draft) => [draft.externalId, draft.parentExternalId])),
  };
  const state: PassState = {
    issues: [...validated.issues],
    invalid: validated.invalid.map((item: InvalidDraft) => ({
      action: 'invalid',
      externalId: item.draft.externalId,
      rowNumbers: item.draft.rowNumbers,
      issues: item.issues,
    })),
    failed: new Map(),
    writes: [],
    unchanged: [],
    archived: [],
    compositions: [],
    creating: new Set(),
    createWaves: new Map(),
    unarchivedAncestors: new AncestorUnarchives(),
  };
  const compositions = new CompositionPlanner(catalogue, input.sheetParents);
  for (const draft of ordered) {
    const current = catalogue.byExternalId.get(draft.externalId);
    if (current?.isArchived && !options.unarchive) {
      archivedRow(draft, current, state);
      continue;
    }
    const { own, archivedAbove } = rowProblems(draft, current, input, state);
    if (options.unarchive && own.length === 0) state.unarchivedAncestors.add(draft, archivedAbove);
    if (own.length > 0) {
      rejectRow(draft, own, input, state);
      continue;
    }
    const check = compositions.check(draft, current);
    if (check) state.compositions.push(check);
    planWrite(draft, current, input, state);
  }
  const plan = assembled(withoutStuckRings(state.writes, input.moves), state);
  return { plan, failed: state.failed, moves: input.moves, rowsOf: input.rowsOf };
}

/** The row of an archived product the run does not unarchive: refused (plan-archived.ts). */
function archivedRow(draft: ValidDraft, current: ExistingProduct, state: PassState): void {
  const issue = archivedRowIssue(draft);
  state.failed.set(draft.externalId, issue);
  // A loop, not push(...rows): a spread of 200,000 rows overflows the stack.
  for (const rowNumber of draft.rowNumbers) state.issues.push(onRow(issue, rowNumber));
  state.archived.push({
    action: 'archived',
    externalId: draft.externalId,
    level: draft.level,
    rowNumbers: draft.rowNumbers,
    id: current.id,
    issue,
  });
}

/**
 * Why the row cannot be written (none: it is planned), in this order: a rejected parent, or a level, parent or
 * isComponent it cannot change to; a giver rejected (`forced`); archived ancestors a create would go under without
 * --unarchive; codes another product holds. With the archived ancestors a new or unarchived product goes under.
 */
function rowProblems(
  draft: ValidDraft,
  current: ExistingProduct | undefined,
  { catalogue, options, forced, moves, sheetParents }: PassInput,
  { failed }: PassState,
): { own: RowIssue[]; archivedAbove: ExistingProduct[] } {
  const parentFailure = draft.parentExternalId === null ? undefined : failed.get(draft.parentExternalId);
  const own: RowIssue[] = [];
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
      currentParentOf(current, catalogue),
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
  } else if (!current) {
    const twin = catalogue.caseTwin(draft.externalId, draft.level);
    if (twin) own.push(catalogueTwinIssue(draft, twin));
  }
  const giverRejected = own.length === 0 ? forced.get(draft.externalId) : undefined;
  if (giverRejected) own.push(giverRejected);
  // An archived product the run unarchives has archived ancestors too, archiving cascading down: they come back first.
  const unarchived = current?.isArchived === true && options.unarchive === true;
  const archivedAbove =
    (current && !unarchived) || draft.referenceOnly || own.length > 0
      ? []
      : archivedAncestorsOf(draft, catalogue, sheetParents);
  if (archivedAbove.length > 0 && !options.unarchive) own.push(archivedAncestorsIssue(draft, archivedAbove));
  if (own.length === 0 && !draft.referenceOnly)
    own.push(...codeClashes(draft, catalogue, moves.released, moves.swapping));
  return { own, archivedAbove };
}

/**
 * A new product whose key differs only in case from a catalogue product's at its level: a re-cased PLM export, not a
 * new style. Refused, naming the product meant, which a retry of the fixed row writes (`meantKey`).
 */
function catalogueTwinIssue(draft: ValidDraft, twin: ExistingProduct): RowIssue {
  const meantKey = twin.externalId ?? '';
  const issue = caseTwinIssue(
    {
      rowNumber: draft.rowNumbers[0] ?? 0,
      column: draft.externalIdColumn,
      level: draft.level,
      externalId: draft.externalId,
    },
    `the catalogue's ${draft.level} '${meantKey}' (id ${twin.id}${twin.isArchived ? ', archived' : ''})`,
    `'${meantKey}'`,
  );
  return { ...issue, meantKey };
}

/**
 * The parent an existing product sits under. The catalogue read takes every parent the sheet names (when it exists),
 * so one it did not read (a small sheet is read by GET only) is another parent: a move, known without another call.
 */
function currentParentOf(
  current: ExistingProduct,
  catalogue: CatalogueIndex,
): string | null | { platformId: string } {
  const parent = catalogue.parentExternalIdOf(current);
  return parent === undefined || (parent === null && current.parentPlatformId)
    ? { platformId: current.parentPlatformId ?? '' }
    : parent;
}

/**
 * Rejects a row for its issues; its first names the new parents this run still creates above it (products of their
 * own; a flat row's colour variant exists for its SKU, though).
 */
function rejectRow(draft: ValidDraft, own: RowIssue[], { sheetParents }: PassInput, state: PassState): void {
  const created: string[] = [];
  for (
    let at = draft.parentExternalId;
    at !== null && state.creating.has(at);
    at = sheetParents.get(at) ?? null
  )
    created.push(at);
  if (created.length > 0 && own[0])
    own[0] = {
      ...own[0],
      message: `${own[0].message}${newParentsNote(created, draft.externalId, 'planned')}`,
    };
  state.failed.set(draft.externalId, own[0] as RowIssue);
  state.issues.push(...own);
  state.invalid.push({
    action: 'invalid',
    externalId: draft.externalId,
    rowNumbers: draft.rowNumbers,
    issues: own,
  });
}

/**
 * A planned row's write: a create, an update (a ring's freed product twice: in full, and first with only the codes it
 * keeps), or unchanged; in the wave after the givers of the codes it takes and not before its parent's create.
 */
function planWrite(
  draft: ValidDraft,
  current: ExistingProduct | undefined,
  { catalogue, moves, rowsOf }: PassInput,
  state: PassState,
): void {
  const base = { externalId: draft.externalId, level: draft.level, rowNumbers: draft.rowNumbers };
  const parentWave =
    draft.parentExternalId === null ? undefined : state.createWaves.get(draft.parentExternalId);
  const wave = Math.max(moves.waves.get(draft.externalId) ?? 0, parentWave ?? 0);
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
    state.creating.add(draft.externalId);
    state.createWaves.set(draft.externalId, wave);
    const givesTypes = givenCodeTypes(draft.fields);
    state.writes.push({
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
    return;
  }
  const { body, changed } = draft.referenceOnly
    ? { body: {}, changed: [] }
    : updateBody({ ...draft.fields, codes: sheetCodes(draft.fields) }, current);
  if (changed.length === 0 && !current.isArchived) {
    state.unchanged.push({ action: 'unchanged', ...base, id: current.id });
    return;
  }
  const unarchive = current.isArchived ? { unarchive: true } : {};
  const ring = moves.rings.get(draft.externalId);
  state.writes.push({
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
  if (moves.freed.has(draft.externalId) && ring !== undefined)
    state.writes.push({
      action: 'update',
      ...base,
      id: current.id,
      changedFields: ['codes'],
      body: { codes: releaseCodes(draft, current, catalogue) },
      ...unarchive,
      ring,
      release: true,
    });
}

/**
 * The writes without the first writes of rings one of whose products is not written (rejected here): such a ring
 * cannot turn, its first write would free a code for nothing. Its other products take a code from that one, so
 * planImport rejects them too (code_giver_rejected).
 */
function withoutStuckRings(
  writes: Array<CreateStep | UpdateStep>,
  moves: CodeMoves,
): Array<CreateStep | UpdateStep> {
  const turning = new Set(
    writes.flatMap((step) => (step.action === 'update' && step.ring !== undefined ? [step.externalId] : [])),
  );
  const stuck = new Set([...moves.rings].filter(([id]) => !turning.has(id)).map(([, ring]) => ring));
  return stuck.size === 0
    ? writes
    : writes.filter((step) => !(step.action === 'update' && step.release && stuck.has(step.ring ?? '')));
}

/**
 * The plan of a pass: its writes in the order to apply them (by wave, then one level a batch, parents first; ancestors
 * unarchived before the products created under them), its issues by row, and the counts (a ring's first write counts
 * as no product of its own).
 */
function assembled(planned: Array<CreateStep | UpdateStep>, state: PassState): ImportPlan {
  const { issues, unchanged, invalid, archived, compositions } = state;
  issues.sort((a, b) => a.rowNumber - b.rowNumber);
  // A stable sort keeps the sheet's order within a wave and level.
  const writes = [...state.unarchivedAncestors.steps(), ...planned].sort(
    (a, b) => (a.wave ?? 0) - (b.wave ?? 0) || levelOrder(a.level) - levelOrder(b.level),
  );
  const creates = writes.filter((step) => step.action === 'create').length;
  const releases = writes.filter((step) => step.action === 'update' && step.release).length;
  return {
    writes,
    unchanged,
    invalid,
    archived,
    compositions,
    counts: {
      create: creates,
      update: writes.length - creates - releases,
      unchanged: unchanged.length,
      invalid: invalid.length,
      archived: archived.length,
    },
    issues,
  };
}
