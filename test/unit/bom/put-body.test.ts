import { bomLineWriteSchema } from '../../../connectors/traceability';
import { repairLineBody } from '../../../connectors/bom-repair/lines';
import { line } from './fixtures';

describe('repairLineBody', () => {
  it('sends every field of the line, with the repaired component and main flag, through the owning product', () => {
    const copied = line({
      placementId: 'bomplc_body',
      quantity: 1.2,
      quantityUnit: 'METRE',
      weight: 0.15,
      weightUnit: 'KILOGRAM',
      countryOfOrigin: 'India',
    });
    const body = repairLineBody(copied, 'sku_1', { styleId: 'cmp_fabric', isMainComponent: true });
    expect(body).toEqual({
      entity: { styleId: 'sku_1' },
      component: { styleId: 'cmp_fabric' },
      placementId: 'bomplc_body',
      quantity: 1.2,
      quantityUnit: 'METRE',
      weight: 0.15,
      weightUnit: 'KILOGRAM',
      countryOfOrigin: 'India',
      isMainComponent: true,
    });
    expect(bomLineWriteSchema.safeParse(body).success).toBe(true);
  });

  it('sends absent values as explicit nulls and the main flag as false, so the full replace keeps them as they are', () => {
    const body = repairLineBody(line({ placementId: null, quantity: null, quantityUnit: null }), 'sku_1', {
      styleId: 'cmp_label',
      isMainComponent: false,
    });
    expect(Object.keys(body).sort()).toEqual(
      [
        'component',
        'countryOfOrigin',
        'entity',
        'isMainComponent',
        'placementId',
        'quantity',
        'quantityUnit',
        'weight',
        'weightUnit',
      ].sort(),
    );
    expect(body).toMatchObject({
      placementId: null,
      quantity: null,
      quantityUnit: null,
      weight: null,
      weightUnit: null,
      countryOfOrigin: null,
      isMainComponent: false,
    });
  });
});
