import type { CellValue } from './table';

// Spreadsheet apps evaluate text starting with these as a formula (CSV/formula injection, OWASP).
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/** Prefixes text that a spreadsheet would run as a formula with an apostrophe, so it shows as typed. */
export function neutraliseFormula(value: CellValue): CellValue {
  if (typeof value !== 'string' || value.length === 0) return value;
  return FORMULA_TRIGGERS.has(value[0] ?? '') ? `'${value}` : value;
}
