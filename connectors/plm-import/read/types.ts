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
  /** xlsx/xls: which sheet; default the first sheet that has cells. */
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
}

/** A sheet whose header row has been found; `rows()` streams the data rows below it. */
export interface OpenedSheet {
  path: string;
  format: SheetFormat;
  /** csv only. */
  delimiter: CsvDelimiter | null;
  /** csv only: how the bytes were decoded. */
  encoding: 'utf-8' | 'utf-16le' | 'windows-1252' | null;
  /** xlsx/xls only. */
  sheetName: string | null;
  /** xlsx/xls: the workbook's other sheets, which were not read. */
  ignoredSheets: string[];
  headerRowNumber: number;
  headers: string[];
  warnings: string[];
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
