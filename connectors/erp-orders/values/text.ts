import { closeMatches, didYouMean } from '../../traceability/name-matching';
import type { CellValue } from '../read/types';
import { fail, ok, type Parsed } from './result';

/** A cell as text: numbers without exponent noise, booleans as words, lists comma-joined. */
export function cellText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(',');
  return String(value).trim();
}

export function parseText(value: CellValue, maxLength: number): Parsed<string> {
  const text = cellText(value);
  if (text.length > maxLength)
    return fail(`is ${text.length} characters long; at most ${maxLength} are allowed`);
  return ok(text);
}

/**
 * Splits a list cell (tags, responsible persons) the way the server will store it: every separator given splits,
 * entries are trimmed, empty ones dropped. JSON arrays are taken entry by entry and split too, since the server
 * would turn a tag holding a comma into two tags.
 */
export function splitList(value: CellValue, separators: readonly string[]): string[] {
  const parts = Array.isArray(value) ? value : [cellText(value)];
  let entries: string[] = parts.map(String);
  for (const separator of separators) entries = entries.flatMap((entry) => entry.split(separator));
  return entries.map((entry) => entry.trim()).filter((entry) => entry.length > 0);
}

/** An enum cell, forgiving case and spaces/hyphens (`In progress` → `IN_PROGRESS`). */
export function parseEnum<T extends string>(value: CellValue, allowed: readonly T[]): Parsed<T> {
  const text = cellText(value);
  const canonical = text.toUpperCase().replace(/[\s-]+/g, '_');
  const match = allowed.find((candidate) => candidate === canonical);
  if (match !== undefined) return ok(match);
  return fail(`'${text}' is not one of ${allowed.join(', ')}${didYouMean(closeMatches(text, allowed))}`);
}
