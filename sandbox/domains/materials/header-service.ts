import { notFound } from '../../core/errors';
import { createdAudit, touchAudit } from '../v2-common/audit';
import { parseBody, sent } from '../v2-common/body';
import { referencedProduct, scheduleChildLinks, type HeaderView } from '../v2-common/linked-headers';
import { headerOnlyDuplicate, newMaterialLink, type MaterialWrite } from './fork';
import type { MaterialHeaderRecord, MaterialLinkRecord } from './model';
import { createHeaderSchema, deleteHeadersSchema, updateHeaderSchema } from './schemas';

type MaterialHeaderView = HeaderView<MaterialHeaderRecord, MaterialLinkRecord>;

export function createHeader(write: MaterialWrite, raw: unknown): MaterialHeaderView {
  const body = parseBody(createHeaderSchema, raw);
  const product = referencedProduct(write, body.link.styleId, 'link.styleId');
  const { store, ctx } = write;
  const header: MaterialHeaderRecord = {
    id: ctx.newId('mtrialhdr_'),
    name: body.name,
    description: body.description ?? null,
    forCompanyId: write.companyId,
    ...createdAudit(ctx, write.caller, write.companyId),
  };
  const link = newMaterialLink(write, header.id, product.id, body.link.isMainMaterial ?? false);
  store.headers.set(header.id, header);
  store.links.add(link);
  scheduleChildLinks(ctx, store, link, 'mtriallnk_');
  return { header, link };
}

/**
 * PUT /material-headers/{id}. Through the owner the shared header changes. Through an inherited link any PUT (even
 * one only setting isMainMaterial, with no change detection) adds a header-only duplicate.
 */
export function updateHeader(write: MaterialWrite, headerId: string, raw: unknown): MaterialHeaderView {
  const body = parseBody(updateHeaderSchema, raw);
  const { store } = write;
  const header = store.header(write.companyId, headerId);
  if (!header) throw notFound(`Composition '${headerId}' not found`, 'material_header_not_found');
  const product = referencedProduct(write, body.link.styleId, 'link.styleId');
  const link = store.links.find(product.id, header.id);
  if (!link)
    throw notFound(
      `Composition '${headerId}' is not linked to '${body.link.styleId}'`,
      'material_header_not_found',
    );
  const description = sent(body, 'description') ? (body.description ?? null) : header.description;
  const isMainMaterial = body.link.isMainMaterial ?? link.isMainMaterial;
  if (!link.isOwner) {
    const copy = headerOnlyDuplicate(write, link, { name: body.name, description, isMainMaterial });
    return { header: copy.header, link: copy.link };
  }
  header.name = body.name;
  header.description = description;
  link.isMainMaterial = isMainMaterial;
  touchAudit(write.ctx, write.caller, write.companyId, header);
  return { header, link };
}

export interface DeleteHeadersResult {
  deletedHeaders: string[];
  deletedLinks: Array<{ materialHeaderId: string; styleId: string }>;
  errors: Array<{ id: string; code: string; message: string }>;
}

/** Through the owner the composition goes (every link and line); through an inherited link only that link goes. */
export function deleteHeaders(write: MaterialWrite, raw: unknown): DeleteHeadersResult {
  const body = parseBody(deleteHeadersSchema, raw);
  const { store } = write;
  const product = referencedProduct(write, body.styleId, 'styleId');
  const result: DeleteHeadersResult = { deletedHeaders: [], deletedLinks: [], errors: [] };
  for (const id of new Set(body.materialHeaderIds)) {
    const link = store.header(write.companyId, id) ? store.links.find(product.id, id) : undefined;
    if (!link) {
      result.errors.push({
        id,
        code: 'material_header_not_found',
        message: `Composition '${id}' is not linked to '${body.styleId}'`,
      });
      continue;
    }
    if (link.isOwner) {
      for (const removed of store.deleteHeader(id))
        result.deletedLinks.push({ materialHeaderId: id, styleId: removed.productId });
      result.deletedHeaders.push(id);
    } else {
      store.links.remove(link.id);
      result.deletedLinks.push({ materialHeaderId: id, styleId: link.productId });
    }
  }
  return result;
}
