import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import {
  checkCellLength,
  count,
  inputLimits,
  isBlankFormula,
  isPasswordProtectedWorkbook,
  PASSWORD_PROTECTED_MESSAGE,
  restoreRejectsCell,
  workbookCellError,
  type BlankFormulaCell,
} from '../../input-limits';
import { runOffThread, type ThreadError } from '../../read-off-thread';
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
import { fileErrorCodes, PlmFileError, type FileErrorCode } from '../issues';
import {
  asPlmFileError,
  buildHeaders,
  columnLetter,
  defaultReadLimits,
  findHeaderRow,
  isRejectsHeader,
  looseKey,
  noHeaderError,
  toSheetRow,
  type CellValue,
  type OpenedSheet,
  type ReadOptions,
  type SheetFormat,
  type SheetRow,
} from './sheet';

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function startsWith(bytes: Buffer, magic: number[]): boolean {
  return magic.every((byte, index) => bytes[index] === byte);
}

/** 'xlsx' for a zip, 'xls' for an OLE2 compound file, null for anything else. */
export function sniffWorkbook(head: Buffer): 'xlsx' | 'xls' | null {
  if (startsWith(head, ZIP_MAGIC)) return 'xlsx';
  if (startsWith(head, OLE_MAGIC)) return 'xls';
  return null;
}

function isoDate(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
}

/** Cached value of a cell: formulas are not evaluated, their last computed result is used. */
function cellValue(cell: XLSX.CellObject | undefined): { value: CellValue; error?: string } {
  if (!cell) return { value: null };
  const error = workbookCellError(cell);
  if (error !== undefined) return { value: null, error };
  switch (cell.t) {
    case 'd':
      return { value: cell.v instanceof Date ? isoDate(cell.v) : String(cell.v) };
    case 'n':
      return { value: zeroPaddedText(cell) ?? (cell.v as CellValue) };
    case 's':
    case 'b':
      return { value: cell.v as CellValue };
    default:
      return { value: null };
  }
}

function readWorkbook(bytes: Buffer, path: string, rowCap: number): XLSX.WorkBook {
  try {
    return XLSX.read(bytes, {
      type: 'buffer',
      dense: true,
      cellDates: true,
      cellFormula: true,
      // A formula cell without a saved result is a stub (`t: 'z'`); without stubs SheetJS drops it as blank.
      sheetStubs: true,
      cellHTML: false,
      // Number formats, for zeroPaddedText.
      cellNF: true,
      cellStyles: false,
      cellText: false,
      sheetRows: rowCap,
      // The inflated sheet XML, for the rows hidden in it (`takeHiddenRows`).
      bookFiles: true,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} could not be read as a workbook (${reason}). Re-save it from Excel as xlsx.`,
    );
  }
}

/** What the read thread hands back: the header found and every data row (plain data, cloned across). */
export interface WorkbookRead {
  format: SheetFormat;
  sheetName: string;
  ignoredSheets: string[];
  headerRowNumber: number;
  headers: string[];
  warnings: string[];
  /** The workbook counts date serials from 1904-01-01: a date column's plain number is read from there. */
  date1904: boolean;
  rows: SheetRow[];
  /** No data rows: the first formula below the header whose saved result is empty. */
  blankFormula?: BlankFormulaCell;
}

function rebuildThreadError(error: ThreadError): Error {
  const code = (fileErrorCodes as readonly string[]).includes(error.code ?? '')
    ? (error.code as FileErrorCode)
    : undefined;
  return code !== undefined ? new PlmFileError(code, error.message) : new Error(error.message);
}

/**
 * Opens a workbook: the size is checked here, then SheetJS reads it on a thread of its own (a big workbook holds a
 * thread for seconds; on the main one that would stop heartbeats and every other activity of the worker). A read
 * that outlasts `inputLimits.readTimeoutMs` is stopped and fails once with `read_timeout`.
 */
export async function openWorkbook(
  path: string,
  size: number,
  format: SheetFormat,
  options: ReadOptions,
): Promise<OpenedSheet> {
  const maxBytes = options.maxFileBytes ?? defaultReadLimits.workbookMaxFileBytes;
  if (size > maxBytes) {
    throw new PlmFileError(
      'file_too_large',
      `${path} is ${count(size)} bytes, over the limit of ${count(maxBytes)} bytes for ${format}. Split the workbook, export it as csv, or raise maxFileBytes.`,
    );
  }
  checkWorkbookBytes(await readFile(path), path, format, options);
  let read: WorkbookRead;
  try {
    read = await runOffThread<WorkbookRead>(
      join(__dirname, 'workbook'),
      'readWorkbookFile',
      [path, format, options],
      {
        what: `${path} (${format})`,
        rebuild: rebuildThreadError,
        timeoutMs: options.readTimeoutMs ?? inputLimits.readTimeoutMs,
      },
    );
  } catch (error) {
    throw asPlmFileError(error, path);
  }
  let started = false;
  async function* rows(): AsyncGenerator<SheetRow> {
    if (started)
      throw new Error('rows() of an opened workbook can be iterated only once; open the file again');
    started = true;
    for (let index = 0; index < read.rows.length; index++) {
      const row = read.rows[index];
      if (row) yield row;
      // Rows already handed over need not stay in memory.
      (read.rows as Array<SheetRow | undefined>)[index] = undefined;
    }
  }
  return {
    path,
    format: read.format,
    delimiter: null,
    encoding: null,
    sheetName: read.sheetName,
    ignoredSheets: read.ignoredSheets,
    headerRowNumber: read.headerRowNumber,
    headers: read.headers,
    warnings: read.warnings,
    ...(read.date1904 ? { date1904: true } : {}),
    ...(read.blankFormula !== undefined ? { blankFormula: read.blankFormula } : {}),
    rows,
  };
}

/**
 * The checks that need no parsing, in milliseconds: password protection, the file's magic bytes, and an xlsx's zip
 * directory (a zip bomb is refused before anything is inflated). Run before the read thread starts.
 */
function checkWorkbookBytes(
  bytes: Buffer,
  path: string,
  format: SheetFormat,
  options: ReadOptions,
): 'xlsx' | 'xls' {
  if (isPasswordProtectedWorkbook(bytes))
    throw new PlmFileError('password_protected', `${path}: ${PASSWORD_PROTECTED_MESSAGE}`);
  const actual = sniffWorkbook(bytes);
  if (actual === null) {
    const start = bytes.subarray(0, 8).toString('hex').replace(/(..)/g, '$1 ').trim();
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} is named .${format} but is not an Excel workbook (it starts with bytes ${start}). Export the sheet again as xlsx or csv.`,
    );
  }
  if (actual === 'xlsx')
    checkXlsxPackage(bytes, path, options.maxExpandedBytes ?? defaultReadLimits.maxExpandedBytes);
  return actual;
}

/** The workbook read itself, run by the read thread (`openWorkbook`); errors keep their file-error codes. */
export function readWorkbookFile(path: string, format: SheetFormat, options: ReadOptions): WorkbookRead {
  try {
    return readWorkbookRows(path, format, options);
  } catch (error) {
    throw asPlmFileError(error, path);
  }
}

/** How many of `expected` (lower case) the first `scanRows` rows of a sheet hold as text cells. */
function expectedHeaderHits(sheet: XLSX.WorkSheet, expected: ReadonlySet<string>, scanRows: number): number {
  const data = (sheet['!data'] ?? []) as Array<Array<XLSX.CellObject | undefined> | undefined>;
  let best = 0;
  for (const cells of data.slice(0, scanRows)) {
    const hits = (cells ?? []).filter(
      (cell) => typeof cell?.v === 'string' && expected.has(looseKey(cell.v)),
    ).length;
    best = Math.max(best, hits);
  }
  return best;
}

/**
 * Lectra and Centric workbooks open on a cover or "read me" sheet: when the sheet read by default holds none of the
 * mapping's columns in its first rows, the first other visible sheet that holds some is read instead.
 */
function sheetWithColumns(
  workbook: XLSX.WorkBook,
  picked: string | undefined,
  options: ReadOptions,
): { cover: string; read: string } | undefined {
  const pickedSheet = picked === undefined ? undefined : workbook.Sheets[picked];
  if (picked === undefined || pickedSheet === undefined || (options.expectedHeaders ?? []).length === 0)
    return;
  const expected = new Set((options.expectedHeaders ?? []).map(looseKey));
  const scanRows = options.headerScanRows ?? defaultReadLimits.headerScanRows;
  if (expectedHeaderHits(pickedSheet, expected, scanRows) > 0) return;
  const hidden = new Set(
    (workbook.Workbook?.Sheets ?? []).filter((sheet) => (sheet.Hidden ?? 0) !== 0).map((sheet) => sheet.name),
  );
  const read = workbook.SheetNames.find((name) => {
    const sheet = workbook.Sheets[name];
    return (
      name !== picked &&
      !hidden.has(name) &&
      sheet !== undefined &&
      expectedHeaderHits(sheet, expected, scanRows) > 0
    );
  });
  return read === undefined ? undefined : { cover: picked, read };
}

function readWorkbookRows(path: string, format: SheetFormat, options: ReadOptions): WorkbookRead {
  const bytes = readFileSync(path);
  const actual = checkWorkbookBytes(bytes, path, format, options);
  const scanRows = options.headerScanRows ?? defaultReadLimits.headerScanRows;
  const maxRows = options.maxRows ?? defaultReadLimits.maxRows;
  const rowCap = maxRows + scanRows + 1;
  // One row past the cap is read, so a sheet over it is told apart from one that fills it.
  const workbook = readWorkbook(bytes, path, rowCap + 1);

  const picked = pickSheet(workbook, options.sheetName);
  const { skippedHidden } = picked;
  const passedOver =
    options.sheetName === undefined ? sheetWithColumns(workbook, picked.name, options) : undefined;
  const sheetName = passedOver?.read ?? picked.name;
  const sheet = sheetName === undefined ? undefined : workbook.Sheets[sheetName];
  if (sheetName === undefined || !sheet) {
    throw new PlmFileError(
      'sheet_not_found',
      `${path} has no sheet named '${options.sheetName ?? ''}' (sheets: ${workbook.SheetNames.join(', ')}).`,
    );
  }
  const hidden = takeHiddenRows(workbook, sheetName);
  const filled = cellRange(sheet);
  if (!filled) throw new PlmFileError('empty_file', `${path}: sheet '${sheetName}' has no cells.`);
  if (filled.e.r >= rowCap) {
    throw new PlmFileError(
      'too_many_rows',
      `${path}: sheet '${sheetName}' has more than ${count(rowCap)} rows, over the ${count(maxRows)}-row limit. Split it and re-run.`,
    );
  }
  const data = (sheet['!data'] ?? []) as XLSX.CellObject[][];
  const warnings: string[] = skippedHidden.length > 0 ? [hiddenSheetsWarning(skippedHidden, sheetName)] : [];
  if (passedOver)
    warnings.push(
      `sheet '${passedOver.cover}' has none of the columns ${options.profileName === undefined ? 'the mapping' : `profile '${options.profileName}'`} reads; read sheet '${passedOver.read}', the first that has them`,
    );
  fillMergesDown(data, sheet['!merges'] ?? [], 0, warnings);
  // A merge may reach rows below the last cell.
  const range = cellRange(sheet) ?? filled;

  const width = range.e.c + 1;
  const rowValues = (r: number, columns = width): { values: CellValue[]; errors?: Map<number, string> } => {
    const cells = data[r];
    const values: CellValue[] = new Array<CellValue>(columns).fill(null);
    let errors: Map<number, string> | undefined;
    if (!cells) return { values };
    for (let c = range.s.c; c < columns; c++) {
      const { value, error } = cellValue(cells[c]);
      values[c] = value;
      if (error !== undefined) (errors ??= new Map()).set(c, error);
    }
    return errors ? { values, errors } : { values };
  };

  const scanEnd = Math.min(range.e.r, range.s.r + scanRows - 1);
  const scanned: CellValue[][] = [];
  for (let r = range.s.r; r <= scanEnd; r++)
    scanned.push(
      rowValues(r).values.map((value) => (typeof value === 'string' ? value.trim() || null : value)),
    );
  const headerIndex = findHeaderRow(scanned, options.expectedHeaders);
  if (headerIndex < 0) throw noHeaderError(path, scanned.length);
  const headerRow = range.s.r + headerIndex;
  const named = buildHeaders(scanned[headerIndex] ?? [], headerRow + 1);
  const restore = isRejectsHeader(scanned[headerIndex] ?? []) ? restoreRejectsCell : undefined;
  // Data rows are read up to the last named column only: a styled blank cell in column XFD widens the sheet to
  // 16,384 columns, and reading each row that wide made a 1 MB file outlast the read limit.
  const dataWidth = named.reduce<number>((last, name, c) => (name === null ? last : c + 1), 0);
  const headers = named.slice(0, dataWidth);
  const rows: SheetRow[] = [];
  const hiddenRead = new HiddenRowsSeen();
  let blankFormula: BlankFormulaCell | undefined;
  for (let r = headerRow + 1; r <= range.e.r; r++) {
    const cells = data[r];
    if (blankFormula === undefined && cells) {
      for (let c = 0; c < Math.min(cells.length, dataWidth); c++) {
        const cell = cells[c];
        if (cell?.f === undefined || !isBlankFormula(cell)) continue;
        blankFormula = { cell: `${columnLetter(c)}${r + 1}`, formula: cell.f };
        break;
      }
    }
    const { values, errors } = rowValues(r, dataWidth);
    values.forEach((value, c) => {
      if (typeof value === 'string' && value.length > inputLimits.cellChars)
        checkCellLength(value, r + 1, headers[c] ?? `column ${columnLetter(c)}`);
    });
    const row = toSheetRow(r + 1, values, headers, errors, restore);
    data[r] = [];
    if (!row) continue;
    if (hidden.has(r + 1)) hiddenRead.add(r + 1);
    rows.push(row);
  }
  if (hiddenRead.count > 0) warnings.push(hiddenRowsWarning(hiddenRead, sheetName, 'imported'));
  return {
    format: actual,
    sheetName,
    ignoredSheets: workbook.SheetNames.filter((name) => name !== sheetName),
    headerRowNumber: headerRow + 1,
    headers: headers.filter((header): header is string => header !== null),
    warnings,
    date1904: usesDate1904(workbook),
    rows,
    ...(rows.length === 0 && blankFormula !== undefined ? { blankFormula } : {}),
  };
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const ZIP64_MARKER = 0xffffffff;

export interface ZipEntrySummary {
  name: string;
  compressedBytes: number;
  expandedBytes: number;
}

/**
 * The entries a zip's central directory declares, read without inflating anything. Lets the reader
 * refuse a zip bomb before SheetJS expands it. Zip64 archives (entries over 4 GiB) are refused.
 */
export function zipEntries(bytes: Buffer, path: string): ZipEntrySummary[] {
  const searchFrom = Math.max(0, bytes.length - 22 - 0xffff);
  let end = -1;
  for (let at = bytes.length - 22; at >= searchFrom; at--) {
    if (bytes.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) {
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} is not a readable xlsx workbook: its zip directory is missing (truncated or damaged file).`,
    );
  }
  const count = bytes.readUInt16LE(end + 10);
  const directoryOffset = bytes.readUInt32LE(end + 16);
  if (directoryOffset === ZIP64_MARKER || count === 0xffff) {
    throw new PlmFileError(
      'expanded_too_large',
      `${path} is a zip64 archive; a product export never needs one. Re-save it from Excel.`,
    );
  }
  const entries: ZipEntrySummary[] = [];
  let at = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY) {
      throw new PlmFileError(
        'not_a_spreadsheet',
        `${path} is not a readable xlsx workbook: its zip directory is damaged.`,
      );
    }
    const compressedBytes = bytes.readUInt32LE(at + 20);
    const expandedBytes = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    if (expandedBytes === ZIP64_MARKER || compressedBytes === ZIP64_MARKER) {
      throw new PlmFileError('expanded_too_large', `${path}: zip entry ${name} is over 4 GiB when expanded.`);
    }
    entries.push({ name, compressedBytes, expandedBytes });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Refuses a workbook that is not an xlsx package or would expand past `maxExpandedBytes`. */
export function checkXlsxPackage(bytes: Buffer, path: string, maxExpandedBytes: number): void {
  const entries = zipEntries(bytes, path);
  if (!entries.some((entry) => /^xl\/workbook\.(xml|bin)$/i.test(entry.name))) {
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} is a zip archive but not an Excel workbook (no xl/workbook.xml inside). Export the sheet as xlsx or csv.`,
    );
  }
  const expanded = entries.reduce((total, entry) => total + entry.expandedBytes, 0);
  if (expanded > maxExpandedBytes) {
    const biggest = [...entries].sort((a, b) => b.expandedBytes - a.expandedBytes)[0];
    throw new PlmFileError(
      'expanded_too_large',
      `${path} is ${bytes.length} bytes on disk but expands to ${expanded} bytes (largest part ${biggest?.name ?? '?'}: ` +
        `${biggest?.expandedBytes ?? 0} bytes), over the ${maxExpandedBytes}-byte limit. It may be a zip bomb; ` +
        `if it is a real export, split it or raise maxExpandedBytes.`,
    );
  }
}
