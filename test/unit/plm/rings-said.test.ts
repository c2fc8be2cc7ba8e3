import { finishedSaid } from '../../../connectors/plm-import/rings-said';

/** The swaps and code moves a cancelled PLM run wrote whole, as its details and the CLI's stop line name them. */
describe('the rings and code moves a cancel finished, in words', () => {
  it('one swap, one move or both: one list, the verb agreeing with all it names', () => {
    expect(finishedSaid([['A', 'B']], [])).toEqual({ said: 'the swap of A and B', count: 1 });
    expect(finishedSaid([], [['C', 'D']])).toEqual({ said: 'the code move from C to D', count: 1 });
    expect(finishedSaid([['A', 'B']], [['C', 'D']])).toEqual({
      said: 'the swap of A and B and the code move from C to D',
      count: 2,
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
      count: 5,
    });
  });
});
