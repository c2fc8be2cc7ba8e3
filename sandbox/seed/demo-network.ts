import type { ApiKeySeed, CompanySeed, UserSeed } from '../core/seed';

export const BRAND_COMPANY_ID = 'cmp_brand_nordic_threads';
export const SUPPLIER_COMPANY_ID = 'cmp_sup_anatolia_garments';
export const OTHER_BRAND_COMPANY_ID = 'cmp_brand_other_label';

/** The brand's network: its suppliers. */
export const DEMO_SUPPLIER_IDS = [
  SUPPLIER_COMPANY_ID,
  'cmp_sup_gujarat_mills',
  'cmp_sup_porto_trims',
  'cmp_sup_dhaka_knitwear',
  'cmp_sup_shaoxing_dyeing',
  'cmp_sup_izmir_spinning',
  'cmp_sup_tirupur_cotton',
  'cmp_sup_prato_wool',
];

const companies: CompanySeed[] = [
  {
    id: BRAND_COMPANY_ID,
    name: 'Nordic Threads',
    officialName: 'Nordic Threads AB',
    internalCompanyCode: null,
    city: 'Stockholm',
    country: 'SE',
    network: DEMO_SUPPLIER_IDS,
  },
  {
    id: SUPPLIER_COMPANY_ID,
    name: 'Anatolia Garments',
    officialName: 'Anatolia Garments Tekstil A.S.',
    internalCompanyCode: 'SUP-1001',
    city: 'Istanbul',
    country: 'TR',
    network: [BRAND_COMPANY_ID, 'cmp_sup_izmir_spinning', 'cmp_sup_gujarat_mills'],
  },
  {
    id: 'cmp_sup_gujarat_mills',
    name: 'Gujarat Mills',
    officialName: 'Gujarat Mills Private Limited',
    internalCompanyCode: 'SUP-1002',
    city: 'Ahmedabad',
    country: 'IN',
    network: [BRAND_COMPANY_ID],
  },
  {
    id: 'cmp_sup_porto_trims',
    name: 'Porto Trims',
    officialName: 'Porto Trims Lda',
    internalCompanyCode: 'SUP-1003',
    city: 'Porto',
    country: 'PT',
    network: [BRAND_COMPANY_ID],
  },
  {
    id: 'cmp_sup_dhaka_knitwear',
    name: 'Dhaka Knitwear',
    officialName: 'Dhaka Knitwear Ltd',
    internalCompanyCode: 'SUP-1004',
    city: 'Dhaka',
    country: 'BD',
    network: [BRAND_COMPANY_ID],
  },
  {
    id: 'cmp_sup_shaoxing_dyeing',
    name: 'Shaoxing Dyeing',
    officialName: 'Shaoxing Dyeing and Finishing Co., Ltd.',
    internalCompanyCode: 'SUP-1005',
    city: 'Shaoxing',
    country: 'CN',
    network: [BRAND_COMPANY_ID],
  },
  {
    id: 'cmp_sup_izmir_spinning',
    name: 'Izmir Spinning',
    officialName: 'Izmir Iplik Sanayi A.S.',
    internalCompanyCode: 'SUP-10021',
    city: 'Izmir',
    country: 'TR',
    network: [BRAND_COMPANY_ID, SUPPLIER_COMPANY_ID],
  },
  {
    id: 'cmp_sup_tirupur_cotton',
    name: 'Tirupur Cotton',
    officialName: 'Tirupur Cotton Processing Pvt Ltd',
    internalCompanyCode: 'SUP-1007',
    city: 'Tirupur',
    country: 'IN',
    network: [BRAND_COMPANY_ID],
  },
  {
    id: 'cmp_sup_prato_wool',
    name: 'Prato Wool',
    officialName: 'Lanificio di Prato S.r.l.',
    internalCompanyCode: 'SUP-1008',
    city: 'Prato',
    country: 'IT',
    network: [BRAND_COMPANY_ID],
  },
  {
    id: OTHER_BRAND_COMPANY_ID,
    name: 'Other Label',
    officialName: 'Other Label GmbH',
    internalCompanyCode: 'BR-2001',
    city: 'Berlin',
    country: 'DE',
    network: [],
  },
];

const apiKeys: ApiKeySeed[] = [
  {
    key: 'sandbox-key-brand',
    companyId: BRAND_COMPANY_ID,
    label: 'Nordic Threads integration',
    id: 'apikey_brand',
  },
  {
    key: 'sandbox-key-supplier',
    companyId: SUPPLIER_COMPANY_ID,
    label: 'Anatolia ERP',
    id: 'apikey_supplier',
  },
  {
    key: 'sandbox-key-other-brand',
    companyId: OTHER_BRAND_COMPANY_ID,
    label: 'Other Label',
    id: 'apikey_other',
  },
  { key: 'sandbox-key-unbound', companyId: null, label: 'Key bound to no company', id: 'apikey_unbound' },
];

const users: UserSeed[] = [
  {
    id: 'user_brand_buyer',
    email: 'ines.buyer@nordicthreads.example',
    name: 'Ines Buyer',
    companyId: BRAND_COMPANY_ID,
    bearerToken: 'sandbox-bearer-brand',
  },
  {
    id: 'user_brand_qa',
    email: 'Ola.Quality@nordicthreads.example',
    name: 'Ola Quality',
    companyId: BRAND_COMPANY_ID,
  },
  {
    id: 'user_supplier_sales',
    email: 'deniz.sales@anatolia.example',
    name: 'Deniz Sales',
    companyId: SUPPLIER_COMPANY_ID,
  },
];

export const demoNetwork = { companies, apiKeys, users };
