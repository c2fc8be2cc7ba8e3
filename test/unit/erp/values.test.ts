import { closeMatches, levenshtein } from '../../../connectors/traceability/name-matching';
import {
  fromExcelSerial,
  parseDate,
  parseEnum,
  parseQuantity,
  isCompactDateNumber,
  isEmptyDateText,
  isZeroQuantity,
  parseStatus,
  parseText,
  parseUnit,
  roundHalfUp2,
  splitList,
  UNIT_VALUES,
} from '../../../connectors/erp-orders/cell-values';
import { buildOrders } from '../../../connectors/erp-orders/orders/build';
import { DEFAULT_PROFILE } from '../../../connectors/erp-orders/profile';
import { CONTEXT, lineRow, tableOf } from './support';

const value = <T>(parsed: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
};
const reason = (parsed: { ok: boolean; reason?: string }): string =>
  parsed.ok ? 'accepted' : (parsed.reason ?? '');

describe('dates', () => {
  it.each([
    ['2024-03-05', 'iso', '2024-03-05'],
    ['2024-03-05T23:30:00+02:00', 'iso', '2024-03-05'],
    ['2024-03-05T00:15:00Z', 'dmy', '2024-03-05'],
    ['2024-03-05 08:00', 'mdy', '2024-03-05'],
    ['20240305', 'iso', '2024-03-05'],
    ['05/03/2024', 'dmy', '2024-03-05'],
    ['5.3.2024', 'dmy', '2024-03-05'],
    ['05-03-2024', 'dmy', '2024-03-05'],
    ['03/05/2024', 'mdy', '2024-03-05'],
  ] as const)('%s read as %s is %s', (text, format, expected) => {
    expect(value(parseDate(text, format))).toBe(expected);
  });

  it('reads Excel serial numbers, including across the 1900 leap-year bug', () => {
    expect(value(parseDate(45356, 'iso'))).toBe('2024-03-05');
    expect(value(parseDate(45356.75, 'dmy'))).toBe('2024-03-05');
    expect(value(fromExcelSerial(1))).toBe('1900-01-01');
    expect(value(fromExcelSerial(59))).toBe('1900-02-28');
    expect(value(fromExcelSerial(61))).toBe('1900-03-01');
    expect(reason(fromExcelSerial(60))).toMatch(/does not exist/);
  });

  // README: "Two-digit years are refused"; text of digits only is no date form (only SAP's YYYYMMDD is), while a
  // workbook's number cell is a serial, or YYYYMMDD when it has eight digits.
  it('refuses digits-only text other than YYYYMMDD; reads an 8-digit number cell as YYYYMMDD; SAP zeros are blank', () => {
    for (const text of ['261231', '2026', '45356', '45356.5', '311226'])
      expect(reason(parseDate(text, 'dmy'))).toMatch(new RegExp(`'${text}' is digits only`));
    expect(reason(parseDate('20261331', 'iso'))).toMatch(
      /'20261331' is not a real date when read as YYYYMMDD/,
    );
    expect(value(parseDate(20261231, 'iso'))).toBe('2026-12-31');
    expect(reason(parseDate(20261331, 'iso'))).toMatch(/20261331 is not a real date when read as YYYYMMDD/);
    expect(value(parseDate(2026, 'iso'))).toBe('1905-07-18');
    expect(isEmptyDateText('00000000')).toBe(true);
    expect(isEmptyDateText(' 00.00.0000 ')).toBe(true);
    expect(isEmptyDateText('0')).toBe(false);
    expect(isCompactDateNumber(20261231)).toBe(true);
    expect(isCompactDateNumber(2958465)).toBe(false);
  });

  it('refuses impossible, ambiguous and unknown dates with a reason', () => {
    expect(reason(parseDate('2024-02-30', 'iso'))).toMatch(/not a real calendar date/);
    expect(reason(parseDate('31/04/2024', 'dmy'))).toMatch(/not a real date when read as day\/month\/year/);
    expect(reason(parseDate('13/25/2024', 'mdy'))).toMatch(/month\/day\/year/);
    expect(reason(parseDate('05/03/2024', 'iso'))).toMatch(/set it to dmy or mdy/);
    expect(reason(parseDate('05/03/24', 'dmy'))).toMatch(/2-digit year/);
    expect(reason(parseDate('next tuesday', 'dmy'))).toMatch(/'next tuesday' is not a date/);
    expect(reason(parseDate(-3, 'iso'))).toMatch(/not an Excel date serial/);
  });
});

describe('quantities', () => {
  it('rounds half-up to 2 decimals on the decimal text, as the server does', () => {
    expect(roundHalfUp2('1.005')).toBe(1.01);
    expect(roundHalfUp2('2.344')).toBe(2.34);
    expect(roundHalfUp2('2.345')).toBe(2.35);
    expect(value(parseQuantity(1.005, '.'))).toBe(1.01);
    expect(value(parseQuantity('1.005', '.'))).toBe(1.01);
  });

  it('follows the decimal separator, with thousands groups', () => {
    expect(value(parseQuantity('1,234.5', '.'))).toBe(1234.5);
    expect(value(parseQuantity('1.234,56', ','))).toBe(1234.56);
    expect(value(parseQuantity('12,5', ','))).toBe(12.5);
    expect(value(parseQuantity(' 1 000 ', '.'))).toBe(1000);
    expect(reason(parseQuantity('12,5', '.'))).toMatch(/decimal separator '\.'/);
    expect(reason(parseQuantity('1.5', ','))).toMatch(/decimal separator ','/);
  });

  // "0,ddd" is never a thousands group (no number is written with a lone 0 before its group): a German export's
  // 0,250 kg read with the profile's '.' would be 250 kg, a thousand times off.
  it('"0,250" with decimal separator \'.\' is refused, naming the separator the profile may have wrong; never 250', () => {
    expect(reason(parseQuantity('0,250', '.'))).toMatch(
      /'0,250' is not a number with decimal separator '\.'.*decimalSeparator.*','/,
    );
    expect(reason(parseQuantity('0.250', ','))).toMatch(
      /'0\.250' is not a number with decimal separator ','/,
    );
    expect(reason(parseQuantity('00,250', '.'))).toMatch(/not a number/);
    expect(value(parseQuantity('0,250', ','))).toBe(0.25);
    expect(value(parseQuantity('1,250', '.'))).toBe(1250);
    expect(value(parseQuantity('10,250.5', '.'))).toBe(10250.5);
  });

  // With no decimal separator from the profile nor the csv's delimiter (tab csv, xlsx or json text), "1,250" could
  // be 1250 or 1.25: refused naming both readings, as the PLM import does (connectors/number-text.ts).
  it('without a separator, a number that reads two ways is refused naming both; one that reads one way is read', () => {
    expect(reason(parseQuantity('1,250', null))).toMatch(
      /'1,250' could be 1250 .* or 1\.25 .*decimalSeparator/,
    );
    expect(reason(parseQuantity('10.000', null))).toMatch(/could be 10000 .* or 10 /);
    expect(value(parseQuantity('1,25', null))).toBe(1.25);
    expect(value(parseQuantity('0,250', null))).toBe(0.25);
    expect(value(parseQuantity('1.250,5', null))).toBe(1250.5);
    expect(value(parseQuantity('1.0051', null))).toBe(1.01);
    expect(reason(parseQuantity('-3', null))).toMatch(/not a positive quantity/);
    expect(reason(parseQuantity('twelve', null))).toMatch(/not a number/);
  });

  it("tells a zero however written (SAP's '0,000' for no weight) from a small quantity", () => {
    for (const zero of ['0', '0,000', '0.00', ' 000 ', 0]) expect(isZeroQuantity(zero)).toBe(true);
    for (const other of ['0,004', '1,000', '', 'zero', 0.001, null])
      expect(isZeroQuantity(other)).toBe(false);
  });

  it('refuses zero, negative, tiny-after-rounding and too large quantities', () => {
    expect(reason(parseQuantity('0', '.'))).toMatch(/not a positive quantity/);
    expect(reason(parseQuantity('-3', '.'))).toMatch(/not a positive quantity/);
    expect(reason(parseQuantity(-3, '.'))).toMatch(/not a positive quantity/);
    expect(reason(parseQuantity('0.004', '.'))).toMatch(/once rounded to 2 decimals/);
    expect(value(parseQuantity('0.005', '.'))).toBe(0.01);
    expect(reason(parseQuantity(1e17, '.'))).toMatch(/below 1e17/);
    expect(reason(parseQuantity('twelve', '.'))).toMatch(/not a number/);
  });
});

describe('units', () => {
  it('accepts every value of the unit enumeration, case and spacing forgiven', () => {
    for (const unit of UNIT_VALUES) expect(value(parseUnit(unit, {}))).toBe(unit);
    expect(value(parseUnit('square metre', {}))).toBe('SQUARE_METRE');
    expect(value(parseUnit('kilogram', {}))).toBe('KILOGRAM');
  });

  it('maps built-in aliases, and profile aliases take precedence', () => {
    expect(value(parseUnit('pcs', {}))).toBe('PIECES');
    expect(value(parseUnit('KG', {}))).toBe('KILOGRAM');
    expect(value(parseUnit('m', {}))).toBe('METRE');
    expect(value(parseUnit('Stuks', { stuks: 'PIECES' }))).toBe('PIECES');
    expect(value(parseUnit('m', { M: 'MILE' }))).toBe('MILE');
  });

  // The built-in aliases are a plain object: its inherited names were read as units and the line was refused later,
  // naming no row or column and listing all 72 units.
  it.each(['constructor', '__proto__'])(
    'a unit cell %s is refused naming row, column and the cell',
    (unit) => {
      const { rejections } = buildOrders(tableOf([lineRow({ unit })]), DEFAULT_PROFILE, CONTEXT);
      expect(rejections.map((r) => [r.code, r.message])).toEqual([
        [
          'invalid_unit',
          `row 2, column 'unit' (unit): '${unit}' is not a unit of the API's unit enumeration; name the export's own units in the profile's unitAliases, e.g. {"stuks": "PIECES"}`,
        ],
      ]);
    },
  );

  it('refuses other units and suggests close ones', () => {
    expect(reason(parseUnit('PIECS', {}))).toMatch(/'PIECS' is not a unit.*; did you mean 'PIECES'/);
    expect(reason(parseUnit('boxes', {}))).toMatch(/is not a unit/);
  });

  it("says how to map an export's own unit word, as the status column does", () => {
    expect(reason(parseUnit('boxes', {}))).toBe(
      `'boxes' is not a unit of the API's unit enumeration; name the export's own units in the profile's unitAliases, e.g. {"stuks": "PIECES"}`,
    );
  });
});

describe('text helpers', () => {
  // Spec 03, Limits: "orderNumber | 1-255 characters", "shipmentReference | max 255 characters": characters (code
  // points), not the UTF-16 code units of String.length; an emoji or a CJK extension character counts once.
  it('measures text limits in characters: an emoji counts once', () => {
    expect(value(parseText('📦'.repeat(255), 255))).toBe('📦'.repeat(255));
    expect(value(parseText('𠀋'.repeat(200) + 'a'.repeat(55), 255))).toHaveLength(455);
    expect(reason(parseText('📦'.repeat(256), 255))).toBe('is 256 characters long; at most 255 are allowed');
  });

  it('splits lists on every separator, trimming and dropping empties', () => {
    expect(splitList(' a, b ;;c ,', [',', ';'])).toEqual(['a', 'b', 'c']);
    expect(splitList(['x, y', ' z '], [','])).toEqual(['x', 'y', 'z']);
  });

  it('reads enums forgiving case and spaces, and suggests on a typo', () => {
    expect(value(parseEnum('In progress', ['IN_PROGRESS', 'COMPLETED'] as const))).toBe('IN_PROGRESS');
    expect(reason(parseEnum('COMPLTED', ['IN_PROGRESS', 'COMPLETED'] as const))).toMatch(
      /; did you mean 'COMPLETED'\?/,
    );
  });

  // Spec 03, Order.status: `IN_PROGRESS`, `IN_REVIEW`, `COMPLETED`; an ERP's own words go through statusAliases.
  it("reads order statuses through the profile's statusAliases (any case), then the enumeration; refuses others naming both", () => {
    const aliases = { Open: 'IN_PROGRESS', Released: 'IN_REVIEW', Canceled: 'COMPLETED' } as const;
    expect(value(parseStatus('OPEN', aliases))).toBe('IN_PROGRESS');
    expect(value(parseStatus(' released ', aliases))).toBe('IN_REVIEW');
    expect(value(parseStatus('canceled', aliases))).toBe('COMPLETED');
    expect(value(parseStatus('Completed', {}))).toBe('COMPLETED');
    expect(value(parseStatus('in review', {}))).toBe('IN_REVIEW');
    expect(reason(parseStatus('Closed', aliases))).toBe(
      "'Closed' is not an order status: IN_PROGRESS, IN_REVIEW, COMPLETED, or a word of the profile's statusAliases (Open, Released, Canceled)",
    );
    expect(reason(parseStatus('Open', {}))).toMatch(
      /^'Open' is not an order status: IN_PROGRESS, IN_REVIEW, COMPLETED; name the export's own words in the profile's statusAliases/,
    );
  });

  it('ranks close matches nearest first (containing ones first), at most three, and leaves out the far ones', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(closeMatches('ACME', ['ACME1', 'ACNE', 'ZZZZZZZZ', 'ACM', 'ACMEE'])).toEqual([
      'ACME1',
      'ACMEE',
      'ACM',
    ]);
    expect(closeMatches('Earrings', ['Yarns', 'Earring'])).toEqual(['Earring']);
  });
});
