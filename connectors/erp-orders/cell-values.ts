/** Cell rules of an ERP export: text, lists, enums, dates, quantities and units, each read into a value or a reason. */

import { characterCount } from '../characters';
import { quoteInput } from '../input-limits';
import { readLocaleNumber } from '../number-text';
import { UNIT_VALUES, type Unit } from '../traceability/schemas/common';
import { orderStatusSchema } from '../traceability/schemas/orders';
import { closeMatches, didYouMean, matcherOf } from '../traceability/name-matching';
import type { CellValue } from './read/types';

/** The outcome of reading one cell: a value, or the reason it cannot be used (said to a person fixing the file). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = <T = never>(reason: string): Parsed<T> => ({ ok: false, reason });

/** A cell as text: numbers without exponent noise, booleans as words, lists comma-joined. */
export function cellText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(',');
  return String(value).trim();
}

/** A cell as text of at most `maxLength` characters (code points, as the API counts them). */
export function parseText(value: CellValue, maxLength: number): Parsed<string> {
  const text = cellText(value);
  const length = text.length > maxLength ? characterCount(text) : 0;
  if (length > maxLength) return fail(`is ${length} characters long; at most ${maxLength} are allowed`);
  return ok(text);
}

/**
 * Splits a list cell (tags, responsible persons) the way the server will store it: every separator given splits,
 * entries are trimmed, empty ones dropped. JSON arrays are taken entry by entry and split too, since the server
 * would turn a tag holding a comma into two tags.
 */
export function splitList(value: CellValue, separators: readonly string[]): string[] {
  const parts = Array.isArray(value) ? value : [cellText(value)];
  let entries: string[] = parts.map(String);
  for (const separator of separators) entries = entries.flatMap((entry) => entry.split(separator));
  return entries.map((entry) => entry.trim()).filter((entry) => entry.length > 0);
}

/** An enum cell, forgiving case and spaces/hyphens (`In progress` → `IN_PROGRESS`). */
export function parseEnum<T extends string>(value: CellValue, allowed: readonly T[]): Parsed<T> {
  const text = cellText(value);
  const canonical = text.toUpperCase().replace(/[\s-]+/g, '_');
  const match = allowed.find((candidate) => candidate === canonical);
  if (match !== undefined) return ok(match);
  return fail(`'${text}' is not one of ${allowed.join(', ')}${didYouMean(closeMatches(text, allowed))}`);
}

/** How day-first and month-first exports write dates; ISO `YYYY-MM-DD` is read whatever the format. */
export type DateFormat = 'iso' | 'dmy' | 'mdy';

// Excel's day 1 is 1900-01-01, but it counts a 1900-02-29 that never was (serial 60); serial 61 is 1900-03-01.
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;
const MAX_EXCEL_SERIAL = 2_958_465; // 9999-12-31

function calendarDate(year: number, month: number, day: number): Parsed<string> {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (
    year < 1000 ||
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  ) {
    return fail(
      `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} is not a real calendar date`,
    );
  }
  return ok(
    `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
  );
}

export function fromExcelSerial(serial: number): Parsed<string> {
  if (!Number.isFinite(serial) || serial < 1 || serial > MAX_EXCEL_SERIAL) {
    return fail(`${serial} is not an Excel date serial number (1 to ${MAX_EXCEL_SERIAL})`);
  }
  const whole = Math.floor(serial);
  if (whole === 60) return fail('Excel serial 60 is 1900-02-29, a day that does not exist');
  const days = whole < 60 ? whole + 1 : whole;
  const date = new Date(EXCEL_EPOCH_MS + days * DAY_MS);
  return ok(date.toISOString().slice(0, 10));
}

const ISO_DATE = /^(\d{4})[-/.](\d{2})[-/.](\d{2})$/;
/** A time of day as exports write it: `09:55`, `09:55:16`, `09:55:16.123`, `9:55 AM`. */
const TIME = String.raw`\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?[AaPp][Mm])?`;
/** A zone: `Z`, `+02:00`, `+0200`, `+02`, ` -0400` (Shopify), ` UTC`, ` GMT`. */
const ZONE = String.raw`(?:\s?(?:Z|[+-]\d{2}(?::?\d{2})?)|\s(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?)?`;
// A date-time keeps the calendar date it was written with: converting the offset to UTC could move the day.
const ISO_DATE_TIME = new RegExp(String.raw`^(\d{4})-(\d{2})-(\d{2})(?:T|\s+)${TIME}${ZONE}$`);
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/;
const COMPACT_DATE_TIME = /^(\d{4})(\d{2})(\d{2})[T ]?\d{6}$/;
/** Digits only (a fraction aside): no date form, whatever a spreadsheet would make of it as a serial. */
const DIGITS_TEXT = /^\d+(\.\d+)?$/;
/** How SAP writes a date it has not got: zeros. */
const SAP_EMPTY_DATE = /^(?:0{8}|00[./-]00[./-]0000|0000-00-00)$/;

/** A date cell SAP left empty (`00000000`, `00.00.0000`): read as blank, never as a date nor an error. */
export function isEmptyDateText(value: CellValue | undefined): boolean {
  return typeof value === 'string' && SAP_EMPTY_DATE.test(value.trim());
}

/** A number cell holding `YYYYMMDD` (20261231): far past the last Excel serial, so it is no serial. */
export function isCompactDateNumber(value: number): boolean {
  return Number.isInteger(value) && value >= 10_000_000 && value <= 99_999_999;
}
const SEPARATED_DATE = new RegExp(
  String.raw`^(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})(?:,?\s+${TIME}${ZONE})?$`,
);

/** What a date cell may hold, for the message of a refused one. */
export function acceptedDateForms(format: DateFormat): string {
  const separated =
    format === 'dmy'
      ? 'DD/MM/YYYY (also with . or -)'
      : format === 'mdy'
        ? 'MM/DD/YYYY (also with . or -)'
        : undefined;
  return [
    'YYYY-MM-DD',
    'a date-time such as 2025-05-11T09:55:16Z, 2025-05-11 09:55:16 -0400 or 2025-05-11T09:55+02:00 (the written date is kept)',
    'YYYYMMDD',
    'an Excel date serial (a number cell of a workbook; text of digits only is no date)',
    ...(separated ? [`${separated}, with or without a time`] : []),
  ].join(', ');
}

/**
 * Normalises a date cell to `YYYY-MM-DD`. Accepted whatever the profile's format: Excel serial numbers (number
 * cells; an 8-digit number cell is `YYYYMMDD`), ISO dates and date-times with `T` or a space, with or without seconds and with `Z`,
 * `+hh:mm`, `+hhmm` or ` -hhmm` offsets (the written date is kept), compact `YYYYMMDD` (SAP). With `dmy`/`mdy`,
 * also `D/M/YYYY` / `M/D/YYYY` with `/`, `.` or `-` separators, with or without a time (Excel). Two-digit years are
 * refused (which century?), and so is other text of digits only (`261231` YYMMDD, `2026`): as an Excel serial it
 * would be a date no one meant (2615-03-23, 1905-07-18).
 */
export function parseDate(value: string | number, format: DateFormat): Parsed<string> {
  const refused = (reason: string): Parsed<string> =>
    fail(`${reason}; accepted: ${acceptedDateForms(format)} (the profile's dateFormat is '${format}')`);
  if (typeof value === 'number') {
    if (!isCompactDateNumber(value)) return fromExcelSerial(value);
    const compact = COMPACT_DATE.exec(String(value));
    const parsed = compact && calendarDate(Number(compact[1]), Number(compact[2]), Number(compact[3]));
    return parsed?.ok ? parsed : refused(`${value} is not a real date when read as YYYYMMDD`);
  }
  const text = value.trim();
  const iso = ISO_DATE.exec(text) ?? ISO_DATE_TIME.exec(text) ?? COMPACT_DATE_TIME.exec(text);
  if (iso) return calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const compact = COMPACT_DATE.exec(text);
  if (compact) {
    const parsed = calendarDate(Number(compact[1]), Number(compact[2]), Number(compact[3]));
    return parsed.ok ? parsed : refused(`'${text}' is not a real date when read as YYYYMMDD`);
  }
  if (DIGITS_TEXT.test(text)) {
    return refused(
      `'${quoteInput(text, 40)}' is digits only, which says no date: YYMMDD, a year or an Excel serial number read ` +
        'as a date would each give another day; write the date as YYYY-MM-DD or YYYYMMDD',
    );
  }
  const separated = SEPARATED_DATE.exec(text);
  if (separated) {
    if (format === 'iso') {
      return refused(
        `'${text}' is day-first or month-first, which the profile's dateFormat 'iso' does not read (set it to dmy or mdy)`,
      );
    }
    const [first, second, year] = [Number(separated[1]), Number(separated[2]), separated[3] ?? ''];
    if (year.length !== 4)
      return refused(`'${text}' has a ${year.length}-digit year; write the year with 4 digits`);
    const [day, month] = format === 'dmy' ? [first, second] : [second, first];
    const parsed = calendarDate(Number(year), month, day);
    return parsed.ok
      ? parsed
      : refused(
          `'${text}' is not a real date when read as ${format === 'dmy' ? 'day/month/year' : 'month/day/year'}`,
        );
  }
  return refused(`'${text}' is not a date`);
}

export type DecimalSeparator = '.' | ',';

/** The API's bound: positive and below 1e17. */
export const QUANTITY_LIMIT = 1e17;

/**
 * Half-up rounding to 2 decimals on the decimal text (so 1.005 gives 1.01, which `Math.round(x * 100) / 100`
 * gets wrong), the way the server stores quantities.
 */
export function roundHalfUp2(decimalText: string): number {
  if (!/^\d+(\.\d+)?$/.test(decimalText)) return Math.round(Number(decimalText) * 100) / 100;
  const [whole = '0', fraction = ''] = decimalText.split('.');
  if (fraction.length <= 2) return Number(decimalText);
  const cents = BigInt(whole + fraction.slice(0, 2)) + ((fraction[2] ?? '0') >= '5' ? 1n : 0n);
  return Number(cents) / 100;
}

/** Plain decimal text of a finite non-negative number, without exponent. */
function decimalTextOf(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

/** `1,234.50` / `1234.5` (separator `.`) or `1.234,50` / `1234,5` (separator `,`): the text as `1234.50`. */
function normaliseDecimalText(text: string, separator: DecimalSeparator): string | undefined {
  const compact = text.replace(/[\s\u00a0\u202f']/g, '');
  const group = separator === '.' ? ',' : '.';
  const esc = (char: string): string => `\\${char}`;
  // A thousands group never follows a lone 0 (nor a leading zero): "0,250" is a decimal in the other convention.
  const grouped = new RegExp(`^\\+?[1-9]\\d{0,2}(${esc(group)}\\d{3})+(${esc(separator)}\\d+)?$`);
  const plain = new RegExp(`^\\+?\\d+(${esc(separator)}\\d+)?$|^\\+?${esc(separator)}\\d+$`);
  if (!grouped.test(compact) && !plain.test(compact)) return undefined;
  const digits = compact.replace(/^\+/, '').split(group).join('').replace(separator, '.');
  return digits.startsWith('.') ? `0${digits}` : digits;
}

/**
 * Reads a quantity as the server will store it: positive, below 1e17, rounded half-up to 2 decimals.
 * Number cells (xlsx, json) are taken as they are; text follows the decimal separator (the profile's, else the one
 * the csv's delimiter implies). With none (`null`: tab-delimited csv, xlsx or json text) a number that reads two ways
 * (`1,250`: 1250 or 1.25) is refused naming both readings (`readLocaleNumber`).
 */
export function parseQuantity(value: string | number, separator: DecimalSeparator | null): Parsed<number> {
  let decimalText: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail(`${value} is not a number`);
    if (value <= 0) return fail(`${value} is not a positive quantity`);
    decimalText = decimalTextOf(value);
  } else if (separator === null) {
    const text = value.trim();
    if (/^-/.test(text.replace(/\s/g, ''))) return fail(`'${quoteInput(text)}' is not a positive quantity`);
    const read = readLocaleNumber(text, null);
    if (!read.ok) {
      return fail(
        read.reason === 'is not a number'
          ? `'${quoteInput(text)}' is not a number`
          : `'${quoteInput(text)}' ${read.reason}; or set the profile's decimalSeparator`,
      );
    }
    if (read.value <= 0) return fail(`'${quoteInput(text)}' is not a positive quantity`);
    decimalText = decimalTextOf(read.value);
  } else {
    const text = value.trim();
    if (/^-/.test(text.replace(/\s/g, ''))) return fail(`'${quoteInput(text)}' is not a positive quantity`);
    const normalised = normaliseDecimalText(text, separator);
    if (normalised === undefined) {
      const other = separator === '.' ? ',' : '.';
      const hint =
        normaliseDecimalText(text, other) === undefined
          ? ''
          : `; it reads as a number with '${other}' as the decimal mark: if the export writes decimals that way, set the profile's decimalSeparator to '${other}'`;
      return fail(`'${quoteInput(text)}' is not a number with decimal separator '${separator}'${hint}`);
    }
    decimalText = normalised;
  }
  const rounded = roundHalfUp2(decimalText);
  const shown = typeof value === 'number' ? String(value) : quoteInput(value.trim());
  if (!(rounded > 0)) return fail(`'${shown}' is not a positive quantity once rounded to 2 decimals`);
  if (rounded >= QUANTITY_LIMIT) return fail(`'${shown}' is too large: quantities must be below 1e17`);
  return ok(rounded);
}

/** A cell holding zero however written (`0`, `0,000`, `0.00`): SAP's way of writing a quantity it has not got. */
export function isZeroQuantity(value: CellValue): boolean {
  if (typeof value === 'number') return value === 0;
  return typeof value === 'string' && /^\+?0+(?:[.,]0*)?$/.test(value.replace(/[\s\u00a0\u202f]/g, ''));
}

export { UNIT_VALUES, type Unit };
const UNITS: ReadonlySet<string> = new Set(UNIT_VALUES);

export function isUnit(value: string): value is Unit {
  return UNITS.has(value);
}

/**
 * Common ERP spellings and the UN/ECE Recommendation 20 codes, always understood; a profile's own aliases take
 * precedence. Keys are lower case.
 */
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
  // UN/ECE Recommendation 20 codes, as SAP (ISO unit) and EDI exports write them.
  pce: 'PIECES',
  c62: 'PIECES',
  h87: 'PIECES',
  nar: 'PIECES',
  kgm: 'KILOGRAM',
  grm: 'GRAM',
  mgm: 'MILLIGRAM',
  tne: 'METRIC_TON',
  lbr: 'POUNDS',
  onz: 'OUNCE',
  cmt: 'CENTIMETRE',
  mmt: 'MILLIMETRE',
  yrd: 'YARD',
  fot: 'FOOT',
  inh: 'INCH',
  mtk: 'SQUARE_METRE',
  mtq: 'CUBIC_METRE',
  mlt: 'MILLILITRE',
  p1: 'PERCENTAGE',
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
  // An abbreviation may end in a period (`Stk.`, `pcs.`).
  // Own keys only: the plain object's inherited names (`constructor`, `__proto__`) are no units.
  const alias = (key: string): Unit | undefined =>
    Object.hasOwn(BUILT_IN_UNIT_ALIASES, key) ? BUILT_IN_UNIT_ALIASES[key] : undefined;
  const builtIn = alias(lower) ?? alias(lower.replace(/\.$/, ''));
  if (builtIn) return ok(builtIn);
  const canonical = text.toUpperCase().replace(/[\s-]+/g, '_');
  if (isUnit(canonical)) return ok(canonical);
  const suggestions = matcherOf(aliases, () => [...UNIT_VALUES, ...Object.keys(aliases)]).closeMatches(text);
  return fail(
    `'${text}' is not a unit of the API's unit enumeration${didYouMean(suggestions)}; name the export's own units in the profile's unitAliases, e.g. {"stuks": "PIECES"}`,
  );
}

type OrderStatus = (typeof orderStatusSchema.options)[number];

/**
 * An order status cell as spec 03's enumeration (`IN_PROGRESS`, `IN_REVIEW`, `COMPLETED`): the profile's
 * `statusAliases` first (the ERP's own words, case-insensitive: `{"Open": "IN_PROGRESS"}`), then the enumeration
 * with case and spaces/hyphens forgiven (`Completed`, `in progress`).
 */
export function parseStatus(
  value: CellValue,
  aliases: Readonly<Record<string, OrderStatus>>,
): Parsed<OrderStatus> {
  const text = cellText(value);
  const lower = text.toLowerCase();
  const profileAlias = Object.entries(aliases).find(([alias]) => alias.trim().toLowerCase() === lower);
  if (profileAlias) return ok(profileAlias[1]);
  const allowed = orderStatusSchema.options;
  const canonical = text.toUpperCase().replace(/[\s-]+/g, '_');
  const match = allowed.find((candidate) => candidate === canonical);
  if (match !== undefined) return ok(match);
  const words = Object.keys(aliases);
  const taken =
    words.length > 0
      ? `${allowed.join(', ')}, or a word of the profile's statusAliases (${words.join(', ')})`
      : `${allowed.join(', ')}; name the export's own words in the profile's statusAliases, e.g. {"Open": "IN_PROGRESS"}`;
  return fail(
    `'${quoteInput(text, 60)}' is not an order status: ${taken}${didYouMean(closeMatches(text, [...allowed, ...words]))}`,
  );
}
