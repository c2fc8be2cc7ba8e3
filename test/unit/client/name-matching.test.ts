import {
  ReferenceIndex,
  describeLookupFailure,
  levenshtein,
  normalizeName,
} from '../../../connectors/traceability/name-matching';

const processes = new ReferenceIndex([
  { id: 'CUT_MAKE_TRIM', name: 'Cut make trim' },
  { id: 'WEAVING_MILL', name: 'Weaving mill' },
  { id: 'KNITTING_MILL', name: 'Knitting mill' },
  { id: 'LAUNDRY', name: 'Laundry' },
]);

describe('reference name lookup', () => {
  it('accepts ids and names regardless of case, accents and punctuation', () => {
    expect(processes.resolve('LAUNDRY')).toMatchObject({ ok: true, id: 'LAUNDRY' });
    expect(processes.resolve('Cut, Make & Trim')).toMatchObject({ ok: false });
    expect(processes.resolve('cut-make trim')).toMatchObject({ ok: true, id: 'CUT_MAKE_TRIM' });
    expect(processes.resolve('Wéaving Mill')).toMatchObject({ ok: true, id: 'WEAVING_MILL' });
  });

  it('suggests the closest names for an unknown one', () => {
    const result = processes.resolve('Weaving mil');
    expect(result).toMatchObject({ ok: false, reason: 'unknown' });
    if (result.ok) throw new Error('unreachable');
    expect(result.suggestions[0]?.id).toBe('WEAVING_MILL');
    expect(describeLookupFailure('facility process', result)).toBe(
      "unknown facility process 'Weaving mil'; did you mean 'Weaving mill' (WEAVING_MILL)?",
    );
    expect(processes.resolve('Spaceship assembly')).toMatchObject({ ok: false, suggestions: [] });
  });

  it('reports names shared by several ids as ambiguous', () => {
    const types = new ReferenceIndex([
      { id: 'st_1', name: 'Shirts' },
      { id: 'st_2', name: 'shirts' },
    ]);
    expect(types.resolve('Shirts')).toMatchObject({ ok: false, reason: 'ambiguous' });
  });

  it('computes edit distance and normal forms', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(normalizeName('  Cut_Make-TRIM ')).toBe('cut make trim');
  });
});
