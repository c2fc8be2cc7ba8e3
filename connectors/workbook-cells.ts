import type * as XLSX from 'xlsx';
import { z } from 'zod';
import { count, inputLimits, InputLimitError, listSome, quoteInput, type InputLimits } from './input-limits';

/**
 * Cell and row rules both sheet readers (the PLM import and the ERP order push) apply, so a cell or a row reads the
 * same in either job.
 */

/** A number format that only pads with zeros (`000000000000`): how a sheet keeps an identifier's leading zeros. */
const ZERO_PADDING = /^0+$/;

/**
 * The text Excel shows for a whole number in a zero-padding format (12345678905 as `012345678905`), else undefined.
 * Such a cell holds an identifier (a code value, an externalId, an order or line number), whose leading zeros are
 * part of it.
 */
export function zeroPaddedText(cell: XLSX.CellObject): string | undefined {
  const { v: value, z: format } = cell;
  if (typeof value !== 'number' || typeof format !== 'string' || !ZERO_PADDING.test(format)) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) return undefined;
  const text = String(value);
  return text.length < format.length ? text.padStart(format.length, '0') : undefined;
}

/** Days from the 1900 date system's serial 0 to the 1904 system's (1904-01-01 is serial 1462 in the 1900 system). */
export const DATE1904_SHIFT_DAYS = 1462;

/** Whether a workbook counts its date serials from 1904-01-01 (Excel for Mac's old default), not from 1900. */
export function usesDate1904(workbook: XLSX.WorkBook): boolean {
  return workbook.Workbook?.WBProps?.date1904 === true;
}

/** A date serial of a workbook as the 1900 date system counts it (what date rules such as `fromExcelSerial` read). */
export function serialIn1900System(serial: number, date1904: boolean): number {
  return date1904 ? serial + DATE1904_SHIFT_DAYS : serial;
}

/** The sheet a reader reads, and the hidden sheets with cells passed over before it (for a warning). */
export interface PickedSheet {
  name: string | undefined;
  skippedHidden: string[];
}

function isHidden(workbook: XLSX.WorkBook, name: string): boolean {
  // 1 is hidden, 2 "very hidden" (only a macro can show it).
  return (workbook.Workbook?.Sheets?.find((sheet) => sheet.name === name)?.Hidden ?? 0) !== 0;
}

function hasCells(workbook: XLSX.WorkBook, name: string): boolean {
  const sheet = workbook.Sheets[name];
  return sheet !== undefined && cellRange(sheet) !== undefined;
}

/**
 * The rows a sheet read in dense mode holds cells in (0-based, columns from A), or undefined when it holds none. Not
 * SheetJS's `!ref`: that comes from the xlsx `<dimension>` tag, which some non-Excel writers leave stale (A1:E2 over
 * five data rows would drop four of them). One pass over the row array, none over the cells.
 */
export function cellRange(sheet: XLSX.WorkSheet): XLSX.Range | undefined {
  const data = (sheet['!data'] ?? []) as ReadonlyArray<readonly unknown[] | undefined>;
  let first = -1;
  let last = -1;
  let lastColumn = 0;
  for (let r = 0; r < data.length; r++) {
    // A dense row's length is one past its last cell.
    const length = data[r]?.length ?? 0;
    if (length === 0) continue;
    if (first < 0) first = r;
    last = r;
    if (length - 1 > lastColumn) lastColumn = length - 1;
  }
  return first < 0 ? undefined : { s: { r: first, c: 0 }, e: { r: last, c: lastColumn } };
}

/**
 * The sheet named by the user (read even if hidden; undefined when the workbook has none of that name), else the first
 * visible sheet with cells, else the first visible sheet. A hidden sheet (a template's archived copy, a lookup list)
 * is one Excel users never see, so it is never read by default.
 */
export function pickSheet(workbook: XLSX.WorkBook, named?: string): PickedSheet {
  if (named !== undefined)
    return { name: workbook.SheetNames.includes(named) ? named : undefined, skippedHidden: [] };
  const visible = workbook.SheetNames.filter((name) => !isHidden(workbook, name));
  const name =
    visible.find((candidate) => hasCells(workbook, candidate)) ?? visible[0] ?? workbook.SheetNames[0];
  const before =
    name === undefined
      ? workbook.SheetNames
      : workbook.SheetNames.slice(0, workbook.SheetNames.indexOf(name));
  return {
    name,
    skippedHidden: before.filter(
      (candidate) => isHidden(workbook, candidate) && hasCells(workbook, candidate),
    ),
  };
}

/** The warning naming hidden sheets a reader passed over, the same in both jobs. */
export function hiddenSheetsWarning(skippedHidden: readonly string[], read: string): string {
  const names = skippedHidden.map((name) => `'${name}'`).join(', ');
  return `hidden sheet(s) ${names} were not read (Excel does not show them); read the first visible sheet '${read}' (name a sheet to read a hidden one)`;
}

/** A merge reaching down more rows than this is not copied into each (a sheet-sized merge would blow memory up). */
export const MAX_MERGE_ROWS = 10_000;

/** The merges too tall to copy into their rows, named in one warning: the first three, then how many more. */
function tallMergesWarning(tall: ReadonlyArray<{ from: number; rows: number }>): string | undefined {
  const [first] = tall;
  if (first === undefined) return undefined;
  if (tall.length === 1)
    return (
      `a merged range of ${count(first.rows)} rows from row ${first.from} was not copied into its rows (over ` +
      `${count(MAX_MERGE_ROWS)}); only its first row holds the value`
    );
  const named = tall.slice(0, 3).map(({ from, rows }) => `from row ${from}, ${count(rows)} rows`);
  if (tall.length > 3) named.push(`and ${count(tall.length - 3)} more`);
  return (
    `${count(tall.length)} merged ranges of over ${count(MAX_MERGE_ROWS)} rows were not copied into their rows ` +
    `(${named.join('; ')}); only each one's first row holds the value`
  );
}

/**
 * Fills merged ranges starting at or below `fromRow` the way a person reads them: the top-left value goes down the
 * rows of the merge's first column (a vertical merge is how exports group a style's or an order's rows); cells the
 * merge covers in other columns stay blank (a merge across columns is layout: a description spread over the gender
 * column is no gender). Only cells absent or stubs are filled. A merge over more than `MAX_MERGE_ROWS` rows is left
 * as it is and named in `warnings`. Merges covering more than `inputLimits.mergedRows` rows in all refuse the sheet
 * before any is filled: a few KB of one merge repeated would otherwise keep the reader busy for minutes.
 */
export function fillMergesDown(
  data: Array<Array<XLSX.CellObject | undefined> | undefined>,
  merges: readonly XLSX.Range[],
  fromRow: number,
  warnings: string[],
  limits: Pick<InputLimits, 'mergedRows'> = inputLimits,
): void {
  let covered = 0;
  for (const merge of merges) {
    const rows = merge.e.r - merge.s.r + 1;
    if (merge.s.r >= fromRow && rows > 1 && rows <= MAX_MERGE_ROWS) covered += rows;
  }
  if (covered > limits.mergedRows) {
    throw new InputLimitError(
      'too_many_merged_cells',
      `the sheet's ${count(merges.length)} merged ranges cover ${count(covered)} rows in all, over the limit of ` +
        `${count(limits.mergedRows)} merged rows. Unmerge the cells (Excel: Home > Merge & Center > Unmerge Cells) ` +
        'or save the sheet as csv, and re-run.',
    );
  }
  const tall: Array<{ from: number; rows: number }> = [];
  for (const merge of merges) {
    if (merge.s.r < fromRow || merge.e.r <= merge.s.r) continue;
    const source = data[merge.s.r]?.[merge.s.c];
    if (!source) continue;
    const rows = merge.e.r - merge.s.r + 1;
    if (rows > MAX_MERGE_ROWS) {
      tall.push({ from: merge.s.r + 1, rows });
      continue;
    }
    for (let r = merge.s.r + 1; r <= merge.e.r; r++) {
      const row = (data[r] ??= []);
      const cell = row[merge.s.c];
      if (cell === undefined || cell === null || cell.t === 'z') row[merge.s.c] = source;
    }
  }
  const warning = tallMergesWarning(tall);
  if (warning !== undefined) warnings.push(warning);
}

/**
 * The parts of the workbook's package SheetJS keeps when read with `bookFiles: true` (already inflated: no second
 * inflate, no second copy). Only an xlsx has them as XML; an xls has none of these names.
 */
const packageFilesSchema = z.record(z.string(), z.unknown());
const packageFileSchema = z.object({ content: z.instanceof(Uint8Array) });

function packageFile(files: Record<string, unknown>, path: string): Buffer | undefined {
  const wanted = path.replace(/^\//, '');
  const key =
    wanted in files ? wanted : Object.keys(files).find((name) => name.toLowerCase() === wanted.toLowerCase());
  const parsed = packageFileSchema.safeParse(key === undefined ? undefined : files[key]);
  if (!parsed.success) return undefined;
  const { content } = parsed.data;
  return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
}

const ID_ATTRIBUTE = /\s(?:[\w.-]+:)?id\s*=\s*["']([^"']*)["']/;
const REL_ID_ATTRIBUTE = /\sId\s*=\s*["']([^"']*)["']/;
const TARGET_ATTRIBUTE = /\sTarget\s*=\s*["']([^"']*)["']/;
const R_ATTRIBUTE = /\sr\s*=\s*["'](\d+)["']/;
const HIDDEN_ATTRIBUTE = /\shidden\s*=\s*["'](?:1|true)["']/;

/** The package path of the `index`-th sheet: workbook.xml's `<sheet r:id>` looked up in the workbook's rels. */
function sheetPath(files: Record<string, unknown>, index: number): string | undefined {
  const workbookXml = packageFile(files, 'xl/workbook.xml')?.toString('utf8');
  const rels = packageFile(files, 'xl/_rels/workbook.xml.rels')?.toString('utf8');
  if (workbookXml === undefined || rels === undefined) return undefined;
  // SheetJS lists SheetNames in the order of the <sheet> elements.
  const sheetTag = workbookXml.match(/<(?:[\w.-]+:)?sheet\s[^>]*>/g)?.[index];
  const id = sheetTag === undefined ? undefined : ID_ATTRIBUTE.exec(sheetTag)?.[1];
  if (id === undefined) return undefined;
  for (const relationship of rels.match(/<(?:[\w.-]+:)?Relationship\s[^>]*>/g) ?? []) {
    if (REL_ID_ATTRIBUTE.exec(relationship)?.[1] !== id) continue;
    const target = TARGET_ATTRIBUTE.exec(relationship)?.[1];
    if (target === undefined) return undefined;
    return target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`;
  }
  return undefined;
}

/** How many hidden row numbers a warning names. */
const HIDDEN_ROWS_NAMED = 5;

const LT = 0x3c;
const GT = 0x3e;
const COLON = 0x3a;

/** Whether the byte may be part of an XML name prefix (`x` of `<x:row`). */
function isNameByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    byte === 0x5f ||
    byte === 0x2d ||
    byte === 0x2e
  );
}

/** Whether `row` at `at` is the name of a start tag (`<row ` or `<x:row>`), not `<rowBreaks>` or text. */
function isRowTagAt(xml: Buffer, at: number): boolean {
  const after = xml[at + 3];
  if (after !== 0x20 && after !== 0x09 && after !== 0x0a && after !== 0x0d && after !== GT && after !== 0x2f)
    return false;
  let before = at - 1;
  if (xml[before] === COLON) {
    before -= 1;
    while (before >= 0 && isNameByte(xml[before] ?? 0)) before -= 1;
  }
  return xml[before] === LT;
}

/**
 * The rows (1-based) of sheet `sheetName` hidden by a filter or by hand: the `hidden="1"` of its `<row>` tags.
 * SheetJS reports them only with `cellStyles`, which makes a big workbook's read several times slower, so they are
 * read here from the sheet's XML as SheetJS inflated it (kept by reading with `bookFiles: true`), one row start tag
 * at a time: no second inflate, no string of the whole sheet. Empty for a workbook that is not xlsx XML.
 * Takes the kept package off the workbook, so the inflated XML is not held while the reader builds its rows.
 */
export function takeHiddenRows(workbook: XLSX.WorkBook, sheetName: string): ReadonlySet<number> {
  const kept = workbook as { files?: unknown; keys?: unknown };
  const files = packageFilesSchema.safeParse(kept.files);
  delete kept.files;
  delete kept.keys;
  const index = workbook.SheetNames.indexOf(sheetName);
  const path = files.success && index >= 0 ? sheetPath(files.data, index) : undefined;
  const xml = files.success && path !== undefined ? packageFile(files.data, path) : undefined;
  const hidden = new Set<number>();
  // Most sheets hide no row: one search of the bytes says so, without visiting each row's tag.
  if (xml === undefined || xml.indexOf('hidden=') < 0) return hidden;
  let previous = 0;
  let at = xml.indexOf('row');
  while (at >= 0) {
    let next = at + 3;
    if (isRowTagAt(xml, at)) {
      const end = xml.indexOf(GT, at);
      if (end < 0) break;
      // Only the start tag's attributes become a string.
      const tag = xml.toString('latin1', at + 3, end);
      // A <row> without r follows the one before it.
      const r = Number(R_ATTRIBUTE.exec(tag)?.[1] ?? previous + 1);
      previous = r;
      if (HIDDEN_ATTRIBUTE.test(tag)) hidden.add(r);
      next = end;
    }
    at = xml.indexOf('row', next);
  }
  return hidden;
}

/**
 * The warning for rows hidden in the sheet read (`rows`: the 1-based rows a reader took that are hidden, in order).
 * They are in the file, and the job reads the file, so they were `done` like the others; whoever exported it may not
 * know they are there (a cancelled order filtered out), so they are counted and the first few named.
 */
export function hiddenRowsWarning(
  rows: { count: number; first: readonly number[] },
  sheetName: string,
  done: 'pushed' | 'imported',
): string {
  const one = rows.count === 1;
  const shown = rows.first.slice(0, HIDDEN_ROWS_NAMED).join(', ');
  const more = rows.count > HIDDEN_ROWS_NAMED ? ` and ${count(rows.count - HIDDEN_ROWS_NAMED)} more` : '';
  const again = done === 'pushed' ? 'push' : 'import';
  return (
    `${count(rows.count)} row${one ? '' : 's'} of sheet '${quoteInput(sheetName, 60)}' ${one ? 'is' : 'are'} hidden ` +
    `(row${one ? '' : 's'} ${shown}${more}), by a filter or by hand; they were ${done} like the others, since they ` +
    `are in the file. If they must not be, delete them from the export and ${again} again`
  );
}

/** Collects the hidden rows a reader takes: a count and the first few, never a list as long as the sheet. */
export class HiddenRowsSeen {
  count = 0;
  readonly first: number[] = [];

  add(row: number): void {
    this.count += 1;
    if (this.first.length < HIDDEN_ROWS_NAMED) this.first.push(row);
  }
}

/** The later copies of a repeated header name are keyed `Name (column D)` by the ERP csv reader. */
const COPY_OF_HEADER = / \(column [A-Z]+\)$/;

/**
 * Whether a data row repeats the header row: every non-blank cell, at least two, holds its own column's name, case
 * and surrounding blanks (a pasted file's byte-order mark among them) aside. Two exports pasted one under the other,
 * or a report's page header, give such rows; read as data, each is a record named after the columns.
 */
export function repeatsHeaderRow(cells: Iterable<readonly [column: string, text: string | null]>): boolean {
  let named = 0;
  for (const [column, text] of cells) {
    if (text === null || text.trim() === '') continue;
    const said = text.trim().toLowerCase();
    if (
      said !== column.trim().toLowerCase() &&
      said !== column.replace(COPY_OF_HEADER, '').trim().toLowerCase()
    )
      return false;
    named += 1;
  }
  return named >= 2;
}

/** The warning for rows skipped as repeated header rows (`repeatsHeaderRow`), the first ten named. */
export function repeatedHeaderWarning(
  rows: readonly number[],
  record: 'order' | 'product',
): string | undefined {
  if (rows.length === 0) return undefined;
  const several = rows.length > 1;
  return (
    `${listSome(
      rows.map((row) => `row ${row}`),
      10,
    )} ${several ? 'repeat' : 'repeats'} the header row ` +
    `(exports pasted one under the other, or a page header): ${several ? `not ${record}s` : `not a ${record}`}, skipped`
  );
}
