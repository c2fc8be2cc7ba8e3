import { finishWrites, unrefused, type StoppedRun } from '../../../connectors/plm-import/finish-writes';
import { finishedSaid } from '../../../connectors/plm-import/rings-said';
import type { WriteStep } from '../../../connectors/plm-import/staged-run';

type Update = Extract<WriteStep, { action: 'update' }>;

/** The codes a product takes from `giver` (one EAN). */
const from = (giver: string): NonNullable<Update['takes']> => [
  { giver, giverRow: 2, codeId: 'EAN_GTIN_13', codeValue: `ean-${giver}`, column: 'EAN_GTIN_13' },
];

const update = (externalId: string, more: Partial<Update> = {}): WriteStep => ({
  action: 'update',
  externalId,
  level: 'sku',
  rowNumbers: [2],
  parentExternalId: null,
  parentColumn: null,
  id: `p-${externalId}`,
  changedFields: ['codes'],
  body: {},
  ...more,
});

/**
 * A swap of S and M as the plan stages it, a batch each: S's early write gives its code up (release), M takes it,
 * then S takes M's.
 */
const swapSM = (): WriteStep[][] => [
  [update('S', { ring: 'S', release: true })],
  [update('M', { ring: 'S', wave: 1, takesFreed: from('S') })],
  [update('S', { ring: 'S', wave: 2, takes: from('M') })],
];

/** A run cancelled in batch 1 (nothing of it journalled unless said), with `written` written before the stop. */
const stoppedIn = (batches: WriteStep[][], more: Partial<Omit<StoppedRun, 'batches'>> = {}): StoppedRun => ({
  batches,
  stopped: 1,
  begun: new Set(),
  journalled: new Map([[1, new Set<string>()]]),
  written: new Set(),
  ...more,
});

/**
 * L written before the stop; XL takes L's code and the freed code of S, in a swap of S and M not begun (batches: L, X,
 * the swap's three, XL).
 */
const xlTakesFromLAndS = (): StoppedRun =>
  stoppedIn(
    [
      [update('L')],
      [update('X')],
      ...swapSM(),
      [update('XL', { wave: 1, takes: from('L'), takesFreed: from('S') })],
    ],
    { written: new Set(['L']) },
  );

/**
 * What a cancelled PLM run writes before it stops (no product left without the codes it gave up) and how it names
 * those writes in its details and stop line.
 */
describe("a PLM cancel's finish: what it writes and names", () => {
  it('a code given up before the stop: its taker written, and the taker of that one’s code in turn', () => {
    const writes = finishWrites(
      stoppedIn(
        [
          [update('G')],
          [update('X')],
          [update('T', { wave: 1, takes: from('G') })],
          [update('U', { wave: 2, takes: from('T') }), update('Y')],
        ],
        {
          written: new Set(['G']),
        },
      ),
    );
    expect([...writes.writing].sort()).toEqual(['T', 'U']);
    expect(writes.rings).toEqual([]);
    expect(writes.chains).toEqual([['G', 'T', 'U']]);
  });

  it('a swap begun (its freed product’s early write journalled): the rest of it written, named a swap', () => {
    const writes = finishWrites(
      stoppedIn([[update('X')], ...swapSM(), [update('Y')]], {
        begun: new Set(['S']),
        journalled: new Map([[1, new Set(['S'])]]),
      }),
    );
    expect([...writes.writing].sort()).toEqual(['M', 'S']);
    expect(writes.rings).toEqual([['S', 'M']]);
    expect(writes.chains).toEqual([]);
  });

  it('a swap not begun, its freed product’s code taken only by products not written: left to the rerun', () => {
    const writes = finishWrites(
      stoppedIn(
        [[update('L')], [update('X')], ...swapSM(), [update('XL', { wave: 1, takesFreed: from('S') })]],
        {
          written: new Set(['L']),
        },
      ),
    );
    expect(writes).toEqual({ writing: new Set(), rings: [], chains: [] });
  });

  it('a swap not begun whose freed product gives a code to a product the finish writes: written whole first', () => {
    // XL takes L's code (L written before the stop) and S's: S must give it up first, so the swap is written whole.
    const writes = finishWrites(xlTakesFromLAndS());
    expect([...writes.writing].sort()).toEqual(['M', 'S', 'XL']);
    expect(writes.rings).toEqual([['S', 'M']]);
    expect(writes.chains).toEqual([['L', 'S', 'XL']]);
  });

  it('a swap not begun, one of its products taking a written product’s code: the swap named beside the move', () => {
    const batches = swapSM();
    batches[2] = [update('S', { ring: 'S', wave: 2, takes: [...from('M'), ...from('G')] })];
    const writes = finishWrites(
      stoppedIn([[update('G')], [update('X')], ...batches], { written: new Set(['G']) }),
    );
    expect([...writes.writing].sort()).toEqual(['M', 'S']);
    expect(writes.rings).toEqual([['S', 'M']]);
    expect(writes.chains).toEqual([['G', 'S']]);
    const { rings, chains } = unrefused(writes, new Set());
    expect(finishedSaid(rings, chains).said).toBe('the swap of S and M and the code move from G to S');
  });

  it('a product the API refused: the swap it is in not named, the moves without it still named', () => {
    const writes = finishWrites(xlTakesFromLAndS());
    expect(unrefused(writes, new Set(['M']))).toEqual({ rings: [], chains: [['L', 'S', 'XL']] });
    expect(unrefused(writes, new Set(['XL']))).toEqual({ rings: [['S', 'M']], chains: [] });
  });

  // A stall guard: walking the chain once per product in it took minutes before the work list.
  it('a chain of 50,000 moves into a swap not begun: decided in well under a second', () => {
    const chain = Array.from({ length: 50_000 }, (_, at) =>
      update(`C${at + 1}`, { wave: at + 1, ...(at > 0 ? { takes: from(`C${at}`) } : {}) }),
    );
    const batches = [
      [update('G')],
      [update('X')],
      [update('S', { ring: 'S', release: true })],
      chain,
      [update('M', { ring: 'S', wave: 50_001, takes: from('C50000'), takesFreed: from('S') })],
      [update('XL', { wave: 1, takes: from('G'), takesFreed: from('S') })],
      [update('S', { ring: 'S', wave: 50_002, takes: from('M') })],
    ];
    const started = Date.now();
    const writes = finishWrites(stoppedIn(batches, { written: new Set(['G']) }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(writes.writing.size).toBe(50_003);
    expect(writes.rings).toEqual([['S', 'M']]);
  });
});
