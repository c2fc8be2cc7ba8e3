import { codeTypeOfHeader } from '../code-types';
import type { DraftFieldName } from '../draft';
import type { LevelMapping, MappedField, ValueSource } from './schema';

function describe(source: ValueSource): string {
  return source.column ?? source.template ?? String(source.constant);
}

/** Column (or template) that feeds each field, to name it in a "missing" issue. */
export function describeColumns(
  mapping: LevelMapping,
  headers: readonly string[],
): Partial<Record<DraftFieldName, string>> {
  const columns: Partial<Record<DraftFieldName, string>> = {};
  for (const [field, source] of Object.entries(mapping.fields) as Array<[MappedField, ValueSource]>) {
    if (field === 'weightValue') columns.weight = describe(source);
    else if (field !== 'weightUnit') columns[field] = describe(source);
  }
  const firstCode = mapping.codes[0];
  const firstCodeColumn = mapping.autoCodeColumns
    ? headers.find((header) => codeTypeOfHeader(header) !== null)
    : undefined;
  columns.codes = firstCode ? describe(firstCode.source) : (firstCodeColumn ?? 'codes');
  return columns;
}
