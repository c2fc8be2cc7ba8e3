import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { PlmFileError } from '../issues';
import { decodeStream, findNonUtf8 } from './encoding';
import { buildHeaders, cleanCell, findHeaderRow, noHeaderError, toSheetRow } from './header';
import {
  csvDelimiters,
  defaultReadLimits,
  type CsvDelimiter,
  type OpenedSheet,
  type ReadOptions,
  type SheetRow,
} from './types';

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
 * Records (arrays of raw field text) with their 1-based record numbers, parsed as the bytes stream in.
 * Papaparse hands over batches of records; the parser pauses while a few batches wait, so memory stays flat.
 */
async function* records(
  path: string,
  encoding: 'utf-8' | 'utf-16le' | 'windows-1252',
  delimiter: CsvDelimiter,
): AsyncGenerator<{ rowNumber: number; values: string[] }> {
  const source = Readable.from(decodeStream(path, encoding));
  const batches: string[][][] = [];
  let finished = false;
  let failure: unknown = null;
  let parser: Papa.Parser | null = null;
  let paused = false;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  Papa.parse<string[]>(source, {
    delimiter,
    skipEmptyLines: false,
    chunk: (results, chunkParser) => {
      batches.push(results.data);
      parser = chunkParser;
      if (batches.length >= 4 && !paused) {
        paused = true;
        chunkParser.pause();
      }
      notify();
    },
    complete: () => {
      finished = true;
      notify();
    },
    error: (error: unknown) => {
      failure = error;
      finished = true;
      notify();
    },
  });
  source.on('error', (error) => {
    failure = error;
    finished = true;
    notify();
  });
  let rowNumber = 0;
  try {
    for (;;) {
      const batch = batches.shift();
      if (batch) {
        if (paused && batches.length < 2) {
          paused = false;
          (parser as Papa.Parser | null)?.resume();
        }
        for (const values of batch) yield { rowNumber: ++rowNumber, values };
        continue;
      }
      if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
      if (finished) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    if (!finished) (parser as Papa.Parser | null)?.abort();
    source.destroy();
  }
}

export async function openCsv(path: string, size: number, options: ReadOptions): Promise<OpenedSheet> {
  const maxBytes = options.maxFileBytes ?? defaultReadLimits.csvMaxFileBytes;
  if (size > maxBytes) {
    throw new PlmFileError(
      'file_too_large',
      `${path} is ${size} bytes, over the ${maxBytes}-byte limit for csv. Split the file or raise maxFileBytes.`,
    );
  }
  const warnings: string[] = [];
  const head = await readHead(path);
  const encoding = await chooseEncoding(path, head, options, warnings);
  const delimiter = options.delimiter ?? detectDelimiter(sampleText(head, encoding));
  const scanRows = options.headerScanRows ?? defaultReadLimits.headerScanRows;
  const maxRows = options.maxRows ?? defaultReadLimits.maxRows;

  const iterator = records(path, encoding, delimiter);
  const scanned: Array<{ rowNumber: number; values: string[] }> = [];
  while (scanned.length < scanRows) {
    const next = await iterator.next();
    if (next.done) break;
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
  const buffered = scanned.slice(headerIndex + 1);
  let started = false;

  async function* rows(): AsyncGenerator<SheetRow> {
    if (started) throw new Error('rows() of an opened csv can be iterated only once; open the file again');
    started = true;
    let count = 0;
    const emit = (record: { rowNumber: number; values: string[] }): SheetRow | null => {
      const row = toSheetRow(record.rowNumber, record.values, headers);
      if (row && ++count > maxRows) {
        throw new PlmFileError(
          'too_many_rows',
          `${path} has more than ${maxRows} data rows. Split the file and re-run.`,
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
