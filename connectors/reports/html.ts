import { tableMatrix, type CellValue, type Table } from './table';

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
 * A `<table>` with a caption, a header row and one row per record; an empty table says so. Cells of a `date` or
 * `number` column get that class (dates never wrap, numbers align right).
 */
export function htmlTable<R>(
  table: Table<R>,
  options: { id?: string; emptyText?: string; className?: string } = {},
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
  return `<table${id}${className}>\n<caption>${escapeHtml(table.name)} (${body.length})</caption>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table>`;
}

export const REPORT_STYLE = `
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
