import { wroteBeforeStop } from '../../../cli/stop-words';

/** What `watch`, `--wait` and `cancel --wait` say a stopped run wrote, from the memo each job leaves. */
describe('what a stopped run wrote, in words', () => {
  it('PLM import: products created and updated, then what was not written, with the rejects file', () => {
    expect(
      wroteBeforeStop({
        file: '/data/inbox/spring.csv',
        cancelled: true,
        products: {
          total: 60,
          created: 12,
          updated: 3,
          unchanged: 40,
          archived: 1,
          unarchived: 0,
          rejected: 2,
          rejectedAtValidation: 2,
          rejectedByApi: 0,
        },
        rejectedRows: 3,
        rejectsFile: '/data/runs/r1/rejects.csv',
        resultFile: '/data/runs/r1/result.json',
        ringsFinished: [['A', 'B']],
      }),
    ).toBe(
      '12 products created, 3 updated; 40 unchanged, 1 archived left alone, 2 rejected, 3 rows rejected (rejects file: /data/runs/r1/rejects.csv); the swap of A and B written whole before the stop',
    );
  });

  // A cancel's finish writes a swap's other products and a moved code's taker: the stop line names both, as the
  // run's details do.
  it('PLM import cancelled inside a swap and a code move: both named, in one list', () => {
    const products = { created: 0, updated: 4 };
    expect(wroteBeforeStop({ products, chainsFinished: [['C', 'D']] })).toBe(
      '0 products created, 4 updated; the code move from C to D written whole before the stop',
    );
    expect(
      wroteBeforeStop({ products, ringsFinished: [['A', 'B']], chainsFinished: [['C', 'D', 'E']] }),
    ).toBe(
      '0 products created, 4 updated; the swap of A and B and the code moves between C, D and E written whole before the stop',
    );
  });

  it('PLM import stopped before its first write: says none, one product in the singular', () => {
    expect(
      wroteBeforeStop({ products: { created: 0, updated: 0, unchanged: 1, rejected: 0 }, rejectsFile: null }),
    ).toBe('no products created or updated; 1 unchanged');
    expect(wroteBeforeStop({ products: { created: 1, updated: 0, unchanged: 0, rejected: 0 } })).toBe(
      '1 product created, 0 updated',
    );
    // A row naming no product is no rejected product, yet rejected: the memo's rejectedRows says so.
    expect(
      wroteBeforeStop({
        products: { created: 1, updated: 0, unchanged: 0, rejected: 0 },
        rejectedRows: 1,
        rejectsFile: '/r.csv',
      }),
    ).toBe('1 product created, 0 updated; 1 row rejected (rejects file: /r.csv)');
  });

  it('ERP push: orders created and patched, rejected ones with the rejects file', () => {
    expect(
      wroteBeforeStop({
        cancelled: true,
        orders: { created: 7, patched: 1, unchanged: 0, rejected: 1 },
        rejectsFile: 's3://bucket/runs/r2/rejects.csv',
      }),
    ).toBe('7 orders created, 1 patched; 1 rejected (rejects file: s3://bucket/runs/r2/rejects.csv)');
  });

  it('ERP pull: the orders pulled', () => {
    expect(wroteBeforeStop({ cancelled: true, orders: 5 })).toBe('5 orders pulled');
    expect(wroteBeforeStop({ cancelled: true, orders: 0 })).toBe('no orders pulled');
  });

  it('BOM repair: lines repaired after how many products, and the lines it could not repair', () => {
    expect(
      wroteBeforeStop({
        cancelled: true,
        productsScanned: 10,
        candidates: 10,
        productsProcessed: 4,
        productsWithForks: 4,
        productsFailed: 0,
        linesRepaired: 9,
        linesWouldRepair: 0,
        linesAmbiguous: 2,
        linesUnmatched: 1,
        linesFailed: 0,
      }),
    ).toBe('9 BOM lines repaired, after 4 of 10 products; 2 lines ambiguous, 1 unmatched');
  });

  it('a memo with no counts (a run stopped at its approval gate), or fields no job writes: nothing said, nothing dumped', () => {
    expect(
      wroteBeforeStop({ file: 'a.csv', profile: 'native', dryRun: false, retryOf: null }),
    ).toBeUndefined();
    expect(wroteBeforeStop({ products: { made: 3 }, secret: 'x' })).toBeUndefined();
    expect(wroteBeforeStop(undefined)).toBeUndefined();
  });
});
