import { z } from 'zod';

/** The spec's unit enumeration; the sandbox keeps its own copy on purpose (it is the oracle, sharing no code). */
export const UNIT_VALUES = [
  'ACRE',
  'ACRE_FOOT',
  'BUSHEL',
  'CENTILITRE',
  'CENTIMETRE',
  'CORD',
  'CUBIC_DECIMETRE',
  'CUBIC_FOOT',
  'CUBIC_INCH',
  'CUBIC_METRE',
  'CUBIC_YARD',
  'DECIMETRE',
  'DENIER',
  'DRAM',
  'ENGLISH_COUNT',
  'FATHOM',
  'FLUID_DRAM',
  'FLUID_OUNCE',
  'FOOT',
  'FURLONG',
  'GALLON',
  'GILL',
  'GRAIN',
  'GRAM',
  'GRAM_PER_SQUARE_FOOT',
  'GRAM_PER_SQUARE_METER',
  'GRAM_PER_SQUARE_YARD',
  'HUNDREDWEIGHT',
  'INCH',
  'JUTE',
  'KILOGRAM',
  'KILOWATT_HOUR',
  'LITRE',
  'LONG_HUNDREDWEIGHT',
  'LONG_TON',
  'METRE',
  'METRIC_COUNT',
  'METRIC_TON',
  'MILE',
  'MILLIGRAM',
  'MILLILITRE',
  'MILLIMETRE',
  'MINIM',
  'MOUND',
  'NAUTICAL_MILE',
  'OUNCE',
  'OUNCE_PER_SQUARE_YARD',
  'PAIR',
  'PECK',
  'PENNYWEIGHT',
  'PERCENTAGE',
  'PIECES',
  'PINT',
  'POUNDS',
  'QUART',
  'ROD',
  'SCRUPLE',
  'SHORT_HUNDREDWEIGHT',
  'SHORT_TON',
  'SQUARE_CENTIMETRE',
  'SQUARE_DECIMETRE',
  'SQUARE_FEET',
  'SQUARE_INCH',
  'SQUARE_METRE',
  'SQUARE_MILE',
  'SQUARE_ROD',
  'SQUARE_YARD',
  'STONE',
  'TEX',
  'WORSTED_COUNT',
  'YARD',
] as const;
/** Request side: only the documented units are sent. */
export const unitSchema = z.enum(UNIT_VALUES);
export type Unit = z.infer<typeof unitSchema>;

/** Optional-and-nullable field of a response: tolerant of absent keys. */
export const nullishString = z.string().nullish();
export const nullishNumber = z.number().nullish();
export const nullishStringArray = z.array(z.string()).nullish();
/** Booleans the spec types as "boolean or number". */
export const boolish = z.union([z.boolean(), z.number()]);

/** Business date, `YYYY-MM-DD` only (a date-time is a 400 on the API). */
export const calendarDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a calendar date YYYY-MM-DD (a date-time is rejected by the API)');

export const sortOrderSchema = z.enum(['asc', 'desc']);

/** Common paging query; `limit` is capped at 100 by the API. */
export const pageQuerySchema = z.object({
  page: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(100).optional(),
});

/** Results of the bulk delete endpoints: shapes of the items are not shown in the spec. */
export const bulkDeleteResultSchema = z.looseObject({ errors: z.unknown().optional() });
export type BulkDeleteResult = z.infer<typeof bulkDeleteResultSchema>;
/**
 * A bulk delete's answer, and whether it came on a retry after an earlier attempt may have committed (the client
 * always sets it; absent reads as false): the ids that attempt deleted are then reported not found in `errors`, and
 * count as deleted.
 */
export type BulkDeleteAnswer = BulkDeleteResult & { earlierAttemptMayHaveCommitted?: boolean };

export const idListSchema = z.array(z.string().min(1)).min(1).max(100);
