import { notFound } from '../../core/errors';
import { createdAudit, touchAudit } from '../v2-common/audit';
import { parseBody } from '../v2-common/body';
import { forkBom, type BomWrite } from './fork';
import type { BomLineRecord } from './model';
import { referencedProduct, type DeleteLinesResult } from '../v2-common/linked-headers';
import { checkPlacement, checkUnits, componentProduct } from './rules';
import { createLineSchema, deleteLinesSchema, updateLineSchema, type UpdateLineInput } from './schemas';

type LineValues = Pick<
  BomLineRecord,
  | 'placementId'
  | 'styleId'
  | 'quantity'
  | 'quantityUnit'
  | 'weight'
  | 'weightUnit'
  | 'countryOfOrigin'
  | 'isMainComponent'
>;

/** Full-replace values: omitted optional fields become null (false for isMainComponent). */
function lineValues(body: UpdateLineInput, componentId: string): LineValues {
  return {
    placementId: body.placementId ?? null,
    styleId: componentId,
    quantity: body.quantity ?? null,
    quantityUnit: body.quantityUnit ?? null,
    weight: body.weight ?? null,
    weightUnit: body.weightUnit ?? null,
    countryOfOrigin: body.countryOfOrigin ?? null,
    isMainComponent: body.isMainComponent ?? false,
  };
}

function sameValues(line: BomLineRecord, values: LineValues): boolean {
  return (Object.keys(values) as Array<keyof LineValues>).every((key) => line[key] === values[key]);
}

/** Checks shared by create and update: component, placement and units. */
function validatedValues(write: BomWrite, body: UpdateLineInput, stored?: BomLineRecord): LineValues {
  const component = componentProduct(write.ctx, write.companyId, body.component.styleId);
  checkPlacement(write.store, write.companyId, body.placementId);
  const values = lineValues(body, component.id);
  checkUnits(write.ctx, component, values, stored);
  return values;
}

/** POST /bom-lines. Through an inherited link the BOM forks first and the new line lands in the copy. */
export function createLine(write: BomWrite, raw: unknown): BomLineRecord {
  const body = parseBody(createLineSchema, raw);
  const { store, ctx } = write;
  const entity = referencedProduct(write, body.entity.styleId, 'entity.styleId');
  const header = store.header(write.companyId, body.bomHeaderId);
  const link = header ? store.links.find(entity.id, header.id) : undefined;
  if (!header || !link) {
    throw notFound(
      `BOM header '${body.bomHeaderId}' is not linked to '${body.entity.styleId}'`,
      'bom_header_or_link_not_found',
    );
  }
  const values = validatedValues(write, body);
  const headerId = link.isOwner ? header.id : forkBom(write, link).header.id;
  const line: BomLineRecord = {
    id: ctx.newId('bom_line_'),
    bomHeaderId: headerId,
    ...values,
    ...createdAudit(ctx, write.caller, write.companyId),
  };
  store.lines.set(line.id, line);
  if (link.isOwner) touchAudit(ctx, write.caller, write.companyId, header);
  return line;
}

/**
 * PUT /bom-lines/{id}: a full replace. No actual change returns the line as it is (no copy); through an inherited
 * link a real change forks the BOM and the edited line (the only one keeping component and isMainComponent) lands
 * in the copy.
 */
export function updateLine(write: BomWrite, lineId: string, raw: unknown): BomLineRecord {
  const body = parseBody(updateLineSchema, raw);
  const { store, ctx } = write;
  const entity = referencedProduct(write, body.entity.styleId, 'entity.styleId');
  const line = store.lines.get(lineId);
  const header = line ? store.header(write.companyId, line.bomHeaderId) : undefined;
  const link = header ? store.links.find(entity.id, header.id) : undefined;
  if (!line || !header || !link) {
    throw notFound(
      `BOM line '${lineId}' is not on a BOM linked to '${body.entity.styleId}'`,
      'bom_line_link_not_found',
    );
  }
  const values = validatedValues(write, body, line);
  if (sameValues(line, values)) return line;
  if (link.isOwner) {
    Object.assign(line, values);
    touchAudit(ctx, write.caller, write.companyId, line);
    return line;
  }
  const fork = forkBom(write, link);
  const copy = store.lines.get(fork.lineIds.get(line.id) ?? '') as BomLineRecord;
  Object.assign(copy, values);
  return copy;
}

/**
 * POST /bom-lines/delete through the owning product. Any line not on a BOM linked to the product: 404
 * `bom_lines_not_found` and nothing is deleted. Lines reached through an inherited link fork their BOM (the copy
 * holds the other lines); `orphanedHeaders` lists the product's headers left without lines.
 */
export function deleteLines(write: BomWrite, raw: unknown): DeleteLinesResult {
  const body = parseBody(deleteLinesSchema, raw);
  const { store } = write;
  const product = referencedProduct(write, body.styleId, 'styleId');
  const ids = [...new Set(body.bomLineIds)];
  const byHeader = new Map<string, Set<string>>();
  const missing: string[] = [];
  for (const id of ids) {
    const line = store.lines.get(id);
    const linked =
      line &&
      store.header(write.companyId, line.bomHeaderId) &&
      store.links.find(product.id, line.bomHeaderId);
    if (!line || !linked) missing.push(id);
    else byHeader.set(line.bomHeaderId, (byHeader.get(line.bomHeaderId) ?? new Set()).add(id));
  }
  if (missing.length > 0)
    throw notFound(
      `BOM line(s) not found for '${body.styleId}': ${missing.join(', ')}`,
      'bom_lines_not_found',
    );

  const result: DeleteLinesResult = {
    deletedLines: ids,
    duplicatedHeaders: [],
    orphanedHeaders: [],
    errors: [],
  };
  for (const [headerId, lineIds] of byHeader) {
    const link = store.links.find(product.id, headerId);
    if (!link) continue;
    let remainingHeader = headerId;
    if (link.isOwner) {
      for (const id of lineIds) store.lines.delete(id);
    } else {
      remainingHeader = forkBom(write, link, { withoutLines: lineIds }).header.id;
      result.duplicatedHeaders.push(remainingHeader);
    }
    if (store.linesOf(remainingHeader).length === 0) result.orphanedHeaders.push(remainingHeader);
  }
  return result;
}
