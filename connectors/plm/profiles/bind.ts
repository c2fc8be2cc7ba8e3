import { quoteInput, quoteList } from '../../input-limits';
import { PlmFileError } from '../issues';
import type { CellValue, SheetRow } from '../read/types';
import type { ValueSource } from './schema';

type Scalar = string | number | boolean;
type ColumnRef = { column: string | null; wanted: string };

/** A value source with its column names matched to the sheet's actual headers (null when absent). */
export type BoundSource =
  | { kind: 'column'; ref: ColumnRef; default?: Scalar; split?: string }
  | { kind: 'template'; parts: Array<string | ColumnRef>; default?: Scalar; split?: string }
  | { kind: 'constant'; value: Scalar; split?: string };

export interface SourceRead {
  value: CellValue;
  /** The column named in messages about this value. */
  column: string | null;
  /** True when the value came from cells (not a constant or a default). */
  fromCells: boolean;
  cellError?: { column: string; text: string };
}

const headerKey = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();

export class HeaderIndex {
  private readonly byKey = new Map<string, string>();
  readonly used = new Set<string>();

  constructor(readonly headers: readonly string[]) {
    for (const header of headers) this.byKey.set(headerKey(header), header);
  }

  find(name: string): string | null {
    const header = this.byKey.get(headerKey(name)) ?? null;
    if (header !== null) this.used.add(header);
    return header;
  }
}

export function bindSource(source: ValueSource, headers: HeaderIndex): BoundSource {
  const extras = {
    ...(source.default !== undefined ? { default: source.default } : {}),
    ...(source.split !== undefined ? { split: source.split } : {}),
  };
  if (source.column !== undefined)
    return { kind: 'column', ref: { column: headers.find(source.column), wanted: source.column }, ...extras };
  if (source.template !== undefined) {
    const parts: Array<string | ColumnRef> = [];
    const pattern = /\{([^}]+)\}/g;
    let last = 0;
    for (let match = pattern.exec(source.template); match; match = pattern.exec(source.template)) {
      if (match.index > last) parts.push(source.template.slice(last, match.index));
      const wanted = match[1] ?? '';
      parts.push({ column: headers.find(wanted), wanted });
      last = match.index + match[0].length;
    }
    if (last < source.template.length) parts.push(source.template.slice(last));
    return { kind: 'template', parts, ...extras };
  }
  return {
    kind: 'constant',
    value: source.constant ?? '',
    ...(source.split !== undefined ? { split: source.split } : {}),
  };
}

/** Headers (as in the sheet) a bound source reads; `wanted` names that the sheet lacks are in `missing`. */
export function sourceColumns(bound: BoundSource): { present: string[]; missing: string[] } {
  const refs =
    bound.kind === 'column'
      ? [bound.ref]
      : bound.kind === 'template'
        ? bound.parts.filter((part): part is ColumnRef => typeof part !== 'string')
        : [];
  return {
    present: refs.flatMap((ref) => (ref.column === null ? [] : [ref.column])),
    missing: refs.flatMap((ref) => (ref.column === null ? [ref.wanted] : [])),
  };
}

function blank(value: CellValue | undefined): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

function fallback(bound: BoundSource, column: string | null): SourceRead {
  return bound.kind !== 'constant' && bound.default !== undefined
    ? { value: bound.default, column, fromCells: false }
    : { value: null, column, fromCells: false };
}

export function readSource(bound: BoundSource, row: SheetRow): SourceRead {
  if (bound.kind === 'constant') return { value: bound.value, column: null, fromCells: false };
  if (bound.kind === 'column') {
    const column = bound.ref.column;
    if (column === null) return fallback(bound, bound.ref.wanted);
    const error = row.cellErrors?.[column];
    if (error !== undefined)
      return { value: null, column, fromCells: true, cellError: { column, text: error } };
    const value = row.cells[column];
    return blank(value) ? fallback(bound, column) : { value: value ?? null, column, fromCells: true };
  }
  let text = '';
  let firstColumn: string | null = null;
  for (const part of bound.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    firstColumn ??= part.column ?? part.wanted;
    if (part.column === null) return fallback(bound, firstColumn);
    const error = row.cellErrors?.[part.column];
    if (error !== undefined)
      return {
        value: null,
        column: part.column,
        fromCells: true,
        cellError: { column: part.column, text: error },
      };
    const value = row.cells[part.column];
    if (blank(value)) return fallback(bound, firstColumn);
    text += String(value).trim();
  }
  return { value: text, column: firstColumn, fromCells: true };
}

export function missingColumnsError(
  profileName: string,
  missing: readonly string[],
  headers: readonly string[],
): PlmFileError {
  const found =
    headers.length === 1
      ? `a single column '${quoteInput(headers[0] ?? '')}' (is the delimiter one of , ; tab |?)`
      : `columns ${quoteList(headers, 30)}`;
  return new PlmFileError(
    'missing_columns',
    `the sheet lacks column(s) ${missing.map((m) => `'${m}'`).join(', ')} that profile '${profileName}' needs to identify products; it has ${found}.`,
  );
}
