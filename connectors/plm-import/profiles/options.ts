import { PlmFileError, rowIssue, type RowIssue } from '../issues';
import type { SheetRow } from '../read/sheet';
import { looseKey } from '../read/sheet';
import { HeaderIndex } from './bind';
import type { MappingProfile } from './schema';
import { cellText } from './values';

/** The columns a profile's `optionColumns` makes (found like sheet headers, never written to a rejects file). */
export function optionColumnNames(profile: MappingProfile): string[] {
  return Object.keys(profile.optionColumns?.columns ?? {});
}

/** Sheet columns the `optionColumns` pairs read. */
export function optionPairColumns(profile: MappingProfile): string[] {
  return (profile.optionColumns?.pairs ?? []).flatMap((pair) => [pair.name, pair.value]);
}

/** The header index a profile reads a sheet with: the sheet's headers plus the columns `optionColumns` makes. */
export function profileIndex(profile: MappingProfile, headers: readonly string[]): HeaderIndex {
  const derived = optionColumnNames(profile);
  const sheet = new HeaderIndex(headers);
  const clash = derived.filter((name) => sheet.find(name) !== null);
  if (clash.length > 0)
    throw new PlmFileError(
      'duplicate_headers',
      `mapping '${profile.name}' makes option column(s) ${clash.map((name) => `'${name}'`).join(', ')} that the sheet also has; rename them in the mapping's optionColumns`,
    );
  return new HeaderIndex(headers, derived);
}

/**
 * Fills the `optionColumns` columns of a row (completed first, so carried option names count) and returns its row
 * issues; `product` names the row's product in them. Nothing to do without `optionColumns`.
 */
export function optionPicker(
  profile: MappingProfile,
  index: HeaderIndex,
  product: (row: SheetRow) => string | null,
): (row: SheetRow) => RowIssue[] {
  const options = profile.optionColumns;
  if (!options) return () => [];
  const targets = new Map<string, string>();
  for (const [column, names] of Object.entries(options.columns))
    for (const name of names) targets.set(looseKey(name), index.find(column) ?? column);
  const pairs = options.pairs.map((pair) => ({
    name: index.find(pair.name),
    value: index.find(pair.value),
    wanted: pair,
  }));
  const columns = [...new Set(targets.values())];
  const expected = Object.entries(options.columns)
    .map(([column, names]) => `${column.toLowerCase()} (${names.join(', ')})`)
    .join(' nor a ');
  return (row) => {
    const issues: RowIssue[] = [];
    for (const column of columns) row.cells[column] = null;
    const taken = new Map<string, string>();
    const key = product(row);
    const of = key === null ? '' : ` of product '${key}'`;
    for (const pair of pairs) {
      const value = pair.value === null ? null : cellText(row.cells[pair.value]);
      if (value === null || pair.value === null) continue;
      const name = pair.name === null ? null : cellText(row.cells[pair.name]);
      const nameColumn = pair.name ?? pair.wanted.name;
      const fail = (code: RowIssue['code'], reason: string): void => {
        issues.push(rowIssue(row.rowNumber, nameColumn, code, reason, key ?? undefined));
      };
      if (name === null) {
        fail(
          'missing_required',
          `option value '${value}' ('${pair.wanted.value}')${of} has no option name; give the name on the product's first row`,
        );
        continue;
      }
      const target = targets.get(looseKey(name));
      if (target === undefined) {
        fail(
          'unknown_option',
          `option '${name}'${of} is neither a ${expected}; rename the option, or add its name to the mapping's optionColumns`,
        );
        continue;
      }
      const earlier = taken.get(target);
      if (earlier !== undefined) {
        fail(
          'conflicting_values',
          `options '${earlier}' and '${name}'${of} both give the ${target.toLowerCase()}; keep one of them`,
        );
        continue;
      }
      taken.set(target, name);
      row.cells[target] = row.cells[pair.value] ?? null;
    }
    return issues;
  };
}
