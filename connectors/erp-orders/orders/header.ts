import { count } from '../../input-limits';
import type { ColumnBinding, MappingProfile } from '../profile';
import { describeAt, type Problem } from './draft';
import { describeHeaderValue, fieldNamed, headerValueKey, type HeaderKey, type HeaderValue } from './fields';
import type { HeaderCell, MappedRow } from './row';

/** How many rows, and how many disagreeing values, a message names before "and N more": an order may have thousands. */
const ROWS_NAMED = 10;
const VALUES_NAMED = 5;

export function rowList(rows: readonly number[]): string {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  if (sorted.length === 1) return `row ${sorted[0]}`;
  const shown = sorted.slice(0, ROWS_NAMED).join(', ');
  const rest = sorted.length - ROWS_NAMED;
  return rest > 0 ? `rows ${shown} and ${count(rest)} more` : `rows ${shown}`;
}

/**
 * The header values an order's rows agree on. Blank cells do not vote (exports often give the header on the first
 * line only); two different values for one field are a `header_conflict` naming the values and their rows.
 */
export function agreeOnHeader(rows: readonly MappedRow[]): {
  agreed: Map<HeaderKey, HeaderCell & { rows: number[] }>;
  problems: Problem[];
} {
  const byKey = new Map<HeaderKey, HeaderCell[]>();
  for (const row of rows) {
    for (const [key, cell] of row.header) {
      const cells = byKey.get(key);
      if (cells === undefined) byKey.set(key, [cell]);
      else cells.push(cell);
    }
  }
  const agreed = new Map<HeaderKey, HeaderCell & { rows: number[] }>();
  const problems: Problem[] = [];
  for (const [key, cells] of byKey) {
    const variants = new Map<string, { value: HeaderValue; rows: number[] }>();
    for (const cell of cells) {
      const variantKey = headerValueKey(cell.value);
      const variant = variants.get(variantKey) ?? { value: cell.value, rows: [] };
      variant.rows.push(cell.row);
      variants.set(variantKey, variant);
    }
    const first = cells[0];
    if (!first) continue;
    if (variants.size === 1) {
      agreed.set(key, { ...first, rows: cells.map((cell) => cell.row) });
      continue;
    }
    const listed = [...variants.values()]
      .slice(0, VALUES_NAMED)
      .map((variant) => `${describeHeaderValue(variant.value)} (${rowList(variant.rows)})`);
    const more =
      variants.size > VALUES_NAMED ? ` and ${count(variants.size - VALUES_NAMED)} more values` : '';
    problems.push({
      code: 'header_conflict',
      field: key,
      column: first.column,
      message: `${describeAt(undefined, first.column, fieldNamed(key, first.value))}: the rows of one order disagree: ${listed.join(' vs ')}${more}`,
    });
  }
  return { agreed, problems };
}

/** Whether the export manages a field at all: a column for it is in the file, or the profile gives a constant. */
export function managesField(
  binding: ColumnBinding,
  profile: MappingProfile,
  ...fields: Array<keyof MappingProfile['columns']>
): boolean {
  return fields.some((field) => binding.bound[field] !== undefined || profile.constants[field] !== undefined);
}
