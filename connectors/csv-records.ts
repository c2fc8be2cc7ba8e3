import { Readable } from 'node:stream';
import Papa from 'papaparse';

/** One csv record as papaparse split it, numbered from 1 (the header is record 1, as a spreadsheet shows it). */
export interface CsvRecord {
  rowNumber: number;
  values: string[];
  /** Papaparse's quote complaint about this record (`MissingQuotes`, `InvalidQuotes`), when it has one. */
  quoteError?: string;
}

/**
 * Records of a csv text stream, parsed in chunks as the text arrives (the PLM import and the ERP order push read csv
 * through here). Papaparse hands over batches of records; it is paused while a few batches wait, so memory stays
 * flat, and each batch is a short piece of work, so the event loop keeps turning. Quote errors are kept on the
 * record they belong to (papaparse's node-stream mode drops them).
 */
export async function* csvRecords(text: AsyncIterable<string>, delimiter: string): AsyncGenerator<CsvRecord> {
  const source = Readable.from(text);
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
