import type { ColumnBinding, MappingProfile, SourceField } from '../profile';
import { isBlank, type CellValue, type SourceRow } from '../read/types';
import { quoteInput } from '../../input-limits';
import { serialIn1900System } from '../../workbook-cells';
import {
  cellText,
  isCompactDateNumber,
  isEmptyDateText,
  isZeroQuantity,
  parseQuantity,
  parseText,
  QUANTITY_LIMIT,
  parseUnit,
  type DecimalSeparator,
  type Unit,
} from '../cell-values';
import { DATE_FIELDS, describeAt, type ProductRef, type Problem, type RejectionCode } from './draft';
import { PARTY_FIELDS, SCALAR_HEADER_FIELDS, partyRef, type HeaderKey, type HeaderValue } from './fields';

/** A header value as one row gives it, with where it came from. */
export interface HeaderCell {
  value: HeaderValue;
  row: number;
  column: string;
}

export interface MappedLine {
  lineId?: string;
  orderLineNumber?: string;
  productRef?: ProductRef;
  quantity?: number;
  unit?: Unit;
  /** `null`: the column is there and blank (clears the platform's value). */
  secondaryQuantity?: number | null;
}

/** One export row read through the profile: header cells to agree on, the line, and what was wrong. */
export interface MappedRow {
  row: number;
  orderNumber: string;
  header: Map<HeaderKey, HeaderCell>;
  line: MappedLine;
  problems: Problem[];
}

/** Fields read as numbers: a JSON number's spelling does not matter there, only whether its value is exact. */
const QUANTITY_FIELDS: ReadonlySet<SourceField> = new Set(['quantity', 'secondaryQuantity']);
/** A JSON number that is exactly zero, as `0.000`, `-0` or `0e5` write it. */
const EXACT_ZERO = /^-?0+(?:\.0*)?(?:e[+-]?\d+)?$/i;
/** A number in a date field is an Excel serial; an inexact one is no date anyway. */
const DATE_SOURCE_FIELDS: ReadonlySet<SourceField> = new Set(DATE_FIELDS);

/**
 * Why a JSON number kept as written cannot be a quantity (spec 03: positive, below 1e17, 2 decimals), undefined when
 * its value reads exactly: `1e400` is Infinity to JavaScript, `1e-400` is 0, an integer past 2^53 loses digits.
 */
function jsonQuantityProblem(written: string): string | undefined {
  const shown = `the JSON number ${quoteInput(written, 60)}`;
  const value = Number(written);
  if (written.startsWith('-') || value < 0) return `${shown} is not a positive quantity`;
  if (!(value < QUANTITY_LIMIT)) return `${shown} is too large: quantities must be below 1e17`;
  if (value === 0)
    return `${shown} is not a positive quantity${/[1-9]/.test(written.split(/e/i)[0] ?? '') ? ' once rounded to 2 decimals' : ''}`;
  // An integer written with more digits than a double holds exactly (9007199254740993 reads as ...992).
  if (/^\d+$/.test(written) && BigInt(written) !== BigInt(value))
    return `${shown} has more digits than can be read exactly (it would become ${value})`;
  return undefined;
}

/** What a row's cells mean beyond themselves: the workbook's date system, the csv's decimal mark. */
export interface RowContext {
  /** Number cells in date columns count from 1904-01-01 (`ExportTable.date1904`). */
  date1904?: boolean;
  /** The decimal mark the csv's delimiter implies, used when the profile sets no decimalSeparator. */
  decimalMark?: DecimalSeparator | null;
}

/** Reads one row's cells through the profile. Header constants are applied per order (see `build`), line ones here. */
export function mapRow(
  source: SourceRow,
  binding: ColumnBinding,
  profile: MappingProfile,
  context: RowContext = {},
): MappedRow {
  const problems: Problem[] = [];
  /** Fields whose cell holds a spreadsheet error: reported once as such, not again as blank or invalid. */
  const erred = new Set<string>();
  const problem = (
    code: RejectionCode,
    field: string,
    column: string | undefined,
    reason: string,
    named = field,
  ): void => {
    if (erred.has(field)) return;
    problems.push({
      code,
      field,
      row: source.row,
      ...(column === undefined ? {} : { column }),
      message: `${describeAt(source.row, column, named)}: ${reason}`,
    });
  };
  const columnOf = (field: SourceField): string | undefined => binding.bound[field];
  const cellOf = (field: SourceField): CellValue | undefined => {
    const column = columnOf(field);
    return column === undefined ? undefined : source.values[column];
  };
  /** The cell, or the profile's constant when the cell is blank or the column absent. */
  const lineCell = (field: SourceField): { value: CellValue; column: string } | undefined => {
    const cell = cellOf(field);
    if (!isBlank(cell)) return { value: cell ?? null, column: columnOf(field) ?? field };
    const constant = profile.constants[field];
    return constant === undefined ? undefined : { value: constant, column: `constant ${field}` };
  };

  if (source.problem !== undefined) problem('unreadable_row', 'row', undefined, source.problem);
  // An error cell (#N/A, #REF!...) is not a blank: a blank optional cell clears the platform's field, an error must
  // not. Only columns the profile reads count; an error in a column it ignores changes nothing.
  if (source.cellErrors !== undefined) {
    for (const [field, column] of Object.entries(binding.bound) as Array<[SourceField, string]>) {
      const error = source.cellErrors[column];
      if (error === undefined) continue;
      problem(
        'invalid_value',
        field,
        column,
        `the cell holds the spreadsheet error ${error} (a formula that failed or a broken reference), not a value; ` +
          'fix the cell or clear it in the export',
      );
      erred.add(field);
    }
    if (erred.has('productExternalId') || erred.has('productCode')) erred.add('product');
  }
  // A JSON number the reader could not keep as written (digits past 2^53, `1.50`, `1e3`): text read from it would
  // not be what the file says (spec 03: orderNumber is an "exact match"), and two order numbers could become one.
  const numberTexts = source.numberTexts;
  const writtenOf = (field: SourceField): string | undefined => {
    const column = columnOf(field);
    return numberTexts !== undefined && column !== undefined && Object.hasOwn(numberTexts, column)
      ? numberTexts[column]
      : undefined;
  };
  for (const [field, column] of Object.entries(binding.bound) as Array<[SourceField, string]>) {
    const written = writtenOf(field);
    if (written === undefined || DATE_SOURCE_FIELDS.has(field)) continue;
    const read = cellText(source.values[column] ?? null);
    if (QUANTITY_FIELDS.has(field)) {
      // A zero secondary quantity, however written (`0.00`), is none (see below), not a quantity to refuse.
      if (field === 'secondaryQuantity' && EXACT_ZERO.test(written)) continue;
      const reason = jsonQuantityProblem(written);
      if (reason === undefined) continue;
      problem('invalid_quantity', field, column, reason);
    } else {
      problem(
        'invalid_value',
        field,
        column,
        `the JSON number ${quoteInput(written, 60)} cannot be read exactly as text (it would become '${read}'); ` +
          `write it as a JSON string: "${quoteInput(written, 60)}"`,
      );
    }
    erred.add(field);
  }
  if (erred.has('productExternalId') || erred.has('productCode')) erred.add('product');
  const orderNumberText = parseText(cellOf('orderNumber') ?? null, 255);
  // Refused above; its order is named as written, so it never joins the order whose number it would read as.
  const orderNumber =
    writtenOf('orderNumber') ??
    (orderNumberText.ok ? orderNumberText.value : cellText(cellOf('orderNumber')));
  // A blank number is not a problem of the row: it continues the order of the row above (see `buildOrders`).
  if (!orderNumberText.ok)
    problem('too_long', 'orderNumber', columnOf('orderNumber'), `order number ${orderNumberText.reason}`);

  const header = new Map<HeaderKey, HeaderCell>();
  for (const spec of SCALAR_HEADER_FIELDS) {
    const read = cellOf(spec.key);
    const isDate = DATE_SOURCE_FIELDS.has(spec.key);
    if (isBlank(read) || (isDate && isEmptyDateText(read))) continue;
    const cell =
      typeof read === 'number' && isDate && !isCompactDateNumber(read)
        ? serialIn1900System(read, context.date1904 === true)
        : read;
    const column = columnOf(spec.key) ?? spec.key;
    const parsed = spec.parse(cell ?? null, profile);
    if (parsed.ok) header.set(spec.key, { value: parsed.value, row: source.row, column });
    else problem(spec.code, spec.key, column, parsed.reason);
  }
  for (const party of PARTY_FIELDS) {
    const ref = partyRef(cellOf(party.idField), cellOf(party.codeField));
    if (ref === undefined) continue;
    const byId = !isBlank(cellOf(party.idField));
    const column = byId
      ? (columnOf(party.idField) ?? party.idField)
      : (columnOf(party.codeField) ?? party.codeField);
    if (ref.ok) header.set(party.key, { value: ref.value, row: source.row, column });
    else problem('invalid_value', party.key, column, ref.reason, byId ? party.idField : party.codeField);
  }

  const line: MappedLine = {};
  const lineId = cellText(cellOf('lineId'));
  if (lineId !== '') line.lineId = lineId;
  const lineNumber = lineCell('orderLineNumber');
  if (lineNumber) {
    const parsed = parseText(lineNumber.value, 255);
    if (parsed.ok) line.orderLineNumber = parsed.value;
    else problem('too_long', 'orderLineNumber', lineNumber.column, `line number ${parsed.reason}`);
  }
  const externalId = lineCell('productExternalId');
  const code = externalId ? undefined : lineCell('productCode');
  if (externalId) line.productRef = { externalId: cellText(externalId.value) };
  else if (code) line.productRef = { codeId: profile.productCodeId, codeValue: cellText(code.value) };
  else
    problem(
      'missing_value',
      'product',
      columnOf('productExternalId') ?? columnOf('productCode'),
      'the line names no product',
    );

  const separator = profile.decimalSeparator ?? context.decimalMark ?? null;
  const quantity = lineCell('quantity');
  if (!quantity) problem('missing_value', 'quantity', columnOf('quantity'), 'the quantity is empty');
  else {
    const parsed = parseQuantity(
      typeof quantity.value === 'number' ? quantity.value : cellText(quantity.value),
      separator,
    );
    if (parsed.ok) line.quantity = parsed.value;
    else problem('invalid_quantity', 'quantity', quantity.column, parsed.reason);
  }
  const unit = lineCell('unit');
  if (!unit) problem('missing_value', 'unit', columnOf('unit'), 'the unit is empty');
  else {
    const parsed = parseUnit(cellText(unit.value), profile.unitAliases);
    if (parsed.ok) line.unit = parsed.value;
    else problem('invalid_unit', 'unit', unit.column, parsed.reason);
  }
  // Spec 03: a secondary quantity is optional but positive when given, so a zero one (SAP writes `0,000` for no
  // weight) is read as the blank it means.
  const secondaryCell = lineCell('secondaryQuantity');
  const secondary = secondaryCell && !isZeroQuantity(secondaryCell.value) ? secondaryCell : undefined;
  if (secondary) {
    const parsed = parseQuantity(
      typeof secondary.value === 'number' ? secondary.value : cellText(secondary.value),
      separator,
    );
    if (parsed.ok) line.secondaryQuantity = parsed.value;
    else problem('invalid_quantity', 'secondaryQuantity', secondary.column, parsed.reason);
  } else if (columnOf('secondaryQuantity') !== undefined) {
    line.secondaryQuantity = null;
  }
  return { row: source.row, orderNumber, header, line, problems };
}
