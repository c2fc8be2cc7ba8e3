import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { TextSource } from './csv';
import { ExportReadError, type CellValue, type ExportTable, type SourceRow } from './types';

/** Object values become cells: scalars as they are, arrays of scalars as lists of text; nested objects are a problem. */
function toCells(item: unknown): { values: Record<string, CellValue>; problem?: string } {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return { values: {}, problem: `expected a JSON object, got ${Array.isArray(item) ? 'an array' : typeof item}` };
  }
  const values: Record<string, CellValue> = {};
  const nested: string[] = [];
  for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      values[key] = value;
    } else if (Array.isArray(value) && value.every((entry) => ['string', 'number'].includes(typeof entry))) {
      values[key] = value.map(String);
    } else {
      nested.push(key);
    }
  }
  return nested.length > 0 ? { values, problem: `nested values are not supported in: ${nested.join(', ')}` } : { values };
}

function collectColumns(rows: readonly SourceRow[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row.values)) columns.add(key);
  return [...columns];
}

function toRow(row: number, item: unknown): SourceRow {
  const { values, problem } = toCells(item);
  return problem === undefined ? { row, values } : { row, values, problem };
}

/** A JSON export holding an array of objects; rows are numbered by position in the array (1-based). */
export function readJsonArray(text: string): ExportTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ExportReadError(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new ExportReadError('a JSON export must be an array of objects (or NDJSON, one object per line)');
  const rows = parsed.map((item, index) => toRow(index + 1, item));
  return { format: 'json', columns: collectColumns(rows), rows };
}

/** NDJSON streamed line by line; rows are numbered by line, blank lines skipped, a malformed line is a row problem. */
export async function readNdjson(source: TextSource): Promise<ExportTable> {
  const input = source instanceof Readable ? source : Readable.from([typeof source === 'string' ? Buffer.from(source) : source]);
  input.setEncoding('utf8');
  const rows: SourceRow[] = [];
  let line = 0;
  for await (const rawLine of createInterface({ input, crlfDelay: Infinity })) {
    line += 1;
    const text = (line === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine).trim();
    if (text === '') continue;
    try {
      rows.push(toRow(line, JSON.parse(text)));
    } catch (error) {
      rows.push({ row: line, values: {}, problem: `line is not valid JSON: ${(error as Error).message}`, rawText: rawLine });
    }
  }
  return { format: 'ndjson', columns: collectColumns(rows), rows };
}

/** Chooses between a JSON array and NDJSON by the first non-blank character. */
export async function readJson(content: string | Buffer): Promise<ExportTable> {
  const text = typeof content === 'string' ? content : content.toString('utf8');
  return /^\uFEFF?\s*\[/.test(text) ? readJsonArray(text) : readNdjson(text);
}
