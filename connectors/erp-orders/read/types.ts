import type { CsvEncoding } from '../../csv-encoding';
import type { BlankFormulaCell, InputLimitCode } from '../../input-limits';

/** The formats an ERP export comes in; `json` is an array of objects, `ndjson` one object per line. */
export type ExportFormat = 'csv' | 'xlsx' | 'json' | 'ndjson';

/** One cell as read: text (csv), text/number/boolean (xlsx, json), a list of text (json arrays) or empty. */
export type CellValue = string | number | boolean | null | readonly string[];

/** One data row of an export, one order line. */
export interface SourceRow {
  /**
   * Where the row is in the file, as a person would find it: the spreadsheet row number for csv and xlsx
   * (header = row 1), the line number for ndjson, the 1-based item position for a json array.
   */
  row: number;
  /** Cells by column name, as in the file (original header spelling). */
  values: Readonly<Record<string, CellValue>>;
  /** xlsx only: the number format of a cell (for example a date format), kept for the rejects file. */
  formats?: Readonly<Record<string, string>>;
  /** Set when the row itself could not be read (malformed ndjson line, nested object...). */
  problem?: string;
  /**
   * xlsx only: cells holding an Excel error (`#N/A`, `#REF!`...), by column, as Excel shows them. Their value is
   * `null`, but they are not blank: a mapped column with an error rejects the order (a blank would clear the field).
   */
  cellErrors?: Readonly<Record<string, string>>;
  /** ndjson only: the original text of a line that is not valid JSON. */
  rawText?: string;
  /**
   * json and ndjson only: number cells as written, by column, where the number read would print otherwise (digits
   * past 2^53, `1.50`, `1e3`). A text field (an order number...) must not be read from such a cell.
   */
  numberTexts?: Readonly<Record<string, string>>;
}

/** An export read into memory: its columns in file order and its non-empty rows. */
export interface ExportTable {
  format: ExportFormat;
  columns: string[];
  rows: SourceRow[];
  /** xlsx only: the sheet the rows came from. */
  sheetName?: string;
  /** csv and xlsx: the row number of the header row (blank rows above it are skipped). */
  headerRow?: number;
  /** xlsx only: the workbook counts date serials from 1904-01-01 (its 1904 date system), not from 1900. */
  date1904?: boolean;
  /** xlsx only: what the user should know of how the file was read (hidden sheets passed over...). */
  warnings?: string[];
  /** csv only: how the file was written, so the rejects file can be written the same way. */
  csvDialect?: CsvDialect;
  /** xlsx with no data rows only: the first formula below the header whose saved result is empty. */
  blankFormula?: BlankFormulaCell;
}

export interface CsvDialect {
  delimiter: string;
  encoding: CsvEncoding;
  newline: '\r\n' | '\n';
  bom: boolean;
  /** The file started with Excel's `sep=` line naming the delimiter. */
  sepLine?: boolean;
}

/** Why a file was refused whole; `unreadable_file` unless a more precise reason is known. */
export type ExportReadErrorCode =
  'unreadable_file' | 'truncated_file' | 'not_an_array' | 'file_not_found' | InputLimitCode;

/** A rejects file fed back (`retry`): its header holds the two error columns the rejects writer adds. */
export function isRejectsHeader(columns: readonly string[]): boolean {
  return columns.includes('error_code') && columns.includes('error_message');
}

export class ExportReadError extends Error {
  override readonly name = 'ExportReadError';
  constructor(
    message: string,
    readonly code: ExportReadErrorCode = 'unreadable_file',
  ) {
    super(message);
  }
}

export function isBlank(value: CellValue | undefined): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every((item) => item.trim() === '');
  return false;
}
