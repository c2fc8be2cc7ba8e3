import { fail, ok, type Parsed } from './result';

export type DecimalSeparator = '.' | ',';

/** The API's bound: positive and below 1e17. */
const QUANTITY_LIMIT = 1e17;

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
  const grouped = new RegExp(`^\\+?\\d{1,3}(${esc(group)}\\d{3})+(${esc(separator)}\\d+)?$`);
  const plain = new RegExp(`^\\+?\\d+(${esc(separator)}\\d+)?$|^\\+?${esc(separator)}\\d+$`);
  if (!grouped.test(compact) && !plain.test(compact)) return undefined;
  const digits = compact.replace(/^\+/, '').split(group).join('').replace(separator, '.');
  return digits.startsWith('.') ? `0${digits}` : digits;
}

/**
 * Reads a quantity as the server will store it: positive, below 1e17, rounded half-up to 2 decimals.
 * Number cells (xlsx, json) are taken as they are; text follows the profile's decimal separator.
 */
export function parseQuantity(value: string | number, separator: DecimalSeparator): Parsed<number> {
  let decimalText: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return fail(`${value} is not a number`);
    if (value <= 0) return fail(`${value} is not a positive quantity`);
    decimalText = decimalTextOf(value);
  } else {
    const text = value.trim();
    if (/^-/.test(text.replace(/\s/g, ''))) return fail(`'${text}' is not a positive quantity`);
    const normalised = normaliseDecimalText(text, separator);
    if (normalised === undefined) {
      return fail(`'${text}' is not a number with decimal separator '${separator}'`);
    }
    decimalText = normalised;
  }
  const rounded = roundHalfUp2(decimalText);
  if (!(rounded > 0)) return fail(`'${value}' is not a positive quantity once rounded to 2 decimals`);
  if (rounded >= QUANTITY_LIMIT) return fail(`'${value}' is too large: quantities must be below 1e17`);
  return ok(rounded);
}
