export { neutraliseFormula } from './cells';
export { toCsv } from './csv';
export { escapeHtml, htmlDocument, htmlTable } from './html';
export type { CellValue, Column, Table } from './table';
export { safeSheetName, toXlsx } from './xlsx';
