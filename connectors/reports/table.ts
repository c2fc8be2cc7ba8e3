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

/** A table reduced to its cells: what writers that mix tables of several row types take. */
export interface Matrix {
  name: string;
  header: string[];
  body: CellValue[][];
}

/** Column names with values per row, in column order. */
export function tableMatrix<R>(table: Table<R>): Matrix {
  return {
    name: table.name,
    header: table.columns.map((column) => column.header),
    body: table.rows.map((row) => table.columns.map((column) => column.value(row))),
  };
}
