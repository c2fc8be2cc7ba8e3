/**
 * Rows of a real export that are no order line: a header row repeated below the first (two exports pasted one under
 * the other, a report's page header) and totals rows (an ERP list's subtotal per order, its grand total, a SUM row
 * added in Excel). Read as data they would reject real orders: a totals row has no order number, so it joined the
 * order above as a line naming no product and rejected it.
 */

import type { ColumnBinding, SourceField } from '../profile';
import { cellText } from '../cell-values';
import { isBlank, type SourceRow } from '../read/types';
import { repeatedHeaderWarning, repeatsHeaderRow } from '../../workbook-cells';
import { loneText, notesWarning, TrailingNotes, type NoteRow } from '../../trailing-notes';
import type { ExportTable } from '../read/types';
import type { MappedRow } from './row';

/** A row of the export that repeats its header row (`repeatsHeaderRow`). */
export function repeatsHeader(source: SourceRow): boolean {
  return (
    source.problem === undefined &&
    repeatsHeaderRow(
      Object.entries(source.values).map(
        ([column, value]) => [column, isBlank(value) ? null : cellText(value)] as const,
      ),
    )
  );
}

/**
 * A label naming a totals row: a total word standing alone anywhere in it ("Total", "PO-1 Total" and "Grand Total" as
 * Excel's Data > Subtotal writes them, "Order total", "Summa", "Totalt", "Gesamtergebnis"), in English, German,
 * Swedish, French, Dutch, Italian or Spanish. A word joined to more by a hyphen is an order number ("TOTAL-7").
 */
const TOTAL_LABEL =
  /(^|\s)(grand\s*total|sub-?\s*total|sous-total|total[est]?|totaal|totaux|totalsumma|delsumma|summa|summe|sum|somme|suma|gesamt|gesamtsumme|ergebnis|gesamtergebnis|zwischensumme)(?=[\s:.]|$)/i;

/** Columns a totals row may fill: its label (the order's number, `Total`), what an ERP list sums, and its unit. */
const TOTALLED: ReadonlySet<SourceField> = new Set(['orderNumber', 'quantity', 'unit', 'secondaryQuantity']);

interface Run {
  cents: number;
  rows: number[];
  /** A line of it fills no other mapped column either: a row like it could be a line, so none is taken for a total. */
  plain: boolean;
}

const emptyRun = (): Run => ({ cents: 0, rows: [], plain: false });

/**
 * Follows the line rows of an export and tells a totals row: one whose own cells are blank in every mapped column
 * but its label, the quantity, its unit and weight, and whose quantity is the sum of two or more lines right above
 * it, either those of the order above (a subtotal, labelled blank, with a total word or with that order's number, as
 * ERP lists do) or every line so far (a grand total, labelled blank or with a total word). A row labelled with
 * another order's number is that order's line, whatever its quantity. Each line's quantity was rounded to
 * hundredths, so the sum may be off by half a hundredth a line. The lines summed must each fill some other mapped
 * column (a product, a line number...) that the totals row leaves blank; where they do not, a row with a quantity
 * alone may be a line, and stays one. A line that only forgot its product sums nothing above, and still rejects its
 * order.
 */
export class TotalsRows {
  private readonly all = emptyRun();
  private order = { ...emptyRun(), orderNumber: '' };

  constructor(private readonly binding: ColumnBinding) {}

  private onlyTotalled(source: SourceRow): boolean {
    return (Object.entries(this.binding.bound) as Array<[SourceField, string]>).every(
      ([field, column]) => TOTALLED.has(field) || isBlank(source.values[column]),
    );
  }

  /** A line row of an order, read (its order number filled in when it continues the order above). */
  add(source: SourceRow, mapped: MappedRow): void {
    const quantity = mapped.line.quantity;
    if (quantity === undefined) return;
    if (this.order.orderNumber !== mapped.orderNumber)
      this.order = { ...emptyRun(), orderNumber: mapped.orderNumber };
    const plain = this.onlyTotalled(source);
    for (const run of [this.all, this.order]) {
      run.cents += Math.round(quantity * 100);
      run.rows.push(mapped.row);
      run.plain ||= plain;
    }
  }

  /** The rows `mapped` totals, or undefined when it is no totals row. */
  totals(source: SourceRow, mapped: MappedRow): number[] | undefined {
    const quantity = mapped.line.quantity;
    if (source.problem !== undefined || quantity === undefined || !this.onlyTotalled(source))
      return undefined;
    const cents = Math.round(quantity * 100);
    const sums = (run: Run): boolean =>
      !run.plain && run.rows.length >= 2 && Math.abs(run.cents - cents) <= run.rows.length / 2;
    // The row's own label (blank when it gives none): another order's number makes it that order's line.
    const label = mapped.orderNumber;
    const worded = label === '' || TOTAL_LABEL.test(label);
    if ((worded || label === this.order.orderNumber) && sums(this.order)) return [...this.order.rows];
    if (worded && sums(this.all)) return [...this.all.rows];
    return undefined;
  }
}

/**
 * The export's rows without the notes a sheet ends with (`TrailingNotes`, the PLM import's rule). Every line needs a
 * quantity cell, so a row of one cell can be a line only when that cell is the quantity (a sparse profile's line, a
 * grand total): a cell with a digit in the quantity column is never a note. JSON exports hold no notes.
 */
export function withoutTrailingNotes(
  table: ExportTable,
  binding: ColumnBinding,
): { rows: SourceRow[]; notes: NoteRow[] } {
  if (table.format !== 'csv' && table.format !== 'xlsx') return { rows: table.rows, notes: [] };
  const quantityColumn = binding.bound.quantity;
  const noteText = (source: SourceRow): string | null => {
    if (source.problem !== undefined || Object.keys(source.cellErrors ?? {}).length > 0) return null;
    const text = loneText(Object.values(source.values));
    const quantity = quantityColumn === undefined ? undefined : source.values[quantityColumn];
    return text !== null && typeof quantity === 'string' && /\d/.test(quantity) ? null : text;
  };
  const trailing = new TrailingNotes<SourceRow>((source) => source.row, noteText);
  const rows = table.rows.flatMap((source) => trailing.take(source));
  return { rows, notes: trailing.end() };
}

/** The build's warnings for the rows it skipped, one per kind, naming the first rows. */
export function skippedRowsWarnings(
  headers: readonly number[],
  notes: readonly NoteRow[],
  totals: ReadonlyArray<{ row: number; of: readonly number[] }>,
): string[] {
  const warnings: string[] = [];
  const repeated = repeatedHeaderWarning(headers, 'order');
  if (repeated) warnings.push(repeated);
  const noted = notesWarning(notes, 'order');
  if (noted !== undefined) warnings.push(noted);
  if (totals.length > 0) {
    const more = totals.length > 10 ? ` and ${totals.length - 10} more` : '';
    const described = totals
      .slice(0, 10)
      .map(
        ({ row, of }) =>
          `row ${row} (the sum of the ${of.length} lines from row ${of[0]} to row ${of[of.length - 1]})`,
      );
    warnings.push(
      `${described.join(', ')}${more}: ${totals.length > 1 ? 'totals rows' : 'a totals row'} (no product ` +
        'or line number, a quantity that sums the lines above), not order lines, skipped',
    );
  }
  return warnings;
}
