import { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { csvRecords, quotedCellIndex } from '../../csv-records';
import {
  checkCellLength,
  checkColumnCount,
  duplicateHeaders,
  duplicateHeadersMessage,
  inputLimits,
  InputLimitError,
  restoreRejectsCell,
  unbalancedQuoteMessage,
} from '../../input-limits';
import { ExportReadError, isRejectsHeader, type CsvDialect, type ExportTable, type SourceRow } from './types';

export type TextSource = Readable | string | Buffer;

function toReadable(source: TextSource): Readable {
  if (source instanceof Readable) return source;
  return Readable.from([typeof source === 'string' ? Buffer.from(source, 'utf8') : source]);
}

/**
 * Header names trimmed, BOM removed; an empty name becomes `column_N`. A name given twice (case and spaces aside) is
 * refused, as the PLM import does: guessing which of two `quantity` columns the profile means would push wrong data.
 * One pass over the names, so a header of 30,000 repeated names costs milliseconds.
 */
export function uniqueHeader(names: readonly string[], headerRow = 1): string[] {
  checkColumnCount(names.length, headerRow);
  const header = names.map((raw, index) => {
    const name = raw.replace(/^\uFEFF/, '').trim();
    return name === '' ? `column_${index + 1}` : name;
  });
  const duplicates = duplicateHeaders(header);
  if (duplicates.length > 0)
    throw new ExportReadError(duplicateHeadersMessage(duplicates, headerRow), 'duplicate_headers');
  return header;
}

function isUtf8(bytes: Buffer): boolean {
  try {
    // `stream: true` lets the chunk end inside a multi-byte character without counting as invalid.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * Text of a byte stream: UTF-8 (BOM dropped), unless the first chunk is not valid UTF-8, in which case the file
 * is taken as Windows-1252, the usual encoding of older ERP exports (so `Café` does not come out as `Caf�`).
 */
async function* decodedText(
  input: AsyncIterable<Buffer | string>,
  seen: Partial<CsvDialect> = {},
): AsyncGenerator<string> {
  let decoder: TextDecoder | undefined;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (decoder === undefined) {
      seen.encoding = isUtf8(bytes) ? 'utf-8' : 'windows-1252';
      seen.bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    }
    decoder ??= new TextDecoder(seen.encoding ?? 'utf-8');
    const text = decoder.decode(bytes, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder?.decode() ?? '';
  if (rest !== '') yield rest;
}

const DELIMITERS = [',', ';', '\t', '|'] as const;

/**
 * The delimiter the header line uses most (outside quotes), comma when none. Papaparse's own guess needs rows of
 * equal width and misfires on small files that end with a newline.
 */
export function guessDelimiter(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((delimiter) => [delimiter, 0]));
  let quoted = false;
  for (const char of text.replace(/^\uFEFF/, '')) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best = ',';
  for (const [delimiter, count] of counts) if (count > (counts.get(best) ?? 0)) best = delimiter;
  return best;
}

/** A string stream that first gives back `head`, already read to look at it, then the rest of `tail`. */
async function* rejoined(head: string, tail: AsyncIterator<string>): AsyncGenerator<string> {
  yield head;
  for (let next = await tail.next(); !next.done; next = await tail.next()) yield next.value;
}

/** Input-limit errors keep their code; the order push's file-error class carries them. */
export function asExportReadError(error: unknown): unknown {
  return error instanceof InputLimitError ? new ExportReadError(error.message, error.code) : error;
}

/**
 * Streams a csv export through papaparse: delimiter guessed from the header line (`,` `;` tab `|`),
 * UTF-8 with or without BOM (or Windows-1252, detected), quoted cells may span lines. Row numbers count records
 * (header = 1), as a spreadsheet shows them; blank records are skipped but still counted. A quote that never closes,
 * a repeated header name, too many columns or a cell over the limit refuse the file whole (`inputLimits`). A fixed
 * rejects file (it has `error_code` and `error_message`) gets its neutralised formula cells back as they were.
 */
export async function readCsv(source: TextSource): Promise<ExportTable> {
  try {
    return await readCsvRecords(source);
  } catch (error) {
    throw asExportReadError(error);
  }
}

async function readCsvRecords(source: TextSource): Promise<ExportTable> {
  const seen: Partial<CsvDialect> = {};
  const chunks = decodedText(toReadable(source), seen);
  const first = await chunks.next();
  if (first.done) throw new ExportReadError('the csv file is empty: no header row');
  const delimiter = guessDelimiter(first.value.slice(0, inputLimits.headerChars + 2));
  const newlineAt = first.value.indexOf('\n');
  const dialect: CsvDialect = {
    delimiter,
    encoding: seen.encoding ?? 'utf-8',
    newline: newlineAt > 0 && first.value[newlineAt - 1] === '\r' ? '\r\n' : '\n',
    bom: seen.bom ?? false,
  };
  let columns: string[] | undefined;
  let headerRow = 1;
  let restore = (text: string): string => text;
  const rows: SourceRow[] = [];
  for await (const record of csvRecords(rejoined(first.value, chunks), delimiter)) {
    const texts = record.values;
    if (record.quoteError !== undefined) {
      const index = quotedCellIndex(texts);
      throw new ExportReadError(
        unbalancedQuoteMessage(record.rowNumber, columns?.[index], texts[index] ?? ''),
        'unbalanced_quote',
      );
    }
    if (columns === undefined) {
      // Blank lines above the header are skipped, as the PLM import skips them.
      if (texts.every((text) => text.trim() === '')) continue;
      headerRow = record.rowNumber;
      columns = uniqueHeader(texts, record.rowNumber);
      if (isRejectsHeader(columns)) restore = restoreRejectsCell;
      continue;
    }
    if (texts.every((text) => text.trim() === '')) continue;
    const values: Record<string, string> = {};
    const header = columns;
    header.forEach((column, index) => {
      const text = texts[index] ?? '';
      checkCellLength(text, record.rowNumber, column);
      values[column] = restore(text);
    });
    const row: SourceRow = { row: record.rowNumber, values };
    if (texts.length > header.length && texts.slice(header.length).some((text) => text.trim() !== '')) {
      row.problem = `row has ${texts.length} cells but the header has ${header.length} columns`;
    }
    rows.push(row);
  }
  if (columns === undefined) throw new ExportReadError('the csv file is empty: no header row');
  return { format: 'csv', columns, rows, headerRow, csvDialect: dialect };
}
