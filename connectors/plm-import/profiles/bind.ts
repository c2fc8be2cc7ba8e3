import { quoteInput, quoteList } from '../../input-limits';
import { PlmFileError } from '../issues';
import { closeMatches } from '../../traceability/name-matching';
import { looseKey, type CellValue, type SheetRow } from '../read/sheet';
import { codeTypeOfHeader } from '../draft';
import type { LevelMapping, MappedField, ValueSource } from './schema';

type Scalar = string | number | boolean;
/** `blankText`: what a template writes for the column when its cell is blank (`{Size|One size}`). */
type ColumnRef = { column: string | null; wanted: string; blankText?: string };

/** A value source with its column names matched to the sheet's actual headers (null when absent). */
interface SourceExtras {
  default?: Scalar;
  split?: string;
  /** Read when the cell (or template) is blank. */
  fallback?: BoundSource;
  /** Translation table keyed by normalised text, and what values outside it become. */
  values?: Map<string, Scalar>;
  otherValues?: Scalar;
  /** The sheet may lack its columns (read as blank). */
  optional?: boolean;
}
export type BoundSource =
  | ({ kind: 'column'; ref: ColumnRef } & SourceExtras)
  | ({ kind: 'template'; parts: Array<string | ColumnRef> } & SourceExtras)
  | ({ kind: 'constant'; value: Scalar } & SourceExtras);

export interface SourceRead {
  value: CellValue;
  /** The column named in messages about this value. */
  column: string | null;
  /** True when the value came from cells (not a constant or a default). */
  fromCells: boolean;
  cellError?: { column: string; text: string };
}

export class HeaderIndex {
  private readonly byKey = new Map<string, string>();
  readonly used = new Set<string>();
  /** Names the profile looked for that the sheet lacks: what an unused column may be a typo of. */
  readonly missed = new Set<string>();

  /** `derived`: columns the mapping makes itself (`optionColumns`), found like headers but not the sheet's. */
  constructor(
    readonly headers: readonly string[],
    readonly derived: readonly string[] = [],
  ) {
    for (const header of headers) this.byKey.set(looseKey(header), header);
    for (const name of derived) if (!this.byKey.has(looseKey(name))) this.byKey.set(looseKey(name), name);
  }

  find(name: string): string | null {
    const header = this.byKey.get(looseKey(name)) ?? null;
    if (header !== null) this.used.add(header);
    else this.missed.add(name);
    return header;
  }
}

export function bindSource(
  source: ValueSource | { column?: string; template?: string; constant?: Scalar },
  headers: HeaderIndex,
): BoundSource {
  const full = source as ValueSource;
  const extras: SourceExtras = {
    ...(full.default !== undefined ? { default: full.default } : {}),
    ...(full.split !== undefined ? { split: full.split } : {}),
    ...(full.fallback !== undefined ? { fallback: bindSource(full.fallback, headers) } : {}),
    ...(full.values !== undefined
      ? { values: new Map(Object.entries(full.values).map(([key, value]) => [looseKey(key), value])) }
      : {}),
    ...(full.otherValues !== undefined ? { otherValues: full.otherValues } : {}),
    ...(full.optional === true ? { optional: true } : {}),
  };
  if (source.column !== undefined)
    return { kind: 'column', ref: { column: headers.find(source.column), wanted: source.column }, ...extras };
  if (source.template !== undefined) {
    const parts: Array<string | ColumnRef> = [];
    const pattern = /\{([^}]+)\}/g;
    let last = 0;
    for (let match = pattern.exec(source.template); match; match = pattern.exec(source.template)) {
      if (match.index > last) parts.push(source.template.slice(last, match.index));
      const inside = match[1] ?? '';
      const bar = inside.indexOf('|');
      const wanted = bar === -1 ? inside : inside.slice(0, bar);
      parts.push({
        column: headers.find(wanted),
        wanted,
        ...(bar === -1 ? {} : { blankText: inside.slice(bar + 1) }),
      });
      last = match.index + match[0].length;
    }
    if (last < source.template.length) parts.push(source.template.slice(last));
    return { kind: 'template', parts, ...extras };
  }
  return { kind: 'constant', value: source.constant ?? '', ...extras };
}

/**
 * Headers (as in the sheet) a bound source reads; `wanted` names that the sheet lacks are in `missing`, or in
 * `optionalMissing` when the source is `optional`.
 */
export function sourceColumns(bound: BoundSource): {
  present: string[];
  missing: string[];
  optionalMissing: string[];
} {
  const refs =
    bound.kind === 'column'
      ? [bound.ref]
      : bound.kind === 'template'
        ? bound.parts.filter((part): part is ColumnRef => typeof part !== 'string')
        : [];
  const fallback = bound.fallback
    ? sourceColumns(bound.fallback)
    : { present: [], missing: [], optionalMissing: [] };
  const absent = refs.flatMap((ref) => (ref.column === null ? [ref.wanted] : []));
  return {
    present: [...refs.flatMap((ref) => (ref.column === null ? [] : [ref.column])), ...fallback.present],
    missing: [...(bound.optional === true ? [] : absent), ...fallback.missing],
    optionalMissing: [...(bound.optional === true ? absent : []), ...fallback.optionalMissing],
  };
}

function blank(value: CellValue | undefined): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

function fallback(bound: BoundSource, row: SheetRow, column: string | null): SourceRead {
  let blankColumn = column;
  if (bound.fallback) {
    const read = readSource(bound.fallback, row);
    if (read.value !== null || read.cellError) return read.column === null ? { ...read, column } : read;
    // Both blank: name the blank cell the fallback needed (the column inside its template), the one to fill in.
    blankColumn = read.column ?? column;
  }
  return bound.kind !== 'constant' && bound.default !== undefined
    ? { value: bound.default, column: blankColumn, fromCells: false }
    : { value: null, column: blankColumn, fromCells: false };
}

/** Applies the source's translation table to a value read from cells. */
function translated(bound: BoundSource, read: SourceRead): SourceRead {
  if (!bound.values || read.value === null) return read;
  const hit = bound.values.get(looseKey(String(read.value)));
  if (hit !== undefined) return { ...read, value: hit };
  return bound.otherValues !== undefined ? { ...read, value: bound.otherValues } : read;
}

export function readSource(bound: BoundSource, row: SheetRow): SourceRead {
  return translated(bound, readRaw(bound, row));
}

function readRaw(bound: BoundSource, row: SheetRow): SourceRead {
  if (bound.kind === 'constant') return { value: bound.value, column: null, fromCells: false };
  if (bound.kind === 'column') {
    const column = bound.ref.column;
    if (column === null) return fallback(bound, row, bound.ref.wanted);
    const error = row.cellErrors?.[column];
    if (error !== undefined)
      return { value: null, column, fromCells: true, cellError: { column, text: error } };
    const value = row.cells[column];
    return blank(value) ? fallback(bound, row, column) : { value: value ?? null, column, fromCells: true };
  }
  let text = '';
  let firstColumn: string | null = null;
  for (const part of bound.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    firstColumn ??= part.column ?? part.wanted;
    // A blank template names the column inside it that is blank, so the message points at the right cell.
    if (part.column === null) {
      if (part.blankText === undefined) return fallback(bound, row, part.wanted);
      text += part.blankText;
      continue;
    }
    const error = row.cellErrors?.[part.column];
    if (error !== undefined)
      return {
        value: null,
        column: part.column,
        fromCells: true,
        cellError: { column: part.column, text: error },
      };
    const value = row.cells[part.column];
    if (!blank(value)) text += String(value).trim();
    else if (part.blankText !== undefined) text += part.blankText;
    else return fallback(bound, row, part.column);
  }
  return { value: text, column: firstColumn, fromCells: true };
}

/** A mapping names columns the sheet lacks: one error naming each with the closest header, before any row is read. */
export function unknownColumnsError(
  profileName: string,
  missing: readonly string[],
  headers: readonly string[],
): PlmFileError {
  const parts = missing.map((name) => {
    const close = closeMatches(name, headers, 1)[0];
    return close !== undefined ? `'${name}' (closest header: '${close}')` : `'${name}'`;
  });
  return new PlmFileError(
    'missing_columns',
    `mapping '${profileName}' names column(s) the sheet lacks: ${parts.join(', ')}. Fix the mapping or the sheet; the sheet's columns are ${headers.map((h) => `'${h}'`).join(', ')}.`,
  );
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

export type PropertyType = 'text' | 'number' | 'date' | 'boolean';

export interface BoundLevel {
  externalId: BoundSource;
  fields: Array<[MappedField, BoundSource]>;
  /** `byDigits`: the code type by the value's number of digits (`codeId` is then null). */
  codes: Array<{ codeId: string | null; byDigits?: Map<number, string>; source: BoundSource }>;
  customProperties: Array<{ key: string; source: BoundSource; type: PropertyType }>;
  /** Columns that only identify products (keys); a value from them is not "data of its own". */
  keyColumns: Set<string>;
}

/** Every value source a bound level reads. */
export function levelSources(level: BoundLevel): BoundSource[] {
  return [
    level.externalId,
    ...level.fields.map(([, source]) => source),
    ...level.codes.map((code) => code.source),
    ...level.customProperties.map((property) => property.source),
  ];
}

export function bindLevel(mapping: LevelMapping, headers: HeaderIndex): BoundLevel {
  const codes: BoundLevel['codes'] = mapping.codes.map((code) => ({
    codeId: code.codeId?.trim().toUpperCase() ?? null,
    ...(code.byDigits
      ? {
          byDigits: new Map(
            Object.entries(code.byDigits).map(([digits, codeId]) => [
              Number(digits),
              codeId.trim().toUpperCase(),
            ]),
          ),
        }
      : {}),
    source: bindSource(code.source, headers),
  }));
  if (mapping.autoCodeColumns) {
    for (const header of headers.headers) {
      const codeId = codeTypeOfHeader(header);
      if (codeId !== null) codes.push({ codeId, source: bindSource({ column: header }, headers) });
    }
  }
  const externalId = bindSource(mapping.externalId, headers);
  return {
    externalId,
    fields: (Object.entries(mapping.fields) as Array<[MappedField, Parameters<typeof bindSource>[0]]>).map(
      ([field, source]) => [field, bindSource(source, headers)],
    ),
    codes,
    customProperties: Object.entries(mapping.customProperties).map(([key, property]) => ({
      key,
      source: bindSource(property.source, headers),
      type: property.type,
    })),
    keyColumns: new Set(sourceColumns(externalId).present),
  };
}
