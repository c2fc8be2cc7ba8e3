import { readFileSync } from 'node:fs';
import * as XLSX from 'xlsx';
import {
  checkCellLength,
  columnLetterOf,
  isBlankFormula,
  isPasswordProtectedWorkbook,
  PASSWORD_PROTECTED_MESSAGE,
  restoreRejectsCell,
  workbookCellError,
} from '../../input-limits';
import {
  cellRange,
  fillMergesDown,
  HiddenRowsSeen,
  hiddenRowsWarning,
  hiddenSheetsWarning,
  pickSheet,
  takeHiddenRows,
  usesDate1904,
  zeroPaddedText,
} from '../../workbook-cells';
import { asExportReadError, uniqueHeader } from './csv';
import { ExportReadError, isRejectsHeader, type CellValue, type ExportTable, type SourceRow } from './types';

/** A cell's value; a whole number in a zero-padding format is the text Excel shows (`0004500012`). */
function cellValue(cell: XLSX.CellObject | undefined): CellValue {
  if (!cell || cell.v === undefined || cell.t === 'z' || cell.t === 'e') return null;
  if (cell.v instanceof Date) return cell.v.toISOString();
  if (cell.t === 'n') return zeroPaddedText(cell) ?? cell.v;
  return cell.v;
}

/** The error a cell shows (`#N/A`, `#REF!`, an uncalculated formula...), or undefined for a cell that is not one. */
function cellError(cell: XLSX.CellObject | undefined): string | undefined {
  return cell ? workbookCellError(cell) : undefined;
}

/** A date or custom number format worth keeping so the rejects file shows the cell as the user typed it. */
function keptFormat(cell: XLSX.CellObject | undefined): string | undefined {
  if (!cell || cell.t !== 'n' || typeof cell.z !== 'string' || cell.z === 'General') return undefined;
  return cell.z;
}

/** Sheets inflate to about 10-20 times their zipped size; 100 MB of XML is a few hundred thousand rows. */
export const MAX_XLSX_UNCOMPRESSED_BYTES = 100 * 1024 * 1024;

/**
 * The uncompressed size the zip's central directory declares, summed over its entries (ZIP64 markers count as
 * unlimited). Read before SheetJS inflates anything, so a zip bomb is refused in milliseconds, not minutes.
 */
export function declaredUncompressedBytes(zip: Buffer): number {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || end + 22 > zip.length) throw new ExportReadError('not an xlsx workbook (no zip directory)');
  let offset = zip.readUInt32LE(end + 16);
  let total = 0;
  while (offset + 46 <= zip.length && zip.readUInt32LE(offset) === 0x02014b50) {
    const size = zip.readUInt32LE(offset + 24);
    total += size === 0xffffffff ? Number.POSITIVE_INFINITY : size;
    offset +=
      46 + zip.readUInt16LE(offset + 28) + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return total;
}

/**
 * The checks that need no parsing, in milliseconds: password protection, the zip signature and the declared
 * uncompressed size (a zip bomb is refused before SheetJS inflates anything). Run before the read thread starts.
 */
export function checkXlsxBytes(
  content: Buffer | Uint8Array,
  maxUncompressedBytes = MAX_XLSX_UNCOMPRESSED_BYTES,
): void {
  if (isPasswordProtectedWorkbook(Buffer.from(content.buffer, content.byteOffset, content.byteLength))) {
    throw new ExportReadError(PASSWORD_PROTECTED_MESSAGE, 'password_protected');
  }
  if (content.length < 4 || content[0] !== 0x50 || content[1] !== 0x4b) {
    throw new ExportReadError('not an xlsx workbook (an xlsx file is a zip archive)');
  }
  const inflated = declaredUncompressedBytes(
    Buffer.from(content.buffer, content.byteOffset, content.byteLength),
  );
  if (inflated > maxUncompressedBytes) {
    throw new ExportReadError(
      `the workbook would inflate to ${Number.isFinite(inflated) ? `${Math.round(inflated / 1048576)} MB` : 'an unbounded size'}, ` +
        `more than the ${Math.round(maxUncompressedBytes / 1048576)} MB allowed; split the export or save it as csv`,
    );
  }
}

/** `readXlsx` of a file on disk (what the read thread runs: the bytes never cross the thread boundary). */
export function readXlsxFile(
  path: string,
  sheetName?: string,
  maxUncompressedBytes = MAX_XLSX_UNCOMPRESSED_BYTES,
  mappedColumns?: readonly string[],
): ExportTable {
  return readXlsx(readFileSync(path), sheetName, maxUncompressedBytes, mappedColumns);
}

/**
 * Reads the named sheet (default: the first visible sheet with cells, `pickSheet`) of an xlsx workbook. Cells keep their types: dates stay Excel
 * serial numbers (the date rules turn them into `YYYY-MM-DD`; `date1904` says they count from 1904), text stays
 * text, a whole number in a zero-padding format reads as the text Excel shows (`connectors/workbook-cells.ts`). Row numbers are the sheet's.
 * Merged ranges below the header give their value down their first column (`fillMergesDown`); error cells (`#N/A`...) read as
 * `null` and are listed in the row's `cellErrors`.
 */
export function readXlsx(
  content: Buffer | Uint8Array,
  sheetName?: string,
  maxUncompressedBytes = MAX_XLSX_UNCOMPRESSED_BYTES,
  mappedColumns?: readonly string[],
): ExportTable {
  try {
    return readWorkbookSheet(content, sheetName, maxUncompressedBytes, mappedColumns);
  } catch (error) {
    throw asExportReadError(error);
  }
}

function readWorkbookSheet(
  content: Buffer | Uint8Array,
  sheetName: string | undefined,
  maxUncompressedBytes: number,
  mappedColumns: readonly string[] | undefined,
): ExportTable {
  // Without this check SheetJS would happily read any text as a one-column "workbook".
  checkXlsxBytes(content, maxUncompressedBytes);
  let workbook: XLSX.WorkBook;
  try {
    workbook = XLSX.read(content, {
      type: 'buffer',
      cellDates: false,
      cellNF: true,
      cellFormula: true,
      sheetStubs: true,
      dense: true,
      // The inflated sheet XML, for the rows hidden in it (`takeHiddenRows`).
      bookFiles: true,
    });
  } catch (error) {
    throw new ExportReadError(`not a readable xlsx workbook: ${(error as Error).message}`);
  }
  const { name, skippedHidden } = pickSheet(workbook, sheetName);
  const sheet = name === undefined ? undefined : workbook.Sheets[name];
  if (!sheet || name === undefined) {
    throw new ExportReadError(
      sheetName === undefined
        ? 'the workbook has no sheet'
        : `sheet '${sheetName}' not found; sheets are: ${workbook.SheetNames.join(', ')}`,
    );
  }
  const hidden = takeHiddenRows(workbook, name);
  const range = cellRange(sheet);
  if (!range) {
    throw new ExportReadError(`sheet '${name}' is empty: no header row. Export the file again.`);
  }
  // Dense mode: rows of cells by index, no A1-address strings built and parsed per cell.
  const data = (sheet['!data'] ?? []) as Array<Array<XLSX.CellObject | undefined> | undefined>;
  const cellAt = (r: number, c: number): XLSX.CellObject | undefined => data[r]?.[c] ?? undefined;
  const textAt = (r: number, c: number): string => {
    const value = cellValue(cellAt(r, c));
    return value === null ? '' : String(value).trim();
  };
  // The header is the first row with any text: exports often leave blank rows (or a blank margin) above it.
  let headerRow = range.s.r;
  // Only the cells a row holds: a blank row styled in column XFD is one cell, not 16,384 columns to look up (a 1 MB
  // sheet of such rows above the header once took minutes).
  const rowIsBlank = (r: number): boolean => {
    const cells = data[r] ?? [];
    return !Object.keys(cells).some((c) => textAt(r, Number(c)) !== '');
  };
  while (headerRow < range.e.r && rowIsBlank(headerRow)) headerRow += 1;
  let firstColumn = range.s.c;
  while (firstColumn < range.e.c && textAt(headerRow, firstColumn) === '') firstColumn += 1;
  // A formatted but empty column far to the right widens the sheet's range, not its header.
  let lastColumn = range.e.c;
  while (lastColumn > firstColumn && textAt(headerRow, lastColumn) === '') lastColumn -= 1;
  const headerCells: string[] = [];
  for (let c = firstColumn; c <= lastColumn; c += 1) headerCells.push(textAt(headerRow, c));
  const columns = uniqueHeader(headerCells, headerRow + 1, mappedColumns);
  const restore = isRejectsHeader(columns) ? restoreRejectsCell : (text: string): string => text;
  const warnings = skippedHidden.length > 0 ? [hiddenSheetsWarning(skippedHidden, name)] : [];
  fillMergesDown(data, sheet['!merges'] ?? [], headerRow + 1, warnings);
  const rows: SourceRow[] = [];
  const hiddenRead = new HiddenRowsSeen();
  let blankFormula: ExportTable['blankFormula'];
  for (let r = headerRow + 1; r <= range.e.r; r += 1) {
    const values: Record<string, CellValue> = {};
    const formats: Record<string, string> = {};
    const errors: Record<string, string> = {};
    let empty = true;
    columns.forEach((column, index) => {
      const cell = cellAt(r, firstColumn + index);
      const read = cellValue(cell);
      const value = typeof read === 'string' ? restore(read) : read;
      if (typeof value === 'string') checkCellLength(value, r + 1, column);
      values[column] = value;
      if (value !== null && String(value).trim() !== '') empty = false;
      const error = cellError(cell);
      if (error !== undefined) {
        errors[column] = error;
        empty = false;
      }
      const format = keptFormat(cell);
      if (format !== undefined) formats[column] = format;
      if (blankFormula === undefined && cell?.f !== undefined && isBlankFormula(cell))
        blankFormula = { cell: `${columnLetterOf(firstColumn + index)}${r + 1}`, formula: cell.f };
    });
    data[r] = undefined;
    if (empty) continue;
    if (hidden.has(r + 1)) hiddenRead.add(r + 1);
    const row: SourceRow = { row: r + 1, values };
    if (Object.keys(formats).length > 0) row.formats = formats;
    if (Object.keys(errors).length > 0) row.cellErrors = errors;
    rows.push(row);
  }
  if (hiddenRead.count > 0) warnings.push(hiddenRowsWarning(hiddenRead, name, 'pushed'));
  const table: ExportTable = { format: 'xlsx', columns, rows, sheetName: name, headerRow: headerRow + 1 };
  if (usesDate1904(workbook)) table.date1904 = true;
  if (warnings.length > 0) table.warnings = warnings;
  if (rows.length === 0 && blankFormula !== undefined) table.blankFormula = blankFormula;
  return table;
}
