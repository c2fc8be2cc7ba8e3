import { UNIT_VALUES, type Unit } from '../../traceability/schemas/common';
import { closeMatches, didYouMean } from '../../traceability/name-matching';
import { fail, ok, type Parsed } from './result';

export { UNIT_VALUES, type Unit };
const UNITS: ReadonlySet<string> = new Set(UNIT_VALUES);

export function isUnit(value: string): value is Unit {
  return UNITS.has(value);
}

/** Common ERP spellings, always understood; a profile's own aliases take precedence. Keys are lower case. */
export const BUILT_IN_UNIT_ALIASES: Readonly<Record<string, Unit>> = {
  pc: 'PIECES',
  pcs: 'PIECES',
  piece: 'PIECES',
  st: 'PIECES',
  stk: 'PIECES',
  ea: 'PIECES',
  each: 'PIECES',
  units: 'PIECES',
  pr: 'PAIR',
  prs: 'PAIR',
  pairs: 'PAIR',
  kg: 'KILOGRAM',
  kgs: 'KILOGRAM',
  kilo: 'KILOGRAM',
  kilos: 'KILOGRAM',
  kilograms: 'KILOGRAM',
  g: 'GRAM',
  gr: 'GRAM',
  grams: 'GRAM',
  mg: 'MILLIGRAM',
  t: 'METRIC_TON',
  tonne: 'METRIC_TON',
  tonnes: 'METRIC_TON',
  lb: 'POUNDS',
  lbs: 'POUNDS',
  oz: 'OUNCE',
  m: 'METRE',
  mtr: 'METRE',
  mtrs: 'METRE',
  meter: 'METRE',
  meters: 'METRE',
  metres: 'METRE',
  cm: 'CENTIMETRE',
  mm: 'MILLIMETRE',
  yd: 'YARD',
  yds: 'YARD',
  yards: 'YARD',
  ft: 'FOOT',
  in: 'INCH',
  m2: 'SQUARE_METRE',
  sqm: 'SQUARE_METRE',
  'm²': 'SQUARE_METRE',
  m3: 'CUBIC_METRE',
  'm³': 'CUBIC_METRE',
  l: 'LITRE',
  ltr: 'LITRE',
  liter: 'LITRE',
  liters: 'LITRE',
  litres: 'LITRE',
  ml: 'MILLILITRE',
  '%': 'PERCENTAGE',
  pct: 'PERCENTAGE',
  kwh: 'KILOWATT_HOUR',
  gsm: 'GRAM_PER_SQUARE_METER',
};

/**
 * A unit cell as a `UnitEnum` value: the profile's aliases first, then the built-in ones (case-insensitive),
 * then the enumeration itself with case and spaces/hyphens forgiven (`square metre` → `SQUARE_METRE`).
 */
export function parseUnit(raw: string, aliases: Readonly<Record<string, Unit>>): Parsed<Unit> {
  const text = raw.trim();
  const lower = text.toLowerCase();
  const profileAlias = Object.entries(aliases).find(([alias]) => alias.trim().toLowerCase() === lower);
  if (profileAlias) return ok(profileAlias[1]);
  const builtIn = BUILT_IN_UNIT_ALIASES[lower];
  if (builtIn) return ok(builtIn);
  const canonical = text.toUpperCase().replace(/[\s-]+/g, '_');
  if (isUnit(canonical)) return ok(canonical);
  const suggestions = closeMatches(text, [...UNIT_VALUES, ...Object.keys(aliases)]);
  return fail(`'${text}' is not a unit of the API's unit enumeration${didYouMean(suggestions)}`);
}
