import type { SandboxContext } from '../../core/context';
import { badRequest, notFound } from '../../core/errors';
import { PLATFORM_QUANTITY_UNITS, PLATFORM_WEIGHT_UNITS, type ProductRecord } from '../catalogue';
import { catalogueOf } from '../v2-common/catalogue';
import { referencedProduct } from '../v2-common/linked-headers';
import type { BomLineRecord, BomStore } from './model';

/** A component must be in the caller's catalogue and hold at least one product code. */
export function componentProduct(ctx: SandboxContext, companyId: string, styleId: string): ProductRecord {
  const component = referencedProduct({ ctx, companyId }, styleId, 'component.styleId');
  if (component.codes.length === 0) {
    throw badRequest(`Component '${component.id}' holds no product code`, 'component_codes_not_found');
  }
  return component;
}

export function checkPlacement(
  store: BomStore,
  companyId: string,
  placementId: string | null | undefined,
): void {
  if (placementId && !store.placement(companyId, placementId)) {
    throw notFound(`Placement '${placementId}' does not exist`, 'bom_placement_not_found');
  }
}

/** Units configured on the component's style type; the platform-wide lists when the type has none. */
export function allowedUnits(
  ctx: SandboxContext,
  component: ProductRecord,
): { quantity: readonly string[]; weight: readonly string[] } {
  const type = catalogueOf(ctx).styleType(component.forCompanyId, component.styleTypeId);
  const quantity =
    type?.quantityUnits && type.quantityUnits.length > 0 ? type.quantityUnits : PLATFORM_QUANTITY_UNITS;
  const weight = type?.weightUnits && type.weightUnits.length > 0 ? type.weightUnits : PLATFORM_WEIGHT_UNITS;
  return { quantity, weight };
}

/**
 * Quantity and weight units must be allowed for the component's style type. A unit already stored on the line
 * stays acceptable while the component is unchanged.
 */
export function checkUnits(
  ctx: SandboxContext,
  component: ProductRecord,
  units: { quantityUnit: string | null; weightUnit: string | null },
  stored?: BomLineRecord,
): void {
  const keepsComponent = stored !== undefined && stored.styleId === component.id;
  const allowed = allowedUnits(ctx, component);
  const { quantityUnit, weightUnit } = units;
  if (
    quantityUnit !== null &&
    !allowed.quantity.includes(quantityUnit) &&
    !(keepsComponent && stored.quantityUnit === quantityUnit)
  ) {
    throw badRequest(
      `quantityUnit '${quantityUnit}' is not allowed for the component's style type; accepted: ${allowed.quantity.join(', ')}`,
      'invalid_bom_quantity_unit',
    );
  }
  if (
    weightUnit !== null &&
    !allowed.weight.includes(weightUnit) &&
    !(keepsComponent && stored.weightUnit === weightUnit)
  ) {
    throw badRequest(
      `weightUnit '${weightUnit}' is not allowed for the component's style type; accepted: ${allowed.weight.join(', ')}`,
      'invalid_bom_weight_unit',
    );
  }
}
