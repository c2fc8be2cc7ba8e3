import { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import Papa from 'papaparse';
import { ExportReadError, type CsvDialect, type ExportTable, type SourceRow } from './types';

export type TextSource = Readable | string | Buffer;

function toReadable(source: TextSource): Readable {
  if (source instanceof Readable) return source;
  return Readable.from([typeof source === 'string' ? Buffer.from(source, 'utf8') : source]);
}

/** Header names trimmed, BOM removed; an empty or repeated name gets a position suffix so no cell is lost. */
export function uniqueHeader(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((raw, index) => {
    let name = raw.replace(/^\uFEFF/, '').trim();
    if (name === '') name = `column_${index + 1}`;
    let candidate = name;
    for (let n = 2; seen.has(candidate); n += 1) candidate = `${name} (${n})`;
    seen.add(candidate);
    return candidate;
  });
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
async function* decodedText(input: AsyncIterable<Buffer | string>, seen: Partial<CsvDialect> = {}): AsyncGenerator<string> {
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

/**
 * Streams a csv export through papaparse: delimiter guessed from the header line (`,` `;` tab `|`),
 * UTF-8 with or without BOM (or Windows-1252, detected), quoted cells may span lines. Row numbers count records (header = 1), as a
 * spreadsheet shows them; blank records are skipped but still counted.
 */
export async function readCsv(source: TextSource): Promise<ExportTable> {
  const seen: Partial<CsvDialect> = {};
  const chunks = decodedText(toReadable(source), seen);
  const first = await chunks.next();
  if (first.done) throw new ExportReadError('the csv file is empty: no header row');
  const text = Readable.from(rejoined(first.value, chunks));
  const delimiter = guessDelimiter(first.value);
  const newlineAt = first.value.indexOf('\n');
  const dialect: CsvDialect = {
    delimiter,
    encoding: seen.encoding ?? 'utf-8',
    newline: newlineAt > 0 && first.value[newlineAt - 1] === '\r' ? '\r\n' : '\n',
    bom: seen.bom ?? false,
  };
  const parser = text.pipe(Papa.parse(Papa.NODE_STREAM_INPUT, { header: false, skipEmptyLines: false, delimiter }));
  text.on('error', (error: Error) => parser.destroy(error));
  let columns: string[] | undefined;
  const rows: SourceRow[] = [];
  let record = 0;
  for await (const cells of parser as AsyncIterable<unknown>) {
    record += 1;
    if (!Array.isArray(cells)) continue;
    const texts = cells.map((cell) => (typeof cell === 'string' ? cell : String(cell ?? '')));
    if (columns === undefined) {
      columns = uniqueHeader(texts);
      continue;
    }
    if (texts.every((text) => text.trim() === '')) continue;
    const values: Record<string, string> = {};
    columns.forEach((column, index) => {
      values[column] = texts[index] ?? '';
    });
    const row: SourceRow = { row: record, values };
    if (texts.length > columns.length && texts.slice(columns.length).some((text) => text.trim() !== '')) {
      row.problem = `row has ${texts.length} cells but the header has ${columns.length} columns`;
    }
    rows.push(row);
  }
  if (columns === undefined) throw new ExportReadError('the csv file is empty: no header row');
  return { format: 'csv', columns, rows, csvDialect: dialect };
}
