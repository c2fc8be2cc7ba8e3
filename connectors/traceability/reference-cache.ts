import { systemClock, type Clock } from './clock';
import { collect } from './pagination';
import { ReferenceIndex, type NamedReference, type ReferenceLookup } from './name-matching';
import type { BomsResource } from './resources/boms';
import type { ProcessesResource } from './resources/processes';
import type { StylePropertiesResource } from './resources/style-properties';
import type { StyleTypesResource } from './resources/style-types';
import type { StylePropertyCategory } from './schemas/reference';

export type ReferenceKind =
  | 'styleTypes'
  | 'facilityProcesses'
  | 'productionProcesses'
  | 'placements'
  | `styleProperties:${StylePropertyCategory}`;

export interface ReferenceSources {
  styleTypes: StyleTypesResource;
  styleProperties: StylePropertiesResource;
  processes: ProcessesResource;
  boms: BomsResource;
}

/**
 * Reference lists loaded once (all pages) and kept for `ttlMs`, so a job of thousands of rows spends
 * a handful of calls on them. Concurrent loads of one list share a single fetch.
 */
export class ReferenceCache {
  private readonly entries = new Map<ReferenceKind, { loadedAt: number; index: Promise<ReferenceIndex> }>();
  private readonly clock: Clock;
  private readonly ttlMs: number;

  constructor(
    private readonly sources: ReferenceSources,
    options: { ttlMs?: number; clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.ttlMs = options.ttlMs ?? 60 * 60 * 1000;
  }

  index(kind: ReferenceKind): Promise<ReferenceIndex> {
    const now = this.clock.now();
    const cached = this.entries.get(kind);
    if (cached && now - cached.loadedAt < this.ttlMs) return cached.index;
    const index = this.load(kind).then((items) => new ReferenceIndex(items));
    index.catch(() => this.entries.delete(kind));
    this.entries.set(kind, { loadedAt: now, index });
    return index;
  }

  async resolve(kind: ReferenceKind, nameOrId: string): Promise<ReferenceLookup> {
    return (await this.index(kind)).resolve(nameOrId);
  }

  resolveStyleType(nameOrId: string): Promise<ReferenceLookup> {
    return this.resolve('styleTypes', nameOrId);
  }

  resolveStyleProperty(category: StylePropertyCategory, valueOrId: string): Promise<ReferenceLookup> {
    return this.resolve(`styleProperties:${category}`, valueOrId);
  }

  resolveFacilityProcess(nameOrId: string): Promise<ReferenceLookup> {
    return this.resolve('facilityProcesses', nameOrId);
  }

  resolveProductionProcess(nameOrId: string): Promise<ReferenceLookup> {
    return this.resolve('productionProcesses', nameOrId);
  }

  resolvePlacement(valueOrId: string): Promise<ReferenceLookup> {
    return this.resolve('placements', valueOrId);
  }

  invalidate(kind?: ReferenceKind): void {
    if (kind) this.entries.delete(kind);
    else this.entries.clear();
  }

  private async load(kind: ReferenceKind): Promise<NamedReference[]> {
    const { styleTypes, styleProperties, processes, boms } = this.sources;
    if (kind === 'styleTypes')
      return (await collect(styleTypes.iterate())).map(({ id, name, parentId }) => ({
        id,
        name,
        parentId: parentId ?? null,
      }));
    if (kind === 'facilityProcesses')
      return (await collect(processes.iterateFacility())).map(({ id, name }) => ({ id, name }));
    if (kind === 'productionProcesses')
      return (await collect(processes.iterateProduction())).map(({ id, name }) => ({ id, name }));
    if (kind === 'placements')
      return (await collect(boms.iteratePlacements())).map(({ id, value }) => ({ id, name: value ?? id }));
    const category = kind.slice('styleProperties:'.length) as StylePropertyCategory;
    return (await collect(styleProperties.iterate(category))).map(({ id, value }) => ({
      id,
      name: value ?? id,
    }));
  }
}
