/** Lower-cased, accents stripped, punctuation and `_` to single spaces: "Cut, Make & Trim" -> "cut make trim". */
export function normalizeName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The one near-match helper of the product: up to `limit` candidates close enough to `wanted` to be a plausible typo
 * (normalised edit distance; a candidate containing the wanted text, or contained in it, ranks first), nearest
 * first. 'T-shirt' for 'T-shirts' yes, 'Yarns' for 'Earrings' no.
 */
export function closeMatches(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  const target = normalizeName(wanted);
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of new Set(candidates)) {
    const normalized = normalizeName(name);
    const distance = levenshtein(target, normalized);
    const longest = Math.max(target.length, normalized.length, 1);
    const contains =
      target.length > 0 &&
      normalized.length > 0 &&
      (normalized.includes(target) || target.includes(normalized));
    const score = contains ? distance / longest / 2 : distance / longest;
    if (score <= 0.34) scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map((entry) => entry.name);
}

/**
 * The one wording for near matches in messages: "; did you mean 'A', 'B' or 'C'?"; when nothing is close and `valid`
 * is given, "; valid names: ..." (up to 20); otherwise an empty string.
 */
export function didYouMean(matches: readonly string[], valid: Iterable<string> = []): string {
  if (matches.length === 0) {
    const shown = [...new Set(valid)].sort((a, b) => a.localeCompare(b));
    if (shown.length === 0) return '';
    const more = shown.length > 20 ? ` and ${shown.length - 20} more` : '';
    return `; valid names: ${shown
      .slice(0, 20)
      .map((name) => `'${name}'`)
      .join(', ')}${more}`;
  }
  const quoted = matches.map((match) => `'${match}'`);
  const list =
    quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
  return `; did you mean ${list}?`;
}

export interface NamedReference {
  id: string;
  name: string;
  /** Style types: the style level id (spec 01: the valid styleLevelIds are these `parentId` values). */
  parentId?: string | null;
}

export type ReferenceLookup =
  | { ok: true; id: string; name: string }
  | { ok: false; reason: 'unknown' | 'ambiguous'; input: string; suggestions: NamedReference[] };

/**
 * Name-to-id index over one reference list. Accepts an exact id, or a name compared after
 * normalisation; for an unknown name it suggests the closest names (edit distance, prefix/substring).
 */
export class ReferenceIndex {
  private readonly byId = new Map<string, NamedReference>();
  private readonly byName = new Map<string, NamedReference[]>();

  constructor(readonly items: readonly NamedReference[]) {
    for (const item of items) {
      this.byId.set(item.id, item);
      for (const key of new Set([normalizeName(item.name), normalizeName(item.id)])) {
        if (key === '') continue;
        const list = this.byName.get(key) ?? [];
        if (!list.some((existing) => existing.id === item.id)) list.push(item);
        this.byName.set(key, list);
      }
    }
  }

  resolve(input: string): ReferenceLookup {
    const byId = this.byId.get(input);
    if (byId) return { ok: true, id: byId.id, name: byId.name };
    const matches = this.byName.get(normalizeName(input)) ?? [];
    if (matches.length === 1) {
      const match = matches[0] as NamedReference;
      return { ok: true, id: match.id, name: match.name };
    }
    if (matches.length > 1) return { ok: false, reason: 'ambiguous', input, suggestions: matches };
    return { ok: false, reason: 'unknown', input, suggestions: this.suggest(input) };
  }

  suggest(input: string, max = 3): NamedReference[] {
    const wanted = normalizeName(input);
    if (wanted === '') return [];
    const scored: Array<{ item: NamedReference; score: number }> = [];
    for (const item of this.items) {
      const name = normalizeName(item.name);
      const distance = Math.min(levenshtein(wanted, name), levenshtein(wanted, normalizeName(item.id)));
      const contains = name.includes(wanted) || wanted.includes(name);
      const threshold = Math.max(2, Math.floor(Math.max(wanted.length, name.length) * 0.4));
      if (contains || distance <= threshold)
        scored.push({ item, score: contains ? Math.min(distance, 1) : distance });
    }
    return scored
      .sort((x, y) => x.score - y.score || x.item.name.localeCompare(y.item.name))
      .slice(0, max)
      .map((entry) => entry.item);
  }
}

/** "unknown style type 'Shrit'; did you mean 'Shirt' (st_1)?" */
export function describeLookupFailure(kind: string, lookup: Extract<ReferenceLookup, { ok: false }>): string {
  const options = lookup.suggestions.map((s) => `'${s.name}' (${s.id})`).join(', ');
  if (lookup.reason === 'ambiguous') return `${kind} '${lookup.input}' is ambiguous: ${options}`;
  return options === ''
    ? `unknown ${kind} '${lookup.input}'`
    : `unknown ${kind} '${lookup.input}'; did you mean ${options}?`;
}
