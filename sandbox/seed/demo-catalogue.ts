import type { CatalogueSection } from '../domains/catalogue';
import { BRAND_COMPANY_ID, OTHER_BRAND_COMPANY_ID, SUPPLIER_COMPANY_ID } from './demo-network';

type ProductSeed = CatalogueSection['products'] extends (infer T)[] | undefined ? T : never;

/** Fixed ULID-shaped ids (Crockford base32) so the demo records keep their ids across runs. */
export const demoId = (prefix: string, n: number): string =>
  `${prefix}01J9ZDEM0${String(n).padStart(17, '0')}`;

export const DEMO_IDS = {
  teeStyle: demoId('style_', 1),
  teeBlack: demoId('variant_', 1),
  teeOffWhite: demoId('variant_', 2),
  jacketStyle: demoId('style_', 2),
  jacketNavy: demoId('variant_', 3),
  fleeceStyle: demoId('style_', 3),
  fleeceGrey: demoId('variant_', 4),
  /** A legacy record: unprefixed alphanumeric id. */
  legacyChino: 'a8f3k2m9q1x7',
  button: demoId('style_', 10),
  zipper: demoId('style_', 11),
  poplin: demoId('style_', 12),
  label: demoId('style_', 13),
  otherTote: demoId('style_', 50),
  teeImage: demoId('file_', 1),
};

const units = {
  garmentQuantity: ['PIECES'],
  garmentWeight: ['GRAM', 'KILOGRAM'],
};

function styleTypes(): CatalogueSection['styleTypes'] {
  const apparel = 'APPAREL_END_CONSUMER_FINISHED_GOODS';
  return [
    {
      id: 'st_tshirts',
      name: 'T-shirts',
      parentId: apparel,
      quantityUnits: units.garmentQuantity,
      weightUnits: units.garmentWeight,
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    {
      id: 'st_jackets',
      name: 'Jackets',
      parentId: apparel,
      quantityUnits: units.garmentQuantity,
      weightUnits: units.garmentWeight,
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    {
      id: 'st_trousers',
      name: 'Trousers',
      parentId: apparel,
      quantityUnits: units.garmentQuantity,
      weightUnits: units.garmentWeight,
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    {
      id: 'st_woven_fabrics',
      name: 'Woven fabrics',
      parentId: 'FABRICS',
      quantityUnits: ['METRE', 'SQUARE_METRE', 'YARD'],
      weightUnits: ['GRAM_PER_SQUARE_METER', 'KILOGRAM'],
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    {
      id: 'st_knit_fabrics',
      name: 'Knitted fabrics',
      parentId: 'FABRICS',
      quantityUnits: ['METRE', 'KILOGRAM'],
      weightUnits: ['GRAM_PER_SQUARE_METER', 'KILOGRAM'],
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    {
      id: 'st_buttons',
      name: 'Buttons',
      parentId: 'TRIM_AND_ACCESSORIES',
      quantityUnits: ['PIECES'],
      weightUnits: ['GRAM'],
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    {
      id: 'st_zippers',
      name: 'Zippers',
      parentId: 'TRIM_AND_ACCESSORIES',
      quantityUnits: ['PIECES', 'CENTIMETRE'],
      weightUnits: ['GRAM'],
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    // No units configured: BOM lines with such components fall back to the platform-wide lists.
    {
      id: 'st_labels',
      name: 'Labels',
      parentId: 'TRIM_AND_ACCESSORIES',
      quantityUnits: null,
      weightUnits: null,
      isWeightAvailable: false,
      hierarchyLevel: 2,
    },
    {
      id: 'st_yarns',
      name: 'Yarns',
      parentId: 'YARNS',
      quantityUnits: ['KILOGRAM'],
      weightUnits: ['KILOGRAM'],
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
    {
      id: 'st_packaging',
      name: 'Packaging',
      parentId: 'PACKAGING',
      quantityUnits: null,
      weightUnits: null,
      isWeightAvailable: null,
      hierarchyLevel: 2,
    },
    {
      id: 'st_nordic_outerwear',
      forCompanyId: BRAND_COMPANY_ID,
      name: 'Nordic outerwear',
      parentId: apparel,
      quantityUnits: units.garmentQuantity,
      weightUnits: units.garmentWeight,
      isWeightAvailable: true,
      hierarchyLevel: 3,
    },
    {
      id: 'st_other_bags',
      forCompanyId: OTHER_BRAND_COMPANY_ID,
      name: 'Bags',
      parentId: 'BAGS_AND_LUGGAGE',
      quantityUnits: ['PIECES'],
      weightUnits: ['GRAM'],
      isWeightAvailable: true,
      hierarchyLevel: 2,
    },
  ];
}

function styleProperties(): CatalogueSection['styleProperties'] {
  const brand = (
    category: 'brands' | 'departments' | 'seasons' | 'collections',
    id: string,
    value: string,
  ) => ({
    id,
    forCompanyId: BRAND_COMPANY_ID,
    category,
    value,
  });
  return [
    brand('brands', 'prop_brand_nordic', 'Nordic Threads'),
    brand('brands', 'prop_brand_nordic_kids', 'Nordic Threads Kids'),
    brand('departments', 'prop_dept_women', 'Women'),
    brand('departments', 'prop_dept_men', 'Men'),
    brand('departments', 'prop_dept_kids', 'Kids'),
    brand('seasons', 'prop_season_ss25', 'SS25'),
    brand('seasons', 'prop_season_aw25', 'AW25'),
    brand('seasons', 'prop_season_ss26', 'SS26'),
    brand('collections', 'prop_coll_essentials', 'Essentials'),
    brand('collections', 'prop_coll_outdoor', 'Outdoor'),
    {
      id: 'prop_other_brand',
      forCompanyId: OTHER_BRAND_COMPANY_ID,
      category: 'brands',
      value: 'Other Label',
    },
    { id: 'prop_other_season', forCompanyId: OTHER_BRAND_COMPANY_ID, category: 'seasons', value: 'FW25' },
  ];
}

function products(at: (daysAgo: number) => string): ProductSeed[] {
  const id = DEMO_IDS;
  const brand = BRAND_COMPANY_ID;
  const sizes = (variantId: string, prefix: string, eanBase: number, daysAgo: number): ProductSeed[] =>
    ['S', 'M', 'L'].map((size, index) => ({
      id: demoId('sku_', eanBase + index),
      parentId: variantId,
      externalId: `${prefix}-${size}`,
      name: `${prefix} ${size}`,
      dimension: size,
      codes: [{ codeId: 'EAN_GTIN_13', codeValue: String(7350000000000 + eanBase * 10 + index) }],
      createdAt: at(daysAgo),
    }));
  /** A component product of the brand (BOM lines point at these). */
  const component = (
    productId: string,
    externalId: string,
    name: string,
    styleTypeId: string,
    daysAgo: number,
    fields: Pick<ProductSeed, 'codes' | 'suppliers' | 'mainSupplier'>,
  ): ProductSeed => ({
    id: productId,
    forCompanyId: brand,
    externalId,
    name,
    styleTypeId,
    isComponent: true,
    ...fields,
    createdAt: at(daysAgo),
  });
  return [
    {
      id: id.teeStyle,
      forCompanyId: brand,
      externalId: 'PLM-TEE-001',
      name: 'Merino Crew Tee',
      styleTypeId: 'st_tshirts',
      codes: [
        { codeId: 'PLM_ID', codeValue: 'PLM-TEE-001' },
        { codeId: 'ERP_ID', codeValue: '100001' },
      ],
      description: 'Lightweight merino wool crew-neck tee.',
      gender: 'Women',
      productLevel: 'FINISHED_PRODUCT',
      brands: ['prop_brand_nordic'],
      departments: ['prop_dept_women'],
      seasons: ['prop_season_ss25'],
      collections: ['prop_coll_essentials'],
      suppliers: [SUPPLIER_COMPANY_ID],
      mainSupplier: SUPPLIER_COMPANY_ID,
      vendors: null,
      claimIntentions: ['ORGANIC'],
      weight: { unit: 'GRAM', value: 180 },
      imagesFileIds: [id.teeImage],
      tracing: {
        tracingType: 'SUPPLY_CHAINS',
        tracingId: 'supplychain_demo_tee',
        tracingName: 'Merino tee chain',
      },
      isStoryActive: true,
      createdAt: at(30),
    },
    {
      id: id.teeBlack,
      parentId: id.teeStyle,
      externalId: 'PLM-TEE-001-BLK',
      name: 'Merino Crew Tee Black',
      color: 'Black',
      codes: [{ codeId: 'PLM_ID', codeValue: 'PLM-TEE-001-BLK' }],
      createdAt: at(29),
    },
    {
      id: id.teeOffWhite,
      parentId: id.teeStyle,
      externalId: 'PLM-TEE-001-OWH',
      name: 'Merino Crew Tee Off-white',
      color: 'Off-white',
      description: 'Undyed merino, natural off-white.',
      codes: [{ codeId: 'PLM_ID', codeValue: 'PLM-TEE-001-OWH' }],
      createdAt: at(29),
    },
    ...sizes(id.teeBlack, 'PLM-TEE-001-BLK', 1, 28),
    ...sizes(id.teeOffWhite, 'PLM-TEE-001-OWH', 4, 28),
    {
      id: id.jacketStyle,
      forCompanyId: brand,
      externalId: 'PLM-JKT-010',
      name: 'Storm Shell Jacket',
      styleTypeId: 'st_nordic_outerwear',
      codes: [
        { codeId: 'PLM_ID', codeValue: 'PLM-JKT-010' },
        { codeId: 'OTHER_ID1', codeValue: 'LEGACY-7781' },
      ],
      gender: 'Men',
      brands: ['prop_brand_nordic'],
      departments: ['prop_dept_men'],
      seasons: ['prop_season_aw25'],
      collections: ['prop_coll_outdoor'],
      suppliers: ['cmp_sup_dhaka_knitwear'],
      mainSupplier: 'cmp_sup_dhaka_knitwear',
      weight: { unit: 'GRAM', value: 640 },
      createdAt: at(20),
    },
    {
      id: id.jacketNavy,
      parentId: id.jacketStyle,
      externalId: 'PLM-JKT-010-NVY',
      name: 'Storm Shell Jacket Navy',
      color: 'Navy',
      codes: [{ codeId: 'PLM_ID', codeValue: 'PLM-JKT-010-NVY' }],
      createdAt: at(19),
    },
    ...sizes(id.jacketNavy, 'PLM-JKT-010-NVY', 7, 18),
    {
      id: id.fleeceStyle,
      forCompanyId: brand,
      externalId: 'PLM-FLC-002',
      name: 'Retired Fleece',
      styleTypeId: 'st_jackets',
      codes: [{ codeId: 'PLM_ID', codeValue: 'PLM-FLC-002' }],
      isArchived: true,
      createdAt: at(200),
    },
    {
      id: id.fleeceGrey,
      parentId: id.fleeceStyle,
      name: 'Retired Fleece Grey',
      color: 'Grey',
      codes: [{ codeId: 'PLM_ID', codeValue: 'PLM-FLC-002-GRY' }],
      isArchived: true,
      createdAt: at(199),
    },
    {
      id: id.legacyChino,
      forCompanyId: brand,
      name: 'Classic Chino',
      styleTypeId: 'st_trousers',
      gender: 'Men',
      codes: [{ codeId: 'ERP_ID', codeValue: '090017' }],
      createdAt: at(900),
    },
    component(id.button, 'CMP-BTN-15', 'Corozo Button 15mm', 'st_buttons', 60, {
      codes: [
        { codeId: 'ERP_ID', codeValue: 'BTN-15' },
        { codeId: 'ALTERNATIVE_SUPPLIERS_ID1', codeValue: 'PT-88213' },
      ],
      suppliers: ['cmp_sup_porto_trims'],
      mainSupplier: 'cmp_sup_porto_trims',
    }),
    component(id.zipper, 'CMP-ZIP-60', 'Metal Zipper 60cm', 'st_zippers', 60, {
      codes: [{ codeId: 'ERP_ID', codeValue: 'ZIP-60' }],
      suppliers: ['cmp_sup_porto_trims'],
    }),
    component(id.poplin, 'CMP-FAB-POP', 'Organic Cotton Poplin 120gsm', 'st_woven_fabrics', 59, {
      codes: [
        { codeId: 'PLM_ID', codeValue: 'FAB-POP-120' },
        { codeId: 'OTHER_ID1', codeValue: 'GOTS-2231' },
      ],
      suppliers: ['cmp_sup_gujarat_mills'],
      mainSupplier: 'cmp_sup_gujarat_mills',
    }),
    component(id.label, 'CMP-LBL-MAIN', 'Woven Main Label', 'st_labels', 58, {
      codes: [{ codeId: 'ERP_ID', codeValue: 'LBL-MAIN' }],
    }),
    {
      id: id.otherTote,
      forCompanyId: OTHER_BRAND_COMPANY_ID,
      externalId: 'PLM-TEE-001',
      name: 'Canvas Tote',
      styleTypeId: 'st_other_bags',
      codes: [{ codeId: 'PLM_ID', codeValue: 'PLM-TEE-001' }],
      brands: ['prop_other_brand'],
      createdAt: at(10),
    },
    {
      id: demoId('variant_', 50),
      parentId: id.otherTote,
      name: 'Canvas Tote Sand',
      color: 'Sand',
      codes: [{ codeId: 'PLM_ID', codeValue: 'TOTE-SND' }],
      createdAt: at(9),
    },
  ];
}

/** The demo catalogue: style types, properties, and a small catalogue for the brand (and two products for another brand). */
export function demoCatalogueSection(now: number): Record<string, unknown> {
  const at = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
  const catalogue: CatalogueSection = {
    styleTypes: styleTypes(),
    styleProperties: styleProperties(),
    products: products(at),
  };
  const files = [
    {
      id: DEMO_IDS.teeImage,
      forCompanyId: BRAND_COMPANY_ID,
      name: 'merino-crew-tee-front.jpg',
      fileType: 'image/jpeg',
      fileSize: 48213,
      uploadedAt: at(30),
      uploadedSize: 48213,
      createdAt: at(30),
      createdByCompanyId: BRAND_COMPANY_ID,
    },
  ];
  return { catalogue, files };
}
