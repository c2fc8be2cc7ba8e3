import { DEFAULT_PROFILE } from '../../../connectors/erp-orders/profile';
import { buildOrders } from '../../../connectors/erp-orders/orders/build';
import { productRefKey, type OrderDraft } from '../../../connectors/erp-orders/orders/draft';
import {
  existingOrderSchema,
  planOrderSync,
  type ExistingOrder,
  type OrderPlan,
} from '../../../connectors/erp-orders/reconcile';
import { readCsv } from '../../../connectors/erp-orders/read/csv';
import { readJson } from '../../../connectors/erp-orders/read/json';
import { writeRejects } from '../../../connectors/erp-orders/rejects';
import { parseDate } from '../../../connectors/erp-orders/cell-values';
import type { CellValue } from '../../../connectors/erp-orders/read/types';
import { CONTEXT, lineRow, OWN, tableOf } from './support';

/** The API's order rules of spec 03 as the pure modules apply them (issue 14). */

const RESOLVED: ReadonlyMap<string, string> = new Map(
  [
    ['TEE-M', 'style_m'],
    ['TEE-L', 'style_l'],
    ['TEE-S', 'style_s'],
  ].map(([externalId, id]) => [productRefKey({ externalId: externalId as string }), id as string]),
);

function draftOf(rows: Array<Record<string, CellValue>>): OrderDraft {
  const { drafts, rejections } = buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT);
  expect(rejections).toEqual([]);
  return drafts[0] as OrderDraft;
}

function stored(
  lines: Array<Partial<ExistingOrder['lines'][number]> & { id: string; styleId: string; quantity: number }>,
): ExistingOrder {
  return existingOrderSchema.parse({
    id: 'order_1',
    orderNumber: 'PO-1',
    orderType: 'PURCHASE_ORDER',
    buyerCompanyId: OWN,
    supplierCompanyId: 'comp_acme',
    buyerFacilityProcess: 'WAREHOUSE',
    supplierFacilityProcess: 'CUT_MAKE_TRIM',
    orderDate: '2024-03-01',
    isArchived: false,
    lines: lines.map((line, index) => ({
      orderLineNumber: `PO-1-PURCHASE_ORDER-L${index + 1}`,
      lineNo: index + 1,
      unit: 'PIECES',
      ...line,
    })),
  });
}

const unnumbered = (product: string, quantity: string) =>
  lineRow({ line_number: '', product_external_id: product, quantity });

describe('order type: "Unique within the owner company for the same order type"', () => {
  it('splits one number into a purchase and a sales order when the rows name parties of both types', () => {
    const rows = [
      lineRow({ buyer_code: 'BRAND', supplier_code: 'ACME' }),
      lineRow({ buyer_code: '', supplier_code: '', line_number: '2' }),
      lineRow({ buyer_code: 'ACME', supplier_code: 'BRAND', line_number: '1' }),
    ];
    const { drafts, rejections } = buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT);
    expect(rejections).toEqual([]);
    expect(drafts.map((draft) => [draft.orderType, draft.rows])).toEqual([
      ['PURCHASE_ORDER', [2, 3]],
      ['SALES_ORDER', [4]],
    ]);
  });

  it('still calls two suppliers of one purchase order a header_conflict', () => {
    const rows = [
      lineRow({ supplier_code: 'ACME' }),
      lineRow({ supplier_code: 'MILL-01', line_number: '2' }),
    ];
    const { rejections } = buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT);
    expect(rejections.map((rejection) => rejection.code)).toEqual(['header_conflict']);
  });
});

describe('line identity: "treat as display position, not identity"', () => {
  const existing = stored([
    { id: 'l1', styleId: 'style_m', quantity: 10 },
    { id: 'l2', styleId: 'style_l', quantity: 20 },
    { id: 'l3', styleId: 'style_s', quantity: 30 },
  ]);
  const patch = (plan: OrderPlan) => {
    if (plan.kind !== 'patch') throw new Error(`expected a patch, got ${plan.kind}`);
    return plan;
  };

  it('deletes exactly the dropped line of a complete export without numbers, keeping the others by id', () => {
    const draft = draftOf([unnumbered('TEE-M', '10'), unnumbered('TEE-S', '30')]);
    const plan = patch(planOrderSync({ draft, existing, resolvedStyleIds: RESOLVED, complete: true }));
    expect(plan.steps).toEqual([{ lines: [{ id: 'l1' }, { id: 'l3' }] }]);
    expect(plan.lines).toMatchObject({ deleted: 1, updated: 0, created: 0 });
  });

  it('matches a changed quantity to the same product, and never renames a line the export does not number', () => {
    const draft = draftOf([unnumbered('TEE-L', '25'), unnumbered('TEE-M', '10'), unnumbered('TEE-S', '30')]);
    const plan = patch(planOrderSync({ draft, existing, resolvedStyleIds: RESOLVED, complete: true }));
    expect(plan.steps).toEqual([{ lines: [{ id: 'l1' }, { id: 'l3' }, { id: 'l2', quantity: 25 }] }]);
  });

  it('creates a new line without a number (the server gives it one)', () => {
    const draft = draftOf([
      unnumbered('TEE-M', '10'),
      unnumbered('TEE-L', '20'),
      unnumbered('TEE-S', '30'),
      unnumbered('TEE-M', '5'),
    ]);
    const plan = patch(planOrderSync({ draft, existing, resolvedStyleIds: RESOLVED, complete: true }));
    expect(plan.steps[0]?.lines?.at(-1)).toEqual({ styleId: 'style_m', quantity: 5, unit: 'PIECES' });
  });

  it('refuses to delete or rename a traced line without the opt-in, and does it with it', () => {
    const traced = stored([
      { id: 'l1', styleId: 'style_m', quantity: 10 },
      { id: 'l2', styleId: 'style_l', quantity: 20, tracingReflectionOrderId: 'trcord_1' },
    ]);
    const draft = draftOf([unnumbered('TEE-M', '10')]);
    const refused = planOrderSync({ draft, existing: traced, resolvedStyleIds: RESOLVED, complete: true });
    expect(refused).toMatchObject({ kind: 'rejected', rejection: { code: 'traced_line_protected' } });
    const renamed = planOrderSync({
      draft: draftOf([
        lineRow({ line_id: '', line_number: 'A', product_external_id: 'TEE-M' }),
        lineRow({ line_id: 'l2', line_number: 'B', product_external_id: 'TEE-L', quantity: '20' }),
      ]),
      existing: stored([
        { id: 'l1', styleId: 'style_m', quantity: 10, orderLineNumber: 'A' },
        {
          id: 'l2',
          styleId: 'style_l',
          quantity: 20,
          orderLineNumber: 'OLD',
          tracingReflectionOrderId: 'trcord_1',
        },
      ]),
      resolvedStyleIds: RESOLVED,
      complete: false,
    });
    expect(renamed).toMatchObject({ kind: 'rejected', rejection: { code: 'traced_line_protected' } });
    const allowed = patch(
      planOrderSync({
        draft,
        existing: traced,
        resolvedStyleIds: RESOLVED,
        complete: true,
        allowTracedLineRemoval: true,
      }),
    );
    expect(allowed.lines).toMatchObject({ deleted: 1 });
  });

  it('refuses an archived product on a new line as the API does (style_not_found)', () => {
    const draft = draftOf([
      unnumbered('TEE-M', '10'),
      unnumbered('TEE-L', '20'),
      unnumbered('TEE-S', '30'),
      unnumbered('TEE-L', '1'),
    ]);
    const plan = planOrderSync({
      draft,
      existing,
      resolvedStyleIds: RESOLVED,
      complete: true,
      archivedRefs: new Set([productRefKey({ externalId: 'TEE-L' })]),
    });
    expect(plan).toMatchObject({
      kind: 'rejected',
      rejection: { code: 'style_not_found', message: expect.stringContaining('archived') },
    });
  });

  it('re-pushes an order of 9,000 unnumbered lines of three products, matching each by content in platform order', () => {
    const products = [
      ['TEE-M', 'style_m'],
      ['TEE-L', 'style_l'],
      ['TEE-S', 'style_s'],
    ] as const;
    const kindOf = (index: number) => products[index % 3] as (typeof products)[number];
    const quantityOf = (index: number) => 1 + (index % 7);
    const large = stored(
      Array.from({ length: 9_000 }, (_, index) => ({
        id: `l${index}`,
        styleId: kindOf(index)[1],
        quantity: quantityOf(index),
      })),
    );
    // The export lists the lines backwards, and one TEE-S line of quantity 6 (index 5) now has quantity 100.
    const rows = Array.from({ length: 9_000 }, (_, position) => {
      const index = 8_999 - position;
      return unnumbered(kindOf(index)[0], index === 5 ? '100' : String(quantityOf(index)));
    });
    const plan = patch(
      planOrderSync({ draft: draftOf(rows), existing: large, resolvedStyleIds: RESOLVED, complete: true }),
    );
    expect(plan.lines).toMatchObject({ created: 0, updated: 1, deleted: 0, renamed: 0, unchanged: 8_999 });
    // Every other line keeps its same-quantity match, so the changed line takes the last TEE-S line of quantity 6.
    const lastSixS = Math.max(
      ...Array.from({ length: 9_000 }, (_, index) => index).filter(
        (index) => index % 3 === 2 && quantityOf(index) === 6,
      ),
    );
    const entries = plan.steps[0]?.lines ?? [];
    expect(entries.filter((entry) => Object.keys(entry).length > 1)).toEqual([
      { id: `l${lastSixS}`, quantity: 100 },
    ]);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(9_000);
  });
});

describe('dates as real exports write them', () => {
  it.each([
    ['2025-05-11 09:55:16 -0400', 'iso'],
    ['2025-05-11T09:55:16Z', 'iso'],
    ['2025-05-11T23:55:16+02:00', 'iso'],
    ['2025-05-11 23:55:16+0200', 'iso'],
    ['2025-05-11 09:55', 'iso'],
    ['20250511', 'iso'],
    ['11.05.2025 09:55:16', 'dmy'],
    ['5/11/2025 9:55 PM', 'mdy'],
  ] as const)('%s (%s) is 2025-05-11, the date as written', (text, format) => {
    expect(parseDate(text, format)).toEqual({ ok: true, value: '2025-05-11' });
  });

  it('lists the accepted forms and the profile dateFormat when it still refuses one', () => {
    const refused = parseDate('May 11th', 'dmy');
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.reason).toContain('-0400');
      expect(refused.reason).toContain("dateFormat is 'dmy'");
    }
  });
});

describe('rejects in the input csv dialect', () => {
  it('keeps a semicolon, Windows-1252, CRLF file as it came', async () => {
    const source = Buffer.from('order_number;note\r\nPO-1;Café\r\n', 'latin1');
    const table = await readCsv(source);
    const file = writeRejects(table, [
      { rows: [2], code: 'x', message: 'bad', problems: [{ code: 'x', message: 'bad' }] },
    ]);
    expect(file.content.toString('latin1')).toBe(
      'order_number;note;error_code;error_message\r\nPO-1;Café;x;bad\r\n',
    );
  });
});

describe('rejects of a large order', () => {
  it('gives each of 20,000 rows its own problems, else the order error', async () => {
    const rowNumbers = Array.from({ length: 20_000 }, (_, index) => index + 2);
    const table = await readCsv(
      Buffer.from(`order_number,unit\n${rowNumbers.map(() => 'PO-1,box').join('\n')}\n`),
    );
    // Every even row has a bad unit, every tenth row a bad quantity as well; odd rows have none of their own.
    const problems = rowNumbers
      .filter((row) => row % 2 === 0)
      .flatMap((row) => [
        { code: 'invalid_unit', row, message: `row ${row}: bad unit` },
        ...(row % 10 === 0 ? [{ code: 'invalid_quantity', row, message: `row ${row}: bad quantity` }] : []),
      ]);
    const file = writeRejects(table, [
      { rows: rowNumbers, code: 'invalid_unit', message: 'order PO-1 has bad rows', problems },
    ]);
    expect(file.rowCount).toBe(20_000);
    const lines = file.content
      .toString('utf8')
      .replace(/^\ufeff/, '')
      .trimEnd()
      .split(/\r?\n/);
    expect(lines).toHaveLength(20_001);
    expect(lines.slice(0, 4)).toEqual([
      'order_number,unit,error_code,error_message',
      'PO-1,box,invalid_unit,row 2: bad unit',
      'PO-1,box,invalid_unit,order PO-1 has bad rows',
      'PO-1,box,invalid_unit,row 4: bad unit',
    ]);
    expect(lines[9]).toBe('PO-1,box,invalid_unit,row 10: bad unit; row 10: bad quantity');
    expect(lines[20_000]).toBe('PO-1,box,invalid_unit,order PO-1 has bad rows');
  });
});

// Spec 03, Order.orderNumber: "exact match (no trimming or case folding). Unique within the owner company for the
// same order type". A JSON number keeps 15-17 digits: 9007199254740993 reads as 9007199254740992.
describe('JSON numbers that cannot be read exactly', () => {
  const line = (fields: string) =>
    `{"supplier_code":"ACME","product_external_id":"TEE-M","unit":"PIECES",${fields}}\n`;

  it('refuses a text field given as such a number, naming row, column and the string to write instead', async () => {
    const table = await readJson(
      line('"order_number":9007199254740993,"quantity":5') +
        line('"order_number":9007199254740992,"quantity":5') +
        line('"order_number":"PO-3","line_number":1.50,"quantity":5') +
        line('"order_number":"PO-4","quantity":9007199254740993') +
        line('"order_number":"PO-5","line_number":10,"quantity":1.50'),
    );
    const { drafts, rejections } = buildOrders(table, DEFAULT_PROFILE, CONTEXT);
    expect(drafts.map((draft) => [draft.orderNumber, draft.lines[0]?.quantity])).toEqual([
      ['9007199254740992', 5],
      ['PO-5', 1.5],
    ]);
    expect(rejections.map((r) => [r.orderNumber, r.rows, r.code, r.field, r.message])).toEqual([
      [
        '9007199254740993',
        [1],
        'invalid_value',
        'orderNumber',
        `row 1, column 'order_number' (orderNumber): the JSON number 9007199254740993 cannot be read exactly as text ` +
          `(it would become '9007199254740992'); write it as a JSON string: "9007199254740993"`,
      ],
      [
        'PO-3',
        [3],
        'invalid_value',
        'orderLineNumber',
        `row 3, column 'line_number' (orderLineNumber): the JSON number 1.50 cannot be read exactly as text ` +
          `(it would become '1.5'); write it as a JSON string: "1.50"`,
      ],
      [
        'PO-4',
        [4],
        'invalid_quantity',
        'quantity',
        `row 4, column 'quantity' (quantity): the JSON number 9007199254740993 has more digits than can be read ` +
          'exactly (it would become 9007199254740992)',
      ],
    ]);
    // The rejects file gives the numbers back as written.
    const rejects = writeRejects(
      table,
      rejections.map((r) => ({ rows: r.rows, code: r.code, message: r.message, problems: r.problems })),
    );
    const written = rejects.content.toString('utf8').split('\n');
    expect(written[0]).toMatch(/^\{"supplier_code":"ACME",.*"order_number":9007199254740993,"quantity":5,/);
    expect(written[1]).toContain('"line_number":1.50,');
    expect(written[2]).toContain('"quantity":9007199254740993,');
    expect(written.slice(0, 3).map((text) => JSON.parse(text) as unknown)).toHaveLength(3);
  });

  // Spec 03: secondaryQuantity is optional; a zero one is the blank it means (as `0,000` in a csv), however the ERP
  // serialised it: decimals written out (`0.00`) are kept as written by the reader, not read as a quantity of 0.
  it('reads a secondary quantity of 0.0, 0.000 or 0e0 as none, and still refuses a main quantity of 0.0', async () => {
    const table = await readJson(
      ['0.0', '0.000', '0e0', '0']
        .map((zero, i) => line(`"order_number":"PO-Z${i}","quantity":5,"secondary_quantity_kg":${zero}`))
        .join('') + line('"order_number":"PO-Q","quantity":0.0'),
    );
    const { drafts, rejections } = buildOrders(table, DEFAULT_PROFILE, CONTEXT);
    expect(drafts.map((draft) => [draft.orderNumber, draft.lines[0]?.secondaryQuantity])).toEqual([
      ['PO-Z0', null],
      ['PO-Z1', null],
      ['PO-Z2', null],
      ['PO-Z3', null],
    ]);
    expect(rejections.map((r) => [r.orderNumber, r.code, r.field])).toEqual([
      ['PO-Q', 'invalid_quantity', 'quantity'],
    ]);
  });
});
