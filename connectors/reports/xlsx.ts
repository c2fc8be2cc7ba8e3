import * as XLSX from 'xlsx';
import { neutraliseFormula } from './cells';
import type { CellValue, ColumnKind, Matrix } from './table';

const MIN_WIDTH = 8;
const MAX_WIDTH = 60;
// SheetJS community edition cannot write frozen panes, so the sheet XML is patched after writing.
const PLAIN_VIEW = '<sheetView workbookViewId="0"/>';
const FROZEN_HEADER_VIEW =
  '<sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' +
  '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView>';

function columnWidths(header: string[], body: CellValue[][]): Array<{ wch: number }> {
  return header.map((title, index) => {
    let widest = title.length;
    for (const row of body) {
      const cell = row[index];
      if (cell !== null && cell !== undefined) widest = Math.max(widest, String(cell).length);
    }
    return { wch: Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widest + 2)) };
  });
}

/** Excel sheet names: at most 31 characters, none of []:*?/\ */
export function safeSheetName(name: string): string {
  return name.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31);
}

const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
export const XLSX_DATE_FORMAT = 'yyyy-mm-dd';

/** A `YYYY-MM-DD` as an Excel date cell (a day serial with a date format), so sorting and filtering work. */
function dateCell(value: CellValue): XLSX.CellObject | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms)) return null;
  return { t: 'n', v: (ms - EXCEL_EPOCH_MS) / 86_400_000, z: XLSX_DATE_FORMAT };
}

function sheetCell(
  value: CellValue,
  kind: ColumnKind | undefined,
): XLSX.CellObject | string | number | boolean | null {
  if (kind === 'date') {
    const date = dateCell(value);
    if (date) return date;
  }
  return neutraliseFormula(value) ?? null;
}

/**
 * An xlsx workbook with one sheet per table (see `tableMatrix`), header row frozen, widths fitted to the content.
 * Columns of kind `date` hold real Excel dates (formatted `yyyy-mm-dd`).
 */
export function toXlsx(sheets: readonly Matrix[]): Buffer {
  const workbook = XLSX.utils.book_new();
  for (const { name, header, body, kinds } of sheets) {
    const safeBody = body.map((row) => row.map((cell, index) => sheetCell(cell, kinds?.[index])));
    const sheet = XLSX.utils.aoa_to_sheet([header, ...safeBody]);
    sheet['!cols'] = columnWidths(header, body);
    if (body.length > 0) sheet['!autofilter'] = { ref: sheet['!ref'] ?? 'A1' };
    XLSX.utils.book_append_sheet(workbook, sheet, safeSheetName(name));
  }
  const written = XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
  return freezeHeaderRows(written);
}

/** The part of SheetJS's bundled zip container (CFB) used here; its published typings are loose. */
interface ZipContainer {
  FullPaths: string[];
  FileIndex: Array<{ content?: Uint8Array | Buffer }>;
}

function freezeHeaderRows(xlsx: Buffer): Buffer {
  const container = XLSX.CFB.read(xlsx, { type: 'buffer' }) as unknown as ZipContainer;
  container.FullPaths.forEach((path: string, index: number) => {
    if (!/\/xl\/worksheets\/sheet\d+\.xml$/.test(path)) return;
    const entry = container.FileIndex[index];
    if (!entry?.content) return;
    const xml = Buffer.from(entry.content as Uint8Array).toString('utf8');
    entry.content = Buffer.from(xml.replace(PLAIN_VIEW, FROZEN_HEADER_VIEW), 'utf8');
  });
  const zipped: unknown = XLSX.CFB.write(container as unknown as Parameters<typeof XLSX.CFB.write>[0], {
    type: 'buffer',
    fileType: 'zip',
    compression: true,
  });
  return Buffer.from(zipped as Uint8Array);
}
