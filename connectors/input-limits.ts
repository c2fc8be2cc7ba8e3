/**
 * Limits on input files, shared by the PLM import and the ERP order push, and the one way either job quotes input
 * back in a message. A real export never reaches these limits; a hostile or broken file reaches them at once, and is
 * then refused with one error naming the limit and the value, before any heavy work (parsing, SheetJS, API calls).
 *
 * | Limit            | Value     | Why this value                                                                 |
 * | ---------------- | --------- | ------------------------------------------------------------------------------ |
 * | csv/json file    | 100 MiB   | a million order lines or products is ~ 200 MB only with very wide rows          |
 * | workbook file    | 50 MiB    | a zipped workbook inflates 10-20 times; SheetJS holds it all in memory           |
 * | columns          | 2,000     | the widest real exports (size grids) have a few hundred                          |
 * | header line      | 64 KiB    | 2,000 columns of 32 characters                                                  |
 * | line             | 1 MiB     | a text line of csv; quoted cells spanning lines are counted per line             |
 * | cell             | 32,767    | Excel's own limit of characters in a cell: no exported cell is longer            |
 * | data rows        | 1,000,000 | Excel's sheet holds 1,048,576 rows                                               |
 * | read time        | 120 s     | a workbook at the size limit reads in ~ 20 s; one that takes longer never ends   |
 * | merged rows      | 10,000,000| rows all of a sheet's merged ranges cover (a merge of 10 columns over every row)  |
 *
 * Messages quote input through `quoteInput`: at most 200 characters, then `… (N characters)`, so no failure, log line
 * or result a file produces grows past a few KB however long its cells are.
 */
import { open } from 'node:fs/promises';

export const inputLimits = {
  textFileBytes: 100 * 1024 * 1024,
  workbookFileBytes: 50 * 1024 * 1024,
  columns: 2_000,
  headerChars: 64 * 1024,
  lineBytes: 1024 * 1024,
  cellChars: 32_767,
  dataRows: 1_000_000,
  readTimeoutMs: 120_000,
  // Each merged row is visited when a merge is filled down: 15 KB of repeated merges once meant 2e9 visits.
  mergedRows: 10_000_000,
  quotedChars: 200,
} as const;

export type InputLimits = { -readonly [K in keyof typeof inputLimits]: number };

/** Why a file is refused whole under these rules; each job maps it to its own error class. */
export type InputLimitCode =
  | 'file_too_large'
  | 'too_many_columns'
  | 'header_too_long'
  | 'line_too_long'
  | 'cell_too_long'
  | 'too_many_rows'
  | 'nul_byte'
  | 'unbalanced_quote'
  | 'duplicate_headers'
  | 'no_data_rows'
  | 'password_protected'
  | 'read_timeout'
  | 'too_many_merged_cells';

export class InputLimitError extends Error {
  override readonly name = 'InputLimitError';
  constructor(
    readonly code: InputLimitCode,
    message: string,
  ) {
    super(message);
  }
}

/** `12,345` */
export function count(value: number): string {
  return value.toLocaleString('en-US');
}

/**
 * Input text as a message may show it: control characters made visible, and at most `max` characters followed by
 * `… (N characters)` when it is longer. Always use this (not the raw value) where a message, log field or rejects
 * excerpt repeats what a file holds.
 */
export function quoteInput(text: string, max: number = inputLimits.quotedChars): string {
  const visible = (part: string): string =>
    // eslint-disable-next-line no-control-regex
    part.replace(/[\u0000-\u0008\u000a-\u001f]/g, (char) =>
      char === '\n'
        ? '\\n'
        : char === '\r'
          ? '\\r'
          : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  if (text.length <= max) return visible(text);
  return `${visible(text.slice(0, max))}… (${count(text.length)} characters)`;
}

/** A list of input names (columns...) cut to a bounded length: the first few, then how many more. */
export function quoteList(names: readonly string[], shown = 10, each = 40): string {
  const listed = names.slice(0, shown).map((name) => `'${quoteInput(name, each)}'`);
  return names.length > shown
    ? `${listed.join(', ')} and ${count(names.length - shown)} more`
    : listed.join(', ');
}

/**
 * Parts listed as a reader lists them ('a, b and c'), the first `shown` of them, then how many more ('a, b, c and 7
 * more'): a list the API or a file makes long stays a line in an error.
 */
export function listSome(parts: readonly string[], shown = 5): string {
  const listed = parts.slice(0, shown);
  if (parts.length > shown) listed.push(`${count(parts.length - shown)} more`);
  const last = listed.pop();
  return last === undefined ? '' : listed.length === 0 ? last : `${listed.join(', ')} and ${last}`;
}

/** A message (ours, but possibly quoting input) cut so a failure or payload stays a few KB at most. */
export function boundMessage(message: string, max = 2_000): string {
  return message.length <= max ? message : `${message.slice(0, max)}… (${count(message.length)} characters)`;
}

/** Excel-style column letters: 0 -> A, 27 -> AB. */
export function columnLetterOf(index: number): string {
  let letters = '';
  let n = index + 1;
  while (n > 0) {
    const remainder = (n - 1) % 26;
    letters = String.fromCharCode(65 + remainder) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

/**
 * Header names that appear more than once (case and surrounding spaces ignored), in one pass: a map from the
 * folded name to its column indexes. Null names (blank cells) never clash.
 */
export function duplicateHeaders(
  names: ReadonlyArray<string | null>,
): Array<{ name: string; columns: number[] }> {
  const seen = new Map<string, { name: string; columns: number[] }>();
  names.forEach((name, index) => {
    if (name === null) return;
    const key = name.trim().toLowerCase();
    if (key === '') return;
    const entry = seen.get(key);
    if (entry) entry.columns.push(index);
    else seen.set(key, { name: name.trim(), columns: [index] });
  });
  return [...seen.values()].filter((entry) => entry.columns.length > 1);
}

/** The one message for a header naming a column twice, the same in both jobs. */
export function duplicateHeadersMessage(
  duplicates: ReadonlyArray<{ name: string; columns: number[] }>,
  headerRow: number,
): string {
  const shown = duplicates.slice(0, 5).map((entry) => {
    const letters = entry.columns.slice(0, 5).map(columnLetterOf);
    const more = entry.columns.length > 5 ? ` and ${count(entry.columns.length - 5)} more` : '';
    return `'${quoteInput(entry.name, 40)}' (columns ${letters.join(', ')}${more})`;
  });
  const others = duplicates.length > 5 ? `; and ${count(duplicates.length - 5)} more names` : '';
  return (
    `header row ${headerRow} names the same column more than once: ${shown.join('; ')}${others}. ` +
    'Rename or remove the extra columns and re-run.'
  );
}

/** Refuses a header with more columns than the limit (checked before any per-column work). */
export function checkColumnCount(
  columns: number,
  headerRow: number,
  limits: Pick<InputLimits, 'columns'> = inputLimits,
): void {
  if (columns > limits.columns) {
    throw new InputLimitError(
      'too_many_columns',
      `header row ${headerRow} has ${count(columns)} columns, over the limit of ${count(limits.columns)} columns. ` +
        'Check the delimiter and that the file is the export; remove unused columns.',
    );
  }
}

/** Refuses a cell longer than Excel's own limit, naming row and column. */
export function checkCellLength(
  text: string,
  row: number,
  column: string,
  limits: Pick<InputLimits, 'cellChars'> = inputLimits,
): void {
  if (text.length > limits.cellChars) {
    throw new InputLimitError(
      'cell_too_long',
      `row ${row}, column '${quoteInput(column, 40)}' holds ${count(text.length)} characters, over the limit of ` +
        `${count(limits.cellChars)} characters in a cell (Excel's own limit); it starts '${quoteInput(text, 40)}'. ` +
        'Fix the cell (a quote that is never closed makes one cell swallow the rows after it) and re-run.',
    );
  }
}

/** The one message for a quote that opens a cell and does not close where a cell can end. */
export function unbalancedQuoteMessage(row: number, column: string | undefined, excerpt: string): string {
  const where = column === undefined ? `row ${row}` : `row ${row}, column '${quoteInput(column, 40)}'`;
  return (
    `${where}: a double quote (") opens the cell but is not closed before the cell ends, so the rows after it ` +
    `would be read into this cell ('${quoteInput(excerpt, 60)}'). Close the quote, or double a quote that is part ` +
    'of the text (""), and re-run.'
  );
}

/** What a cheap scan of a text file's bytes found before it is parsed. */
export interface TextFileScan {
  bytes: number;
  lines: number;
}

/**
 * Checks a text (csv, ndjson) file's bytes in one native pass before parsing: size, NUL bytes, the header line's
 * length, any line's length and the line count. `Buffer.indexOf` does the work, so 100 MB take well under a second
 * and the event loop gets a turn between chunks.
 */
export async function scanTextFile(
  path: string,
  limits: Pick<InputLimits, 'textFileBytes' | 'headerChars' | 'lineBytes' | 'dataRows'> = inputLimits,
  what = 'file',
  /** False for a JSON document: a minified array is one long line. */
  checkLines = true,
): Promise<TextFileScan> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > limits.textFileBytes) {
      throw new InputLimitError(
        'file_too_large',
        `the ${what} is ${count(size)} bytes, over the limit of ${count(limits.textFileBytes)} bytes. Split it and re-run.`,
      );
    }
    const chunk = Buffer.alloc(1024 * 1024);
    let offset = 0;
    let line = 1;
    let lineStart = 0;
    // UTF-16 text is mostly NUL bytes: a BOM says so, and the csv readers decode it (connectors/csv-encoding.ts).
    let utf16 = false;
    // The last two bytes of the chunk before: a CR there and an LF at this chunk's start are one line end.
    let before = [-1, -1];
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, offset);
      if (bytesRead === 0) break;
      const bytes = chunk.subarray(0, bytesRead);
      if (offset === 0)
        utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
      const nul = utf16 ? -1 : bytes.indexOf(0);
      const stop = nul >= 0 ? nul : bytes.length;
      // CR LF, LF and a lone CR (classic Mac files, or rows appended by another tool) each end a line.
      let lf = bytes.indexOf(10);
      let cr = bytes.indexOf(13);
      for (let at = nextEnd(lf, cr); at >= 0 && at < stop; at = nextEnd(lf, cr)) {
        const end = offset + at;
        const isLf = at === lf;
        if (isLf) lf = bytes.indexOf(10, at + 1);
        else cr = bytes.indexOf(13, at + 1);
        // UTF-16 (either byte order) puts the CR's code two bytes before the LF's.
        const crAt = at - (utf16 ? 2 : 1);
        const sameLine = isLf && (crAt >= 0 ? bytes[crAt] : before[2 + crAt]) === 13;
        if (!sameLine) {
          if (checkLines) checkLine(end - lineStart, line, limits, what);
          line += 1;
        }
        lineStart = end + 1;
      }
      before = [bytes[bytes.length - 2] ?? -1, bytes[bytes.length - 1] ?? -1];
      if (nul >= 0) {
        throw new InputLimitError(
          'nul_byte',
          `the ${what} holds a NUL byte (code 0) on line ${count(line)} (byte ${count(offset + nul)}): it is binary data ` +
            'or UTF-16 text without a byte-order mark, not a text export. Export it again as UTF-8 csv and re-run.',
        );
      }
      offset += bytesRead;
      if (checkLines) checkLine(offset - lineStart, line, limits, what, true);
      if (line - 1 > limits.dataRows + 1) {
        throw new InputLimitError(
          'too_many_rows',
          `the ${what} has more than ${count(limits.dataRows)} data rows (the limit). Split it and re-run.`,
        );
      }
      // A turn for timers and I/O between chunks.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { bytes: size, lines: line };
  } finally {
    await handle.close();
  }
}

/** The first of two `indexOf` results (-1: none). */
function nextEnd(lf: number, cr: number): number {
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
}

function checkLine(
  length: number,
  line: number,
  limits: Pick<InputLimits, 'headerChars' | 'lineBytes'>,
  what: string,
  partial = false,
): void {
  if (line === 1 && length > limits.headerChars) {
    throw new InputLimitError(
      'header_too_long',
      `the ${what}'s first line (the header) is ${partial ? 'over ' : ''}${count(length)} bytes long, over the limit of ` +
        `${count(limits.headerChars)} bytes for a header. Check that the file is the export and its delimiter.`,
    );
  }
  if (length > limits.lineBytes) {
    throw new InputLimitError(
      'line_too_long',
      `line ${count(line)} of the ${what} is ${partial ? 'over ' : ''}${count(length)} bytes long, over the limit of ` +
        `${count(limits.lineBytes)} bytes for a line. A cell that long is not a real value (a quote that is never ` +
        'closed, or a binary file); fix the line and re-run.',
    );
  }
}

// Spreadsheet apps run text starting with these as a formula (CSV/formula injection, OWASP).
const FORMULA_START = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;

/**
 * A rejects-file cell as written: text a spreadsheet would run as a formula gets an apostrophe in front (so does
 * text that already starts with apostrophes before such a character), so `restoreRejectsCell` gives it back exactly.
 */
export function neutraliseRejectsCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The original value of a rejects-file cell written by `neutraliseRejectsCell` (read back by `retry`). */
export function restoreRejectsCell(text: string): string {
  return NEUTRALISED.test(text) ? text.slice(1) : text;
}

/**
 * The error text (as `#N/A` would be) of a formula cell that has no saved result: a file written by a program
 * that does not calculate. Both jobs reject the row with it, never read the cell as blank.
 */
export function uncalculatedFormulaError(formula: string | undefined): string {
  const shown = formula === undefined ? 'a formula' : `the formula =${quoteInput(formula, 60)}`;
  return `#UNCALCULATED (${shown} has no saved result: open the file in Excel and save it again)`;
}

/**
 * A SheetJS cell (read with `cellFormula` and `sheetStubs`) holding a formula whose result was never saved: a stub
 * (`t: 'z'`) or an error without a value. Typed structurally so this module needs no SheetJS import.
 */
export function isUncalculated(cell: { t?: string; v?: unknown; f?: string }): boolean {
  if (cell.f !== undefined && (cell.t === 'z' || cell.v === undefined)) return true;
  return cell.t === 'e' && cell.v === undefined;
}

/** A formula cell, first of its sheet below the header, whose saved result is empty (see `neverCalculatedMessage`). */
export interface BlankFormulaCell {
  /** A1 address, e.g. `A4`. */
  cell: string;
  formula: string;
}

/**
 * A formula whose saved result is empty text (`<c t="str"><f>…</f><v></v></c>`, SheetJS `{ f, v: '' }`): what a
 * program that writes formulas without calculating them leaves. Excel saves the same for a formula giving "", so one
 * such cell is read as blank; only a sheet whose rows all read blank because of them is refused for it.
 */
export function isBlankFormula(cell: { f?: string; v?: unknown }): boolean {
  return typeof cell.f === 'string' && (cell.v === '' || cell.v === undefined || cell.v === null);
}

/**
 * Why a sheet of formulas with no saved results has no data rows, and what to do, the same in both jobs. (The file
 * alone cannot tell formulas never calculated from a template's formulas that give "" below an empty header.)
 */
export function neverCalculatedMessage(
  sheetName: string,
  first: BlankFormulaCell,
  headerRow: number,
  what: string,
): string {
  return (
    `sheet '${quoteInput(sheetName, 60)}' holds formulas with no saved results (the first, cell ${first.cell}: ` +
    `=${quoteInput(first.formula, 60)}), so the rows below the header (row ${headerRow}) read as blank; there is ` +
    `nothing to ${what}. If a program wrote the file without calculating its formulas, open it in a spreadsheet ` +
    'program (Excel, LibreOffice) and save it, or export values rather than formulas, and re-run; if the formulas ' +
    'give blanks, the sheet has no data yet.'
  );
}

/** The error text of a cell holding a NUL character (code 0): no API field takes one, so the row is rejected. */
export const NUL_CELL_ERROR = '#NUL (the text holds a NUL character, code 0)';

export function holdsNul(text: string): boolean {
  return text.includes('\u0000');
}

/** Excel's error codes as Excel shows them (what a SheetJS cell of type 'e' holds in `v`). */
const EXCEL_ERROR_TEXT: Readonly<Record<number, string>> = {
  0x00: '#NULL!',
  0x07: '#DIV/0!',
  0x0f: '#VALUE!',
  0x17: '#REF!',
  0x1d: '#NAME?',
  0x24: '#NUM!',
  0x2a: '#N/A',
  0x2b: '#GETTING_DATA',
};

/**
 * The error a workbook cell stands for, the same in both jobs: a formula with no saved result, a NUL character, or
 * an Excel error as Excel shows it (`#N/A`, `#REF!`...); undefined for a cell that holds a value.
 */
export function workbookCellError(cell: {
  t?: string;
  v?: unknown;
  f?: string;
  w?: string;
}): string | undefined {
  // A formula with no saved result (written by a program that does not calculate) is not a blank cell.
  if (isUncalculated(cell)) return uncalculatedFormulaError(cell.f);
  if (typeof cell.v === 'string' && holdsNul(cell.v)) return NUL_CELL_ERROR;
  if (cell.t !== 'e') return undefined;
  if (typeof cell.w === 'string' && cell.w.startsWith('#')) return cell.w;
  return EXCEL_ERROR_TEXT[Number(cell.v)] ?? '#ERROR';
}

const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ENCRYPTION_INFO = Buffer.from('EncryptionInfo', 'utf16le');

/**
 * True for an Office file encrypted with a password to open: Excel stores it as an OLE2 compound file holding an
 * `EncryptionInfo` stream (not a zip), so it looks like neither xlsx nor a plain xls.
 */
export function isPasswordProtectedWorkbook(bytes: Buffer): boolean {
  return bytes.subarray(0, 8).equals(OLE_MAGIC) && bytes.includes(ENCRYPTION_INFO);
}

export const PASSWORD_PROTECTED_MESSAGE =
  'the workbook is password-protected (encrypted), so it cannot be read. Remove the password in Excel ' +
  '(File > Info > Protect Workbook > Encrypt with Password, clear it) or save the sheet as csv, and re-run.';

/** The one message for a header with no row below it, the same in both jobs. */
export function noDataRowsMessage(headerRow: number | undefined, what: string): string {
  const header = headerRow === undefined ? 'a header row' : `a header row (row ${headerRow})`;
  return `the file has ${header} but no data rows below it; there is nothing to ${what}.`;
}
