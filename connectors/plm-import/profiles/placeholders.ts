import { count, quoteList } from '../../input-limits';
import type { CellValue } from '../read/sheet';

/**
 * What exports write where a value is not known yet. In a weight, a barcode, a composition or a number, date or
 * boolean custom property none of them can be the value, so such a cell reads as blank (never clearing anything)
 * instead of refusing the row. Text fields and keys keep what the cell says. (`#N/A` is a formula's error: not here.)
 */
const PLACEHOLDERS = new Set(['n/a', 'n.a.', 'na', '-', '--', '–', '—', 'tbd', 'tbc']);

export function isPlaceholder(value: CellValue): value is string {
  return typeof value === 'string' && PLACEHOLDERS.has(value.trim().toLowerCase());
}

/** The placeholder cells a sheet's read passed over, for one warning (each cell once, though three levels read a row). */
export class PlaceholderCells {
  private total = 0;
  private readonly texts = new Map<string, string>();
  private first: string | null = null;
  private row = -1;
  private readonly seenInRow = new Set<string>();

  add(rowNumber: number, column: string | null, text: string): void {
    if (rowNumber !== this.row) {
      this.row = rowNumber;
      this.seenInRow.clear();
    }
    const key = column ?? '';
    if (this.seenInRow.has(key)) return;
    this.seenInRow.add(key);
    this.total++;
    const trimmed = text.trim();
    if (!this.texts.has(trimmed.toLowerCase())) this.texts.set(trimmed.toLowerCase(), trimmed);
    this.first ??= column === null ? `row ${rowNumber}` : `row ${rowNumber}, column '${column}'`;
  }

  warning(): string | undefined {
    if (this.total === 0) return undefined;
    return `${count(this.total)} ${this.total === 1 ? 'cell' : 'cells'} holding a placeholder (${quoteList([...this.texts.values()], 5, 20)}; first: ${this.first ?? ''}) were read as blank: no value is written for them`;
  }
}
