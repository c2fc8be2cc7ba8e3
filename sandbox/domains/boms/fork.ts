import { notFound } from '../../core/errors';
import { createdAudit } from '../v2-common/audit';
import type { LinkedWrite } from '../v2-common/linked-headers';
import type { BomHeaderRecord, BomLineRecord, BomLinkRecord, BomStore } from './model';

export type BomWrite = LinkedWrite<BomStore>;

export interface BomFork {
  header: BomHeaderRecord;
  link: BomLinkRecord;
  /** Original line id to the id of its copy. */
  lineIds: Map<string, string>;
}

export function newOwnerLink(
  write: BomWrite,
  headerId: string,
  productId: string,
  isMainBom: boolean,
): BomLinkRecord {
  const at = write.ctx.nowIso();
  return {
    id: write.ctx.newId('bomlnk_'),
    headerId,
    productId,
    isOwner: true,
    isMainBom,
    version: 1,
    effectiveStartDate: at,
    effectiveEndDate: null,
    createdAt: at,
  };
}

/**
 * Copy-on-write through an inherited link: the product's link to the shared header is deleted, the header is
 * duplicated (` (Copy)` unless a new name is given) with its lines under new ids, and the product gets an owner
 * link (version 1) to the copy. The copy gets no child links, so the product's own children keep the original.
 * Copied lines lose `styleId` and `isMainComponent` (the spec's copy fidelity caveat).
 */
export function forkBom(
  write: BomWrite,
  link: BomLinkRecord,
  options: {
    name?: string;
    description?: string | null;
    isMainBom?: boolean;
    withoutLines?: ReadonlySet<string>;
  } = {},
): BomFork {
  const { ctx, store } = write;
  const original = store.headers.get(link.headerId);
  if (!original)
    throw notFound(`BOM header '${link.headerId}' vanished during the copy`, 'bom_header_not_found');
  const audit = createdAudit(ctx, write.caller, write.companyId);
  const header: BomHeaderRecord = {
    id: ctx.newId('bomhdr_'),
    name: options.name ?? `${original.name} (Copy)`,
    description: options.description === undefined ? original.description : options.description,
    forCompanyId: original.forCompanyId,
    isArchived: false,
    ...audit,
  };
  store.links.remove(link.id);
  store.headers.set(header.id, header);
  const lineIds = new Map<string, string>();
  for (const line of store.linesOf(original.id)) {
    if (options.withoutLines?.has(line.id)) continue;
    const copy: BomLineRecord = {
      ...line,
      ...audit,
      id: ctx.newId('bom_line_'),
      bomHeaderId: header.id,
      styleId: null,
      isMainComponent: false,
    };
    store.lines.set(copy.id, copy);
    lineIds.set(line.id, copy.id);
  }
  const owner = newOwnerLink(write, header.id, link.productId, options.isMainBom ?? link.isMainBom);
  store.links.add(owner);
  return { header, link: owner, lineIds };
}
