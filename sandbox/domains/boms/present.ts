import type { SandboxContext } from '../../core/context';
import { shortAuditOf } from '../v2-common/audit';
import { catalogueOf } from '../v2-common/catalogue';
import type { BomHeaderRecord, BomLineRecord, BomLinkRecord, BomStore, PlacementRecord } from './model';

/** The header as seen through one product's link (version and effective dates are per link). */
export function presentHeader(header: BomHeaderRecord, link: BomLinkRecord): Record<string, unknown> {
  return {
    id: header.id,
    name: header.name,
    description: header.description,
    forCompanyId: header.forCompanyId,
    version: link.version,
    effectiveStartDate: link.effectiveStartDate,
    effectiveEndDate: link.effectiveEndDate,
    isArchived: header.isArchived,
    link: { styleId: link.productId, isMainBom: link.isMainBom, isOwner: link.isOwner },
    ...shortAuditOf(header),
  };
}

/** The flat 201 shape of POST /bom-headers: link fields at top level, no `link` object. */
export function presentCreatedHeader(header: BomHeaderRecord, link: BomLinkRecord): Record<string, unknown> {
  const { link: _link, ...rest } = presentHeader(header, link);
  return { ...rest, isMainBom: link.isMainBom };
}

export function presentPlacement(placement: PlacementRecord): Record<string, unknown> {
  return {
    id: placement.id,
    value: placement.value,
    forCompanyId: placement.forCompanyId,
    ...shortAuditOf(placement),
  };
}

export interface LineIncludes {
  entity: boolean;
  placement: boolean;
}

function componentEntity(ctx: SandboxContext, styleId: string | null): Record<string, unknown> | null {
  const product = styleId === null ? undefined : catalogueOf(ctx).get(styleId);
  if (!product) return null;
  const catalogue = catalogueOf(ctx);
  // suppliers and mainSupplier are inherited from the nearest ancestor holding a value.
  const chain = [product, ...catalogue.ancestors(product.id)];
  const type = catalogue.styleType(product.forCompanyId, product.styleTypeId);
  return {
    id: product.id,
    forCompanyId: product.forCompanyId,
    name: product.name,
    codes: product.codes,
    suppliers: chain.find((candidate) => candidate.suppliers !== null)?.suppliers ?? null,
    mainSupplier: chain.find((candidate) => candidate.mainSupplier !== null)?.mainSupplier ?? null,
    type: type
      ? { id: type.id, name: type.name, quantityUnits: type.quantityUnits, weightUnits: type.weightUnits }
      : null,
  };
}

export function presentLine(
  ctx: SandboxContext,
  store: BomStore,
  line: BomLineRecord,
  includes: LineIncludes = { entity: false, placement: false },
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: line.id,
    bomHeaderId: line.bomHeaderId,
    placementId: line.placementId,
    styleId: line.styleId,
    quantity: line.quantity,
    quantityUnit: line.quantityUnit,
    weight: line.weight,
    weightUnit: line.weightUnit,
    countryOfOrigin: line.countryOfOrigin,
    isMainComponent: line.isMainComponent,
    ...shortAuditOf(line),
  };
  if (includes.entity) body['entity'] = componentEntity(ctx, line.styleId);
  if (includes.placement) {
    const placement = line.placementId ? store.placements.get(line.placementId) : undefined;
    body['placement'] = placement
      ? { id: placement.id, value: placement.value, forCompanyId: placement.forCompanyId }
      : null;
  }
  return body;
}
