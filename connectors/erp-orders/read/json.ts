import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { checkCellLength, holdsNul, NUL_CELL_ERROR, quoteInput, quoteList } from '../../input-limits';
import type { TextSource } from './csv';
import { ExportReadError, type CellValue, type ExportTable, type SourceRow } from './types';

/**
 * The number values of one JSON object as written in the source, by key: a number's text for a scalar, the texts of
 * an array's entries (undefined for entries that are not numbers). `JSON.parse` keeps only the double, which loses
 * digits past 2^53 and spellings such as `1.50` or `1e3`.
 */
type WrittenNumbers = ReadonlyMap<string, string | ReadonlyArray<string | undefined>>;

const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING_TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"/y;
const SPACE = /[ \t\n\r]*/y;

/**
 * Walks JSON text that `JSON.parse` has accepted (so it is valid) to find where each number was written: for a
 * value, the numbers of its members when it is an object, of its items' members when it is an array of objects.
 */
class WrittenNumberScan {
  private at = 0;
  constructor(private readonly text: string) {}

  private space(): void {
    SPACE.lastIndex = this.at;
    SPACE.test(this.text);
    this.at = SPACE.lastIndex;
  }

  private string(): string {
    STRING_TOKEN.lastIndex = this.at;
    const token = STRING_TOKEN.exec(this.text)?.[0] ?? '""';
    this.at += token.length;
    return token;
  }

  private number(): string {
    NUMBER_TOKEN.lastIndex = this.at;
    const token = NUMBER_TOKEN.exec(this.text)?.[0] ?? '';
    this.at += token.length;
    return token;
  }

  private isNumber(): boolean {
    const char = this.text[this.at] ?? '';
    return char === '-' || (char >= '0' && char <= '9');
  }

  /** Skips one value of any kind. */
  private skip(): void {
    this.space();
    const char = this.text[this.at];
    if (char === '"') this.string();
    else if (char === '{' || char === '[') {
      let depth = 0;
      do {
        const next = this.text[this.at];
        if (next === '"') {
          this.string();
          continue;
        }
        if (next === '{' || next === '[') depth += 1;
        else if (next === '}' || next === ']') depth -= 1;
        this.at += 1;
      } while (depth > 0 && this.at < this.text.length);
    } else if (this.isNumber()) this.number();
    else while (/[a-z]/.test(this.text[this.at] ?? '')) this.at += 1;
  }

  /** Calls `each` for the items of an array at the cursor (the cursor on each item), then steps past it. */
  private items(each: (index: number) => void): void {
    this.at += 1;
    this.space();
    for (let index = 0; this.at < this.text.length && this.text[this.at] !== ']'; index++) {
      this.space();
      each(index);
      this.space();
      if (this.text[this.at] === ',') this.at += 1;
      this.space();
    }
    this.at += 1;
  }

  /** The written numbers of the object at the cursor (undefined when the value is not an object). */
  private object(): WrittenNumbers | undefined {
    this.space();
    if (this.text[this.at] !== '{') {
      this.skip();
      return undefined;
    }
    const found = new Map<string, string | Array<string | undefined>>();
    this.at += 1;
    this.space();
    while (this.at < this.text.length && this.text[this.at] !== '}') {
      this.space();
      const key = JSON.parse(this.string()) as string;
      this.space();
      this.at += 1; // ':'
      this.space();
      found.delete(key); // a repeated key: the last value counts, as in JSON.parse
      if (this.isNumber()) found.set(key, this.number());
      else if (this.text[this.at] === '[') {
        const entries: Array<string | undefined> = [];
        this.items((index) => {
          if (this.isNumber()) entries[index] = this.number();
          else this.skip();
        });
        found.set(key, entries);
      } else this.skip();
      this.space();
      if (this.text[this.at] === ',') this.at += 1;
      this.space();
    }
    this.at += 1;
    return found;
  }

  /** One value that is an object (an NDJSON line). */
  ofObject(): WrittenNumbers | undefined {
    return this.object();
  }

  /** One value that is an array (a JSON export): each item's written numbers. */
  ofArray(): Array<WrittenNumbers | undefined> {
    this.space();
    const rows: Array<WrittenNumbers | undefined> = [];
    this.items((index) => {
      rows[index] = this.object();
    });
    return rows;
  }
}

/** Whether a parsed value holds a number (only then is its source text worth a scan). */
function holdsNumber(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  return Object.values(item).some(
    (value) =>
      typeof value === 'number' || (Array.isArray(value) && value.some((entry) => typeof entry === 'number')),
  );
}

/**
 * Object values become cells: scalars as they are, arrays of scalars as lists of text (numbers in them as written);
 * nested objects are a problem. A number whose value would print otherwise than it was written is kept as written in
 * `numberTexts`.
 */
function toCells(
  item: unknown,
  written?: WrittenNumbers,
): {
  values: Record<string, CellValue>;
  problem?: string;
  cellErrors?: Record<string, string>;
  numberTexts?: Record<string, string>;
} {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return {
      values: {},
      problem: `expected a JSON object, got ${Array.isArray(item) ? 'an array' : typeof item}`,
    };
  }
  const values: Record<string, CellValue> = {};
  const nested: string[] = [];
  let cellErrors: Record<string, string> | undefined;
  let numberTexts: Map<string, string> | undefined;
  for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
    if (typeof value === 'string' && holdsNul(value)) (cellErrors ??= {})[key] = NUL_CELL_ERROR;
    const source = written?.get(key);
    if (
      value === null ||
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean'
    ) {
      values[key] = value;
      if (typeof value === 'number' && typeof source === 'string' && source !== String(value))
        (numberTexts ??= new Map()).set(key, source);
    } else if (Array.isArray(value) && value.every((entry) => ['string', 'number'].includes(typeof entry))) {
      values[key] = value.map((entry, index) =>
        typeof entry === 'number' && Array.isArray(source) ? (source[index] ?? String(entry)) : String(entry),
      );
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

function collectColumns(rows: readonly SourceRow[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row.values)) columns.add(key);
  return [...columns];
}

function toRow(row: number, item: unknown, written?: WrittenNumbers): SourceRow {
  const { values, problem, cellErrors, numberTexts } = toCells(item, written);
  for (const [column, value] of Object.entries(values))
    if (typeof value === 'string') checkCellLength(value, row, column);
  const read: SourceRow = problem === undefined ? { row, values } : { row, values, problem };
  if (cellErrors) read.cellErrors = cellErrors;
  if (numberTexts) read.numberTexts = numberTexts;
  return read;
}

/** A JSON export holding an array of objects; rows are numbered by position in the array (1-based). */
export function readJsonArray(text: string): ExportTable {
  const body = text.replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new ExportReadError(`not valid JSON: ${quoteInput((error as Error).message)}`);
  }
  if (!Array.isArray(parsed))
    throw new ExportReadError('a JSON export must be an array of objects (or NDJSON, one object per line)');
  const written = parsed.some(holdsNumber) ? new WrittenNumberScan(body).ofArray() : [];
  const rows = parsed.map((item, index) => toRow(index + 1, item, written[index]));
  return { format: 'json', columns: collectColumns(rows), rows };
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
  let line = 0;
  let unparsedLast: { line: number; reason: string } | undefined;
  for await (const rawLine of createInterface({ input, crlfDelay: Infinity })) {
    line += 1;
    unparsedLast = undefined;
    const text = (line === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine).trim();
    if (text === '') continue;
    try {
      const item: unknown = JSON.parse(text);
      rows.push(toRow(line, item, holdsNumber(item) ? new WrittenNumberScan(text).ofObject() : undefined));
    } catch (error) {
      const reason = (error as Error).message;
      unparsedLast = { line, reason };
      rows.push({
        row: line,
        values: {},
        problem: `line is not valid JSON: ${quoteInput(reason)}`,
        rawText: rawLine,
      });
    }
  }
  if (unparsedLast !== undefined && lastChar !== '\n') {
    throw new ExportReadError(
      `the file looks cut off: its last line (line ${unparsedLast.line}) is not valid JSON (${unparsedLast.reason}) ` +
        'and has no newline after it, so the export was probably interrupted; nothing was pushed. Export the file again',
      'truncated_file',
    );
  }
  return { format: 'ndjson', columns: collectColumns(rows), rows };
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
