import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { isLosslessNumber, LosslessNumber, parse, type ParseOptions } from 'lossless-json';
import {
  checkCellLength,
  count,
  holdsNul,
  inputLimits,
  InputLimitError,
  NUL_CELL_ERROR,
  quoteInput,
  quoteList,
} from '../../input-limits';
import type { TextSource } from './csv';
import { ExportReadError, type CellValue, type ExportTable, type SourceRow } from './types';

/**
 * `JSON.parse` keeps only a number's double, which loses digits past 2^53 and spellings such as `1.50` or `1e3`. A
 * number that would print otherwise than it was written is read as a `LosslessNumber` holding its text.
 */
function readNumber(text: string): number | LosslessNumber {
  const value = Number(text);
  return String(value) === text ? value : new LosslessNumber(text);
}

const PARSE_OPTIONS: ParseOptions = {
  parseNumber: readNumber,
  // A repeated key: the last value counts, as in JSON.parse (lossless-json refuses the file by default).
  onDuplicateKey: ({ newValue }) => newValue,
};

/**
 * A row reads nothing below the third level (the array, its item, a member's list): a deeper array or object makes
 * its row a problem whatever it holds, so emptying it changes no row.
 */
const MAX_DEPTH = 64;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The text with every array or object nested past `MAX_DEPTH` emptied (`[]`, `{}`), undefined when none is.
 * lossless-json parses by recursion, so a file nested a million levels deep (which `JSON.parse` reads) would
 * otherwise overflow the stack.
 */
function withinDepth(text: string): string | undefined {
  const parts: string[] = [];
  let depth = 0;
  let kept = 0;
  let emptiedFrom = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      for (at++; at < text.length && text.charCodeAt(at) !== QUOTE; at++)
        if (text.charCodeAt(at) === BACKSLASH) at++;
    } else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth === MAX_DEPTH + 1) emptiedFrom = at + 1;
    } else if (code === 0x5d || code === 0x7d) {
      if (depth === MAX_DEPTH + 1) {
        parts.push(text.slice(kept, emptiedFrom));
        kept = at;
      }
      depth -= 1;
    }
  }
  return parts.length === 0 ? undefined : parts.join('') + text.slice(kept);
}

/** Parses JSON as `JSON.parse` does (and fails with its message), numbers that would print otherwise kept as written. */
function parseJson(text: string): unknown {
  const shallow = withinDepth(text);
  // Emptying may make invalid text valid: JSON.parse (which does not recurse) judges the whole text first.
  if (shallow !== undefined) JSON.parse(text);
  try {
    return parse(shallow ?? text, null, PARSE_OPTIONS);
  } catch (error) {
    JSON.parse(text); // throws with the message this reader has always given
    throw error;
  }
}

/** The kind of a parsed value for a row's problem. */
function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return isLosslessNumber(value) ? 'number' : typeof value;
}

/**
 * Object values become cells: scalars as they are, arrays of scalars as lists of text (numbers in them as written);
 * nested objects are a problem. A number whose value would print otherwise than it was written is kept as written in
 * `numberTexts`.
 */
function toCells(item: unknown): {
  values: Record<string, CellValue>;
  problem?: string;
  cellErrors?: Record<string, string>;
  numberTexts?: Record<string, string>;
} {
  if (typeof item !== 'object' || item === null || Array.isArray(item) || isLosslessNumber(item)) {
    return { values: {}, problem: `expected a JSON object, got ${typeOf(item)}` };
  }
  const values: Record<string, CellValue> = {};
  const nested: string[] = [];
  let cellErrors: Record<string, string> | undefined;
  let numberTexts: Map<string, string> | undefined;
  for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
    if (typeof value === 'string' && holdsNul(value)) (cellErrors ??= {})[key] = NUL_CELL_ERROR;
    if (isLosslessNumber(value)) {
      values[key] = Number(value.value);
      (numberTexts ??= new Map()).set(key, value.value);
    } else if (
      value === null ||
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean'
    ) {
      values[key] = value;
    } else if (Array.isArray(value) && value.every((entry) => ['string', 'number'].includes(typeOf(entry)))) {
      values[key] = value.map((entry) => (isLosslessNumber(entry) ? entry.value : String(entry)));
    } else {
      nested.push(key);
    }
  }
  const read =
    nested.length > 0
      ? { values, problem: `nested values are not supported in: ${quoteList(nested)}` }
      : { values };
  return {
    ...read,
    ...(cellErrors ? { cellErrors } : {}),
    // fromEntries: a key such as `__proto__` stays an ordinary key.
    ...(numberTexts ? { numberTexts: Object.fromEntries(numberTexts) } : {}),
  };
}

/**
 * The keys the rows use, in order of first use: a file's columns. More than `inputLimits.columns` refuse the file, as a
 * csv header that wide is, at the row that brings the first key past the limit.
 */
class Columns {
  private readonly seen = new Set<string>();

  add(row: SourceRow): SourceRow {
    for (const key of Object.keys(row.values)) {
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      if (this.seen.size > inputLimits.columns) {
        throw new InputLimitError(
          'too_many_columns',
          `row ${count(row.row)} brings key '${quoteInput(key, 40)}', distinct key number ${count(this.seen.size)} ` +
            `of the file: over the limit of ${count(inputLimits.columns)} columns. Each key is a column; check that ` +
            'the objects use the same keys (no order number or date as a key).',
        );
      }
    }
    return row;
  }

  list(): string[] {
    return [...this.seen];
  }
}

function toRow(row: number, item: unknown): SourceRow {
  const { values, problem, cellErrors, numberTexts } = toCells(item);
  for (const [column, value] of Object.entries(values))
    if (typeof value === 'string') checkCellLength(value, row, column);
  const read: SourceRow = problem === undefined ? { row, values } : { row, values, problem };
  if (cellErrors) read.cellErrors = cellErrors;
  if (numberTexts) read.numberTexts = numberTexts;
  return read;
}

/** A JSON export holding an array of objects; rows are numbered by position in the array (1-based). */
export function readJsonArray(text: string): ExportTable {
  let parsed: unknown;
  try {
    parsed = parseJson(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ExportReadError(`not valid JSON: ${quoteInput((error as Error).message)}`);
  }
  if (!Array.isArray(parsed))
    throw new ExportReadError('a JSON export must be an array of objects (or NDJSON, one object per line)');
  const columns = new Columns();
  const rows = parsed.map((item, index) => columns.add(toRow(index + 1, item)));
  return { format: 'json', columns: columns.list(), rows };
}

/**
 * NDJSON streamed line by line; rows are numbered by line, blank lines skipped, a malformed line is a row problem.
 * A last line that is not valid JSON and has no newline after it is a file cut off mid-line (an interrupted
 * transfer or a full disk): the file is refused whole, since pushing the orders it holds would push the cut order
 * with some of its lines only (and a `complete` profile would delete the others).
 */
export async function readNdjson(source: TextSource): Promise<ExportTable> {
  const input =
    source instanceof Readable
      ? source
      : Readable.from([typeof source === 'string' ? Buffer.from(source) : source]);
  input.setEncoding('utf8');
  let lastChar = '';
  input.on('data', (chunk: string) => {
    if (chunk.length > 0) lastChar = chunk[chunk.length - 1] ?? '';
  });
  const rows: SourceRow[] = [];
  const columns = new Columns();
  let line = 0;
  let unparsedLast: { line: number; reason: string } | undefined;
  for await (const rawLine of createInterface({ input, crlfDelay: Infinity })) {
    line += 1;
    unparsedLast = undefined;
    const text = (line === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine).trim();
    if (text === '') continue;
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch (error) {
      const reason = (error as Error).message;
      unparsedLast = { line, reason };
      rows.push({
        row: line,
        values: {},
        problem: `line is not valid JSON: ${quoteInput(reason)}`,
        rawText: rawLine,
      });
      continue;
    }
    // Outside the catch: a cell over the limit refuses the file (as in csv), it is not a line that is not JSON.
    rows.push(columns.add(toRow(line, parsed)));
  }
  if (unparsedLast !== undefined && lastChar !== '\n') {
    throw new ExportReadError(
      `the file looks cut off: its last line (line ${unparsedLast.line}) is not valid JSON (${quoteInput(unparsedLast.reason)}) ` +
        'and has no newline after it, so the export was probably interrupted; nothing was pushed. Export the file again',
      'truncated_file',
    );
  }
  return { format: 'ndjson', columns: columns.list(), rows };
}

const NOT_AN_ARRAY =
  'a JSON export must be an array of objects, one per order line, or NDJSON (one object per line)';

/** The kind of a parsed JSON value, for messages. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const keys = Object.keys(value as Record<string, unknown>);
    return keys.length === 0
      ? 'an empty object'
      : `an object with keys ${keys
          .slice(0, 5)
          .map((key) => `'${quoteInput(key, 40)}'`)
          .join(', ')}${keys.length > 5 ? '...' : ''}`;
  }
  return `a ${typeof value}`;
}

/**
 * Chooses between a JSON array and NDJSON by the first non-blank character. A document that is one JSON value over
 * several lines (a pretty-printed object, for example `{"orders": [...]}`) is neither, and is refused whole.
 */
export async function readJson(content: string | Buffer): Promise<ExportTable> {
  const text = typeof content === 'string' ? content : content.toString('utf8');
  if (/^\uFEFF?\s*\[/.test(text)) return readJsonArray(text);
  const body = text.replace(/^\uFEFF/, '').trim();
  const firstLine = body.split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (body !== '' && firstLine !== body) {
    let firstLineParses = true;
    try {
      JSON.parse(firstLine);
    } catch {
      firstLineParses = false;
    }
    if (!firstLineParses) {
      let whole: unknown;
      let wholeParses = true;
      try {
        whole = JSON.parse(body);
      } catch {
        wholeParses = false;
      }
      if (wholeParses)
        throw new ExportReadError(`${NOT_AN_ARRAY}; this file holds ${kindOf(whole)}`, 'not_an_array');
    }
  } else if (body !== '') {
    // A single line: NDJSON with one row when it is an object, otherwise neither format.
    try {
      const single: unknown = JSON.parse(body);
      if (typeof single !== 'object' || single === null) {
        throw new ExportReadError(`${NOT_AN_ARRAY}; this file holds ${kindOf(single)}`, 'not_an_array');
      }
    } catch (error) {
      if (error instanceof ExportReadError) throw error;
    }
  }
  return readNdjson(text);
}
