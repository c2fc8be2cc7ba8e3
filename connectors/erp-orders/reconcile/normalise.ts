import { roundHalfUp2 } from '../values/quantities';

/** Tags as the server stores them: split on commas, trimmed, empties dropped; order kept. */
export function storedTags(tags: readonly string[] | null | undefined): string[] {
  return (tags ?? [])
    .flatMap((tag) => tag.split(','))
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

/** A business date as `YYYY-MM-DD` (a stored date-time, should one appear, compares by its date part). */
export function storedDate(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  return value.slice(0, 10);
}

/** Quantities compare in hundredths, as the server stores them. */
export function cents(value: number): number {
  return Math.round(roundHalfUp2(String(value)) * 100);
}

export function sameQuantity(a: number | null | undefined, b: number | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return cents(a) === cents(b);
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/**
 * Responsible persons as user ids: e-mails go through the given map (lower-cased keys) when it knows them.
 * Compared as sets, since the server de-duplicates and order carries no meaning.
 */
export function personIds(
  entries: readonly string[],
  ids: ReadonlyMap<string, string> | undefined,
): Set<string> {
  return new Set(entries.map((entry) => ids?.get(entry.trim().toLowerCase()) ?? entry.trim()));
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}
