import { shortAuditOf } from '../v2-common/audit';
import type { MaterialHeaderRecord, MaterialLineRecord, MaterialLinkRecord } from './model';
import { countryByCode, rawMaterial, type Country } from './reference';

/** List and read shape: `link` carries isOwner. The create response echoes only styleId and isMainMaterial. */
export function presentHeader(
  header: MaterialHeaderRecord,
  link: MaterialLinkRecord,
  echo = false,
): Record<string, unknown> {
  return {
    id: header.id,
    name: header.name,
    description: header.description,
    forCompanyId: header.forCompanyId,
    link: echo
      ? { styleId: link.productId, isMainMaterial: link.isMainMaterial }
      : { styleId: link.productId, isMainMaterial: link.isMainMaterial, isOwner: link.isOwner },
    ...shortAuditOf(header),
  };
}

export interface MaterialLineIncludes {
  rawMaterials: boolean;
  countriesOfOrigin: boolean;
}

export function presentLine(
  line: MaterialLineRecord,
  includes: MaterialLineIncludes = { rawMaterials: false, countriesOfOrigin: false },
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: line.id,
    materialHeaderId: line.materialHeaderId,
    rawMaterialId: line.rawMaterialId,
    percentage: line.percentage,
    weights: line.weights,
    weightUnit: line.weightUnit,
    parentId: line.parentId,
    hierarchy: line.hierarchy,
    position: line.position,
    countriesOfOrigin: line.countriesOfOrigin,
    ...shortAuditOf(line),
  };
  // A raw material id is not validated on write, so a dangling one shows a null object.
  if (includes.rawMaterials) body['rawMaterial'] = rawMaterial(line.rawMaterialId) ?? null;
  if (includes.countriesOfOrigin) {
    body['countries'] = (line.countriesOfOrigin ?? [])
      .map(countryByCode)
      .filter((entry): entry is Country => entry !== undefined);
  }
  return body;
}
