import type { MaterialSection } from '../domains/materials';
import { DEMO_IDS } from './demo-catalogue';
import { BRAND_COMPANY_ID } from './demo-network';

export const DEMO_MATERIAL_IDS = { tee: 'mtrialhdr_demo_merino_tee', jacket: 'mtrialhdr_demo_storm_shell' };

/** Compositions on the tee (inherited by its variants and SKUs) and the jacket. */
export function demoMaterialSection(now: number): Record<string, unknown> {
  const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
  const materials: MaterialSection = {
    headers: [
      {
        id: DEMO_MATERIAL_IDS.tee,
        name: 'Merino Crew Tee composition',
        description: 'Shell fabric',
        forCompanyId: BRAND_COMPANY_ID,
        ownerProductId: DEMO_IDS.teeStyle,
        createdAt: at(27),
        lines: [
          {
            rawMaterialId: 'rawmat_wool',
            percentage: 85,
            countriesOfOrigin: ['AU', 'NZ'],
            children: [
              { rawMaterialId: 'rawmat_wool_merino', percentage: 70, countriesOfOrigin: ['AU'] },
              { rawMaterialId: 'rawmat_wool_recycled', percentage: 30, countriesOfOrigin: ['NZ'] },
            ],
          },
          { rawMaterialId: 'rawmat_polyamide', percentage: 10, countriesOfOrigin: ['TR'] },
          { rawMaterialId: 'rawmat_elastane', percentage: 5 },
        ],
      },
      {
        id: DEMO_MATERIAL_IDS.jacket,
        name: 'Storm Shell composition',
        description: null,
        forCompanyId: BRAND_COMPANY_ID,
        ownerProductId: DEMO_IDS.jacketStyle,
        createdAt: at(17),
        lines: [
          {
            rawMaterialId: 'rawmat_polyester_recycled',
            percentage: 100,
            weights: 0.42,
            weightUnit: 'kg',
            countriesOfOrigin: ['VN'],
          },
        ],
      },
    ],
  };
  return { materials };
}
