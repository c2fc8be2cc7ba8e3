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

/** Two rows reused by every `levenshteinWithin` call (it runs for thousands of candidates per lookup). */
let rows: [Uint32Array, Uint32Array] = [new Uint32Array(64), new Uint32Array(64)];

/**
 * Levenshtein distance when it is at most `max`; otherwise some number above `max`. Only the band of cells within
 * `max` of the diagonal is computed, and the work stops as soon as a whole row is past `max`.
 */
export function levenshteinWithin(a: string, b: string, max: number): number {
  if (a === b) return 0;
  const over = max + 1;
  if (Math.abs(a.length - b.length) > max) return over;
  if (a.length === 0 || b.length === 0) return Math.max(a.length, b.length);
  if (rows[0].length <= b.length)
    rows = [new Uint32Array(b.length * 2 + 2), new Uint32Array(b.length * 2 + 2)];
  let [previous, current] = rows;
  for (let j = 0; j <= b.length; j++) previous[j] = Math.min(j, over);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - max);
    const to = Math.min(b.length, i + max);
    current[from - 1] = from === 1 ? Math.min(i, over) : over;
    let rowMin = current[from - 1] as number;
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
        over,
      );
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    // The next row reads one cell past this row's band.
    if (to < b.length) current[to + 1] = over;
    if (rowMin > max) return over;
    [previous, current] = [current, previous];
  }
  return previous[b.length] as number;
}

/** Keeps answers for one run or one index: short inputs only (long ones are quick to turn down), up to a bound. */
export class AnswerMemo<T> {
  private readonly answers = new Map<string, T>();

  constructor(
    private readonly maxKeyLength = 256,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, compute: () => T): T {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    const answer = compute();
    if (key.length <= this.maxKeyLength && this.answers.size < this.maxEntries) this.answers.set(key, answer);
    return answer;
  }
}

const CLOSE_ENOUGH = 0.34;

/** How often each letter, digit and other character occurs in a normalised name (letters, digits and spaces only). */
function characterCounts(text: string): Int32Array {
  const counts = new Int32Array(37);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const bin = code >= 97 && code <= 122 ? code - 97 : code >= 48 && code <= 57 ? code - 22 : 36;
    counts[bin] = (counts[bin] as number) + 1;
  }
  return counts;
}

/**
 * A lower bound of the edit distance from the character counts alone: each edit adds, removes or changes one
 * character, so it closes the surplus on either side by at most one.
 */
function countDistance(a: Int32Array, b: Int32Array): number {
  let surplus = 0;
  let shortfall = 0;
  for (let i = 0; i < a.length; i++) {
    const difference = (a[i] as number) - (b[i] as number);
    if (difference > 0) surplus += difference;
    else shortfall -= difference;
  }
  return Math.max(surplus, shortfall);
}

/** The largest edit distance `d` with `d / longest <= CLOSE_ENOUGH` (the same float comparison as the scoring). */
function largestCloseDistance(longest: number): number {
  let distance = Math.floor(longest * CLOSE_ENOUGH);
  while ((distance + 1) / longest <= CLOSE_ENOUGH) distance++;
  while (distance > 0 && distance / longest > CLOSE_ENOUGH) distance--;
  return distance;
}

/**
 * The one near-match helper of the product, over one list of candidates normalised once: up to `limit` candidates
 * close enough to a wanted name to be a plausible typo (normalised edit distance; a candidate containing the wanted
 * text, or contained in it, ranks first), nearest first. 'T-shirt' for 'T-shirts' yes, 'Yarns' for 'Earrings' no.
 * Build one per run or per reference list: it remembers its answers.
 */
export class NameMatcher {
  private readonly candidates: ReadonlyArray<{ name: string; normalized: string; counts: Int32Array }>;
  private readonly memo = new AnswerMemo<string[]>();

  constructor(candidates: Iterable<string>) {
    this.candidates = [...new Set(candidates)].map((name) => {
      const normalized = normalizeName(name);
      return { name, normalized, counts: characterCounts(normalized) };
    });
  }

  closeMatches(wanted: string, limit = 3): string[] {
    return [...this.memo.get(`${limit}:${wanted}`, () => this.score(wanted, limit))];
  }

  private score(wanted: string, limit: number): string[] {
    const target = normalizeName(wanted);
    const targetCounts = characterCounts(target);
    const best = new Nearest(limit);
    for (const { name, normalized, counts } of this.candidates) {
      const longest = Math.max(target.length, normalized.length, 1);
      // The distance is at least the length gap, and exactly the gap when one name contains the other, so a gap
      // too wide even for the halved "contains" score rules the candidate out (also any input far longer than all).
      const gap = Math.abs(target.length - normalized.length);
      if (gap / longest / 2 > CLOSE_ENOUGH) continue;
      // Counts differing by more than the gap: neither name contains the other, and by more than `max`: not close.
      const max = largestCloseDistance(longest);
      const countGap = countDistance(targetCounts, counts);
      if (countGap > max && countGap > gap) continue;
      const contains =
        target.length > 0 &&
        normalized.length > 0 &&
        (normalized.includes(target) || target.includes(normalized));
      if (contains) {
        best.offer(name, gap / longest / 2);
        continue;
      }
      if (countGap > max) continue;
      const score = levenshteinWithin(target, normalized, max) / longest;
      if (score <= CLOSE_ENOUGH) best.offer(name, score);
    }
    return best.names();
  }
}

/** `a.localeCompare(b)` as a reusable collator (the same order; `localeCompare` builds one per call). */
const byLocale = new Intl.Collator().compare;

/**
 * The first `limit` names by score, then name: what sorting every close name and keeping the first `limit` gives
 * (a tie goes to the name offered first, as in a stable sort), without sorting thousands of close names.
 */
class Nearest {
  private readonly entries: Array<{ name: string; score: number }> = [];

  constructor(private readonly limit: number) {}

  offer(name: string, score: number): void {
    const entries = this.entries;
    const before = (other: { name: string; score: number }) =>
      (score - other.score || byLocale(name, other.name)) < 0;
    const last = entries[entries.length - 1];
    if (entries.length >= this.limit && (last === undefined || !before(last))) return;
    let at = entries.length;
    while (at > 0 && before(entries[at - 1] as { name: string; score: number })) at--;
    entries.splice(at, 0, { name, score });
    if (entries.length > this.limit) entries.pop();
  }

  names(): string[] {
    return this.entries.map((entry) => entry.name);
  }
}

const matchersByList = new WeakMap<object, NameMatcher>();

/**
 * The `NameMatcher` of one list object a run keeps (a profile's unit aliases, the facility processes read for it),
 * built from `candidates` on first use and dropped with the list.
 */
export function matcherOf(list: object, candidates: () => Iterable<string>): NameMatcher {
  let matcher = matchersByList.get(list);
  if (!matcher) {
    matcher = new NameMatcher(candidates());
    matchersByList.set(list, matcher);
  }
  return matcher;
}

/** `NameMatcher` for one call; a caller that asks many times over the same candidates keeps a `NameMatcher`. */
export function closeMatches(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  return new NameMatcher(candidates).closeMatches(wanted, limit);
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
  /** Each item's normalised name and id, computed once for `suggest`. */
  private readonly normalized: ReadonlyArray<{ item: NamedReference; name: string; id: string }>;
  private readonly suggestions = new AnswerMemo<NamedReference[]>();

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
    this.normalized = items.map((item) => ({
      item,
      name: normalizeName(item.name),
      id: normalizeName(item.id),
    }));
  }

  /** `withSuggestions: false` leaves an unknown name's suggestions empty, for a caller that words its own. */
  resolve(input: string, withSuggestions = true): ReferenceLookup {
    const byId = this.byId.get(input);
    if (byId) return { ok: true, id: byId.id, name: byId.name };
    const matches = this.byName.get(normalizeName(input)) ?? [];
    if (matches.length === 1) {
      const match = matches[0] as NamedReference;
      return { ok: true, id: match.id, name: match.name };
    }
    if (matches.length > 1) return { ok: false, reason: 'ambiguous', input, suggestions: matches };
    return { ok: false, reason: 'unknown', input, suggestions: withSuggestions ? this.suggest(input) : [] };
  }

  suggest(input: string, max = 3): NamedReference[] {
    return [...this.suggestions.get(`${max}:${input}`, () => this.score(input, max))];
  }

  private score(input: string, max: number): NamedReference[] {
    const wanted = normalizeName(input);
    if (wanted === '') return [];
    const scored: Array<{ item: NamedReference; score: number }> = [];
    for (const { item, name, id } of this.normalized) {
      const contains = name.includes(wanted) || wanted.includes(name);
      const threshold = Math.max(2, Math.floor(Math.max(wanted.length, name.length) * 0.4));
      if (contains) {
        // Only the order needs the distance here: 0 for an equal name or id, else at least 1.
        scored.push({ item, score: wanted === name || wanted === id ? 0 : 1 });
        continue;
      }
      // levenshteinWithin is exact up to the threshold, and above it for both the name and the id when both are.
      const distance = Math.min(
        levenshteinWithin(wanted, name, threshold),
        levenshteinWithin(wanted, id, threshold),
      );
      if (distance <= threshold) scored.push({ item, score: distance });
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
