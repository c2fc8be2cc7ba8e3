/**
 * Report writers: one table model (`Table`: named columns over rows), written as CSV, an HTML table or page, and
 * an xlsx workbook. The csv writer neutralises text a spreadsheet would run as a formula; an xlsx text cell is never
 * run, so it holds the text as given.
 */
import * as XLSX from 'xlsx';

/** A value a report cell can hold. Dates are given as ISO `YYYY-MM-DD` strings in a column of kind `date`. */
export type CellValue = string | number | boolean | null | undefined;

/** `date`: the values are `YYYY-MM-DD`; xlsx stores them as real Excel dates, html never wraps them. */
export type ColumnKind = 'text' | 'number' | 'date';

export interface Column<R> {
  header: string;
  value: (row: R) => CellValue;
  kind?: ColumnKind;
}

export interface Table<R> {
  name: string;
  columns: readonly Column<R>[];
  rows: readonly R[];
}

/** A table reduced to its cells: what writers that mix tables of several row types take. */
export interface Matrix {
  name: string;
  header: string[];
  body: CellValue[][];
  /** Per column; `text` when absent. */
  kinds?: ColumnKind[];
}

/** Column names with values per row, in column order. */
export function tableMatrix<R>(table: Table<R>): Matrix {
  return {
    name: table.name,
    header: table.columns.map((column) => column.header),
    body: table.rows.map((row) => table.columns.map((column) => column.value(row))),
    kinds: table.columns.map((column) => column.kind ?? 'text'),
  };
}

// Spreadsheet apps evaluate text starting with these as a formula (CSV/formula injection, OWASP).
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/** Prefixes text that a spreadsheet would run as a formula with an apostrophe, so it shows as typed. */
function neutraliseFormula(value: CellValue): CellValue {
  if (typeof value !== 'string' || value.length === 0) return value;
  return FORMULA_TRIGGERS.has(value[0] ?? '') ? `'${value}` : value;
}

function csvField(value: CellValue): string {
  const safe = neutraliseFormula(value);
  if (safe === null || safe === undefined) return '';
  const text = String(safe);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 CSV with CRLF line ends and a UTF-8 byte-order mark (so Excel reads accents right). */
export function toCsv<R>(table: Table<R>, options: { bom?: boolean } = {}): string {
  const { header, body } = tableMatrix(table);
  const lines = [header, ...body].map((cells) => cells.map(csvField).join(','));
  return (options.bom === false ? '' : '\uFEFF') + lines.join('\r\n') + '\r\n';
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: CellValue): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/**
 * A `<table>` with a caption (unless `caption: false`), a header row and one row per record; an empty table says so. Cells of a `date` or
 * `number` column get that class (dates never wrap, numbers align right).
 */
export function htmlTable<R>(
  table: Table<R>,
  options: { id?: string; emptyText?: string; className?: string; caption?: boolean } = {},
): string {
  const { header, body, kinds } = tableMatrix(table);
  const id = options.id ? ` id="${escapeHtml(options.id)}"` : '';
  const className = options.className ? ` class="${escapeHtml(options.className)}"` : '';
  const cellClass = (index: number) => {
    const kind = kinds?.[index];
    return kind === 'date' || kind === 'number' ? ` class="${kind}"` : '';
  };
  const head = header
    .map((title, index) => `<th scope="col"${cellClass(index)}>${escapeHtml(title)}</th>`)
    .join('');
  const rows =
    body.length === 0
      ? `<tr><td colspan="${header.length}" class="empty">${escapeHtml(options.emptyText ?? 'None')}</td></tr>`
      : body
          .map(
            (cells) =>
              `<tr>${cells.map((cell, index) => `<td${cellClass(index)}>${escapeHtml(cell)}</td>`).join('')}</tr>`,
          )
          .join('\n');
  // A page that heads the table itself (with the full count, say) gives no caption: one heading, not two.
  const caption =
    options.caption === false ? '' : `<caption>${escapeHtml(table.name)} (${body.length})</caption>\n`;
  return `<table${id}${className}>\n${caption}<thead><tr>${head}</tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table>`;
}

const REPORT_STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem; color: #1f2933; }
h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
p.meta { color: #52606d; margin-top: 0; }
table { border-collapse: collapse; margin: 1rem 0 2rem; width: 100%; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; font-size: 1.1rem; padding: 0.5rem 0; }
th, td { border-bottom: 1px solid #d9e2ec; padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
thead th { background: #f0f4f8; position: sticky; top: 0; }
td.empty { color: #829ab1; font-style: italic; }
td.date, th.date { white-space: nowrap; }
td.number, th.number { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.cards { display: flex; gap: 1rem; flex-wrap: wrap; margin: 1rem 0; }
.card { border: 1px solid #d9e2ec; border-radius: 6px; padding: 0.75rem 1rem; min-width: 9rem; }
.card strong { display: block; font-size: 1.6rem; }
`;

/** A complete, self-contained HTML5 document; `extraStyle` is appended to the shared style. */
export function htmlDocument(title: string, body: string, extraStyle = ''): string {
  return `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(title)}</title>\n<style>${REPORT_STYLE}${extraStyle}</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

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
function safeSheetName(name: string): string {
  return name.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31);
}

const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const XLSX_DATE_FORMAT = 'yyyy-mm-dd';

/**
 * A `YYYY-MM-DD` as an Excel date cell (a day serial with a date format), so sorting and filtering work. Excel's
 * dates start in 1900 (and count one day off before March 1900, its 29 February 1900): an earlier one (a typo, a
 * placeholder) stays text, which Excel would otherwise show as ####.
 */
function dateCell(value: CellValue): XLSX.CellObject | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || value < '1900-03-01') return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms)) return null;
  return { t: 'n', v: (ms - EXCEL_EPOCH_MS) / 86_400_000, z: XLSX_DATE_FORMAT };
}

/** Excel's most characters in a cell; SheetJS refuses to write a workbook with a longer one. */
export const CELL_CHARS = 32_767;

/**
 * Text as a spreadsheet cell can hold it: at most `CELL_CHARS` characters, a longer one cut and ending
 * `… (cut at 32,767 characters of N)`, so one long value never costs the whole file.
 */
export function cutToCell(text: string): string {
  if (text.length <= CELL_CHARS) return text;
  const note = `… (cut at ${CELL_CHARS.toLocaleString('en-US')} characters of ${text.length.toLocaleString('en-US')})`;
  let end = CELL_CHARS - note.length;
  // never half a surrogate pair
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end) + note;
}

function sheetCell(
  value: CellValue,
  kind: ColumnKind | undefined,
): XLSX.CellObject | string | number | boolean | null {
  if (kind === 'date') {
    const date = dateCell(value);
    if (date) return date;
  }
  // A text cell (t="s") is shown as typed, never run as a formula: an apostrophe would only show as one.
  if (typeof value === 'string') return { t: 's', v: cutToCell(value) };
  return value ?? null;
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
