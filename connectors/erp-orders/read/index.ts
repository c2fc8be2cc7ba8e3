import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import path, { extname } from 'node:path';
import {
  count,
  inputLimits,
  InputLimitError,
  neverCalculatedMessage,
  noDataRowsMessage,
  scanTextFile,
} from '../../input-limits';
import { runOffThread, type ThreadError } from '../../read-off-thread';
import { asExportReadError, readCsv } from './csv';
import { readJson, readNdjson } from './json';
import { ExportReadError, type ExportFormat, type ExportTable } from './types';
import { checkXlsxBytes, readXlsx } from './xlsx';

export { guessDelimiter, readCsv } from './csv';
export { readJson, readNdjson } from './json';
export { readXlsx } from './xlsx';
export * from './types';

const EXTENSIONS: Readonly<Record<string, ExportFormat>> = {
  '.csv': 'csv',
  '.txt': 'csv',
  '.tsv': 'csv',
  '.xlsx': 'xlsx',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

/** The format a file name implies, or an error naming the supported extensions. */
export function formatOfFile(fileName: string): ExportFormat {
  const format = EXTENSIONS[extname(fileName).toLowerCase()];
  if (!format) {
    throw new ExportReadError(
      `cannot tell the format of '${fileName}': use one of ${Object.keys(EXTENSIONS).join(', ')}`,
    );
  }
  return format;
}

export interface ReadOptions {
  /** Overrides the format the extension implies. */
  format?: ExportFormat;
  /** xlsx: the sheet to read, even a hidden one (default: the first visible sheet with cells). */
  sheet?: string;
  /** xlsx: refuse workbooks declaring more uncompressed bytes than this (default `MAX_XLSX_UNCOMPRESSED_BYTES`). */
  maxUncompressedBytes?: number;
  /** xlsx: called about once a second while the read thread works (the activity heartbeats). */
  onTick?: () => void;
  /** xlsx: stop the read and fail after this long (default `inputLimits.readTimeoutMs`). */
  timeoutMs?: number;
  /** csv, xlsx: the profile's column names; a repeated header refuses the file only when it is one of them. */
  mappedColumns?: readonly string[];
}

/** An error from the read thread as the order push's own class, its code kept. */
function rebuildThreadError(error: ThreadError): Error {
  const code = error.code as ExportReadError['code'] | undefined;
  return error.name === 'ExportReadError' || error.name === 'InputLimitError'
    ? new ExportReadError(error.message, code ?? 'unreadable_file')
    : new Error(error.message);
}

async function readTable(file: string, format: ExportFormat, options: ReadOptions): Promise<ExportTable> {
  if (format === 'xlsx') {
    const { size } = await stat(file);
    if (size > inputLimits.workbookFileBytes) {
      throw new InputLimitError(
        'file_too_large',
        `the workbook is ${count(size)} bytes, over the limit of ${count(inputLimits.workbookFileBytes)} bytes for xlsx. ` +
          'Split the export or save it as csv, and re-run.',
      );
    }
    checkXlsxBytes(await readFile(file), options.maxUncompressedBytes);
    // SheetJS holds its thread for seconds on a big workbook: a thread of its own keeps the worker responsive.
    return runOffThread<ExportTable>(
      path.join(__dirname, 'xlsx'),
      'readXlsxFile',
      [file, options.sheet, options.maxUncompressedBytes, options.mappedColumns],
      {
        what: 'the workbook',
        rebuild: rebuildThreadError,
        ...(options.onTick ? { onTick: options.onTick } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      },
    );
  }
  // Size, NUL bytes, line lengths and line count, in one native pass before any parsing.
  await scanTextFile(file, inputLimits, `${format} file`, format !== 'json');
  if (format === 'csv') return readCsv({ path: file }, options.mappedColumns);
  if (format === 'ndjson') return readJsonExportFile(file, format);
  // A JSON array is parsed whole, synchronously: seconds for a big export (8.6 s for 27 MB, bench/bad-input.ts), so
  // on a thread of its own, as a workbook is, and the worker's heartbeats keep going.
  return runOffThread<ExportTable>(path.join(__dirname, 'index'), 'readJsonExportFile', [file, format], {
    what: 'the JSON export',
    rebuild: rebuildThreadError,
    ...(options.onTick ? { onTick: options.onTick } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** A json or ndjson export read (what the read thread runs for a JSON array). */
export async function readJsonExportFile(file: string, format: 'json' | 'ndjson'): Promise<ExportTable> {
  // Windows PowerShell 5 writes JSON (`ConvertTo-Json | Out-File`) as UTF-16 with a byte-order mark.
  const utf16 = await utf16Text(file);
  if (utf16 !== undefined) return format === 'ndjson' ? readNdjson(utf16) : readJson(utf16);
  return format === 'ndjson' ? readNdjson(createReadStream(file)) : readJson(await readFile(file));
}

/** The text of a file that starts with a UTF-16 byte-order mark (either byte order), else undefined. */
async function utf16Text(file: string): Promise<string | undefined> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    await handle.read(head, 0, 2, 0);
    const encoding =
      head[0] === 0xff && head[1] === 0xfe
        ? 'utf-16le'
        : head[0] === 0xfe && head[1] === 0xff
          ? 'utf-16be'
          : undefined;
    if (encoding === undefined) return undefined;
    return new TextDecoder(encoding).decode(await handle.readFile());
  } finally {
    await handle.close();
  }
}

/**
 * Reads an export file, refused whole when it breaks an input limit (`inputLimits`), holds a NUL byte or has a header
 * and no rows; csv and ndjson are streamed, json arrays read whole, xlsx read by SheetJS on a thread of its own.
 */
export async function readExportFile(file: string, options: ReadOptions = {}): Promise<ExportTable> {
  const format = options.format ?? formatOfFile(file);
  let table: ExportTable;
  try {
    table = await readTable(file, format, options);
  } catch (error) {
    throw asExportReadError(error);
  }
  if (table.rows.length === 0 && table.columns.length > 0 && (format === 'csv' || format === 'xlsx')) {
    const { blankFormula, sheetName, headerRow } = table;
    throw new ExportReadError(
      blankFormula !== undefined && sheetName !== undefined && headerRow !== undefined
        ? neverCalculatedMessage(sheetName, blankFormula, headerRow, 'push')
        : noDataRowsMessage(headerRow, 'push'),
      'no_data_rows',
    );
  }
  if (table.rows.length > inputLimits.dataRows) {
    throw new ExportReadError(
      `the file has ${count(table.rows.length)} data rows, over the limit of ${count(inputLimits.dataRows)}. Split it and re-run.`,
      'too_many_rows',
    );
  }
  return table;
}

/** Reads an export already in memory (for example from the staging store). */
export async function readExportContent(
  content: Buffer | string,
  format: ExportFormat,
  sheet?: string,
): Promise<ExportTable> {
  switch (format) {
    case 'csv':
      return readCsv(content);
    case 'ndjson':
      return readNdjson(content);
    case 'xlsx':
      return readXlsx(typeof content === 'string' ? Buffer.from(content, 'binary') : content, sheet);
    case 'json':
      return readJson(content);
  }
}
