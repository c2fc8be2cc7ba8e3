import Papa from 'papaparse';
import * as XLSX from 'xlsx';
import { encodeText } from '../csv-encoding';
import { boundMessage, neutraliseRejectsCell } from '../input-limits';
import type { CellValue, ExportFormat, ExportTable, SourceRow } from './read/types';

export const ERROR_CODE_COLUMN = 'error_code';
export const ERROR_MESSAGE_COLUMN = 'error_message';

export interface RejectsFile {
  /** csv stays csv, xlsx stays xlsx, json and ndjson become ndjson. */
  format: Exclude<ExportFormat, 'json'>;
  extension: string;
  content: Buffer;
  rowCount: number;
}

/**
 * What a rejects file needs of a rejected order: an `OrderRejection` from reading the export, or a refusal the API
 * gave later (its codes, such as `style_not_found`, are not rejection codes of the reader).
 */
export interface RejectedOrder {
  rows: readonly number[];
  code: string;
  message: string;
  problems: ReadonlyArray<{ code: string; message: string; row?: number | undefined }>;
}

interface RejectedRow {
  source: SourceRow;
  code: string;
  message: string;
}

/**
 * Every row of every rejected order, in file order, with the error that concerns it: the row's own problems when it
 * has some, else the order's (a conflict, an unknown company...). A whole order goes back, so a fixed file can be
 * re-run as it is, even with a complete-export profile.
 */
export function rejectedRows(table: ExportTable, rejections: readonly RejectedOrder[]): RejectedRow[] {
  const byRow = new Map<number, RejectedRow>();
  for (const rejection of rejections) {
    const problemsByRow = new Map<number, Array<{ code: string; message: string }>>();
    for (const problem of rejection.problems) {
      if (problem.row === undefined) continue;
      const problems = problemsByRow.get(problem.row);
      if (problems === undefined) problemsByRow.set(problem.row, [problem]);
      else problems.push(problem);
    }
    for (const row of rejection.rows) {
      const own = problemsByRow.get(row) ?? [];
      byRow.set(row, {
        source: { row, values: {} },
        code: own[0]?.code ?? rejection.code,
        message: own.length > 0 ? own.map((problem) => problem.message).join('; ') : rejection.message,
      });
    }
  }
  const rows: RejectedRow[] = [];
  for (const source of table.rows) {
    const rejected = byRow.get(source.row);
    if (rejected) rows.push({ ...rejected, source });
  }
  return rows;
}

/** The input's columns plus the two error columns (replacing those of a rejects file fed back in). */
function rejectsColumns(table: ExportTable): string[] {
  return [
    ...table.columns.filter((column) => column !== ERROR_CODE_COLUMN && column !== ERROR_MESSAGE_COLUMN),
    ERROR_CODE_COLUMN,
    ERROR_MESSAGE_COLUMN,
  ];
}

function textOf(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  return Array.isArray(value) ? value.join(',') : String(value);
}

/**
 * Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets an apostrophe in front, so the
 * rejects file is safe to open; the readers take it off again when a fixed rejects file comes back (`retry`).
 */
function safeText(value: CellValue | undefined): string {
  return neutraliseRejectsCell(textOf(value));
}

function rejectsCsv(table: ExportTable, rows: readonly RejectedRow[]): Buffer {
  const columns = rejectsColumns(table);
  const data = rows.map((row) =>
    columns.map((column) =>
      column === ERROR_CODE_COLUMN
        ? safeText(row.code)
        : column === ERROR_MESSAGE_COLUMN
          ? safeText(boundMessage(row.message))
          : safeText(row.source.values[column]),
    ),
  );
  // Written as the input was (delimiter, encoding, line endings), so the fixed file reads back the same way.
  const dialect = table.csvDialect ?? { delimiter: ',', encoding: 'utf-8', newline: '\r\n', bom: true };
  const text =
    Papa.unparse({ fields: columns, data }, { delimiter: dialect.delimiter, newline: dialect.newline }) +
    dialect.newline;
  return encodeText(
    (dialect.sepLine ? `sep=${dialect.delimiter}${dialect.newline}` : '') + text,
    dialect.encoding,
    dialect.bom,
  );
}

function rejectsXlsx(table: ExportTable, rows: readonly RejectedRow[]): Buffer {
  const columns = rejectsColumns(table);
  const sheet = XLSX.utils.aoa_to_sheet([columns]);
  rows.forEach((row, index) => {
    columns.forEach((column, c) => {
      const value =
        column === ERROR_CODE_COLUMN
          ? row.code
          : column === ERROR_MESSAGE_COLUMN
            ? boundMessage(row.message)
            : row.source.values[column];
      if (value === null || value === undefined) return;
      const address = XLSX.utils.encode_cell({ r: index + 1, c });
      const cell: XLSX.CellObject =
        typeof value === 'number'
          ? { t: 'n', v: value }
          : typeof value === 'boolean'
            ? { t: 'b', v: value }
            : { t: 's', v: safeText(value) };
      const format = row.source.formats?.[column];
      if (format !== undefined && cell.t === 'n') cell.z = format;
      sheet[address] = cell;
    });
  });
  sheet['!ref'] = XLSX.utils.encode_range({
    s: { r: 0, c: 0 },
    e: { r: rows.length, c: columns.length - 1 },
  });
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, (table.sheetName ?? 'Rejects').slice(0, 31));
  // Date serials are written as read: they show the same dates only in the input's date system.
  if (table.date1904 === true) book.Workbook = { ...book.Workbook, WBProps: { date1904: true } };
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}

function rejectsNdjson(rows: readonly RejectedRow[]): Buffer {
  const lines = rows.map((row) => {
    const { [ERROR_CODE_COLUMN]: _code, [ERROR_MESSAGE_COLUMN]: _message, ...values } = row.source.values;
    const original: Record<string, unknown> =
      row.source.rawText !== undefined && Object.keys(values).length === 0
        ? { _raw: row.source.rawText }
        : values;
    const line: Record<string, unknown> = {
      ...original,
      [ERROR_CODE_COLUMN]: row.code,
      [ERROR_MESSAGE_COLUMN]: row.message,
    };
    const written = row.source.numberTexts;
    if (written === undefined) return JSON.stringify(line);
    // Numbers as the export wrote them (JSON.stringify would print 9007199254740993 as ...992).
    const members = Object.entries(line)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => {
        const text =
          typeof value === 'number' && Object.hasOwn(written, key) ? written[key] : JSON.stringify(value);
        return `${JSON.stringify(key)}:${text}`;
      });
    return `{${members.join(',')}}`;
  });
  return Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
}

/** The rejects file for an export: bad orders' rows in the input's own format, ready to fix and feed back. */
export function writeRejects(table: ExportTable, rejections: readonly RejectedOrder[]): RejectsFile {
  const rows = rejectedRows(table, rejections);
  switch (table.format) {
    case 'csv':
      return { format: 'csv', extension: '.csv', content: rejectsCsv(table, rows), rowCount: rows.length };
    case 'xlsx':
      return { format: 'xlsx', extension: '.xlsx', content: rejectsXlsx(table, rows), rowCount: rows.length };
    case 'json':
    case 'ndjson':
      return { format: 'ndjson', extension: '.ndjson', content: rejectsNdjson(rows), rowCount: rows.length };
  }
}
