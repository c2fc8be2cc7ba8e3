import { finishedSaid } from '../../../connectors/plm-import/rings-said';

/** The swaps and code moves a cancelled PLM run wrote whole, as its details and the CLI's stop line name them. */
describe('the rings and code moves a cancel finished, in words', () => {
  it('one swap, one move or both: one list, the verb agreeing with all it names', () => {
    expect(finishedSaid([['A', 'B']], [])).toEqual({ said: 'the swap of A and B', verb: 'was' });
    expect(finishedSaid([], [['C', 'D']])).toEqual({ said: 'the code move from C to D', verb: 'was' });
    expect(finishedSaid([['A', 'B']], [['C', 'D']])).toEqual({
      said: 'the swap of A and B and the code move from C to D',
      verb: 'were',
    });
  });

  // A group of three products may be a chain (A gives to B, B to C) or a branch (A gives one code to B, another to
  // C): "from A to B to C" would claim B gave to C, so a group past two is named without a direction, in the plural.
  it('moves among three products or more: named as a group, the verb plural', () => {
    expect(finishedSaid([], [['A', 'B', 'C']])).toEqual({
      said: 'the code moves between A, B and C',
      verb: 'were',
    });
  });

  it('past three, the rest counted once, after rings and moves alike', () => {
    expect(
      finishedSaid(
        [
          ['A', 'B', 'C'],
          ['D', 'E'],
        ],
        [
          ['F', 'G'],
          ['H', 'I', 'J'],
          ['K', 'L'],
        ],
      ),
    ).toEqual({
      said: 'the ring of A, B and C, the swap of D and E, the code move from F to G and 2 more',
      verb: 'were',
    });
  });
});
