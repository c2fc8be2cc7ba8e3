/**
 * `UnitEnum` of document 1: shared by order lines, BOM lines and weights. The client keeps its own copy
 * (connectors/traceability/schemas/common.ts) on purpose: the sandbox is the oracle the client is tested against.
 */
export const UNIT_ENUM = [
  'ACRE', 'ACRE_FOOT', 'BUSHEL', 'CENTILITRE', 'CENTIMETRE', 'CORD', 'CUBIC_DECIMETRE', 'CUBIC_FOOT', 'CUBIC_INCH',
  'CUBIC_METRE', 'CUBIC_YARD', 'DECIMETRE', 'DENIER', 'DRAM', 'ENGLISH_COUNT', 'FATHOM', 'FLUID_DRAM', 'FLUID_OUNCE',
  'FOOT', 'FURLONG', 'GALLON', 'GILL', 'GRAIN', 'GRAM', 'GRAM_PER_SQUARE_FOOT', 'GRAM_PER_SQUARE_METER',
  'GRAM_PER_SQUARE_YARD', 'HUNDREDWEIGHT', 'INCH', 'JUTE', 'KILOGRAM', 'KILOWATT_HOUR', 'LITRE', 'LONG_HUNDREDWEIGHT',
  'LONG_TON', 'METRE', 'METRIC_COUNT', 'METRIC_TON', 'MILE', 'MILLIGRAM', 'MILLILITRE', 'MILLIMETRE', 'MINIM', 'MOUND',
  'NAUTICAL_MILE', 'OUNCE', 'OUNCE_PER_SQUARE_YARD', 'PAIR', 'PECK', 'PENNYWEIGHT', 'PERCENTAGE', 'PIECES', 'PINT',
  'POUNDS', 'QUART', 'ROD', 'SCRUPLE', 'SHORT_HUNDREDWEIGHT', 'SHORT_TON', 'SQUARE_CENTIMETRE', 'SQUARE_DECIMETRE',
  'SQUARE_FEET', 'SQUARE_INCH', 'SQUARE_METRE', 'SQUARE_MILE', 'SQUARE_ROD', 'SQUARE_YARD', 'STONE', 'TEX',
  'WORSTED_COUNT', 'YARD',
] as const;
export type Unit = (typeof UNIT_ENUM)[number];

const UNIT_SET: ReadonlySet<string> = new Set(UNIT_ENUM);
export const isUnit = (value: string): value is Unit => UNIT_SET.has(value);

/**
 * The platform-wide quantity units, used for BOM lines whose component's style type configures none.
 * The spec does not list them; the sandbox takes every count, length, area and volume unit of `UnitEnum`.
 */
export const PLATFORM_QUANTITY_UNITS: readonly Unit[] = [
  'PIECES', 'PAIR', 'PERCENTAGE',
  'MILLIMETRE', 'CENTIMETRE', 'DECIMETRE', 'METRE', 'INCH', 'FOOT', 'YARD',
  'SQUARE_CENTIMETRE', 'SQUARE_DECIMETRE', 'SQUARE_METRE', 'SQUARE_INCH', 'SQUARE_FEET', 'SQUARE_YARD',
  'MILLILITRE', 'CENTILITRE', 'LITRE', 'CUBIC_DECIMETRE', 'CUBIC_METRE', 'CUBIC_INCH', 'CUBIC_FOOT', 'CUBIC_YARD',
];

/** The platform-wide weight units (mass units of `UnitEnum`), same use as the quantity list. */
export const PLATFORM_WEIGHT_UNITS: readonly Unit[] = [
  'MILLIGRAM', 'GRAM', 'KILOGRAM', 'METRIC_TON', 'OUNCE', 'POUNDS', 'STONE', 'GRAIN', 'DRAM',
  'SHORT_TON', 'LONG_TON', 'HUNDREDWEIGHT', 'SHORT_HUNDREDWEIGHT', 'LONG_HUNDREDWEIGHT', 'PENNYWEIGHT', 'SCRUPLE',
];
