/** BOM lines as the repair compares them, how a fork's copies pair with their source lines, and the reads of both. */
import { z } from 'zod';
import {
  bomLineSchema,
  collect,
  readList,
  type BomHeader,
  type BomLine,
  type BomLineWrite,
  type TraceabilityClient,
} from '../traceability';

/**
 * What a BOM line holds, reduced to the fields the connectors compare. A fork's copy keeps the "kept" fields
 * (placement, quantity and unit, weight and unit, country) and loses the component and the main flag
 * (spec 02, "Copy fidelity caveat").
 */
/** An API timestamp in milliseconds; NaN when absent or unreadable (the callers treat that as unknown). */
export const timeMs = (time: string | null | undefined): number => (time ? Date.parse(time) : Number.NaN);

export const lineViewSchema = bomLineSchema.omit({ updatedAt: true });
export type LineView = z.infer<typeof lineViewSchema>;

/** The reference a fork drops and a repair puts back. */
export const componentRefSchema = z.object({ styleId: z.string(), isMainComponent: z.boolean() });
export type ComponentRef = z.infer<typeof componentRefSchema>;

/** The kept fields, in a fixed order. */
export function keptFields(line: LineView) {
  return {
    placementId: line.placementId ?? null,
    quantity: line.quantity ?? null,
    quantityUnit: line.quantityUnit ?? null,
    weight: line.weight ?? null,
    weightUnit: line.weightUnit ?? null,
    countryOfOrigin: line.countryOfOrigin ?? null,
  };
}

/** One string per distinct set of kept values, for grouping. */
export function keptKey(line: LineView): string {
  return JSON.stringify(Object.values(keptFields(line)));
}

/** "placement bomplc_x, quantity 3 PIECES, weight 2 GRAM, country Portugal": for reasons a person reads. */
export function describeKept(line: LineView): string {
  const f = keptFields(line);
  const amount = (value: number | null, unit: string | null) =>
    value === null ? 'none' : `${value}${unit ? ` ${unit}` : ''}`;
  return [
    `placement ${f.placementId ?? 'none'}`,
    `quantity ${amount(f.quantity, f.quantityUnit)}`,
    `weight ${amount(f.weight, f.weightUnit)}`,
    `country ${f.countryOfOrigin ?? 'none'}`,
  ].join(', ');
}

/** A line lacks its component reference when `styleId` is null or empty (what a fork leaves on copies). */
export function lacksComponent(line: LineView): boolean {
  return !line.styleId;
}

export function componentOf(line: LineView): ComponentRef | null {
  return line.styleId ? { styleId: line.styleId, isMainComponent: line.isMainComponent === true } : null;
}

const sameRef = (a: ComponentRef | null | undefined, b: ComponentRef | null | undefined): boolean =>
  a?.styleId === b?.styleId && a?.isMainComponent === b?.isMainComponent;

/** Listing order the API keeps for copies: creation time, then id (ids are time-ordered). */
function byCreation(a: LineView, b: LineView): number {
  const left = a.createdAt ?? '';
  const right = b.createdAt ?? '';
  if (left !== right) return left < right ? -1 : 1;
  return byId(a, b);
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The lines by their kept values, each group in the order given. */
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
 * The body of a full-replace `PUT /bom-lines/{id}` that changes only the component reference and main flag:
 * every other field is sent as the line holds it, because an omitted field becomes null on the server.
 */
export function repairLineBody(line: LineView, entityStyleId: string, component: ComponentRef): BomLineWrite {
  const kept = keptFields(line);
  return {
    entity: { styleId: entityStyleId },
    component: { styleId: component.styleId },
    placementId: kept.placementId,
    quantity: kept.quantity,
    quantityUnit: kept.quantityUnit as BomLineWrite['quantityUnit'],
    weight: kept.weight,
    weightUnit: kept.weightUnit as BomLineWrite['weightUnit'],
    countryOfOrigin: kept.countryOfOrigin,
    isMainComponent: component.isMainComponent,
  };
}

/** Whole reads of a header's pages tried before giving up on lines its total counts but no page shows. */
export const LINE_LIST_READS = 5;

/** A header's lines could not be read whole: its pages kept missing lines its `total` counts. */
export class BomLinesUnsettledError extends Error {
  constructor(
    readonly bomHeaderId: string,
    readonly total: number,
    readonly listed: number,
    readonly reads: number,
  ) {
    super(
      `BOM ${bomHeaderId}: the API counts ${total} lines but ${reads} reads of its pages listed ${listed} distinct ` +
        `ones; ${total - listed} counted line(s) were on none of the pages read (lines with equal sort values may ` +
        'come back in another order on each page); nothing was repaired from this read',
    );
    this.name = 'BomLinesUnsettledError';
  }
}

/**
 * Every line of a header, each once. Spec 02 offers no unique sort column for GET /bom-lines and every copy of a
 * fork shares `createdAt`; spec 03 promises a stable paging order for equal sort values of GET /orders only. So a
 * read by page number may meet a line twice and miss another: the ids read are counted across reads while `total`
 * stays (`countAcross`), and the pages read again until every line counted was met (without ties: one read, as many
 * calls as pages). Oldest first, so a line added meanwhile lands after the pages read.
 */
export async function readLines(client: TraceabilityClient, bomHeaderId: string): Promise<BomLine[]> {
  const read = await readList(
    (page, limit) => client.boms.listLines({ bomHeaderId, sort: 'createdAt', order: 'asc', page, limit }),
    { keep: 'latest', countAcross: true, reads: LINE_LIST_READS },
  );
  if (read.moved !== undefined)
    throw new BomLinesUnsettledError(bomHeaderId, read.total, read.counted, read.reads);
  return read.items;
}

/** Every header linked to a product (owned and inherited), with the product's `link`. */
export function readHeaders(client: TraceabilityClient, productId: string): Promise<BomHeader[]> {
  return collect(client.boms.iterateHeaders({ styleId: productId }));
}

export function ownedHeaders(headers: readonly BomHeader[]): BomHeader[] {
  return headers.filter((header) => header.link?.isOwner === true);
}

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

/**
 * Matches each fork line that lost its component to the source lines by the values the copy kept (placement,
 * quantity and unit, weight and unit, country), compared exactly. The source lines given must be what the fork
 * copied (a snapshot, or current lines none of which changed after the fork): the caller rules out the rest.
 *
 * A group of k copied lines sharing one set of values is repaired when which source line each copy came from
 * cannot change the repair: either the source holds at least k lines with those values and all of them carry
 * the same component and main flag, or it holds exactly k such lines, every one with a component, so each was
 * copied once and the set of references to put back is fixed (copies identical in every kept value cannot be
 * told apart, so which of them gets which reference makes no difference). The pairing (copies by id, sources by
 * creation) is the deterministic tie-break recorded in the result. Otherwise every copy of the group is
 * ambiguous (fewer copies than source lines with different references: which ones were copied is unknown; more
 * copies than sources: some copy's source is gone) or unmatched (no source line has these values).
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
    const uniform = refs.every((ref) => sameRef(ref, firstRef));
    let reason: string | undefined;
    if (group.length > usable.length) {
      reason = `${group.length} copied lines but only ${usable.length} source line(s) have ${describeKept(first)}`;
    } else if (!uniform && group.length !== all.length) {
      const distinct = [
        ...new Set(refs.map((ref) => `${ref.styleId}${ref.isMainComponent ? ' (main)' : ''}`)),
      ];
      reason =
        `${usable.length} source lines have ${describeKept(first)} but different components: ${distinct.join(', ')}; ` +
        `${group.length} of them were copied here and which ones is not known`;
    }
    group.forEach((line, index) => {
      const source = usable[index] as LineView;
      results.push(
        reason === undefined
          ? {
              kind: 'match',
              lineId: line.id,
              sourceLineId: source.id,
              component: uniform ? { ...firstRef } : (componentOf(source) as ComponentRef),
            }
          : { kind: 'ambiguous', lineId: line.id, reason, candidateSourceLineIds },
      );
    });
  }
  return results.sort((a, b) => byId({ id: a.lineId }, { id: b.lineId }));
}

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
  const grouped = (lines: readonly LineView[], excluded?: ReadonlySet<string>) =>
    groupByKept(lines.filter((line) => !excluded?.has(line.id)).sort(byCreation));
  const before = grouped(snapshot, exclude.snapshotLineIds);
  const after = grouped(forkLines, exclude.forkLineIds);
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
    const uniform = refs.every((ref) => sameRef(ref, refs[0]));
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
