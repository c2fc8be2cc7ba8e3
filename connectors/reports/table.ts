/** A value a report cell can hold. Dates are written as ISO `YYYY-MM-DD` strings by the callers. */
export type CellValue = string | number | boolean | null | undefined;

export interface Column<R> {
  header: string;
  value: (row: R) => CellValue;
}

export interface Table<R> {
  name: string;
  columns: readonly Column<R>[];
  rows: readonly R[];
}

/** Column names with values per row, in column order. */
export function tableMatrix<R>(table: Table<R>): { header: string[]; body: CellValue[][] } {
  return {
    header: table.columns.map((column) => column.header),
    body: table.rows.map((row) => table.columns.map((column) => column.value(row))),
  };
}
