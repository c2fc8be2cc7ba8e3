import { runKeyOf } from '../../../connectors/staging';

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
