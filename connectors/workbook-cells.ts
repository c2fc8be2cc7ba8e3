import type * as XLSX from 'xlsx';

/**
 * Cell rules both workbook readers (the PLM import and the ERP order push) apply to SheetJS cells, so a cell reads
 * the same in either job.
 */

/** A number format that only pads with zeros (`000000000000`): how a sheet keeps an identifier's leading zeros. */
const ZERO_PADDING = /^0+$/;

/**
 * The text Excel shows for a whole number in a zero-padding format (12345678905 as `012345678905`), else undefined.
 * Such a cell holds an identifier (a code value, an externalId, an order or line number), whose leading zeros are
 * part of it.
 */
export function zeroPaddedText(cell: XLSX.CellObject): string | undefined {
  const { v: value, z: format } = cell;
  if (typeof value !== 'number' || typeof format !== 'string' || !ZERO_PADDING.test(format)) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) return undefined;
  const text = String(value);
  return text.length < format.length ? text.padStart(format.length, '0') : undefined;
}

/** Days from the 1900 date system's serial 0 to the 1904 system's (1904-01-01 is serial 1462 in the 1900 system). */
export const DATE1904_SHIFT_DAYS = 1462;

/** Whether a workbook counts its date serials from 1904-01-01 (Excel for Mac's old default), not from 1900. */
export function usesDate1904(workbook: XLSX.WorkBook): boolean {
  return workbook.Workbook?.WBProps?.date1904 === true;
}

/** A date serial of a workbook as the 1900 date system counts it (what date rules such as `fromExcelSerial` read). */
export function serialIn1900System(serial: number, date1904: boolean): number {
  return date1904 ? serial + DATE1904_SHIFT_DAYS : serial;
}
