import { badRequest, notFound } from '../../core/errors';
import type { MaterialLineRecord, MaterialStore } from './model';

/**
 * How far above 100 a sum may be and still count as 100: binary floating point alone (33.33 + 33.33 + 33.34 may
 * add up to 100.00000000000001). The spec states no rounding, so anything a person can write above 100 is refused.
 */
const FLOAT_SLACK = 1e-9;

const hasCountries = (countries: readonly string[] | null): countries is string[] =>
  countries !== null && countries.length > 0;

/** The parent line, which must belong to the same composition. */
export function parentLine(
  store: MaterialStore,
  headerId: string,
  parentId: string | null | undefined,
): MaterialLineRecord | null {
  if (parentId === null || parentId === undefined) return null;
  const parent = store.lines.get(parentId);
  if (!parent || parent.materialHeaderId !== headerId) {
    throw notFound(
      `Parent line '${parentId}' is not a line of composition '${headerId}'`,
      'parent_line_not_found',
    );
  }
  return parent;
}

/** A line cannot move under itself or under one of its own descendants. */
export function checkNoCycle(store: MaterialStore, lineId: string, parent: MaterialLineRecord | null): void {
  let current: MaterialLineRecord | null | undefined = parent;
  const seen = new Set<string>();
  while (current && !seen.has(current.id)) {
    if (current.id === lineId)
      throw badRequest(
        `Line '${lineId}' cannot be placed under itself or its descendants`,
        'invalid_parent_id',
      );
    seen.add(current.id);
    current = current.parentId === null ? null : store.lines.get(current.parentId);
  }
}

/** Rule 1: sibling percentages at one level sum to at most 100 (completeness is never checked). */
export function checkSiblingSum(
  store: MaterialStore,
  headerId: string,
  parentId: string | null,
  percentage: number,
  exceptId?: string,
): void {
  const others = store.siblings(headerId, parentId).filter((line) => line.id !== exceptId);
  const total = others.reduce((sum, line) => sum + line.percentage, percentage);
  if (total > 100 + FLOAT_SLACK) {
    throw badRequest(
      `Sibling percentages would sum to ${Math.round(total * 1e6) / 1e6}, above 100`,
      'percentage_constraint_violation',
    );
  }
}

/** Rule 2: a child's countries are a subset of its parent's; a parent without countries has children without. */
export function checkCountriesWithinParent(
  parent: MaterialLineRecord | null,
  countries: string[] | null,
): void {
  if (!parent || !hasCountries(countries)) return;
  const allowed = parent.countriesOfOrigin ?? [];
  const outside = countries.filter((country) => !allowed.includes(country));
  if (outside.length > 0) {
    throw badRequest(
      `Countries ${outside.join(', ')} are not among the parent line's countries (${allowed.join(', ') || 'none'})`,
      'countries_of_origin_constraint_violation',
    );
  }
}

/** Removing from a line a country one of its children still uses. */
export function checkChildrenCountries(
  store: MaterialStore,
  line: MaterialLineRecord,
  countries: string[] | null,
): void {
  const kept = countries ?? [];
  for (const child of store.siblings(line.materialHeaderId, line.id)) {
    const missing = (child.countriesOfOrigin ?? []).filter((country) => !kept.includes(country));
    if (missing.length > 0) {
      throw badRequest(
        `Child line '${child.id}' still uses ${missing.join(', ')}`,
        'parent_countries_constraint_violation',
      );
    }
  }
}

/** Next sibling position, in steps of 100. */
export function nextPosition(store: MaterialStore, headerId: string, parentId: string | null): number {
  return store.siblings(headerId, parentId).reduce((max, line) => Math.max(max, line.position), 0) + 100;
}
