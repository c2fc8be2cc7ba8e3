import {
  byCreation,
  componentOf,
  describeKept,
  keptKey,
  lacksComponent,
  type ComponentRef,
  type LineView,
} from './line-fields';

export interface ExactRepair {
  lineId: string;
  sourceLineId: string;
  component: ComponentRef;
  /**
   * `values`: the snapshot lines with this line's kept values all carry the same reference, so the pairing cannot
   * matter. `order`: they differ, and the pairing rests on the fork copying lines in the source's creation order
   * under ids that sort the same way (what the sandbox does; the spec does not state an order).
   */
  method: 'values' | 'order';
}

export interface SnapshotMapping {
  repairs: ExactRepair[];
  /** Groups that do not mirror the snapshot (someone else wrote in between): left alone and reported. */
  mismatches: string[];
}

function groups(lines: readonly LineView[]): Map<string, LineView[]> {
  const out = new Map<string, LineView[]>();
  for (const line of [...lines].sort(byCreation)) {
    const key = keptKey(line);
    out.set(key, [...(out.get(key) ?? []), line]);
  }
  return out;
}

/**
 * Pairs the lines a fork copied with the snapshot of the source taken just before the write. The fork copies
 * every line but the ones written or deleted, keeping their kept values exactly, so after setting those aside
 * each set of values must occur as often in the fork as in the snapshot; within a set, lines pair in creation
 * order. A set whose counts differ means the source changed between snapshot and write: it is not repaired.
 */
export function mapForkToSnapshot(
  snapshot: readonly LineView[],
  forkLines: readonly LineView[],
  exclude: { snapshotLineIds?: ReadonlySet<string>; forkLineIds?: ReadonlySet<string> } = {},
): SnapshotMapping {
  const before = groups(snapshot.filter((line) => !exclude.snapshotLineIds?.has(line.id)));
  const after = groups(forkLines.filter((line) => !exclude.forkLineIds?.has(line.id)));
  const mapping: SnapshotMapping = { repairs: [], mismatches: [] };
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const sources = before.get(key) ?? [];
    const copies = after.get(key) ?? [];
    const sample = sources[0] ?? copies[0];
    if (sources.length !== copies.length) {
      if (sample)
        mapping.mismatches.push(
          `${copies.length} fork line(s) but ${sources.length} snapshot line(s) with ${describeKept(sample)}`,
        );
      continue;
    }
    const refs = sources.map(componentOf);
    const uniform = refs.every(
      (ref) => ref?.styleId === refs[0]?.styleId && ref?.isMainComponent === refs[0]?.isMainComponent,
    );
    copies.forEach((copy, index) => {
      const ref = refs[index];
      const source = sources[index];
      if (!lacksComponent(copy) || !ref || !source) return;
      mapping.repairs.push({
        lineId: copy.id,
        sourceLineId: source.id,
        component: ref,
        method: uniform ? 'values' : 'order',
      });
    });
  }
  return mapping;
}
