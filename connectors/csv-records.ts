import { Readable } from 'node:stream';
import Papa from 'papaparse';

/** One csv record as papaparse split it, numbered from 1 (the header is record 1, as a spreadsheet shows it). */
export interface CsvRecord {
  rowNumber: number;
  values: string[];
  /** Papaparse's quote complaint about this record (`MissingQuotes`, `InvalidQuotes`), when it has one. */
  quoteError?: string;
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/** The line end a file's text uses: the first one outside quoted cells, once it is seen. */
export interface LineEnding {
  newline: '\r\n' | '\n' | '\r' | undefined;
}

/**
 * The text with every line break outside quoted cells written as the first one (`ending.newline`), so papaparse, told
 * that one, ends a record at each. Left to guess, papaparse takes one style from the file's first megabyte, and a
 * line end of another style (rows appended by another tool) became text inside a cell: two rows read as one, the
 * second's cells past the header's width dropped. Line breaks inside quoted cells are kept as written. A quote opens
 * a quoted cell only as the cell's first character, as papaparse reads it. A file of one style is passed on as is.
 */
export async function* oneLineEnding(
  text: AsyncIterable<string>,
  delimiter: string,
  ending: LineEnding,
): AsyncGenerator<string> {
  const delimiterCode = delimiter.charCodeAt(0);
  let quoted = false;
  // The character before the chunk's first (a cell starts after a delimiter or a line end); -1 at the file's start.
  let before = -1;
  // The last chunk ended on a CR outside quotes (held back: an LF may follow) or on a quote inside a quoted cell.
  let pendingCr = false;
  let closing = false;
  for await (const chunk of text) {
    if (chunk.length === 0) continue;
    const parts: string[] = [];
    let kept = 0;
    let at = 0;
    const lineEnd = (from: number, length: number, found: '\r\n' | '\n' | '\r'): void => {
      ending.newline ??= found;
      if (found !== ending.newline) {
        parts.push(chunk.slice(kept, from), ending.newline);
        kept = from + length;
      }
      at = from + length;
    };
    if (closing) {
      // A second quote here makes the quote that ended the last chunk text; otherwise it closed the cell.
      closing = false;
      if (chunk.charCodeAt(0) === QUOTE) at = 1;
      else quoted = false;
    }
    if (pendingCr) {
      pendingCr = false;
      const found = chunk.charCodeAt(0) === LF ? '\r\n' : '\r';
      ending.newline ??= found;
      parts.push(ending.newline);
      kept = at = found.length - 1;
    }
    while (at < chunk.length) {
      if (quoted) {
        const close = chunk.indexOf('"', at);
        if (close < 0) break;
        // A doubled quote inside a quoted cell is text.
        if (close + 1 < chunk.length && chunk.charCodeAt(close + 1) === QUOTE) {
          at = close + 2;
          continue;
        }
        at = close + 1;
        if (at >= chunk.length) closing = true;
        else quoted = false;
        continue;
      }
      const quote = chunk.indexOf('"', at);
      const cr = chunk.indexOf('\r', at);
      const lf = chunk.indexOf('\n', at);
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (quote < 0 && end < 0) break;
      if (end < 0 || (quote >= 0 && quote < end)) {
        const previous = quote === 0 ? before : chunk.charCodeAt(quote - 1);
        if (previous === -1 || previous === delimiterCode || previous === LF || previous === CR)
          quoted = true;
        at = quote + 1;
      } else if (end === lf) {
        lineEnd(lf, 1, '\n');
      } else if (cr + 1 >= chunk.length) {
        parts.push(chunk.slice(kept, cr));
        pendingCr = true;
        kept = at = chunk.length;
      } else {
        lineEnd(cr, chunk.charCodeAt(cr + 1) === LF ? 2 : 1, chunk.charCodeAt(cr + 1) === LF ? '\r\n' : '\r');
      }
    }
    before = chunk.charCodeAt(chunk.length - 1);
    if (parts.length === 0) yield chunk;
    else {
      parts.push(chunk.slice(kept));
      yield parts.join('');
    }
  }
  // A file whose last character is a CR: the held-back line end.
  if (pendingCr) yield ending.newline ?? '\r';
}

/**
 * Records of a csv text stream, parsed in chunks as the text arrives (the PLM import and the ERP order push read csv
 * through here). Papaparse hands over batches of records; it is paused while a few batches wait, so memory stays
 * flat, and each batch is a short piece of work, so the event loop keeps turning. Quote errors are kept on the
 * record they belong to (papaparse's node-stream mode drops them). Any line end outside quotes ends a record
 * (`oneLineEnding`).
 */
export async function* csvRecords(text: AsyncIterable<string>, delimiter: string): AsyncGenerator<CsvRecord> {
  const ending: LineEnding = { newline: undefined };
  const normalised = oneLineEnding(text, delimiter, ending);
  // Papaparse is told the line end before it starts: the text up to the first one is read ahead.
  const ahead: string[] = [];
  while (ending.newline === undefined) {
    const next = await normalised.next();
    if (next.done) break;
    ahead.push(next.value);
  }
  const source = Readable.from(
    (async function* (): AsyncGenerator<string> {
      yield* ahead;
      yield* normalised;
    })(),
  );
  const batches: CsvRecord[][] = [];
  let finished = false;
  let failure: unknown = null;
  let parser: Papa.Parser | null = null;
  let paused = false;
  let wake: (() => void) | null = null;
  let counted = 0;
  const notify = (): void => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  Papa.parse<string[]>(source, {
    delimiter,
    newline: ending.newline ?? '\n',
    skipEmptyLines: false,
    chunk: (results, chunkParser) => {
      const errors = new Map<number, string>();
      for (const error of results.errors) {
        if (error.type === 'Quotes' && typeof error.row === 'number' && !errors.has(error.row))
          errors.set(error.row, error.code);
      }
      batches.push(
        results.data.map((values, index) => {
          const record: CsvRecord = { rowNumber: ++counted, values };
          const quoteError = errors.get(index);
          if (quoteError !== undefined) record.quoteError = quoteError;
          return record;
        }),
      );
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
  try {
    for (;;) {
      const batch = batches.shift();
      if (batch) {
        if (paused && batches.length < 2) {
          paused = false;
          (parser as Papa.Parser | null)?.resume();
        }
        yield* batch;
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

/** The cell a quote error swallowed text into: the first holding a line break or a quote, else the last. */
export function quotedCellIndex(values: readonly string[]): number {
  const index = values.findIndex((value) => value.includes('\n') || value.includes('"'));
  return index >= 0 ? index : Math.max(0, values.length - 1);
}
