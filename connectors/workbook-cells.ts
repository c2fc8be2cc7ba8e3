import type * as XLSX from 'xlsx';

/**
 * Cell rules both workbook readers (the PLM import and the ERP order push) apply to SheetJS cells, so a cell reads
 * the same in either job.
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

/**
 * Fills merged ranges starting at or below `fromRow` the way a person reads them: the top-left value goes down the
 * rows of the merge's first column (a vertical merge is how exports group a style's or an order's rows); cells the
 * merge covers in other columns stay blank (a merge across columns is layout: a description spread over the gender
 * column is no gender). Only cells absent or stubs are filled. A merge over more than `MAX_MERGE_ROWS` rows is left
 * as it is and named in `warnings`.
 */
export function fillMergesDown(
  data: Array<Array<XLSX.CellObject | undefined> | undefined>,
  merges: readonly XLSX.Range[],
  fromRow: number,
  warnings: string[],
): void {
  for (const merge of merges) {
    if (merge.s.r < fromRow || merge.e.r <= merge.s.r) continue;
    const source = data[merge.s.r]?.[merge.s.c];
    if (!source) continue;
    const rows = merge.e.r - merge.s.r + 1;
    if (rows > MAX_MERGE_ROWS) {
      warnings.push(
        `a merged range of ${rows} rows from row ${merge.s.r + 1} was not copied into its rows (over ${MAX_MERGE_ROWS}); only its first row holds the value`,
      );
      continue;
    }
    for (let r = merge.s.r + 1; r <= merge.e.r; r++) {
      const row = (data[r] ??= []);
      const cell = row[merge.s.c];
      if (cell === undefined || cell === null || cell.t === 'z') row[merge.s.c] = source;
    }
  }
}
