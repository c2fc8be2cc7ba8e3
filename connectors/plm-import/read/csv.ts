import Papa from 'papaparse';
import { openCsvText, type CsvEncoding, type CsvText } from '../../csv-encoding';
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

// ---- the csv reader ----

const SAMPLE_CHARS = 64 * 1024;

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

/** The encoding decided over the whole file (shared with the ERP push); the import's own choice for non-UTF-8. */
function checkEncoding(path: string, csv: CsvText, options: ReadOptions, warnings: string[]): CsvEncoding {
  const invalid = csv.decision.firstNonUtf8;
  if (invalid === null) return csv.decision.encoding;
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
  return csv.decision.encoding;
}

/** The first `SAMPLE_CHARS` characters, cut at the last line end so no partial row skews the delimiter guess. */
function sampleText(head: string): string {
  if (head.length <= SAMPLE_CHARS) return head;
  const sample = head.slice(0, SAMPLE_CHARS);
  const lastBreak = sample.lastIndexOf('\n');
  return lastBreak > 0 ? sample.slice(0, lastBreak) : sample;
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
  const csv = await openCsvText({ path }, SAMPLE_CHARS);
  const encoding = checkEncoding(path, csv, options, warnings);
  const named = csvDelimiters.find((candidate) => candidate === csv.sepDelimiter);
  const delimiter = options.delimiter ?? named ?? detectDelimiter(sampleText(csv.head));
  const scanRows = options.headerScanRows ?? defaultReadLimits.headerScanRows;
  const maxRows = options.maxRows ?? defaultReadLimits.maxRows;

  const iterator = csvRecords(csv.text, delimiter);
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
    bom: csv.decision.bom,
    ...(named !== undefined && named === delimiter ? { sepLine: true } : {}),
    sheetName: null,
    ignoredSheets: [],
    headerRowNumber: headerRecord.rowNumber,
    headers: headers.filter((header): header is string => header !== null),
    warnings,
    rows,
  };
}
