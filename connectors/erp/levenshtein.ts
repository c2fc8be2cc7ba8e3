import { levenshtein } from '../traceability/name-matching';

export { levenshtein };

/**
 * Up to `limit` candidates closest to `value` (case-insensitive), nearest first, ties alphabetical.
 * Candidates further than half the value's length (at least 3 edits) are not suggested: they would be noise.
 */
export function closestMatches(value: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = value.trim().toLowerCase();
  const threshold = Math.max(3, Math.ceil(needle.length / 2));
  const scored: Array<{ candidate: string; distance: number }> = [];
  for (const candidate of new Set(candidates)) {
    const distance = levenshtein(needle, candidate.toLowerCase());
    if (distance <= threshold) scored.push({ candidate, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate));
  return scored.slice(0, limit).map((entry) => entry.candidate);
}

/** ` (close matches: A, B, C)` or an empty string, for error messages. */
export function suggestionText(suggestions: readonly string[]): string {
  return suggestions.length > 0 ? ` (close matches: ${suggestions.join(', ')})` : '';
}
