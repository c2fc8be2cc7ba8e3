import {
  byCreation,
  byId,
  componentOf,
  describeKept,
  keptKey,
  lacksComponent,
  type ComponentRef,
  type LineView,
} from './line-fields';

export type LineMatch =
  | {
      kind: 'match';
      lineId: string;
      /** The source line the values come from (the tie-break's pick among equivalent ones). */
      sourceLineId: string;
      component: ComponentRef;
    }
  | { kind: 'ambiguous'; lineId: string; reason: string; candidateSourceLineIds: string[] }
  | { kind: 'unmatched'; lineId: string; reason: string };

function sameRef(a: ComponentRef, b: ComponentRef): boolean {
  return a.styleId === b.styleId && a.isMainComponent === b.isMainComponent;
}

function groupByKept<T extends LineView>(lines: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const line of lines) {
    const key = keptKey(line);
    const group = groups.get(key);
    if (group) group.push(line);
    else groups.set(key, [line]);
  }
  return groups;
}

/**
 * Matches each fork line that lost its component to the source lines by the values the copy kept (placement,
 * quantity and unit, weight and unit, country), compared exactly.
 *
 * A group of k copied lines sharing one set of values is repaired only when the source holds at least k lines
 * with those values and all of them carry the same component and main flag: then which source line a copy
 * came from does not change the repair, and the pairing (copies by id, sources by creation) is only the
 * deterministic tie-break recorded in the result. Otherwise every copy of the group is ambiguous (several
 * source lines fit with different references, or there are more copies than sources, so some copy's source is
 * gone) or unmatched (no source line has these values). Nothing is guessed.
 */
export function matchCopiedLines(
  forkLines: readonly LineView[],
  sourceLines: readonly LineView[],
): LineMatch[] {
  const copies = forkLines.filter(lacksComponent).sort(byId);
  const sources = groupByKept([...sourceLines].sort(byCreation));
  const results: LineMatch[] = [];
  for (const [key, group] of groupByKept(copies)) {
    const all = sources.get(key) ?? [];
    const usable = all.filter((line) => !lacksComponent(line));
    const first = group[0];
    if (!first) continue;
    if (usable.length === 0) {
      const reason =
        all.length > 0
          ? `the source line(s) with ${describeKept(first)} have no component either`
          : `no source line has ${describeKept(first)}`;
      for (const line of group) results.push({ kind: 'unmatched', lineId: line.id, reason });
      continue;
    }
    const refs = usable.map((line) => componentOf(line) as ComponentRef);
    const firstRef = refs[0] as ComponentRef;
    const candidateSourceLineIds = usable.map((line) => line.id);
    if (!refs.every((ref) => sameRef(ref, firstRef))) {
      const distinct = [
        ...new Set(refs.map((ref) => `${ref.styleId}${ref.isMainComponent ? ' (main)' : ''}`)),
      ];
      const reason = `${usable.length} source lines have ${describeKept(first)} but different components: ${distinct.join(', ')}`;
      for (const line of group)
        results.push({ kind: 'ambiguous', lineId: line.id, reason, candidateSourceLineIds });
      continue;
    }
    if (group.length > usable.length) {
      const reason = `${group.length} copied lines but only ${usable.length} source line(s) have ${describeKept(first)}`;
      for (const line of group)
        results.push({ kind: 'ambiguous', lineId: line.id, reason, candidateSourceLineIds });
      continue;
    }
    group.forEach((line, index) => {
      const source = usable[index] as LineView;
      results.push({ kind: 'match', lineId: line.id, sourceLineId: source.id, component: { ...firstRef } });
    });
  }
  return results.sort((a, b) => (a.lineId < b.lineId ? -1 : a.lineId > b.lineId ? 1 : 0));
}
