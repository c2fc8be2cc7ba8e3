import {
  closeMatches,
  levenshtein,
  levenshteinWithin,
  NameMatcher,
  normalizeName,
  ReferenceIndex,
  type NamedReference,
} from '../../../connectors/traceability/name-matching';
import { ReferenceResolver, RawMaterialResolver } from '../../../connectors/plm-import/profiles/references';
import {
  companyResolverFromDirectory,
  resolveCompanyCode,
  resolveFacilityProcess,
} from '../../../connectors/erp-orders/orders/lookups';
import { parseUnit } from '../../../connectors/erp-orders/cell-values';

// The matching as it was before the length rule, banded distance and memos: the suggestions must not change.
function previousCloseMatches(wanted: string, candidates: Iterable<string>, limit = 3): string[] {
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

function previousSuggest(items: readonly NamedReference[], input: string, max = 3): NamedReference[] {
  const wanted = normalizeName(input);
  if (wanted === '') return [];
  const scored: Array<{ item: NamedReference; score: number }> = [];
  for (const item of items) {
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

/** Deterministic pseudo-random words over a small alphabet, so that many of them are near one another. */
function words(seed: number, count: number): string[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: Math.floor(next() * 14) }, () => 'abcde -'[Math.floor(next() * 7)]).join(''),
  );
}

const letters = (n: number) =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join('');

describe('bounded name matching gives the same answers', () => {
  it('levenshteinWithin is exact up to its bound and above it otherwise', () => {
    const list = words(7, 120);
    const wrong: string[] = [];
    for (const a of list.slice(0, 40))
      for (const b of list)
        for (const max of [0, 1, 2, 4]) {
          const exact = levenshtein(a, b);
          const within = levenshteinWithin(a, b, max);
          if (exact <= max ? within !== exact : within <= max) wrong.push(`${a}|${b}|${max}: ${within}`);
        }
    expect(wrong).toEqual([]);
  });

  it('suggests what the full edit distance suggested, for closeMatches and ReferenceIndex', () => {
    const candidates = words(11, 300);
    const items = candidates.map((name, i) => ({ id: `ID-${i % 17}${name.slice(0, 2)}`, name }));
    const index = new ReferenceIndex(items);
    const matcher = new NameMatcher(candidates);
    const now: unknown[] = [];
    const before: unknown[] = [];
    for (const wanted of words(23, 60)) {
      now.push(closeMatches(wanted, candidates), matcher.closeMatches(wanted, 5), index.suggest(wanted));
      before.push(
        previousCloseMatches(wanted, candidates),
        previousCloseMatches(wanted, candidates, 5),
        previousSuggest(items, wanted),
      );
    }
    expect(now).toEqual(before);
  });

  it('still suggests a name inside a longer cell, and none for a cell far longer than every name', () => {
    const names = ['T-shirts', 'Trousers', 'Knitwear'];
    expect(closeMatches('T-shirts mens', names)).toEqual(['T-shirts']);
    expect(closeMatches(`T-shirts ${letters(32_767)}`, names)).toEqual([]);
    expect(closeMatches(letters(32_767), names)).toEqual([]);
  });
});

describe('a 32,767-character cell gets the same one clear error', () => {
  const long = letters(32_767);

  it('PLM style type, season and raw material', () => {
    const types = Array.from({ length: 300 }, (_, i) => ({
      id: `st_${i}`,
      name: `Style type ${i}`,
      parentId: 'lvl_1',
    }));
    const resolver = new ReferenceResolver({ styleTypes: types });
    const result = resolver.resolve('styleTypes', long);
    expect(result).toMatchObject({ ok: false, code: 'unknown_reference' });
    if (result.ok) throw new Error('unreachable');
    expect(result.reason).toBe(
      `unknown style type '${long}'; valid names: ${[...types.map((type) => `'${type.name}'`)]
        .sort((a, b) => a.localeCompare(b))
        .slice(0, 20)
        .join(', ')} and 280 more`,
    );
    expect(resolver.resolve('styleTypes', 'Style tipe 12')).toEqual({
      ok: false,
      code: 'unknown_reference',
      reason:
        "unknown style type 'Style tipe 12'; did you mean 'Style type 12', 'Style type 102' or 'Style type 112'?",
    });
    const materials = new RawMaterialResolver({ Cotton: 'rm_1', Wool: 'rm_2' });
    expect(materials.resolve(long)).toEqual({
      ok: false,
      reason: `unknown material '${long}'; valid names: 'Cotton', 'Wool' (names come from the mapping's rawMaterials table)`,
    });
  });

  it('ERP company code, facility process and unit', () => {
    const companies = companyResolverFromDirectory(
      Array.from({ length: 2000 }, (_, i) => ({ id: `c_${i}`, code: `SUP-${10000 + i}` })),
    );
    expect(resolveCompanyCode(companies, long)).toEqual({
      ok: false,
      reason: `no company has the code '${long}'`,
    });
    const processes = [
      { id: 'fp_1', name: 'Cut make trim' },
      { id: 'fp_2', name: 'Warehouse' },
    ];
    expect(resolveFacilityProcess(processes, long)).toEqual({
      ok: false,
      reason: `'${long}' is not a facility process name or id`,
    });
    expect(resolveFacilityProcess(processes, 'Warehose')).toEqual({
      ok: false,
      reason: "'Warehose' is not a facility process name or id; did you mean 'Warehouse'?",
    });
    expect(parseUnit(long, {})).toEqual({
      ok: false,
      reason: `'${long}' is not a unit of the API's unit enumeration; name the export's own units in the profile's unitAliases, e.g. {"stuks": "PIECES"}`,
    });
  });
});

describe('an unknown name repeated on many rows', () => {
  it('gets the same error on every row', () => {
    const companies = companyResolverFromDirectory(
      Array.from({ length: 5000 }, (_, i) => ({ id: `c_${i}`, code: `SUP-${10000 + i}` })),
    );
    const first = companies('SUP-1000');
    expect(first).toEqual({
      error: "no company has the code 'SUP-1000'",
      suggestions: ['SUP-10000', 'SUP-10001', 'SUP-10002'],
    });
    if ('id' in first) throw new Error('unreachable');
    first.suggestions.length = 0;
    for (let row = 0; row < 1000; row++)
      expect(companies('SUP-1000')).toEqual({
        error: "no company has the code 'SUP-1000'",
        suggestions: ['SUP-10000', 'SUP-10001', 'SUP-10002'],
      });
    const seasons = new ReferenceResolver({ seasons: [{ id: 'se_1', name: 'AW25' }] });
    for (let row = 0; row < 1000; row++)
      expect(seasons.resolve('seasons', 'AW26')).toEqual({
        ok: false,
        code: 'unknown_reference',
        reason: "unknown season 'AW26'; did you mean 'AW25'?",
      });
  });
});
