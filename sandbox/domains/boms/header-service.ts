import { notFound } from '../../core/errors';
import { createdAudit, touchAudit } from '../v2-common/audit';
import { parseBody, sent } from '../v2-common/body';
import { catalogueOf } from '../v2-common/catalogue';
import {
  referencedProduct,
  scheduleChildLinks,
  type HeaderView as LinkedHeaderView,
} from '../v2-common/linked-headers';
import { forkBom, newOwnerLink, type BomWrite } from './fork';
import type { BomHeaderRecord, BomLinkRecord } from './model';
import { createHeaderSchema, deleteHeadersSchema, updateHeaderSchema } from './schemas';

type HeaderView = LinkedHeaderView<BomHeaderRecord, BomLinkRecord>;

/** POST /bom-headers: an owner link now; the product's descendants get inherited links after the delay. */
export function createHeader(write: BomWrite, raw: unknown): HeaderView {
  const body = parseBody(createHeaderSchema, raw);
  const product = referencedProduct(write, body.link.styleId, 'link.styleId');
  const header: BomHeaderRecord = {
    id: write.ctx.newId('bomhdr_'),
    name: body.name,
    description: body.description ?? null,
    forCompanyId: write.companyId,
    isArchived: false,
    ...createdAudit(write.ctx, write.caller, write.companyId),
  };
  const link = newOwnerLink(write, header.id, product.id, body.link.isMainBom ?? false);
  const { store } = write;
  store.headers.set(header.id, header);
  store.links.add(link);
  scheduleChildLinks(write.ctx, store, link, 'bomlnk_');
  return { header, link };
}

/**
 * PUT /bom-headers/{id}. Through the owner: the shared header changes. Through an inherited link: a change of name
 * or description detaches the product onto a copy; a change of isMainBom alone only touches the product's link.
 */
export function updateHeader(write: BomWrite, headerId: string, raw: unknown): HeaderView {
  const body = parseBody(updateHeaderSchema, raw);
  const { store } = write;
  const header = store.header(write.companyId, headerId);
  if (!header) throw notFound(`BOM header '${headerId}' not found`, 'bom_header_not_found');
  const product = referencedProduct(write, body.styleId, 'styleId');
  const link = store.links.find(product.id, header.id);
  if (!link)
    throw notFound(`BOM header '${headerId}' is not linked to '${body.styleId}'`, 'bom_header_not_found');
  const description = sent(body, 'description') ? (body.description ?? null) : header.description;

  if (link.isOwner) {
    header.name = body.name;
    header.description = description;
    link.isMainBom = body.isMainBom;
    touchAudit(write.ctx, write.caller, write.companyId, header);
    return { header, link };
  }
  const renamed = body.name !== header.name;
  if (renamed || description !== header.description) {
    const fork = forkBom(write, link, {
      name: renamed ? body.name : undefined,
      description,
      isMainBom: body.isMainBom,
    });
    return { header: fork.header, link: fork.link };
  }
  link.isMainBom = body.isMainBom;
  return { header, link };
}

export interface DeleteHeadersResult {
  deletedHeaders: string[];
  deletedLinks: Array<{ bomHeaderId: string; styleId: string }>;
  errors: Array<{ id: string; code: string; message: string }>;
}

/**
 * POST /bom-headers/delete. Through the owner the header goes (with every link and line); through an inherited
 * link only the product's and its descendants' links go. Per-id failures land in `errors`.
 */
export function deleteHeaders(write: BomWrite, raw: unknown): DeleteHeadersResult {
  const body = parseBody(deleteHeadersSchema, raw);
  const { store } = write;
  const product = referencedProduct(write, body.styleId, 'styleId');
  const result: DeleteHeadersResult = { deletedHeaders: [], deletedLinks: [], errors: [] };
  for (const id of new Set(body.bomHeaderIds)) {
    const link = store.header(write.companyId, id) ? store.links.find(product.id, id) : undefined;
    if (!link) {
      result.errors.push({
        id,
        code: 'bom_header_not_found',
        message: `BOM header '${id}' is not linked to '${body.styleId}'`,
      });
      continue;
    }
    const removed = link.isOwner
      ? store.deleteHeader(id)
      : [
          link,
          ...catalogueOf(write.ctx)
            .descendants(product.id)
            .map((child) => store.links.find(child.id, id)),
        ].filter((candidate): candidate is BomLinkRecord => candidate !== undefined);
    if (link.isOwner) result.deletedHeaders.push(id);
    else for (const candidate of removed) store.links.remove(candidate.id);
    for (const candidate of removed)
      result.deletedLinks.push({ bomHeaderId: id, styleId: candidate.productId });
  }
  return result;
}
