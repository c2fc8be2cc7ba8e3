import { readFile } from 'node:fs/promises';
import * as XLSX from 'xlsx';
import { PlmFileError } from '../issues';
import { buildHeaders, findHeaderRow, noHeaderError, toSheetRow } from './header';
import {
  defaultReadLimits,
  type CellValue,
  type OpenedSheet,
  type ReadOptions,
  type SheetFormat,
  type SheetRow,
} from './types';
import { checkXlsxPackage } from './zip-guard';

const ERROR_TEXT: Record<number, string> = {
  0x00: '#NULL!',
  0x07: '#DIV/0!',
  0x0f: '#VALUE!',
  0x17: '#REF!',
  0x1d: '#NAME?',
  0x24: '#NUM!',
  0x2a: '#N/A',
  0x2b: '#GETTING_DATA',
};
/** A merge wider than this is not copied into every cell it covers (a sheet-sized merge would blow memory up). */
const MAX_MERGE_CELLS = 10_000;

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
  switch (cell.t) {
    case 'e':
      return { value: null, error: ERROR_TEXT[Number(cell.v)] ?? '#ERROR' };
    case 'd':
      return { value: cell.v instanceof Date ? isoDate(cell.v) : String(cell.v) };
    case 'n':
    case 's':
    case 'b':
      return { value: cell.v as CellValue };
    default:
      return { value: null };
  }
}

/** Copies each merged range's top-left value into every cell it covers, so a merged style name reaches each SKU row. */
function fillMerges(data: XLSX.CellObject[][], merges: XLSX.Range[], warnings: string[]): void {
  for (const merge of merges) {
    const area = (merge.e.r - merge.s.r + 1) * (merge.e.c - merge.s.c + 1);
    const source = data[merge.s.r]?.[merge.s.c];
    if (!source || area <= 1) continue;
    if (area > MAX_MERGE_CELLS) {
      warnings.push(
        `merged range ${XLSX.utils.encode_range(merge)} covers ${area} cells; only its first cell was read`,
      );
      continue;
    }
    for (let r = merge.s.r; r <= merge.e.r; r++) {
      const row = (data[r] ??= []);
      for (let c = merge.s.c; c <= merge.e.c; c++) row[c] ??= source;
    }
  }
}

function readWorkbook(bytes: Buffer, path: string, rowCap: number): XLSX.WorkBook {
  try {
    return XLSX.read(bytes, {
      type: 'buffer',
      dense: true,
      cellDates: true,
      cellFormula: false,
      cellHTML: false,
      cellNF: false,
      cellStyles: false,
      cellText: false,
      sheetRows: rowCap,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} could not be read as a workbook (${reason}). Re-save it from Excel as xlsx.`,
    );
  }
}

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
      `${path} is ${size} bytes, over the ${maxBytes}-byte limit for ${format}. Split the workbook, export it as csv, or raise maxFileBytes.`,
    );
  }
  const bytes = await readFile(path);
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
  const scanRows = options.headerScanRows ?? defaultReadLimits.headerScanRows;
  const maxRows = options.maxRows ?? defaultReadLimits.maxRows;
  const workbook = readWorkbook(bytes, path, maxRows + scanRows + 1);

  const sheetName =
    options.sheetName ??
    workbook.SheetNames.find((name) => workbook.Sheets[name]?.['!ref']) ??
    workbook.SheetNames[0];
  const sheet = sheetName === undefined ? undefined : workbook.Sheets[sheetName];
  if (sheetName === undefined || !sheet) {
    throw new PlmFileError(
      'sheet_not_found',
      `${path} has no sheet named '${options.sheetName ?? ''}' (sheets: ${workbook.SheetNames.join(', ')}).`,
    );
  }
  const fullRef = (sheet['!fullref'] as string | undefined) ?? sheet['!ref'];
  if (!sheet['!ref'] || !fullRef)
    throw new PlmFileError('empty_file', `${path}: sheet '${sheetName}' has no cells.`);
  const full = XLSX.utils.decode_range(fullRef);
  if (full.e.r - full.s.r + 1 > maxRows + scanRows + 1) {
    throw new PlmFileError(
      'too_many_rows',
      `${path}: sheet '${sheetName}' has ${full.e.r + 1} rows, over the ${maxRows}-row limit. Split it and re-run.`,
    );
  }
  const range = XLSX.utils.decode_range(sheet['!ref']);
  const data = (sheet['!data'] ?? []) as XLSX.CellObject[][];
  const warnings: string[] = [];
  fillMerges(data, sheet['!merges'] ?? [], warnings);

  const width = range.e.c + 1;
  const rowValues = (r: number): { values: CellValue[]; errors?: Map<number, string> } => {
    const cells = data[r];
    const values: CellValue[] = new Array<CellValue>(width).fill(null);
    let errors: Map<number, string> | undefined;
    if (!cells) return { values };
    for (let c = range.s.c; c < width; c++) {
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
  const headers = buildHeaders(scanned[headerIndex] ?? [], headerRow + 1);
  let started = false;

  async function* rows(): AsyncGenerator<SheetRow> {
    if (started)
      throw new Error('rows() of an opened workbook can be iterated only once; open the file again');
    started = true;
    for (let r = headerRow + 1; r <= range.e.r; r++) {
      const { values, errors } = rowValues(r);
      const row = toSheetRow(r + 1, values, headers, errors);
      data[r] = [];
      if (row) yield row;
    }
  }

  return {
    path,
    format: actual,
    delimiter: null,
    encoding: null,
    sheetName,
    ignoredSheets: workbook.SheetNames.filter((name) => name !== sheetName),
    headerRowNumber: headerRow + 1,
    headers: headers.filter((header): header is string => header !== null),
    warnings,
    rows,
  };
}
