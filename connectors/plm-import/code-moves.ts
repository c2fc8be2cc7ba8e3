// Codes (spec 01: "Code values must be unique per code type") that a sheet's products take from other products: which
// clash with a catalogue product's, and which the sheet moves from one of its products to another, so that the giver
// is written first.
import { codeKey, type CatalogueIndex } from './catalogue';
import { rowIssue, type RowIssue } from './issues';
import { desiredCodes, sheetCodes } from './product-bodies';
import type { ValidDraft } from './validate';

/**
 * Codes of this draft that another catalogue product holds (the API would answer codes_not_unique), but for those a
 * sheet product gives up in this run (`released`: it is written first). `swapping`: the products that take a value
 * from one that takes one of theirs, directly or round a longer ring: no order of writes frees either first.
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
          ? `${code.codeId} '${code.codeValue}' belongs to catalogue product ${name}, which gives it up in this run but takes one of this product's at once (a swap): the API checks each write against the codes held then (spec 01: code values are unique), so neither can go first; import once with another value in one of the two rows, then again`
          : `${code.codeId} '${code.codeValue}' already belongs to catalogue product ${name}`,
        draft.externalId,
      ),
    );
  }
  return issues;
}

/**
 * Codes the sheet moves between its products: a value a sheet product holds and its planned codes drop (released)
 * and another sheet product takes. Each taker's wave is one more than its givers', so the givers' PUTs land first
 * (a later batch each wave); products in a ring of takers (a swap) are `swapping`, planned as clashes.
 */
export function codeMoves(
  drafts: readonly ValidDraft[],
  catalogue: CatalogueIndex,
  unarchive: boolean,
): { released: Set<string>; waves: Map<string, number>; swapping: Set<string> } {
  const byId = new Map(drafts.map((draft) => [draft.externalId, draft]));
  const released = new Set<string>();
  const givers = new Map<string, Set<string>>();
  for (const draft of drafts) {
    if (draft.referenceOnly) continue;
    for (const code of draft.fields.codes ?? []) {
      const key = codeKey(code.codeId, code.codeValue);
      const holder = catalogue.byCode.get(key);
      const giver = holder?.externalId ? byId.get(holder.externalId) : undefined;
      if (!holder || !giver || giver === draft || giver.referenceOnly) continue;
      if (holder.isArchived && !unarchive) continue;
      const kept = desiredCodes(sheetCodes(giver.fields), holder.codes).some(
        (kept) => codeKey(kept.codeId, kept.codeValue) === key,
      );
      if (kept) continue;
      released.add(key);
      const set = givers.get(draft.externalId) ?? new Set<string>();
      set.add(giver.externalId);
      givers.set(draft.externalId, set);
    }
  }
  // Longest chain of givers below each taker, by an iterative depth-first walk; a product met again on its own path
  // closes a ring: every product on it swaps.
  const waves = new Map<string, number>();
  const swapping = new Set<string>();
  for (const start of givers.keys()) {
    if (waves.has(start)) continue;
    // The stack is the path from `start`; `onPath` holds its ids.
    const onPath = new Set<string>([start]);
    const stack: Array<{ id: string; next: string[] }> = [
      { id: start, next: [...(givers.get(start) ?? [])] },
    ];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; next: string[] };
      const child = top.next.pop();
      if (child === undefined) {
        const below = [...(givers.get(top.id) ?? [])].map((id) => waves.get(id) ?? 0);
        waves.set(top.id, below.length === 0 ? 0 : Math.max(...below) + 1);
        stack.pop();
        onPath.delete(top.id);
        continue;
      }
      if (onPath.has(child)) {
        for (const { id } of stack.slice(stack.findIndex((entry) => entry.id === child))) swapping.add(id);
        continue;
      }
      if (waves.has(child)) continue;
      stack.push({ id: child, next: [...(givers.get(child) ?? [])] });
      onPath.add(child);
    }
  }
  return { released, waves, swapping };
}
