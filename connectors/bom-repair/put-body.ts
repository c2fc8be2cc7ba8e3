import type { BomLineWrite } from '../traceability';
import { keptFields, type ComponentRef, type LineView } from './line-fields';

/**
 * The body of a full-replace `PUT /bom-lines/{id}` that changes only the component reference and main flag:
 * every other field is sent as the line holds it, because an omitted field becomes null on the server.
 */
export function repairLineBody(line: LineView, entityStyleId: string, component: ComponentRef): BomLineWrite {
  const kept = keptFields(line);
  return {
    entity: { styleId: entityStyleId },
    component: { styleId: component.styleId },
    placementId: kept.placementId,
    quantity: kept.quantity,
    quantityUnit: kept.quantityUnit as BomLineWrite['quantityUnit'],
    weight: kept.weight,
    weightUnit: kept.weightUnit as BomLineWrite['weightUnit'],
    countryOfOrigin: kept.countryOfOrigin,
    isMainComponent: component.isMainComponent,
  };
}
