/**
 * Numbers written as text by exports in any locale, shared by the PLM import and the ERP order push: which mark is
 * the decimal one is decided by the file's dialect where it tells (see `decimalMarkOfDelimiter`), never guessed.
 */

/** A cell as a reader gives it. */
export type NumberCell = string | number | boolean | null;

/** The decimal mark a file's dialect implies: Excel writes `;`-delimited csv where the comma is the decimal mark. */
export type DecimalMark = ',' | '.';

export type NumberRead = { ok: true; value: number } | { ok: false; reason: string };

/**
 * A number from a cell, accepting thousands separators as exports write them: "1,234.5", "1.234,5",
 * "1 234,5", "1'234.5", "1.234.567". With one separator once ("1,250", "1.250"), `decimalMark` (from the file's
 * dialect) says which it is; "0,250" and a mark followed by other than three digits are decimals whatever the hint.
 * Without a hint, "1,250" could be 1250 or 1.25: that is refused naming both readings, never guessed.
 */
export function readLocaleNumber(value: NumberCell, decimalMark: DecimalMark | null = null): NumberRead {
  const notANumber = { ok: false, reason: 'is not a number' } as const;
  if (typeof value === 'number') return Number.isFinite(value) ? { ok: true, value } : notANumber;
  if (typeof value !== 'string') return notANumber;
  const text = value.trim().replace(/[\s\u00a0\u202f']/g, '');
  if (!/^[+-]?[\d.,]+$/.test(text) || !/\d/.test(text)) return notANumber;
  const sign = /^[+-]/.test(text) ? text[0] : '';
  const body = sign === '' ? text : text.slice(1);
  const read = (digits: string): NumberRead => {
    if (!/^(\d+\.?\d*|\.\d+)$/.test(digits)) return notANumber;
    const parsed = Number(sign + digits);
    return Number.isFinite(parsed) ? { ok: true, value: parsed } : notANumber;
  };
  const commas = body.split(',').length - 1;
  const dots = body.split('.').length - 1;
  if (commas === 0 && dots === 0) return read(body);
  const groupedBy = (mark: string, rest: string): boolean =>
    new RegExp(`^\\d{1,3}(\\${mark}\\d{3})+$`).test(rest);
  if (commas > 0 && dots > 0) {
    // Both marks: the last one is the decimal mark, the other groups thousands.
    const decimal = body.lastIndexOf(',') > body.lastIndexOf('.') ? ',' : '.';
    const group = decimal === ',' ? '.' : ',';
    const [whole = '', fraction = '', ...extra] = body.split(decimal);
    if (extra.length > 0 || !groupedBy(group, whole)) return notANumber;
    return read(`${whole.split(group).join('')}.${fraction}`);
  }
  const mark = commas > 0 ? ',' : '.';
  if (commas + dots > 1) return groupedBy(mark, body) ? read(body.split(mark).join('')) : notANumber;
  const [whole = '', fraction = ''] = body.split(mark);
  const asDecimal = read(`${whole}.${fraction}`);
  // Only 1-3 digits (not a lone 0), the mark, then exactly 3 digits can be a thousands group.
  if (!/^[1-9]\d{0,2}$/.test(whole) || !/^\d{3}$/.test(fraction)) return asDecimal;
  const asGrouped = read(whole + fraction);
  if (decimalMark === mark) return asDecimal;
  if (decimalMark !== null) return asGrouped;
  if (!asDecimal.ok || !asGrouped.ok) return notANumber;
  return {
    ok: false,
    reason:
      `could be ${String(asGrouped.value)} ('${mark}' grouping thousands) or ${String(asDecimal.value)} ('${mark}' as the decimal mark): ` +
      `write it without a thousands separator (${String(asGrouped.value)} or ${String(asDecimal.value)}), or export the csv with ';' between columns for a decimal comma`,
  };
}

/**
 * The decimal mark a csv's delimiter implies: Excel saves csv with ';' where the comma is the decimal mark (German,
 * French, ... locales), and with ',' where the point is. A tab-delimited file or an xlsx text cell gives no hint.
 */
export function decimalMarkOfDelimiter(delimiter: string | null | undefined): DecimalMark | null {
  return delimiter === ';' ? ',' : delimiter === ',' ? '.' : null;
}
