import { bindColumns, missingRequiredColumns, type MappingProfile } from '../profile';
import type { ExportTable } from '../read/types';
import { count, quoteInput } from '../../input-limits';
import { PARTY_FIELDS } from './fields';

// What an export needs, told by the file alone before the prepare's first API call: the columns every row needs (a
// file without them is refused whole) and the company references to look up before its orders are built.

export class ExportMismatchError extends Error {
  override readonly name = 'ExportMismatchError';
}

/** Whether the export names any party by platform company id (a column or a constant). */
export function givesCompanyIds(table: ExportTable, profile: MappingProfile): boolean {
  const binding = bindColumns(profile, table.columns);
  return PARTY_FIELDS.some((party) => {
    const constant = profile.constants[party.idField];
    if (constant !== undefined && constant.trim() !== '') return true;
    const column = binding.bound[party.idField];
    return column !== undefined && table.rows.some((row) => String(row.values[column] ?? '').trim() !== '');
  });
}

/** Company codes worth looking up before building (the activity resolves them in one pass, then builds). */
export function companyCodesIn(table: ExportTable, profile: MappingProfile): string[] {
  const binding = bindColumns(profile, table.columns);
  const codes = new Set<string>();
  for (const party of PARTY_FIELDS) {
    const constant = profile.constants[party.codeField];
    if (constant !== undefined && constant.trim() !== '') codes.add(constant.trim());
    const column = binding.bound[party.codeField];
    if (column === undefined) continue;
    for (const row of table.rows) {
      const value = row.values[column];
      const text = value === null || value === undefined ? '' : String(value).trim();
      if (text !== '') codes.add(text);
    }
  }
  return [...codes].sort();
}

/** The file's columns for a message, as many as fit in about 1,000 characters: a header may hold 2,000 of them. */
function columnList(columns: readonly string[]): string {
  const shown: string[] = [];
  let length = 0;
  for (const column of columns) {
    if (shown.length > 0 && length + column.length > 1_000) break;
    const quoted = quoteInput(column, 300);
    shown.push(quoted);
    length += quoted.length + 2;
  }
  const rest = columns.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${count(rest)} more` : shown.join(', ');
}

/**
 * Refuses as a whole (`ExportMismatchError`) a file that lacks a column every row needs: the file alone tells, so the
 * prepare checks it before its first API call and a bad file fails at once even while the API is down.
 */
export function checkExportColumns(table: ExportTable, profile: MappingProfile): void {
  const missing = missingRequiredColumns(profile, bindColumns(profile, table.columns));
  if (missing.length > 0) {
    if (table.rows.length === 0 && table.columns.length === 0) {
      throw new ExportMismatchError(
        `the file has no rows: there is no order line to read (profile '${profile.name}')`,
      );
    }
    if (table.columns.length === 0) {
      const first = table.rows.find((row) => row.problem !== undefined);
      throw new ExportMismatchError(
        `none of the file's ${table.rows.length} rows could be read` +
          (first ? ` (row ${first.row}: ${first.problem})` : '') +
          `; the export has no columns, so it lacks ${missing.join(', ')} required by profile '${profile.name}'`,
      );
    }
    throw new ExportMismatchError(
      `the export lacks ${missing.join(', ')} required by profile '${profile.name}'; its columns are: ${columnList(table.columns)}`,
    );
  }
}
