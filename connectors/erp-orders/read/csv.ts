import { Readable } from 'node:stream';
import { openCsvText, type ByteSource } from '../../csv-encoding';
import { csvRecords, quotedCellIndex } from '../../csv-records';
import {
  checkCellLength,
  checkColumnCount,
  columnLetterOf,
  duplicateHeaders,
  duplicateHeadersMessage,
  inputLimits,
  InputLimitError,
  restoreRejectsCell,
  unbalancedQuoteMessage,
} from '../../input-limits';
import { ExportReadError, isRejectsHeader, type CsvDialect, type ExportTable, type SourceRow } from './types';

/** A file (`{ path }`, read twice: once to decide the encoding, once to parse), bytes, text, or a stream. */
export type TextSource = ByteSource | string | Readable;

/** A stream is read into memory first (it cannot be read twice); give a file as `{ path }` to keep memory flat. */
async function toByteSource(source: TextSource): Promise<ByteSource> {
  if (typeof source === 'string') return Buffer.from(source, 'utf8');
  if (!(source instanceof Readable)) return source;
  const parts: Buffer[] = [];
  for await (const part of source as AsyncIterable<Buffer | string>)
    parts.push(typeof part === 'string' ? Buffer.from(part, 'utf8') : part);
  return Buffer.concat(parts);
}

/**
 * Header names trimmed, BOM removed; an empty name becomes `column_N`. A name given twice (case and spaces aside) is
 * refused, as the PLM import does: guessing which of two `quantity` columns the profile means would push wrong data.
 * Given the profile's column names (`mapped`), only a repeated name among them is refused: a repeat the profile does
 * not read (NetSuite's two `Name` columns) leaves nothing to guess; its later copies are keyed `Name (column D)` so
 * each keeps its cells (for the rejects file). One pass over the names, so 30,000 repeated names cost milliseconds.
 */
export function uniqueHeader(names: readonly string[], headerRow = 1, mapped?: readonly string[]): string[] {
  checkColumnCount(names.length, headerRow);
  const header = names.map((raw, index) => {
    const name = raw.replace(/^\uFEFF/, '').trim();
    return name === '' ? `column_${index + 1}` : name;
  });
  const duplicates = duplicateHeaders(header);
  const read = mapped && new Set(mapped.map((name) => name.trim().toLowerCase()));
  const refused = read ? duplicates.filter((entry) => read.has(entry.name.toLowerCase())) : duplicates;
  if (refused.length > 0)
    throw new ExportReadError(duplicateHeadersMessage(refused, headerRow), 'duplicate_headers');
  for (const entry of duplicates)
    for (const index of entry.columns.slice(1))
      header[index] = `${header[index]} (column ${columnLetterOf(index)})`;
  return header;
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

/** Input-limit errors keep their code; the order push's file-error class carries them. */
export function asExportReadError(error: unknown): unknown {
  return error instanceof InputLimitError ? new ExportReadError(error.message, error.code) : error;
}

/**
 * Streams a csv export through papaparse: delimiter from Excel's `sep=` first line or guessed from the header line
 * (`,` `;` tab `|`), the encoding decided over the whole file (`connectors/csv-encoding.ts`: UTF-8 with or without
 * BOM, UTF-16 with a BOM, else Windows-1252), quoted cells may span lines. Row numbers count records
 * (header = 1), as a spreadsheet shows them; blank records are skipped but still counted. A quote that never closes,
 * a repeated header name, too many columns or a cell over the limit refuse the file whole (`inputLimits`). A fixed
 * rejects file (it has `error_code` and `error_message`) gets its neutralised formula cells back as they were.
 */
export async function readCsv(source: TextSource, mappedColumns?: readonly string[]): Promise<ExportTable> {
  try {
    return await readCsvRecords(source, mappedColumns);
  } catch (error) {
    throw asExportReadError(error);
  }
}

async function readCsvRecords(source: TextSource, mappedColumns?: readonly string[]): Promise<ExportTable> {
  const csv = await openCsvText(await toByteSource(source), inputLimits.headerChars + 2);
  if (csv.head === '') {
    throw new ExportReadError('the csv file is empty (0 bytes): no header row. Export the file again.');
  }
  const delimiter = csv.sepDelimiter ?? guessDelimiter(csv.head.slice(0, inputLimits.headerChars + 2));
  const newlineAt = csv.head.indexOf('\n');
  const dialect: CsvDialect = {
    delimiter,
    encoding: csv.decision.encoding,
    newline: newlineAt > 0 && csv.head[newlineAt - 1] === '\r' ? '\r\n' : '\n',
    bom: csv.decision.bom,
    ...(csv.sepDelimiter === undefined ? {} : { sepLine: true }),
  };
  let columns: string[] | undefined;
  let headerRow = 1;
  let restore = (text: string): string => text;
  const rows: SourceRow[] = [];
  for await (const record of csvRecords(csv.text, delimiter)) {
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
      columns = uniqueHeader(texts, record.rowNumber, mappedColumns);
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
  if (columns === undefined) {
    throw new ExportReadError('the csv file holds only blank lines: no header row. Export the file again.');
  }
  return { format: 'csv', columns, rows, headerRow, csvDialect: dialect };
}
