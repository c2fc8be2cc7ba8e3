import type { LineView } from '../../../connectors/bom-repair/lines';

let counter = 0;

/** A BOM line; ids sort in creation order, like the API's. */
export function line(fields: Partial<LineView> & { id?: string } = {}): LineView {
  counter += 1;
  const { id, ...rest } = fields;
  return {
    bomHeaderId: 'bomhdr_src',
    placementId: 'bomplc_body',
    styleId: null,
    quantity: 1,
    quantityUnit: 'PIECES',
    weight: null,
    weightUnit: null,
    countryOfOrigin: null,
    isMainComponent: false,
    createdAt: '2025-01-01T00:00:00.000Z',
    ...rest,
    id: id ?? `bom_line_${String(counter).padStart(6, '0')}`,
  };
}

/** What a fork makes of a source line: new id, same kept values, no component, main flag false. */
export function copyOf(source: LineView, id?: string): LineView {
  return line({
    ...source,
    id,
    bomHeaderId: 'bomhdr_fork',
    styleId: null,
    isMainComponent: false,
    createdAt: '2025-02-01T00:00:00.000Z',
  });
}
