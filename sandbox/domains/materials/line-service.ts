import { badRequest, notFound } from '../../core/errors';
import { createdAudit, touchAudit } from '../v2-common/audit';
import { parseBody } from '../v2-common/body';
import { forkComposition, type MaterialWrite } from './fork';
import { referencedProduct, type DeleteLinesResult } from '../v2-common/linked-headers';
import type { MaterialHeaderRecord, MaterialLineRecord, MaterialLinkRecord } from './model';
import { deleteLinesSchema, lineSchema, type LineInput } from './schemas';
import {
  checkChildrenCountries,
  checkCountriesWithinParent,
  checkNoCycle,
  checkSiblingSum,
  nextPosition,
  parentLine,
} from './tree-rules';

interface Target {
  header: MaterialHeaderRecord;
  link: MaterialLinkRecord;
}

/** The composition named by `materialHeaderId`, as linked to the product the write goes through. */
function target(write: MaterialWrite, body: LineInput): Target {
  const product = referencedProduct(write, body.styleId, 'styleId');
  const header = write.store.header(write.companyId, body.materialHeaderId);
  const link = header ? write.store.links.find(product.id, header.id) : undefined;
  if (!header || !link) {
    throw notFound(
      `Composition '${body.materialHeaderId}' is not linked to '${body.styleId}'`,
      'material_header_not_found',
    );
  }
  return { header, link };
}

/** Maps an id of the shared composition into the fork (the write lands in the copy). */
function mapped(
  ids: Map<string, string>,
  id: string | null,
  code: 'invalid_parent_id' | 'invalid_line_id',
): string | null {
  if (id === null) return null;
  const copy = ids.get(id);
  if (!copy) throw badRequest(`Line '${id}' could not be mapped into the copied composition`, code);
  return copy;
}

export function createLine(write: MaterialWrite, raw: unknown): MaterialLineRecord {
  const body = parseBody(lineSchema, raw);
  const { header, link } = target(write, body);
  const { store, ctx } = write;
  const parent = parentLine(store, header.id, body.parentId);
  const countries = body.countriesOfOrigin ?? null;
  checkSiblingSum(store, header.id, parent?.id ?? null, body.percentage);
  checkCountriesWithinParent(parent, countries);

  let headerId = header.id;
  let parentId = parent?.id ?? null;
  if (!link.isOwner) {
    const fork = forkComposition(write, link, true);
    headerId = fork.header.id;
    parentId = mapped(fork.lineIds, parentId, 'invalid_parent_id');
  } else {
    touchAudit(ctx, write.caller, write.companyId, header);
  }
  const line: MaterialLineRecord = {
    id: ctx.newId('mtrialln_'),
    materialHeaderId: headerId,
    rawMaterialId: body.rawMaterialId,
    percentage: body.percentage,
    weights: body.weights ?? null,
    weightUnit: body.weightUnit ?? null,
    parentId,
    hierarchy: parent ? parent.hierarchy + 1 : 0,
    position: nextPosition(store, headerId, parentId),
    countriesOfOrigin: countries,
    ...createdAudit(ctx, write.caller, write.companyId),
  };
  store.lines.set(line.id, line);
  return line;
}

type Replaced = Pick<
  MaterialLineRecord,
  | 'rawMaterialId'
  | 'percentage'
  | 'weights'
  | 'weightUnit'
  | 'parentId'
  | 'countriesOfOrigin'
  | 'position'
  | 'hierarchy'
>;

const sameCountries = (a: string[] | null, b: string[] | null): boolean =>
  a === b ||
  (a !== null && b !== null && a.length === b.length && a.every((country, index) => country === b[index]));

function unchanged(line: MaterialLineRecord, values: Replaced): boolean {
  return (
    line.rawMaterialId === values.rawMaterialId &&
    line.percentage === values.percentage &&
    line.weights === values.weights &&
    line.weightUnit === values.weightUnit &&
    line.parentId === values.parentId &&
    line.position === values.position &&
    line.hierarchy === values.hierarchy &&
    sameCountries(line.countriesOfOrigin, values.countriesOfOrigin)
  );
}

/**
 * PUT /material-lines/{id}: a full replace (omitted weights, weightUnit and countries become null; an omitted
 * parentId re-roots the line; position and hierarchy are kept when omitted). No actual change returns the line as
 * it is; a change through an inherited link forks the composition and lands in the copy.
 */
export function updateLine(write: MaterialWrite, lineId: string, raw: unknown): MaterialLineRecord {
  const body = parseBody(lineSchema, raw);
  const { header, link } = target(write, body);
  const { store, ctx } = write;
  const line = store.lines.get(lineId);
  if (!line || line.materialHeaderId !== header.id) {
    throw notFound(`Line '${lineId}' is not in composition '${header.id}'`, 'material_line_not_found');
  }
  const parent = parentLine(store, header.id, body.parentId);
  checkNoCycle(store, line.id, parent);
  const values: Replaced = {
    rawMaterialId: body.rawMaterialId,
    percentage: body.percentage,
    weights: body.weights ?? null,
    weightUnit: body.weightUnit ?? null,
    parentId: parent?.id ?? null,
    countriesOfOrigin: body.countriesOfOrigin ?? null,
    position: body.position ?? line.position,
    hierarchy: body.hierarchy ?? line.hierarchy,
  };
  if (unchanged(line, values)) return line;
  checkSiblingSum(store, header.id, values.parentId, values.percentage, line.id);
  checkCountriesWithinParent(parent, values.countriesOfOrigin);
  checkChildrenCountries(store, line, values.countriesOfOrigin);

  if (link.isOwner) {
    Object.assign(line, values);
    touchAudit(ctx, write.caller, write.companyId, line);
    return line;
  }
  const fork = forkComposition(write, link, true);
  const copy = store.lines.get(
    mapped(fork.lineIds, line.id, 'invalid_line_id') as string,
  ) as MaterialLineRecord;
  Object.assign(copy, values, { parentId: mapped(fork.lineIds, values.parentId, 'invalid_parent_id') });
  return copy;
}

/**
 * POST /material-lines/delete. Each line goes with its direct children only (one-level cascade; grandchildren keep
 * a dangling parentId). Through an inherited link the lines leave the shared composition (owner and siblings see
 * it) and a copy is added for the product without detaching it. Unknown ids land in `errors`.
 */
export function deleteLines(write: MaterialWrite, raw: unknown): DeleteLinesResult {
  const body = parseBody(deleteLinesSchema, raw);
  const { store } = write;
  const product = referencedProduct(write, body.styleId, 'styleId');
  const result: DeleteLinesResult = {
    deletedLines: [],
    duplicatedHeaders: [],
    orphanedHeaders: [],
    errors: [],
  };
  const touched = new Map<string, MaterialLinkRecord>();
  for (const id of new Set(body.materialLineIds)) {
    const line = store.lines.get(id);
    const link =
      line && store.header(write.companyId, line.materialHeaderId)
        ? store.links.find(product.id, line.materialHeaderId)
        : undefined;
    if (!line || !link) {
      result.errors.push({
        id,
        code: 'material_line_not_found',
        message: `Line '${id}' is not in a composition of '${body.styleId}'`,
      });
      continue;
    }
    for (const removed of [line, ...store.siblings(line.materialHeaderId, line.id)]) {
      if (store.lines.delete(removed.id)) result.deletedLines.push(removed.id);
    }
    touched.set(line.materialHeaderId, link);
  }
  for (const [headerId, link] of touched) {
    if (!link.isOwner) result.duplicatedHeaders.push(forkComposition(write, link, false).header.id);
    if (store.linesOf(headerId).length === 0) result.orphanedHeaders.push(headerId);
  }
  return result;
}
