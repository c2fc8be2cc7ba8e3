import { createWriteStream } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import * as XLSX from 'xlsx';
import { encodeText } from '../csv-encoding';
import { boundMessage, neutraliseRejectsCell } from '../input-limits';
import { groupIssues, type RowIssue } from './issues';
import { continuationFiller } from './profiles/continuation';
import type { MappingProfile } from './profiles/schema';
import { profileColumns } from './profiles/parse-sheet';
import { openSheet } from './read/open-sheet';
import {
  rejectColumns,
  type CellValue,
  type ReadOptions,
  type SheetFormat,
  type SheetRow,
} from './read/sheet';

/** A row issue, or a reason found later with a code of its own (an API error code such as `codes_not_unique`). */
export type RejectReason = Omit<RowIssue, 'code'> & { code: string };

export interface RejectsOptions {
  /** The sheet that was imported; its bad rows are read again from it, so they need not be kept in memory. */
  sourcePath: string;
  issues: readonly RejectReason[];
  /** Default: beside the source, `<name>.rejects.<ext>`. */
  outputPath?: string;
  /** The profile of the import: finds the same header row and completes flat continuation rows. */
  profile?: MappingProfile;
  /** The read options of the import (sheet name, delimiter). */
  read?: ReadOptions;
}

export interface RejectsFile {
  path: string;
  format: SheetFormat;
  rows: number;
}

export function defaultRejectsPath(sourcePath: string): string {
  const extension = extname(sourcePath);
  return join(dirname(sourcePath), `${basename(sourcePath, extension)}.rejects${extension || '.csv'}`);
}

/** One line per row: distinct codes joined by ';', messages joined by ' | ', bounded. */
function describe(issues: readonly RejectReason[]): { code: string; message: string } {
  const code = [...new Set(issues.map((issue) => issue.code))].join(';');
  const message = boundMessage([...new Set(issues.map((issue) => issue.message))].join(' | '));
  return { code, message };
}

/**
 * Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets an apostrophe in front, so the
 * rejects file is safe to open; the reader takes it off again when a fixed rejects file comes back (`retry`).
 */
function safeCell(value: CellValue): CellValue {
  return typeof value === 'string' ? neutraliseRejectsCell(value) : value;
}

function csvField(value: CellValue, delimiter: string): string {
  if (value === null) return '';
  const text = String(value);
  const needsQuotes = text.includes(delimiter) || /["\r\n]/.test(text) || text !== text.trim();
  return needsQuotes ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Writes the rows that have issues in the sheet's own format (csv with the same delimiter and encoding, xlsx or
 * xls), with the original columns plus error_code and error_message. Reading that file again ignores
 * the two extra columns, so a fixed rejects file can be imported as it is.
 */
export async function writeRejects(options: RejectsOptions): Promise<RejectsFile> {
  const byRow = groupIssues(options.issues, (issue) => issue.rowNumber);
  const sheet = await openSheet(options.sourcePath, {
    ...(options.profile ? { expectedHeaders: profileColumns(options.profile) } : {}),
    ...options.read,
  });
  const outputPath = options.outputPath ?? defaultRejectsPath(options.sourcePath);
  const header = [...sheet.headers, ...rejectColumns];
  // A flat continuation row gets its style's and colour's cells back, so it stands on its own when re-run.
  const complete = options.profile
    ? continuationFiller(options.profile, sheet.headers)
    : (row: SheetRow) => row;
  const selected = async function* (): AsyncGenerator<CellValue[]> {
    for await (const sourceRow of sheet.rows()) {
      const row = complete(sourceRow);
      const issues = byRow.get(row.rowNumber);
      if (!issues) continue;
      const { code, message } = describe(issues);
      // An error cell is written blank: its text (#N/A) read back would look like a real value.
      yield [...sheet.headers.map((name) => row.cells[name] ?? null), code, message].map(safeCell);
    }
  };

  let count = 0;
  if (sheet.format === 'csv') {
    // In the input's encoding and delimiter (its `sep=` line kept), as the ERP push writes its rejects, so the fixed
    // file reads back as the input did. UTF-8 gets a byte-order mark, without which Excel misreads accents, unless
    // a `sep=` line came without one (Excel ignores that line after a byte-order mark).
    const delimiter = sheet.delimiter ?? ',';
    const encoding = sheet.encoding ?? 'utf-8';
    const sepLine = sheet.sepLine === true;
    const bom = sheet.bom === true || !sepLine;
    const line = (cells: readonly CellValue[]): Buffer =>
      encodeText(cells.map((value) => csvField(value, delimiter)).join(delimiter) + '\r\n', encoding, false);
    const out = createWriteStream(outputPath);
    out.write(encodeText(sepLine ? `sep=${delimiter}\r\n` : '', encoding, bom));
    out.write(line(header));
    for await (const values of selected()) {
      count++;
      if (!out.write(line(values))) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    out.end();
    await finished(out);
  } else {
    const rows: CellValue[][] = [header];
    for await (const values of selected()) rows.push(values);
    count = rows.length - 1;
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet(rows),
      (sheet.sheetName ?? 'Rejects').slice(0, 31),
    );
    // Serial numbers copied from a 1904-date-system workbook keep their meaning only in that system.
    if (sheet.date1904 === true) book.Workbook = { ...book.Workbook, WBProps: { date1904: true } };
    XLSX.writeFile(book, outputPath, {
      bookType: sheet.format === 'xls' ? 'biff8' : 'xlsx',
      compression: true,
    });
  }
  return { path: outputPath, format: sheet.format, rows: count };
}
