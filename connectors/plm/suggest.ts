import { levenshtein } from '../traceability/name-matching';

export { levenshtein };

/** Lower-cased, accent-free, single-spaced text, so 'Été  Collection' matches 'ete collection'. */
export function normalizeName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_\-./]+/g, ' ')
    .trim();
}

/**
 * Up to `limit` candidates closest to `wanted` (normalized edit distance; a candidate containing the
 * wanted text, or contained in it, ranks first). Candidates too far away to be a plausible typo are left out.
 */
export function closeMatches(wanted: string, candidates: readonly string[], limit = 3): string[] {
  const target = normalizeName(wanted);
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of candidates) {
    const normalized = normalizeName(name);
    const distance = levenshtein(target, normalized);
    const longest = Math.max(target.length, normalized.length, 1);
    const contains = target.length > 0 && (normalized.includes(target) || target.includes(normalized));
    const score = contains ? distance / longest / 2 : distance / longest;
    // Only plausible typos: 'T-shirt' for 'T-shirts' yes, 'Yarns' for 'Earrings' no.
    if (score <= 0.34) scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return [...new Set(scored.map((entry) => entry.name))].slice(0, limit);
}

/**
 * "; did you mean 'A', 'B' or 'C'?"; when nothing is close and `valid` is given, "; valid names: ..." (up to 20),
 * otherwise an empty string.
 */
export function didYouMean(matches: readonly string[], valid: readonly string[] = []): string {
  if (matches.length === 0) {
    if (valid.length === 0) return '';
    const shown = [...new Set(valid)].sort((a, b) => a.localeCompare(b));
    const more = shown.length > 20 ? ` and ${shown.length - 20} more` : '';
    return `; valid names: ${shown.slice(0, 20).map((name) => `'${name}'`).join(', ')}${more}`;
  }
  const quoted = matches.map((match) => `'${match}'`);
  const list =
    quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
  return `; did you mean ${list}?`;
}
