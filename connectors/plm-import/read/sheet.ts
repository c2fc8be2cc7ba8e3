import type { CsvEncoding } from '../../csv-encoding';
import {
  checkColumnCount,
  columnLetterOf,
  duplicateHeaders,
  duplicateHeadersMessage,
  InputLimitError,
  type BlankFormulaCell,
} from '../../input-limits';
import { PlmFileError } from '../issues';

export type CellValue = string | number | boolean | null;

/** One data row: `rowNumber` is the 1-based row the operator sees in Excel (for csv: the record number). */
export interface SheetRow {
  rowNumber: number;
  /** Every header is present; a blank cell is null. Strings are trimmed; date cells are ISO text. */
  cells: Record<string, CellValue>;
  /** Header -> spreadsheet error text (`#N/A`, `#REF!`, ...) for formula cells whose cached value is an error. */
  cellErrors?: Record<string, string>;
}

export type SheetFormat = 'csv' | 'xlsx' | 'xls';
export type CsvDelimiter = ',' | ';' | '\t' | '|';
export const csvDelimiters: readonly CsvDelimiter[] = [',', ';', '\t', '|'];

export interface ReadOptions {
  /** xlsx/xls: which sheet, even a hidden one; default the first visible sheet that has cells (`pickSheet`). */
  sheetName?: string;
  /** csv: skip auto-detection. */
  delimiter?: CsvDelimiter;
  /** csv that is not valid UTF-8: decode it as windows-1252 with a warning (default), or refuse it. */
  nonUtf8?: 'windows-1252' | 'reject';
  /** Files bigger than this are refused before reading. Default 100 MiB for csv, 50 MiB for xlsx/xls. */
  maxFileBytes?: number;
  /** xlsx: refuse a workbook whose zip entries expand to more than this. Default 256 MiB. */
  maxExpandedBytes?: number;
  /** Refuse sheets with more data rows than this. Default 1,000,000. */
  maxRows?: number;
  /** How many rows from the top may hold titles before the header row. Default 20. */
  headerScanRows?: number;
  /** xlsx/xls: stop a read that takes longer than this (default `inputLimits.readTimeoutMs`). */
  readTimeoutMs?: number;
  /** Header names the caller expects (from the mapping profile): the first row holding most of them is the header. */
  expectedHeaders?: readonly string[];
  /** The mapping profile's name, for messages about its columns. */
  profileName?: string;
}

/** A sheet whose header row has been found; `rows()` streams the data rows below it. */
export interface OpenedSheet {
  path: string;
  format: SheetFormat;
  /** csv only. */
  delimiter: CsvDelimiter | null;
  /** csv only: how the bytes were decoded. */
  encoding: CsvEncoding | null;
  /** csv only: the file began with a byte-order mark. */
  bom?: boolean;
  /** csv only: the file began with Excel's `sep=` line naming the delimiter. */
  sepLine?: boolean;
  /** xlsx/xls only. */
  sheetName: string | null;
  /** xlsx/xls: the workbook's other sheets, which were not read. */
  ignoredSheets: string[];
  headerRowNumber: number;
  headers: string[];
  warnings: string[];
  /** xlsx/xls only: the workbook counts date serials from 1904-01-01 (its 1904 date system). */
  date1904?: boolean;
  /** xlsx/xls with no data rows only: the first formula below the header whose saved result is empty. */
  blankFormula?: BlankFormulaCell;
  rows(): AsyncIterable<SheetRow>;
}

export const defaultReadLimits = {
  csvMaxFileBytes: 100 * 1024 * 1024,
  workbookMaxFileBytes: 50 * 1024 * 1024,
  maxExpandedBytes: 256 * 1024 * 1024,
  maxRows: 1_000_000,
  headerScanRows: 20,
} as const;

/** Columns a rejects file adds; reading a file ignores them so a fixed rejects file can be fed back as is. */
export const rejectColumns = ['error_code', 'error_message'] as const;

/** Input-limit errors become the import's file errors, their code kept; other errors pass through. */
export function asPlmFileError(error: unknown, path?: string): unknown {
  if (!(error instanceof InputLimitError)) return error;
  return new PlmFileError(error.code, path === undefined ? error.message : `${path}: ${error.message}`);
}

/** A rejects file fed back (`retry`): its header holds both error columns the rejects writer adds. */
export function isRejectsHeader(cells: readonly CellValue[]): boolean {
  const names = new Set(cells.map((cell) => (typeof cell === 'string' ? cell.trim() : cell)));
  return rejectColumns.every((name) => names.has(name));
}

/** Excel-style column letters: 0 -> A, 27 -> AB. */
export const columnLetter = columnLetterOf;

/** Trims text (including non-breaking spaces); blank text becomes null. */
export function cleanCell(value: CellValue | undefined): CellValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    // trim() strips \s, which in JavaScript includes U+00A0 and U+FEFF, in linear time (a /\s+$/ regex is quadratic).
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return value;
}

function filledCount(row: readonly CellValue[]): number {
  return row.reduce<number>((count, cell) => (cell === null ? count : count + 1), 0);
}

/** Headers and translation-table values match ignoring case and repeated spaces. */
export const looseKey = (text: string): string => text.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Index (in `rows`) of the header row: with expected headers, the first row holding the most of them;
 * otherwise the first row that is mostly non-empty distinct text, at least half as wide as the widest
 * row seen, so a title or a note above the header is skipped. -1 when none qualifies.
 */
export function findHeaderRow(rows: readonly CellValue[][], expected?: readonly string[]): number {
  if (expected && expected.length > 0) {
    const wanted = new Set(expected.map((name) => name.toLowerCase()));
    let best = -1;
    let bestHits = 0;
    rows.forEach((row, index) => {
      const hits = row.filter((cell) => typeof cell === 'string' && wanted.has(cell.toLowerCase())).length;
      if (hits > bestHits) {
        best = index;
        bestHits = hits;
      }
    });
    if (best >= 0) return best;
  }
  const widest = Math.max(0, ...rows.map(filledCount));
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] ?? [];
    const filled = row.filter((cell) => cell !== null);
    if (filled.length === 0 || filled.length < Math.max(1, Math.ceil(widest / 2))) continue;
    const texts = filled.filter((cell) => typeof cell === 'string' && !/^[\d\s.,%-]+$/.test(cell));
    const distinct = new Set(texts.map((cell) => String(cell).toLowerCase())).size;
    if (texts.length >= filled.length * 0.8 && distinct >= texts.length * 0.5) return index;
  }
  return -1;
}

/**
 * Header names by column index (null for a column to ignore: no title, or a rejects-file column).
 * Two columns with the same name are refused: guessing which one the mapping means would import wrong data.
 */
export function buildHeaders(cells: readonly CellValue[], headerRowNumber: number): Array<string | null> {
  const headers = cells.map((cell) => {
    const text = cleanCell(cell);
    if (text === null) return null;
    const name = String(text).replace(/\s+/g, ' ');
    return (rejectColumns as readonly string[]).includes(name) ? null : name;
  });
  checkColumnCount(headers.filter((name) => name !== null).length, headerRowNumber);
  const duplicates = duplicateHeaders(headers);
  if (duplicates.length > 0)
    throw new PlmFileError('duplicate_headers', duplicateHeadersMessage(duplicates, headerRowNumber));
  return headers;
}

/** A data row from raw values, or null when every cell is blank (empty rows are skipped). */
export function toSheetRow(
  rowNumber: number,
  values: readonly CellValue[],
  headers: ReadonlyArray<string | null>,
  errors?: ReadonlyMap<number, string>,
  /** A rejects file fed back: gives neutralised formula text its original value. */
  restore?: (text: string) => string,
): SheetRow | null {
  const cells: Record<string, CellValue> = {};
  let cellErrors: Record<string, string> | undefined;
  let filled = false;
  for (let index = 0; index < headers.length; index++) {
    const header = headers[index];
    if (header === null || header === undefined) continue;
    const raw = values[index];
    const value = cleanCell(restore !== undefined && typeof raw === 'string' ? restore(raw) : raw);
    cells[header] = value;
    if (value !== null) filled = true;
    const error = errors?.get(index);
    if (error !== undefined) {
      cellErrors ??= {};
      cellErrors[header] = error;
      filled = true;
    }
  }
  if (!filled) return null;
  return cellErrors ? { rowNumber, cells, cellErrors } : { rowNumber, cells };
}

export function noHeaderError(path: string, scanned: number): PlmFileError {
  return new PlmFileError(
    'no_header_row',
    `${path}: no header row found in the first ${scanned} rows (a header row names each column, mostly as text). Check that the file is the product export and not empty.`,
  );
}
