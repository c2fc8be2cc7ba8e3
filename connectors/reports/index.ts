export { neutraliseFormula } from './cells';
export { toCsv } from './csv';
export { escapeHtml, htmlDocument, htmlTable } from './html';
export { tableMatrix, type CellValue, type Column, type Matrix, type Table } from './table';
export { safeSheetName, toXlsx } from './xlsx';
