import * as XLSX from 'xlsx';
import { neutraliseFormula } from './cells';
import type { CellValue, Matrix } from './table';

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

/** An xlsx workbook with one sheet per table (see `tableMatrix`), header row frozen, widths fitted to the content. */
export function toXlsx(sheets: readonly Matrix[]): Buffer {
  const workbook = XLSX.utils.book_new();
  for (const { name, header, body } of sheets) {
    const safeBody = body.map((row) => row.map((cell) => neutraliseFormula(cell) ?? null));
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
