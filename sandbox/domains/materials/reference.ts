/** The raw-material catalogue and country list behind `include=rawMaterials` and `include=countriesOfOrigin`. */
export interface RawMaterial {
  id: string;
  name: string;
  description: string | null;
  category: string;
  isRecycled: boolean;
  isSynthetic: boolean;
}

const raw = (
  id: string,
  name: string,
  category: string,
  isRecycled: boolean,
  isSynthetic: boolean,
): RawMaterial => ({
  id,
  name,
  description: `${name} (${category.toLowerCase().replace(/_/g, ' ')})`,
  category,
  isRecycled,
  isSynthetic,
});

export const RAW_MATERIALS: readonly RawMaterial[] = [
  raw('rawmat_cotton', 'Cotton', 'NATURAL_PLANT_BASED', false, false),
  raw('rawmat_cotton_organic', 'Organic cotton', 'NATURAL_PLANT_BASED', false, false),
  raw('rawmat_cotton_recycled', 'Recycled cotton', 'NATURAL_PLANT_BASED', true, false),
  raw('rawmat_linen', 'Linen', 'NATURAL_PLANT_BASED', false, false),
  raw('rawmat_hemp', 'Hemp', 'NATURAL_PLANT_BASED', false, false),
  raw('rawmat_wool', 'Wool', 'NATURAL_ANIMAL_BASED', false, false),
  raw('rawmat_wool_merino', 'Merino wool', 'NATURAL_ANIMAL_BASED', false, false),
  raw('rawmat_wool_recycled', 'Recycled wool', 'NATURAL_ANIMAL_BASED', true, false),
  raw('rawmat_silk', 'Silk', 'NATURAL_ANIMAL_BASED', false, false),
  raw('rawmat_leather', 'Leather', 'NATURAL_ANIMAL_BASED', false, false),
  raw('rawmat_polyester', 'Polyester', 'SYNTHETIC', false, true),
  raw('rawmat_polyester_recycled', 'Recycled polyester', 'SYNTHETIC', true, true),
  raw('rawmat_polyamide', 'Polyamide', 'SYNTHETIC', false, true),
  raw('rawmat_polyamide_recycled', 'Recycled polyamide', 'SYNTHETIC', true, true),
  raw('rawmat_elastane', 'Elastane', 'SYNTHETIC', false, true),
  raw('rawmat_viscose', 'Viscose', 'MAN_MADE_CELLULOSIC', false, false),
  raw('rawmat_lyocell', 'Lyocell', 'MAN_MADE_CELLULOSIC', false, false),
  raw('rawmat_modal', 'Modal', 'MAN_MADE_CELLULOSIC', false, false),
];

export interface Country {
  countryCode: string;
  countryName: string;
  countryNameLocale: string;
  region: string;
  currencyCode: string;
  currencyName: string;
}

const country = (
  countryCode: string,
  countryName: string,
  countryNameLocale: string,
  region: string,
  currencyCode: string,
  currencyName: string,
): Country => ({
  countryCode,
  countryName,
  countryNameLocale,
  region,
  currencyCode,
  currencyName,
});

export const COUNTRIES: readonly Country[] = [
  country('AU', 'Australia', 'Australia', 'Oceania', 'AUD', 'Australian dollar'),
  country('BD', 'Bangladesh', 'বাংলাদেশ', 'Asia', 'BDT', 'Bangladeshi taka'),
  country('CN', 'China', '中国', 'Asia', 'CNY', 'Renminbi'),
  country('DE', 'Germany', 'Deutschland', 'Europe', 'EUR', 'Euro'),
  country('EG', 'Egypt', 'مصر', 'Africa', 'EGP', 'Egyptian pound'),
  country('ES', 'Spain', 'España', 'Europe', 'EUR', 'Euro'),
  country('FR', 'France', 'France', 'Europe', 'EUR', 'Euro'),
  country('GB', 'United Kingdom', 'United Kingdom', 'Europe', 'GBP', 'Pound sterling'),
  country('IN', 'India', 'भारत', 'Asia', 'INR', 'Indian rupee'),
  country('IT', 'Italy', 'Italia', 'Europe', 'EUR', 'Euro'),
  country('NZ', 'New Zealand', 'New Zealand', 'Oceania', 'NZD', 'New Zealand dollar'),
  country('PE', 'Peru', 'Perú', 'Americas', 'PEN', 'Peruvian sol'),
  country('PK', 'Pakistan', 'پاکستان', 'Asia', 'PKR', 'Pakistani rupee'),
  country('PT', 'Portugal', 'Portugal', 'Europe', 'EUR', 'Euro'),
  country('SE', 'Sweden', 'Sverige', 'Europe', 'SEK', 'Swedish krona'),
  country('TR', 'Türkiye', 'Türkiye', 'Asia', 'TRY', 'Turkish lira'),
  country('US', 'United States', 'United States', 'Americas', 'USD', 'United States dollar'),
  country('UZ', 'Uzbekistan', 'Oʻzbekiston', 'Asia', 'UZS', 'Uzbekistani som'),
  country('VN', 'Vietnam', 'Việt Nam', 'Asia', 'VND', 'Vietnamese dong'),
];

const RAW_BY_ID = new Map(RAW_MATERIALS.map((entry) => [entry.id, entry]));
const COUNTRY_BY_CODE = new Map(COUNTRIES.map((entry) => [entry.countryCode, entry]));

export const rawMaterial = (id: string): RawMaterial | undefined => RAW_BY_ID.get(id);
export const countryByCode = (code: string): Country | undefined => COUNTRY_BY_CODE.get(code.toUpperCase());
