import type { NetworkSection } from '../domains/network';
import { DEMO_IDS } from './demo-catalogue';
import { BRAND_COMPANY_ID, SUPPLIER_COMPANY_ID } from './demo-network';
import { seededRandom } from '../core/prng';

type EsgPoint = NonNullable<NetworkSection['esgProfiles']>[number]['dataPoints'][number];

const site = (
  companyId: string,
  productionProcessId: string,
  facilityProcesses: string[],
  city: string,
  country: string,
  latitude: number,
  longitude: number,
) => ({
  companyId,
  productionProcessId,
  facilityProcesses,
  coordinates: { latitude, longitude },
  address: { line1: `${city} industrial zone`, line2: null, city, zipCode: null, country },
});

/** Data point templates: [templateId, impactAreaId, impactArea, name, unit]. Energy sources are 2.1.6.1. */
const TEMPLATES: ReadonlyArray<readonly [string, string, string, string, string | null]> = [
  ['2.1.1.1', '2.1.1', 'Greenhouse gas emissions', 'Scope 1 emissions', 'tCO2e'],
  ['2.1.1.2', '2.1.1', 'Greenhouse gas emissions', 'Scope 2 emissions', 'tCO2e'],
  ['2.1.2.1', '2.1.2', 'Water', 'Water withdrawal', 'm3'],
  ['2.1.3.1', '2.1.3', 'Chemicals', 'ZDHC MRSL conformance', '%'],
  ['2.1.4.1', '2.1.4', 'Waste', 'Textile waste recycled', '%'],
  ['2.1.6.1', '2.1.6', 'Energy sources', 'Share of renewable electricity', '%'],
  ['2.1.6.1', '2.1.6', 'Energy sources', 'Share of coal in energy mix', '%'],
  ['2.1.6.1', '2.1.6', 'Energy sources', 'On-site solar capacity', 'kWp'],
  ['2.2.1.1', '2.2.1', 'Wages', 'Workers paid at least a living wage', '%'],
  ['2.2.2.1', '2.2.2', 'Health and safety', 'Lost time injury rate', null],
  ['2.2.3.1', '2.2.3', 'Working hours', 'Average weekly overtime hours', 'h'],
  ['2.2.4.1', '2.2.4', 'Diversity', 'Women in management', '%'],
  ['2.3.1.1', '2.3.1', 'Business ethics', 'Anti-bribery policy in place', null],
  ['2.3.2.1', '2.3.2', 'Transparency', 'Tier 2 suppliers disclosed', '%'],
];

function profile(companyId: string, seed: number, isShared: boolean, year: number) {
  const random = seededRandom(seed);
  const dataPoints: EsgPoint[] = TEMPLATES.map(
    ([templateId, impactAreaId, impactArea, name, unit], index) => {
      const answered = random() < 0.75;
      return {
        platformId: `esgdp_${companyId.replace(/^cmp_/, '')}_${index + 1}`,
        name,
        description: `${name} reported for the last full year`,
        impactArea,
        impactAreaId,
        templateId,
        value: answered ? Math.round(random() * 10_000) / 100 : null,
        unit,
        year: answered ? year : null,
      };
    },
  );
  return { companyId, isShared, dataPoints };
}

/** Supply chains for the tee style (its SKUs fall back to it) and the navy jacket variant, and ESG profiles. */
export function demoNetworkDataSection(now: number): Record<string, unknown> {
  const year = new Date(now).getUTCFullYear() - 1;
  const network: NetworkSection = {
    supplyChains: [
      {
        id: 'supplychain_demo_tee',
        name: 'Merino tee chain',
        productId: DEMO_IDS.teeStyle,
        nodes: [
          site(
            SUPPLIER_COMPANY_ID,
            'MANUFACTURING',
            ['CUT_MAKE_TRIM', 'QUALITY_ASSURANCE'],
            'Istanbul',
            'TR',
            41.0082,
            28.9784,
          ),
          site(
            'cmp_sup_izmir_spinning',
            'YARN_PRODUCTION',
            ['SPINNING_MILL', 'WORSTED_SPINNING'],
            'Izmir',
            'TR',
            38.4237,
            27.1428,
          ),
          site(
            'cmp_sup_shaoxing_dyeing',
            'FABRIC_PROCESSING',
            ['FABRIC_DYEING'],
            'Shaoxing',
            'CN',
            30.0023,
            120.5811,
          ),
          site(
            'cmp_sup_prato_wool',
            'FIBER_PROCESSING',
            ['SCOURING', 'COMBING'],
            'Prato',
            'IT',
            43.8777,
            11.1022,
          ),
        ],
      },
      {
        id: 'supplychain_demo_jacket_navy',
        name: 'Storm shell navy chain',
        productId: DEMO_IDS.jacketNavy,
        nodes: [
          site(
            'cmp_sup_dhaka_knitwear',
            'MANUFACTURING',
            ['CUT_MAKE_TRIM', 'PACKING'],
            'Dhaka',
            'BD',
            23.8103,
            90.4125,
          ),
          site(
            'cmp_sup_porto_trims',
            'TRIMS_AND_COMPONENTS',
            ['ZIPPER_MANUFACTURING'],
            'Porto',
            'PT',
            41.1579,
            -8.6291,
          ),
        ],
      },
      {
        id: 'supplychain_demo_chino_inactive',
        name: 'Chino chain (story inactive)',
        productId: DEMO_IDS.legacyChino,
        isActive: false,
        nodes: [
          site(
            'cmp_sup_tirupur_cotton',
            'MANUFACTURING',
            ['CUT_MAKE_TRIM'],
            'Tirupur',
            'IN',
            11.1085,
            77.3411,
          ),
        ],
      },
    ],
    esgProfiles: [
      profile(SUPPLIER_COMPANY_ID, 101, true, year),
      profile('cmp_sup_gujarat_mills', 102, true, year),
      profile('cmp_sup_shaoxing_dyeing', 103, true, year),
      profile('cmp_sup_dhaka_knitwear', 104, false, year),
      profile(BRAND_COMPANY_ID, 105, false, year),
    ],
  };
  return { network };
}
