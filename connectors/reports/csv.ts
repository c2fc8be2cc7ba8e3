import { neutraliseFormula } from './cells';
import { tableMatrix, type CellValue, type Table } from './table';

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
