// Codes (spec 01: "Code values must be unique per code type") that a sheet's products take from other products: which
// clash with a catalogue product's, and which the sheet moves from one of its products to another, so that the giver
// is written first.
import { codeKey, type CatalogueIndex, type ExistingProduct } from './catalogue';
import { rowIssue, type RowIssue } from './issues';
import { desiredCodes, sheetCodes, type ProductCode } from './product-bodies';
import type { ValidDraft } from './validate';

/**
 * Codes of this draft that another catalogue product holds (the API would answer codes_not_unique), but for those a
 * sheet product gives up in this run (`released`: it is written first). `swapping`: products of a ring of takers that
 * cannot be broken (see codeMoves), refused.
 */
export function codeClashes(
  draft: ValidDraft,
  catalogue: CatalogueIndex,
  released: ReadonlySet<string>,
  swapping: ReadonlySet<string>,
): RowIssue[] {
  const issues: RowIssue[] = [];
  for (const code of draft.fields.codes ?? []) {
    const key = codeKey(code.codeId, code.codeValue);
    const holder = catalogue.byCode.get(key);
    if (!holder || holder.externalId === draft.externalId) continue;
    if (released.has(key) && !swapping.has(draft.externalId)) continue;
    const name = `'${holder.externalId ?? holder.id}'`;
    issues.push(
      rowIssue(
        code.rowNumber,
        code.column,
        'duplicate_code_value',
        released.has(key)
          ? `${code.codeId} '${code.codeValue}' belongs to catalogue product ${name}, which gives it up in this run but takes one of this product's (a swap): the API checks each write against the codes held then (spec 01: code values are unique), so one of them must first be written without the code it takes, and none keeps another code to be written with meanwhile (a product needs at least one); add one (a PLM_ID, say) to one of the rows, or import once with another value in one of them, then again`
          : `${code.codeId} '${code.codeValue}' already belongs to catalogue product ${name}`,
        draft.externalId,
      ),
    );
  }
  return issues;
}

/**
 * What a product of a ring sends in its first write: its planned codes but those another product holds now (it takes
 * them later), so that the codes it gives up are free at once. Empty for a product left with none.
 */
export function releaseCodes(
  draft: ValidDraft,
  current: ExistingProduct,
  catalogue: CatalogueIndex,
): ProductCode[] {
  return desiredCodes(sheetCodes(draft.fields), current.codes).filter((code) => {
    const holder = catalogue.byCode.get(codeKey(code.codeId, code.codeValue));
    return !holder || holder.id === current.id;
  });
}

/** A code a taker gets from another product of the sheet, whose write frees it first. */
export interface TakenCode {
  giver: string;
  codeId: string;
  codeValue: string;
  /** The taker's column of the code. */
  column: string | null;
}

export interface CodeMoves {
  /** Codes a sheet product holds and gives up in this run, another taking them. */
  released: Set<string>;
  /**
   * By taker, every code it takes from another product of the sheet, freed ones of a ring included (takers of a ring
   * refused as `swapping` left out): a giver the plan rejects is never written, so it keeps them all. (A write staged
   * carries those from givers written once, `writtenOnce`: a freed product's refused second write puts codes back, or
   * not.)
   */
  taking: Map<string, TakenCode[]>;
  /** The wave of each taker's write (the givers' writes land in earlier ones); absent: 0. */
  waves: Map<string, number>;
  /**
   * Products of a ring of takers (a swap, or a longer ring: no order frees any first) written twice: in wave 0 without
   * the codes they take, so that the ring's other products can take theirs, then (at their `waves` entry) in full.
   */
  freed: Set<string>;
  /** Each product of a ring, by a name of its ring (its first product in the sheet): its writes stand or fall together. */
  rings: Map<string, string>;
  /**
   * Products of a ring none of whose products on some cycle keeps a code for its first write (the API takes no product
   * without codes): refused, as no order of writes frees a code first.
   */
  swapping: Set<string>;
}

/** The strongly connected components of more than one product, each in the sheet's order, by an iterative Tarjan walk. */
function ringsOf(order: readonly string[], givers: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const rings: string[][] = [];
  for (const start of order) {
    if (index.has(start) || !givers.has(start)) continue;
    const walk: Array<{ id: string; next: string[] }> = [];
    const enter = (id: string) => {
      index.set(id, index.size);
      low.set(id, index.get(id) as number);
      stack.push(id);
      onStack.add(id);
      walk.push({ id, next: [...(givers.get(id) ?? [])] });
    };
    enter(start);
    while (walk.length > 0) {
      const top = walk[walk.length - 1] as { id: string; next: string[] };
      const child = top.next.pop();
      if (child !== undefined) {
        if (!index.has(child)) enter(child);
        else if (onStack.has(child))
          low.set(top.id, Math.min(low.get(top.id) as number, index.get(child) as number));
        continue;
      }
      walk.pop();
      const parent = walk[walk.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id) as number, low.get(top.id) as number));
      if (low.get(top.id) !== index.get(top.id)) continue;
      const component: string[] = [];
      for (;;) {
        const id = stack.pop() as string;
        onStack.delete(id);
        component.push(id);
        if (id === top.id) break;
      }
      if (component.length > 1) rings.push(component);
    }
  }
  const position = new Map(order.map((id, at) => [id, at]));
  return rings.map((ring) => ring.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0)));
}

/** A cycle among `members` whose products are not freed (their takes wait), or undefined once there is none. */
function cycleIn(
  members: readonly string[],
  givers: ReadonlyMap<string, ReadonlySet<string>>,
  freed: ReadonlySet<string>,
): string[] | undefined {
  const inRing = new Set(members);
  const done = new Set<string>();
  for (const start of members) {
    if (done.has(start)) continue;
    const onPath = new Set<string>([start]);
    const path: Array<{ id: string; next: string[] }> = [];
    const next = (id: string) =>
      freed.has(id) ? [] : [...(givers.get(id) ?? [])].filter((giver) => inRing.has(giver));
    path.push({ id: start, next: next(start) });
    while (path.length > 0) {
      const top = path[path.length - 1] as { id: string; next: string[] };
      const child = top.next.pop();
      if (child === undefined) {
        path.pop();
        onPath.delete(top.id);
        done.add(top.id);
        continue;
      }
      if (onPath.has(child))
        return path.slice(path.findIndex((entry) => entry.id === child)).map((e) => e.id);
      if (done.has(child)) continue;
      onPath.add(child);
      path.push({ id: child, next: next(child) });
    }
  }
  return undefined;
}

/**
 * Codes the sheet moves between its products: a value a sheet product holds and its planned codes drop (released)
 * and another sheet product takes. Each taker's wave is one more than its givers', so the givers' PUTs land first
 * (a later batch each wave). A ring of takers is broken by freeing one of its products (the first in the sheet, more
 * where rings cross): written first without the codes it takes, it gives its own up in wave 0, the others take theirs
 * in turn, and its full write comes after its givers'.
 */
export function codeMoves(drafts: readonly ValidDraft[], catalogue: CatalogueIndex): CodeMoves {
  const byId = new Map(drafts.map((draft) => [draft.externalId, draft]));
  const released = new Set<string>();
  const givers = new Map<string, Set<string>>();
  const taken = new Map<string, TakenCode[]>();
  for (const draft of drafts) {
    if (draft.referenceOnly) continue;
    for (const code of draft.fields.codes ?? []) {
      const key = codeKey(code.codeId, code.codeValue);
      const holder = catalogue.byCode.get(key);
      const giver = holder?.externalId ? byId.get(holder.externalId) : undefined;
      // An archived giver the run does not unarchive counts too: the plan rejects it (archived_product), so its takers
      // are rejected code_giver_rejected, naming its row, rather than duplicate_code_value.
      if (!holder || !giver || giver === draft || giver.referenceOnly) continue;
      const kept = desiredCodes(sheetCodes(giver.fields), holder.codes).some(
        (kept) => codeKey(kept.codeId, kept.codeValue) === key,
      );
      if (kept) continue;
      released.add(key);
      const set = givers.get(draft.externalId) ?? new Set<string>();
      set.add(giver.externalId);
      givers.set(draft.externalId, set);
      const codes = taken.get(draft.externalId) ?? [];
      codes.push({
        giver: giver.externalId,
        codeId: code.codeId,
        codeValue: code.codeValue,
        column: code.column,
      });
      taken.set(draft.externalId, codes);
    }
  }
  const freed = new Set<string>();
  const rings = new Map<string, string>();
  const swapping = new Set<string>();
  /** A product whose first write would keep a code: one that can be freed. */
  const keepsACode = (id: string): boolean => {
    const draft = byId.get(id);
    const current = catalogue.byExternalId.get(id);
    return draft !== undefined && current !== undefined && releaseCodes(draft, current, catalogue).length > 0;
  };
  for (const ring of ringsOf(
    drafts.map((draft) => draft.externalId),
    givers,
  )) {
    const chosen = new Set<string>();
    let broken = true;
    for (let cycle = cycleIn(ring, givers, chosen); cycle; cycle = cycleIn(ring, givers, chosen)) {
      const onCycle = new Set(cycle);
      const candidate = ring.find((id) => onCycle.has(id) && keepsACode(id));
      if (candidate === undefined) {
        broken = false;
        break;
      }
      chosen.add(candidate);
    }
    for (const id of ring) {
      if (!broken) swapping.add(id);
      else rings.set(id, ring[0] as string);
    }
    if (broken) for (const id of chosen) freed.add(id);
  }
  // A giver's write that frees a code: a freed product's first write (wave 0), else its only one.
  const waves = new Map<string, number>();
  const gives = (id: string): number => (freed.has(id) ? 0 : (waves.get(id) ?? 0));
  // Longest chain of givers below each taker, by an iterative depth-first walk (freed products wait for nobody, and
  // products of a ring refused are not written).
  const below = (id: string) =>
    freed.has(id) || swapping.has(id)
      ? []
      : [...(givers.get(id) ?? [])].filter((giver) => !swapping.has(giver));
  for (const start of givers.keys()) {
    if (waves.has(start)) continue;
    const stack: Array<{ id: string; next: string[] }> = [{ id: start, next: below(start) }];
    const onStack = new Set<string>([start]);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; next: string[] };
      const child = top.next.pop();
      if (child === undefined) {
        const waited = below(top.id).map(gives);
        waves.set(top.id, waited.length === 0 ? 0 : Math.max(...waited) + 1);
        stack.pop();
        onStack.delete(top.id);
        continue;
      }
      if (waves.has(child) || freed.has(child) || onStack.has(child)) continue;
      stack.push({ id: child, next: below(child) });
      onStack.add(child);
    }
  }
  // A freed product's full write: after each of its givers has given up what it takes.
  for (const id of freed) {
    const waited = [...(givers.get(id) ?? [])].map(gives);
    waves.set(id, Math.max(...waited) + 1);
  }
  const taking = new Map([...taken].filter(([taker]) => !swapping.has(taker)));
  return { released, taking, waves, freed, rings, swapping };
}

/**
 * The codes of `taker` from givers written once (not freed products of a ring): should such a giver's write be
 * refused, it still holds them, so the taker's staged write carries them (`takes`); undefined when there are none.
 */
export function writtenOnce(moves: CodeMoves, taker: string): TakenCode[] | undefined {
  const once = moves.taking.get(taker)?.filter((code) => !moves.freed.has(code.giver));
  return once?.length ? once : undefined;
}

/**
 * The codes of `taker` from freed products of a ring (`writtenOnce`'s complement): a freed product's release has
 * given them up by the time the taker is written, so the API refusing its full write leaves them free, but a plan
 * that rejects that product drops the ring's release, so the product keeps them. Undefined when there are none.
 */
export function takenFromFreed(moves: CodeMoves, taker: string): TakenCode[] | undefined {
  const freed = moves.taking.get(taker)?.filter((code) => moves.freed.has(code.giver));
  return freed?.length ? freed : undefined;
}

/** The codes of `codes` whose giver was rejected (`whyOf` gives its reject code), each with that code. */
export function refusedGivers<C extends { giver: string }>(
  codes: readonly C[],
  whyOf: (giver: string) => string | undefined,
): Array<C & { why: string }> {
  return codes.flatMap((code) => {
    const why = whyOf(code.giver);
    return why === undefined ? [] : [{ ...code, why }];
  });
}

/** A taker the plan rejects because a giver of its codes is rejected at plan time (never written, so it keeps them). */
export function plannedGiverRejection(
  taker: string,
  rowNumber: number,
  refused: readonly (RefusedGiver & { column: string | null })[],
): RowIssue {
  return rowIssue(
    rowNumber,
    refused[0]?.column ?? null,
    'code_giver_rejected',
    giverRejectedMessage(taker, refused, 'plan', `: '${taker}' is not written and keeps its codes`),
    taker,
  );
}

/** A code a taker gets from a giver that is rejected: `why` is the giver's own reject code. */
export interface RefusedGiver {
  giver: string;
  giverRow: number;
  codeId: string;
  codeValue: string;
  why: string;
}

/**
 * Why a taker is rejected `code_giver_rejected`: the codes it takes from givers rejected at plan time (`plan`: never
 * written) or refused by the API (`write`), each giver's row and product and its reject code, and the rows to fix.
 * `kept` ends the message (what became of the taker).
 */
export function giverRejectedMessage(
  taker: string,
  refused: readonly RefusedGiver[],
  when: 'plan' | 'write',
  kept: string,
): string {
  const rows = [...new Set(refused.map((code) => code.giverRow))];
  const taken = refused
    .map(
      (code) =>
        `${code.codeId} '${code.codeValue}' from row ${code.giverRow} ('${code.giver}'), ${when === 'plan' ? 'which the plan rejects' : 'whose own write was refused'} (${code.why})`,
    )
    .join(', and ');
  return `'${taker}' takes ${taken}; fix row${rows.length > 1 ? 's' : ''} ${rows.join(' and ')} first, then import both again${kept}`;
}
