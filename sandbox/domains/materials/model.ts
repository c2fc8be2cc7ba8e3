import type { ShortAudit } from '../v2-common/audit';
import { LinkTable, type LinkBase } from '../v2-common/linked-headers';

export interface MaterialHeaderRecord extends ShortAudit {
  id: string;
  name: string;
  description: string | null;
  forCompanyId: string;
}

/** isMainMaterial is held per link: each product designates its own main material. */
export interface MaterialLinkRecord extends LinkBase {
  isMainMaterial: boolean;
}

export interface MaterialLineRecord extends ShortAudit {
  id: string;
  materialHeaderId: string;
  rawMaterialId: string;
  percentage: number;
  weights: number | null;
  weightUnit: string | null;
  parentId: string | null;
  hierarchy: number;
  position: number;
  countriesOfOrigin: string[] | null;
}

export interface MaterialState {
  headers: MaterialHeaderRecord[];
  links: MaterialLinkRecord[];
  lines: MaterialLineRecord[];
}

export class MaterialStore {
  readonly headers = new Map<string, MaterialHeaderRecord>();
  readonly links: LinkTable<MaterialLinkRecord>;
  readonly lines = new Map<string, MaterialLineRecord>();

  constructor(state: MaterialState = { headers: [], links: [], lines: [] }) {
    for (const header of state.headers) this.headers.set(header.id, header);
    this.links = new LinkTable(state.links);
    for (const line of state.lines) this.lines.set(line.id, line);
  }

  header(companyId: string, id: string): MaterialHeaderRecord | undefined {
    const header = this.headers.get(id);
    return header && header.forCompanyId === companyId ? header : undefined;
  }

  linesOf(headerId: string): MaterialLineRecord[] {
    return [...this.lines.values()].filter((line) => line.materialHeaderId === headerId);
  }

  /** Direct children of `parentId` (null: the root level) in one composition. */
  siblings(headerId: string, parentId: string | null): MaterialLineRecord[] {
    return this.linesOf(headerId).filter((line) => line.parentId === parentId);
  }

  deleteHeader(id: string): MaterialLinkRecord[] {
    this.headers.delete(id);
    for (const line of this.linesOf(id)) this.lines.delete(line.id);
    return this.links.removeHeader(id);
  }

  dump(): MaterialState {
    return { headers: [...this.headers.values()], links: this.links.all(), lines: [...this.lines.values()] };
  }
}
