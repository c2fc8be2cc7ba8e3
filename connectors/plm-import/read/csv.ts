import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import Papa from 'papaparse';
import { csvRecords, quotedCellIndex, type CsvRecord } from '../../csv-records';
import {
  checkCellLength,
  count,
  inputLimits,
  restoreRejectsCell,
  scanTextFile,
  unbalancedQuoteMessage,
} from '../../input-limits';
import { PlmFileError } from '../issues';
import {
  asPlmFileError,
  buildHeaders,
  cleanCell,
  columnLetter,
  csvDelimiters,
  defaultReadLimits,
  findHeaderRow,
  isRejectsHeader,
  noHeaderError,
  toSheetRow,
  type CsvDelimiter,
  type OpenedSheet,
  type ReadOptions,
  type SheetRow,
} from './sheet';

// ---- encoding: UTF-8 checked by bytes, windows-1252 as the fallback ----

/**
 * Index of the first byte that cannot start or continue a valid UTF-8 sequence, or -1.
 * A sequence cut off by the end of `bytes` is reported through `incompleteFrom` instead.
 */
export function firstInvalidUtf8(bytes: Uint8Array): { invalidAt: number; incompleteFrom: number } {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] ?? 0;
    let length: number;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) length = 3;
    else if (lead >= 0xf0 && lead <= 0xf4) length = 4;
    else return { invalidAt: index, incompleteFrom: -1 };
    if (index + length > bytes.length) {
      for (let k = index + 1; k < bytes.length; k++) {
        if (((bytes[k] ?? 0) & 0xc0) !== 0x80) return { invalidAt: index, incompleteFrom: -1 };
      }
      return { invalidAt: -1, incompleteFrom: index };
    }
    for (let k = 1; k < length; k++) {
      if (((bytes[index + k] ?? 0) & 0xc0) !== 0x80) return { invalidAt: index, incompleteFrom: -1 };
    }
    index += length;
  }
  return { invalidAt: -1, incompleteFrom: -1 };
}

/** Where a file stops being UTF-8: null when all of it is valid, else the byte offset and 1-based line. */
export async function findNonUtf8(path: string): Promise<{ offset: number; line: number } | null> {
  let carry: Buffer = Buffer.alloc(0);
  let consumed = 0;
  let lines = 1;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let checkedUpTo = bytes.length;
    if (!isUtf8(bytes)) {
      const { invalidAt, incompleteFrom } = firstInvalidUtf8(bytes);
      if (invalidAt >= 0) {
        return { offset: consumed + invalidAt, line: lines + countNewlines(bytes, invalidAt) };
      }
      checkedUpTo = incompleteFrom >= 0 ? incompleteFrom : bytes.length;
    }
    lines += countNewlines(bytes, checkedUpTo);
    consumed += checkedUpTo;
    carry = bytes.subarray(checkedUpTo);
  }
  return carry.length > 0 ? { offset: consumed, line: lines } : null;
}

function countNewlines(bytes: Buffer, end: number): number {
  let count = 0;
  let at = bytes.indexOf(10);
  while (at >= 0 && at < end) {
    count++;
    at = bytes.indexOf(10, at + 1);
  }
  return count;
}

/** Decodes a byte stream to text chunks (a UTF-8 byte-order mark is dropped by TextDecoder). */
export async function* decodeStream(
  path: string,
  encoding: 'utf-8' | 'utf-16le' | 'windows-1252',
): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true });
    if (text.length > 0) yield text;
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}

// ---- the csv reader ----

const SAMPLE_BYTES = 64 * 1024;

/**
 * The delimiter that splits the sample into the most columns most consistently. A file that no
 * candidate splits is read as one column (the mapping then reports the columns it misses).
 */
export function detectDelimiter(sample: string): CsvDelimiter {
  let best: CsvDelimiter = ',';
  let bestScore = 0;
  for (const delimiter of csvDelimiters) {
    const parsed = Papa.parse<string[]>(sample, { delimiter, preview: 30, skipEmptyLines: true });
    const counts = parsed.data.map((row) => row.length);
    if (counts.length === 0) continue;
    const frequency = new Map<number, number>();
    for (const count of counts) frequency.set(count, (frequency.get(count) ?? 0) + 1);
    const [modal, times] = [...frequency.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0] ?? [1, 0];
    const score = modal < 2 ? 0 : modal * (times / counts.length);
    if (score > bestScore) {
      best = delimiter;
      bestScore = score;
    }
  }
  return best;
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SAMPLE_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function chooseEncoding(
  path: string,
  head: Buffer,
  options: ReadOptions,
  warnings: string[],
): Promise<'utf-8' | 'utf-16le' | 'windows-1252'> {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) {
    throw new PlmFileError(
      'bad_encoding',
      `${path} is UTF-16 big-endian text; save it as UTF-8 csv and re-run.`,
    );
  }
  if (head.includes(0)) {
    throw new PlmFileError(
      'not_a_spreadsheet',
      `${path} holds binary data, not csv text. Export the sheet as csv (UTF-8) or xlsx and re-run.`,
    );
  }
  const invalid = await findNonUtf8(path);
  if (invalid === null) return 'utf-8';
  const where = `line ${invalid.line} (byte ${invalid.offset})`;
  if (options.nonUtf8 === 'reject') {
    throw new PlmFileError(
      'bad_encoding',
      `${path} is not valid UTF-8 (first bad byte on ${where}). Save it as "CSV UTF-8" and re-run.`,
    );
  }
  warnings.push(
    `${path} is not valid UTF-8 (first bad byte on ${where}); it was read as windows-1252. Check accented text in the result.`,
  );
  return 'windows-1252';
}

function sampleText(head: Buffer, encoding: 'utf-8' | 'utf-16le' | 'windows-1252'): string {
  const text = new TextDecoder(encoding).decode(head);
  const lastBreak = text.lastIndexOf('\n');
  return head.length === SAMPLE_BYTES && lastBreak > 0 ? text.slice(0, lastBreak) : text;
}

/**
 * A record whose quote never closed refuses the file (the rows after it would be read into one cell), and so does a
 * cell over the length limit; above the header only quotes are checked (cells have no column names there yet).
 */
function checkRecord(record: CsvRecord, headers: ReadonlyArray<string | null>): void {
  if (record.quoteError !== undefined) {
    const index = quotedCellIndex(record.values);
    throw new PlmFileError(
      'unbalanced_quote',
      unbalancedQuoteMessage(record.rowNumber, headers[index] ?? undefined, record.values[index] ?? ''),
    );
  }
  record.values.forEach((value, index) => {
    if (value.length > inputLimits.cellChars)
      checkCellLength(value, record.rowNumber, headers[index] ?? `column ${columnLetter(index)}`);
  });
}

export async function openCsv(path: string, size: number, options: ReadOptions): Promise<OpenedSheet> {
  try {
    return await openCsvChecked(path, size, options);
  } catch (error) {
    throw asPlmFileError(error, path);
  }
}

async function openCsvChecked(path: string, size: number, options: ReadOptions): Promise<OpenedSheet> {
  const maxBytes = options.maxFileBytes ?? defaultReadLimits.csvMaxFileBytes;
  if (size > maxBytes) {
    throw new PlmFileError(
      'file_too_large',
      `${path} is ${count(size)} bytes, over the limit of ${count(maxBytes)} bytes for csv. Split the file or raise maxFileBytes.`,
    );
  }
  // Size, NUL bytes, line lengths and line count, in one native pass before any parsing.
  await scanTextFile(
    path,
    {
      ...inputLimits,
      textFileBytes: maxBytes,
      dataRows: Math.max(options.maxRows ?? 0, inputLimits.dataRows),
    },
    'csv file',
  );
  const warnings: string[] = [];
  const head = await readHead(path);
  const encoding = await chooseEncoding(path, head, options, warnings);
  const delimiter = options.delimiter ?? detectDelimiter(sampleText(head, encoding));
  const scanRows = options.headerScanRows ?? defaultReadLimits.headerScanRows;
  const maxRows = options.maxRows ?? defaultReadLimits.maxRows;

  const iterator = csvRecords(decodeStream(path, encoding), delimiter);
  const scanned: CsvRecord[] = [];
  while (scanned.length < scanRows) {
    const next = await iterator.next();
    if (next.done) break;
    // The header is not chosen yet: a quote error names its column after the first non-blank record, the likely header.
    const likelyHeader = scanned.find((record) => record.values.some((value) => value.trim() !== ''));
    if (next.value.quoteError !== undefined)
      checkRecord(next.value, likelyHeader?.values.map((value) => value.trim()) ?? []);
    scanned.push(next.value);
  }
  const headerIndex = findHeaderRow(
    scanned.map((record) => record.values.map((value) => cleanCell(value))),
    options.expectedHeaders,
  );
  if (headerIndex < 0) {
    await iterator.return(undefined);
    if (scanned.every((record) => record.values.every((value) => cleanCell(value) === null))) {
      throw new PlmFileError('empty_file', `${path} has no rows: it is empty or holds only blank lines.`);
    }
    throw noHeaderError(path, scanned.length);
  }
  const headerRecord = scanned[headerIndex] ?? { rowNumber: 1, values: [] };
  const headers = buildHeaders(headerRecord.values, headerRecord.rowNumber);
  checkRecord(headerRecord, headers);
  const restore = isRejectsHeader(headerRecord.values) ? restoreRejectsCell : undefined;
  const buffered = scanned.slice(headerIndex + 1);
  let started = false;

  async function* rows(): AsyncGenerator<SheetRow> {
    if (started) throw new Error('rows() of an opened csv can be iterated only once; open the file again');
    started = true;
    let dataRows = 0;
    const emit = (record: CsvRecord): SheetRow | null => {
      checkRecord(record, headers);
      const row = toSheetRow(record.rowNumber, record.values, headers, undefined, restore);
      if (row && ++dataRows > maxRows) {
        throw new PlmFileError(
          'too_many_rows',
          `${path} has more than ${count(maxRows)} data rows (the limit). Split the file and re-run.`,
        );
      }
      return row;
    };
    try {
      for (const record of buffered) {
        const row = emit(record);
        if (row) yield row;
      }
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        const row = emit(next.value);
        if (row) yield row;
      }
    } catch (error) {
      throw asPlmFileError(error, path);
    } finally {
      await iterator.return(undefined);
    }
  }

  return {
    path,
    format: 'csv',
    delimiter,
    encoding,
    sheetName: null,
    ignoredSheets: [],
    headerRowNumber: headerRecord.rowNumber,
    headers: headers.filter((header): header is string => header !== null),
    warnings,
    rows,
  };
}
