import type { BomSection } from '../domains/boms';
import { DEMO_IDS } from './demo-catalogue';
import { BRAND_COMPANY_ID } from './demo-network';

export const DEMO_PLACEMENTS = {
  body: 'bomplc_demo_body',
  placket: 'bomplc_demo_placket',
  insideNeck: 'bomplc_demo_inside_neck',
  frontOpening: 'bomplc_demo_front_opening',
  pocket: 'bomplc_demo_pocket',
};

export const DEMO_LEGACY_UNIT_LINE_ID = 'bom_line_demo_jacket_pocket_zip';

export const DEMO_BOM_IDS = {
  tee: 'bomhdr_demo_merino_tee',
  jacket: 'bomhdr_demo_storm_shell',
};

/** Placements of the brand, and BOMs on the tee (a style with two variants and six SKUs) and the jacket. */
export function demoBomSection(now: number): Record<string, unknown> {
  const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
  const placement = (id: string, value: string) => ({ id, value, forCompanyId: BRAND_COMPANY_ID });
  const boms: BomSection = {
    placements: [
      placement(DEMO_PLACEMENTS.body, 'Body'),
      placement(DEMO_PLACEMENTS.placket, 'Placket'),
      placement(DEMO_PLACEMENTS.insideNeck, 'Inside neck'),
      placement(DEMO_PLACEMENTS.frontOpening, 'Front opening'),
      placement('bomplc_demo_sleeve', 'Sleeve'),
      placement(DEMO_PLACEMENTS.pocket, 'Pocket'),
    ],
    headers: [
      {
        id: DEMO_BOM_IDS.tee,
        name: 'Merino Crew Tee BOM',
        description: 'Main fabric, placket buttons and main label',
        forCompanyId: BRAND_COMPANY_ID,
        ownerProductId: DEMO_IDS.teeStyle,
        createdAt: at(27),
        lines: [
          { componentId: DEMO_IDS.poplin, placementId: DEMO_PLACEMENTS.body, quantity: 1.2, quantityUnit: 'METRE', weight: 0.15, weightUnit: 'KILOGRAM', countryOfOrigin: 'India', isMainComponent: true },
          { componentId: DEMO_IDS.button, placementId: DEMO_PLACEMENTS.placket, quantity: 3, quantityUnit: 'PIECES', weight: 2, weightUnit: 'GRAM', countryOfOrigin: 'Portugal' },
          { componentId: DEMO_IDS.label, placementId: DEMO_PLACEMENTS.insideNeck, quantity: 1, quantityUnit: 'PIECES', countryOfOrigin: 'Portugal' },
        ],
      },
      {
        id: DEMO_BOM_IDS.jacket,
        name: 'Storm Shell Jacket BOM',
        description: null,
        forCompanyId: BRAND_COMPANY_ID,
        ownerProductId: DEMO_IDS.jacketStyle,
        createdAt: at(17),
        lines: [
          { componentId: DEMO_IDS.zipper, placementId: DEMO_PLACEMENTS.frontOpening, quantity: 1, quantityUnit: 'PIECES', isMainComponent: true },
          { componentId: DEMO_IDS.poplin, placementId: DEMO_PLACEMENTS.body, quantity: 2.4, quantityUnit: 'METRE' },
          // Legacy line: METRE is not (or no longer) a unit of the zipper's style type. It stays acceptable on
          // PUT while the component is unchanged.
          { id: DEMO_LEGACY_UNIT_LINE_ID, componentId: DEMO_IDS.zipper, placementId: DEMO_PLACEMENTS.pocket, quantity: 0.6, quantityUnit: 'METRE' },
        ],
      },
    ],
  };
  return { boms };
}
