import type { BomSection } from '../domains/boms';
import { DEMO_IDS, demoId } from './demo-catalogue';
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
  /** Forks of the tee BOM made through two SKUs, whose copied lines lost their component (for the repair demo). */
  teeForkBlackM: 'bomhdr_demo_merino_tee_fork_blk_m',
  teeForkOffWhiteL: 'bomhdr_demo_merino_tee_fork_owh_l',
};

/** The SKUs that own the seeded forks: PLM-TEE-001-BLK-M and PLM-TEE-001-OWH-L. */
export const DEMO_FORK_SKUS = { blackM: demoId('sku_', 2), offWhiteL: demoId('sku_', 6) };

/**
 * Placements of the brand, and BOMs on the tee (a style with two variants and six SKUs) and the jacket. Two tee SKUs
 * were edited through their inherited link, so they own forks whose copied lines lost their component:
 * - PLM-TEE-001-BLK-M, 12 days ago (buttons 3 -> 4); its label line's source changed 6 days ago, after the fork,
 *   so the repair cannot know the label's component at fork time and reports it as ambiguous;
 * - PLM-TEE-001-OWH-L, 3 days ago (label quantity 1 -> 2); both copies can be repaired from the source.
 */
export function demoBomSection(now: number): Record<string, unknown> {
  const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
  const placement = (id: string, value: string) => ({ id, value, forCompanyId: BRAND_COMPANY_ID });
  // The tee BOM's three lines; each fork copied them with one change (and lost components, as forks do).
  const fabric = {
    placementId: DEMO_PLACEMENTS.body,
    quantity: 1.2,
    quantityUnit: 'METRE',
    weight: 0.15,
    weightUnit: 'KILOGRAM',
    countryOfOrigin: 'India',
  };
  const buttons = {
    placementId: DEMO_PLACEMENTS.placket,
    quantity: 3,
    quantityUnit: 'PIECES',
    weight: 2,
    weightUnit: 'GRAM',
    countryOfOrigin: 'Portugal',
  };
  const label = {
    placementId: DEMO_PLACEMENTS.insideNeck,
    quantity: 1,
    quantityUnit: 'PIECES',
    countryOfOrigin: 'Portugal',
  };
  const tee = {
    name: 'Merino Crew Tee BOM',
    description: 'Main fabric, placket buttons and main label',
    forCompanyId: BRAND_COMPANY_ID,
  };
  const teeCopy = { ...tee, name: `${tee.name} (Copy)`, forkOf: DEMO_BOM_IDS.tee };
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
        ...tee,
        id: DEMO_BOM_IDS.tee,
        ownerProductId: DEMO_IDS.teeStyle,
        createdAt: at(27),
        lines: [
          { ...fabric, componentId: DEMO_IDS.poplin, isMainComponent: true },
          { ...buttons, componentId: DEMO_IDS.button },
          // Changed 6 days ago (after the BLK-M fork, before the OWH-L one).
          { ...label, componentId: DEMO_IDS.label, updatedAt: at(6) },
        ],
      },
      {
        ...teeCopy,
        id: DEMO_BOM_IDS.teeForkBlackM,
        ownerProductId: DEMO_FORK_SKUS.blackM,
        createdAt: at(12),
        lines: [
          { ...fabric, componentId: null },
          { ...buttons, componentId: DEMO_IDS.button, quantity: 4 },
          { ...label, componentId: null },
        ],
      },
      {
        ...teeCopy,
        id: DEMO_BOM_IDS.teeForkOffWhiteL,
        ownerProductId: DEMO_FORK_SKUS.offWhiteL,
        createdAt: at(3),
        lines: [
          { ...fabric, componentId: null },
          { ...buttons, componentId: null },
          { ...label, componentId: DEMO_IDS.label, quantity: 2 },
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
          {
            componentId: DEMO_IDS.zipper,
            placementId: DEMO_PLACEMENTS.frontOpening,
            quantity: 1,
            quantityUnit: 'PIECES',
            isMainComponent: true,
          },
          {
            componentId: DEMO_IDS.poplin,
            placementId: DEMO_PLACEMENTS.body,
            quantity: 2.4,
            quantityUnit: 'METRE',
          },
          // Legacy line: METRE is not (or no longer) a unit of the zipper's style type. It stays acceptable on
          // PUT while the component is unchanged.
          {
            id: DEMO_LEGACY_UNIT_LINE_ID,
            componentId: DEMO_IDS.zipper,
            placementId: DEMO_PLACEMENTS.pocket,
            quantity: 0.6,
            quantityUnit: 'METRE',
          },
        ],
      },
    ],
  };
  return { boms };
}
