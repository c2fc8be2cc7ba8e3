import Papa from 'papaparse';
import {
  advanceMark,
  INITIAL_MARK,
  laterMark,
  ordersSince,
  ordersToCsv,
  ordersToNdjson,
  pullQuery,
} from '../../../connectors/erp-pull/pull';
import { existingOrderSchema, type ExistingOrder } from '../../../connectors/erp-orders/reconcile';

function order(id: string, updatedAt: string, extra: Record<string, unknown> = {}): ExistingOrder {
  return existingOrderSchema.parse({
    id,
    orderNumber: `N-${id}`,
    orderType: 'PURCHASE_ORDER',
    buyerCompanyId: 'comp_brand',
    supplierCompanyId: 'comp_acme',
    updatedAt,
    lines: [],
    ...extra,
  });
}

describe('high-water mark', () => {
  it('starts with everything, then asks from the largest updatedAt seen (inclusive bound)', () => {
    expect(pullQuery(INITIAL_MARK)).toEqual({});
    const first = [
      order('a', '2024-03-01T10:00:00.000Z'),
      order('b', '2024-03-01T10:00:05.000Z'),
      order('c', '2024-03-01T10:00:05.000Z'),
    ];
    const mark = advanceMark(INITIAL_MARK, ordersSince(INITIAL_MARK, first));
    expect(mark).toEqual({ updatedAtMs: Date.parse('2024-03-01T10:00:05.000Z'), idsAtMark: ['b', 'c'] });
    expect(pullQuery(mark)).toEqual({ updatedAfterUnixMs: Date.parse('2024-03-01T10:00:05.000Z') });
  });

  it('skips orders already exported at the bound, keeps new ones at the same instant', () => {
    const mark = { updatedAtMs: Date.parse('2024-03-01T10:00:05.000Z'), idsAtMark: ['b', 'c'] };
    const pulled = [
      order('b', '2024-03-01T10:00:05.000Z'),
      order('d', '2024-03-01T10:00:05.000Z'),
      order('e', '2024-03-02T00:00:00.000Z'),
    ];
    const fresh = ordersSince(mark, pulled);
    expect(fresh.map((o) => o.id)).toEqual(['d', 'e']);
    expect(advanceMark(mark, fresh)).toEqual({
      updatedAtMs: Date.parse('2024-03-02T00:00:00.000Z'),
      idsAtMark: ['e'],
    });
    expect(advanceMark(mark, ordersSince(mark, [order('d', '2024-03-01T10:00:05.000Z')]))).toEqual({
      ...mark,
      idsAtMark: ['b', 'c', 'd'],
    });
  });

  it('counts an order met twice once, at its latest version, and keeps the mark when nothing is new', () => {
    const pulled = [order('a', '2024-03-01T10:00:00.000Z'), order('a', '2024-03-01T11:00:00.000Z')];
    expect(ordersSince(INITIAL_MARK, pulled).map((o) => o.updatedAt)).toEqual(['2024-03-01T11:00:00.000Z']);
    const mark = { updatedAtMs: 5, idsAtMark: ['x'] };
    expect(advanceMark(mark, [])).toEqual(mark);
  });

  it('stores the later of two marks, at the same instant both sets of ids: two pulls at once never move it back', () => {
    const at = (iso: string, ...idsAtMark: string[]) => ({ updatedAtMs: Date.parse(iso), idsAtMark });
    const earlier = at('2024-03-01T10:00:05.000Z', 'b');
    const later = at('2024-03-01T10:00:09.000Z', 'd');
    expect(laterMark(earlier, later)).toEqual(later);
    expect(laterMark(later, earlier)).toEqual(later);
    expect(laterMark(at('2024-03-01T10:00:09.000Z', 'e', 'd'), later)).toEqual(
      at('2024-03-01T10:00:09.000Z', 'd', 'e'),
    );
    expect(laterMark(INITIAL_MARK, earlier)).toEqual(earlier);
  });
});

describe('order export files', () => {
  const lines = [
    {
      id: 'ordline_1',
      orderLineNumber: '1',
      lineNo: 1,
      styleId: 'style_m',
      quantity: 10,
      unit: 'PIECES',
      secondaryQuantity: null,
    },
    {
      id: 'ordline_2',
      orderLineNumber: '=HYPERLINK("x")',
      lineNo: 2,
      styleId: 'style_l',
      quantity: 2.5,
      unit: 'KILOGRAM',
      secondaryQuantity: 2.5,
    },
  ];
  const orders = [
    order('order_1', '2024-03-01T10:00:00.000Z', {
      tags: ['ss25', 'eco'],
      shipmentReference: '+31 20 555',
      lines,
    }),
    order('order_2', '2024-03-01T11:00:00.000Z', { counterpartyOrderNumberRef: '@sum' }),
  ];

  it('writes one csv row per line, an order without lines once, formula-like text neutralised', () => {
    const csv = ordersToCsv(orders);
    const parsed = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.data.map((row) => [row['order_id'], row['line_id'], row['quantity']])).toEqual([
      ['order_1', 'ordline_1', '10'],
      ['order_1', 'ordline_2', '2.5'],
      ['order_2', '', ''],
    ]);
    expect(parsed.data[1]?.['line_number']).toBe('\'=HYPERLINK("x")');
    expect(parsed.data[0]?.['shipment_reference']).toBe("'+31 20 555");
    expect(parsed.data[2]?.['counterparty_order_number']).toBe("'@sum");
    expect(parsed.data[0]?.['tags']).toBe('ss25,eco');
  });

  it('writes NDJSON one order per line, lines nested, values untouched', () => {
    const text = ordersToNdjson(orders);
    const back = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ExistingOrder);
    expect(back.map((o) => o.id)).toEqual(['order_1', 'order_2']);
    expect(back[0]?.lines[1]?.orderLineNumber).toBe('=HYPERLINK("x")');
    expect(ordersToNdjson([])).toBe('');
  });
});
