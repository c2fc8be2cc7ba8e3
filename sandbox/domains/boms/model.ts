import type { ShortAudit } from '../v2-common/audit';
import { LinkTable, type LinkBase } from '../v2-common/linked-headers';

export interface BomHeaderRecord extends ShortAudit {
  id: string;
  name: string;
  description: string | null;
  forCompanyId: string;
  isArchived: boolean;
}

/** Version, effective dates and isMainBom live on the per-product link. */
export interface BomLinkRecord extends LinkBase {
  isMainBom: boolean;
  version: number;
  effectiveStartDate: string;
  effectiveEndDate: string | null;
}

export interface BomLineRecord extends ShortAudit {
  id: string;
  bomHeaderId: string;
  placementId: string | null;
  /** The COMPONENT product; null on lines copied by a fork (the copy fidelity caveat). */
  styleId: string | null;
  quantity: number | null;
  quantityUnit: string | null;
  weight: number | null;
  weightUnit: string | null;
  countryOfOrigin: string | null;
  isMainComponent: boolean;
}

export interface PlacementRecord extends ShortAudit {
  id: string;
  value: string;
  forCompanyId: string;
}

export interface BomState {
  headers: BomHeaderRecord[];
  links: BomLinkRecord[];
  lines: BomLineRecord[];
  placements: PlacementRecord[];
}

export class BomStore {
  readonly headers = new Map<string, BomHeaderRecord>();
  readonly links: LinkTable<BomLinkRecord>;
  readonly lines = new Map<string, BomLineRecord>();
  readonly placements = new Map<string, PlacementRecord>();

  constructor(state: BomState = { headers: [], links: [], lines: [], placements: [] }) {
    for (const header of state.headers) this.headers.set(header.id, header);
    this.links = new LinkTable(state.links);
    for (const line of state.lines) this.lines.set(line.id, line);
    for (const placement of state.placements) this.placements.set(placement.id, placement);
  }

  /** Lines of a header in creation order. */
  linesOf(headerId: string): BomLineRecord[] {
    return [...this.lines.values()].filter((line) => line.bomHeaderId === headerId);
  }

  /** The company's header (any header of another company is invisible). */
  header(companyId: string, id: string): BomHeaderRecord | undefined {
    const header = this.headers.get(id);
    return header && header.forCompanyId === companyId ? header : undefined;
  }

  placement(companyId: string, id: string): PlacementRecord | undefined {
    const placement = this.placements.get(id);
    return placement && placement.forCompanyId === companyId ? placement : undefined;
  }

  deleteHeader(id: string): BomLinkRecord[] {
    this.headers.delete(id);
    for (const line of this.linesOf(id)) this.lines.delete(line.id);
    return this.links.removeHeader(id);
  }

  dump(): BomState {
    return {
      headers: [...this.headers.values()],
      links: this.links.all(),
      lines: [...this.lines.values()],
      placements: [...this.placements.values()],
    };
  }
}
