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
