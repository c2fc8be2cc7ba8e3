import { runKeyOf } from '../../../connectors/staging';
import { isRunKeyOf, legacyRunKeyOf } from '../../../connectors/staging/run-key';

describe('runKeyOf: the run folder a workflow id names', () => {
  it('keeps a short id as it was, odd characters made underscores (runs in flight keep their folder)', () => {
    expect(runKeyOf('erp-orders-my orders.csv-2026-03-01T08-00-00-000Z')).toBe(
      'erp-orders-my_orders.csv-2026-03-01T08-00-00-000Z',
    );
  });

  it('gives two long ids that differ only past 200 characters (the start time after a long file name) two folders', () => {
    const name = `erp-orders-${'n'.repeat(200)}.csv`;
    const first = runKeyOf(`${name}-2026-03-01T08-00-00-000Z`);
    const second = runKeyOf(`${name}-2026-03-01T08-01-00-000Z`);
    expect(first).not.toBe(second);
    expect([first.length, second.length]).toEqual([200, 200]);
    expect(first).toMatch(/^erp-orders-n+-[0-9a-f]{16}$/);
  });
});

describe('a long-id run in flight across the upgrade keeps its folder (legacyRunKeyOf, isRunKeyOf)', () => {
  const long = `process-inbox-${'drop-'.repeat(40)}Week48-final.csv`;

  it('names the folder such a run was given before: the id cut at 200 characters', () => {
    expect(legacyRunKeyOf(long)).toBe(long.slice(0, 200));
    expect(legacyRunKeyOf(long)).not.toBe(runKeyOf(long));
  });

  it('takes either folder as the run own (a continuation from before the upgrade is still its own), no other', () => {
    expect(isRunKeyOf(runKeyOf(long), long)).toBe(true);
    expect(isRunKeyOf(legacyRunKeyOf(long), long)).toBe(true);
    expect(isRunKeyOf(runKeyOf(`${long}x`), long)).toBe(false);
  });

  it('is the same folder for every id of 200 characters or fewer', () => {
    const short = 'erp-orders-my orders.csv-2026-03-01T08-00-00-000Z';
    expect(legacyRunKeyOf(short)).toBe(runKeyOf(short));
  });
});
