import { notFound } from '../../core/errors';
import { createdAudit } from '../v2-common/audit';
import type { LinkedWrite } from '../v2-common/linked-headers';
import type { MaterialHeaderRecord, MaterialLineRecord, MaterialLinkRecord, MaterialStore } from './model';

export type MaterialWrite = LinkedWrite<MaterialStore>;

export interface MaterialCopy {
  header: MaterialHeaderRecord;
  link: MaterialLinkRecord;
  /** Original line id to the id of its copy. */
  lineIds: Map<string, string>;
}

export function newMaterialLink(
  write: MaterialWrite,
  headerId: string,
  productId: string,
  isMainMaterial: boolean,
): MaterialLinkRecord {
  return {
    id: write.ctx.newId('mtriallnk_'),
    headerId,
    productId,
    isOwner: true,
    isMainMaterial,
    createdAt: write.ctx.nowIso(),
  };
}

function copyHeader(
  write: MaterialWrite,
  source: MaterialHeaderRecord,
  name: string,
  description: string | null,
): MaterialHeaderRecord {
  const header: MaterialHeaderRecord = {
    id: write.ctx.newId('mtrialhdr_'),
    name,
    description,
    forCompanyId: source.forCompanyId,
    ...createdAudit(write.ctx, write.caller, write.companyId),
  };
  write.store.headers.set(header.id, header);
  return header;
}

function sharedHeader(write: MaterialWrite, link: MaterialLinkRecord): MaterialHeaderRecord {
  const original = write.store.headers.get(link.headerId);
  if (!original)
    throw notFound(
      `Composition '${link.headerId}' vanished during the copy`,
      'original_material_header_not_found',
    );
  return original;
}

/** Copies every line under new ids, remapping parent links into the copy. */
function copyLines(write: MaterialWrite, fromId: string, toId: string): Map<string, string> {
  const { store, ctx } = write;
  const originals = store.linesOf(fromId);
  const lineIds = new Map(originals.map((line) => [line.id, ctx.newId('mtrialln_')]));
  const audit = createdAudit(ctx, write.caller, write.companyId);
  for (const line of originals) {
    const copy: MaterialLineRecord = {
      ...line,
      ...audit,
      countriesOfOrigin: line.countriesOfOrigin ? [...line.countriesOfOrigin] : null,
      id: lineIds.get(line.id) as string,
      materialHeaderId: toId,
      // A dangling parent (left by a one-level cascade) stays dangling in the copy.
      parentId: line.parentId === null ? null : (lineIds.get(line.parentId) ?? line.parentId),
    };
    store.lines.set(copy.id, copy);
  }
  return lineIds;
}

/**
 * Full fork (a line write through an inherited link, `detach`): the product's inherited link is deleted and it gets
 * an owner link to a copy named "<name> (Copy)" holding copies of every line; its own children keep the original.
 * Fork without detach (line delete through an inherited link): the same copy is added and the inherited link stays.
 */
export function forkComposition(
  write: MaterialWrite,
  link: MaterialLinkRecord,
  detach: boolean,
): MaterialCopy {
  const original = sharedHeader(write, link);
  if (detach) write.store.links.remove(link.id);
  const header = copyHeader(write, original, `${original.name} (Copy)`, original.description);
  const lineIds = copyLines(write, original.id, header.id);
  const owner = newMaterialLink(write, header.id, link.productId, link.isMainMaterial);
  write.store.links.add(owner);
  return { header, link: owner, lineIds };
}

/**
 * Header-only duplicate (PUT /material-headers through an inherited link): an additional owner link to a new EMPTY
 * header; the inherited link stays. The name gets " (Copy)" when the submitted name equals the current one.
 */
export function headerOnlyDuplicate(
  write: MaterialWrite,
  link: MaterialLinkRecord,
  submitted: { name: string; description: string | null; isMainMaterial: boolean },
): MaterialCopy {
  const original = sharedHeader(write, link);
  const name = submitted.name === original.name ? `${original.name} (Copy)` : submitted.name;
  const header = copyHeader(write, original, name, submitted.description);
  const owner = newMaterialLink(write, header.id, link.productId, submitted.isMainMaterial);
  write.store.links.add(owner);
  return { header, link: owner, lineIds: new Map() };
}
