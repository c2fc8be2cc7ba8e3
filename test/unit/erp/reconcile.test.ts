import { orderCreateSchema, orderPatchSchema } from '../../../connectors/traceability/schemas/orders';
import { DEFAULT_PROFILE } from '../../../connectors/erp-orders/profile';
import { buildOrders } from '../../../connectors/erp-orders/orders/build';
import { productRefKey, type OrderDraft } from '../../../connectors/erp-orders/orders/draft';
import {
  existingOrderSchema,
  planOrderSync,
  type ExistingOrder,
  type OrderPlan,
  type PlanInput,
} from '../../../connectors/erp-orders/reconcile';
import { CONTEXT, lineRow, OWN, tableOf } from './support';
import type { CellValue } from '../../../connectors/erp-orders/read/types';

const STYLES = new Map([
  ['TSHIRT-RED-M', 'style_m'],
  ['TSHIRT-RED-L', 'style_l'],
  ['TSHIRT-RED-S', 'style_s'],
]);
const RESOLVED: ReadonlyMap<string, string> = new Map(
  [...STYLES].map(([externalId, id]) => [productRefKey({ externalId }), id]),
);

function draftOf(rows: Array<Record<string, CellValue>>): OrderDraft {
  const { drafts, rejections } = buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT);
  expect(rejections).toEqual([]);
  return drafts[0] as OrderDraft;
}

const THREE_LINES = [
  lineRow({ tags: 'ss25, eco' }),
  lineRow({ line_number: '2', product_external_id: 'TSHIRT-RED-L', quantity: '20' }),
  lineRow({ line_number: '3', product_external_id: 'TSHIRT-RED-S', quantity: '5.5' }),
];

/** The order as GET /orders/{id} would return it after creating THREE_LINES. */
function stored(overrides: Partial<ExistingOrder> = {}): ExistingOrder {
  return existingOrderSchema.parse({
    id: 'order_1',
    orderNumber: 'PO-1',
    orderType: 'PURCHASE_ORDER',
    orderSubType: null,
    status: null,
    tags: ['ss25', 'eco'],
    buyerCompanyId: OWN,
    supplierCompanyId: 'comp_acme',
    receiverCompanyId: OWN,
    receiverFacilityProcess: 'WAREHOUSE',
    vendorCompanyId: null,
    factory: null,
    buyerFacilityProcess: 'WAREHOUSE',
    supplierFacilityProcess: 'CUT_MAKE_TRIM',
    orderDate: '2024-03-01',
    deliveryDate: null,
    internalResponsiblePersons: [],
    tracingStatus: null,
    lines: [
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
        orderLineNumber: '2',
        lineNo: 2,
        styleId: 'style_l',
        quantity: 20,
        unit: 'PIECES',
        secondaryQuantity: null,
      },
      {
        id: 'ordline_3',
        orderLineNumber: '3',
        lineNo: 3,
        styleId: 'style_s',
        quantity: 5.5,
        unit: 'PIECES',
        secondaryQuantity: null,
      },
    ],
    ...overrides,
  });
}

function plan(
  rows: Array<Record<string, CellValue>>,
  existing: ExistingOrder | undefined,
  extra: Partial<PlanInput> = {},
): OrderPlan {
  return planOrderSync({
    draft: draftOf(rows),
    existing,
    resolvedStyleIds: RESOLVED,
    complete: false,
    ...extra,
  });
}

function patchSteps(result: OrderPlan): NonNullable<Extract<OrderPlan, { kind: 'patch' }>['steps']> {
  if (result.kind !== 'patch') throw new Error(`expected a patch, got ${JSON.stringify(result)}`);
  for (const step of result.steps) {
    expect(orderPatchSchema.safeParse(step).success).toBe(true);
    expect(JSON.stringify(step)).not.toMatch(/"(orderType|tracingStatus|lineNo|internalResponsiblePerson)"/);
  }
  return result.steps;
}

describe('create', () => {
  it('builds a POST body with resolved styles, no nulls and no bookkeeping fields', () => {
    const result = plan(THREE_LINES, undefined);
    expect(result.kind).toBe('create');
    if (result.kind !== 'create') return;
    expect(orderCreateSchema.safeParse(result.body).success).toBe(true);
    expect(result.body).toEqual({
      orderNumber: 'PO-1',
      buyerCompanyId: OWN,
      supplierCompanyId: 'comp_acme',
      buyerFacilityProcess: 'WAREHOUSE',
      supplierFacilityProcess: 'CUT_MAKE_TRIM',
      orderDate: '2024-03-01',
      tags: ['ss25', 'eco'],
      lines: [
        { orderLineNumber: '1', styleId: 'style_m', quantity: 10, unit: 'PIECES' },
        { orderLineNumber: '2', styleId: 'style_l', quantity: 20, unit: 'PIECES' },
        { orderLineNumber: '3', styleId: 'style_s', quantity: 5.5, unit: 'PIECES' },
      ],
    });
  });

  it('falls back to the externalId for unresolved products, but rejects an unresolved product code', () => {
    const byExternalId = planOrderSync({
      draft: draftOf([lineRow()]),
      existing: undefined,
      resolvedStyleIds: new Map(),
      complete: false,
    });
    expect(byExternalId.kind === 'create' && byExternalId.body.lines?.[0]?.styleId).toBe('TSHIRT-RED-M');
    const draft = draftOf([lineRow({ product_external_id: '', product_code: 'ERP-9' })]);
    const byCode = planOrderSync({
      draft,
      existing: undefined,
      resolvedStyleIds: new Map(),
      complete: false,
    });
    expect(byCode).toMatchObject({ kind: 'rejected', rejection: { code: 'style_not_found', rows: [2] } });
  });
});

describe('unchanged detection', () => {
  it('writes nothing when the platform already matches', () => {
    expect(plan(THREE_LINES, stored())).toEqual({
      kind: 'unchanged',
      orderNumber: 'PO-1',
      orderType: 'PURCHASE_ORDER',
      orderId: 'order_1',
    });
  });

  it('compares semantically: tag spacing, date spellings, quantities at 2 decimals, defaulted receiver', () => {
    const rows = [
      lineRow({ tags: ' ss25 ,, eco', order_date: '2024-03-01T09:00:00' }),
      lineRow({ line_number: '2', product_external_id: 'TSHIRT-RED-L', quantity: '19.999' }),
      lineRow({ line_number: '3', product_external_id: 'TSHIRT-RED-S', quantity: '5.504' }),
    ];
    expect(plan(rows, stored()).kind).toBe('unchanged');
  });

  it('compares responsible persons as user ids, e-mails resolved through the given map', () => {
    const rows = THREE_LINES.map((row) => ({ ...row, responsible_persons: 'Ana@Brand.example' }));
    const existing = stored({ internalResponsiblePersons: ['usr_ana'] });
    expect(
      plan(rows, existing, { responsiblePersonIds: new Map([['ana@brand.example', 'usr_ana']]) }).kind,
    ).toBe('unchanged');
    const steps = patchSteps(plan(rows, existing));
    expect(steps[0]).toEqual({ internalResponsiblePersons: ['Ana@Brand.example'] });
  });

  it('leaves alone the fields the export does not carry', () => {
    expect(
      plan(
        THREE_LINES,
        stored({ status: 'COMPLETED', shippingDate: '2024-05-01', vendorCompanyId: 'comp_x' }),
      ).kind,
    ).toBe('unchanged');
  });
});

describe('minimal patches', () => {
  it('sends only the order fields that changed, without a lines key', () => {
    const rows = THREE_LINES.map((row) => ({
      ...row,
      order_date: '2024-03-02',
      delivery_date: '2024-06-30',
    }));
    const result = plan(rows, stored());
    expect(patchSteps(result)).toEqual([{ orderDate: '2024-03-02', deliveryDate: '2024-06-30' }]);
    expect(result).toMatchObject({ changedFields: ['orderDate', 'deliveryDate'] });
  });

  it('clears a value the export leaves blank', () => {
    const rows = THREE_LINES.map((row) => ({ ...row, delivery_date: '', tags: '' }));
    expect(patchSteps(plan(rows, stored({ deliveryDate: '2024-06-30' })))).toEqual([
      { deliveryDate: null, tags: [] },
    ]);
  });

  it('sends the receiver as a pair; blank receiver columns mean the buyer, absent ones leave the receiver alone', () => {
    const movedReceiver = stored({ receiverCompanyId: 'comp_dc', receiverFacilityProcess: 'WAREHOUSE' });
    // The old expectation (absent columns reset the receiver to the buyer) was the misreading of issue 14, item 2.
    expect(plan(THREE_LINES, movedReceiver)).toMatchObject({ kind: 'unchanged' });
    const blank = THREE_LINES.map((row) => ({ ...row, receiver_code: '', receiver_facility_process: '' }));
    expect(patchSteps(plan(blank, movedReceiver))).toEqual([
      { receiverCompanyId: OWN, receiverFacilityProcess: 'WAREHOUSE' },
    ]);
    const rows = THREE_LINES.map((row) => ({
      ...row,
      receiver_code: 'DC-PARIS',
      receiver_facility_process: 'Laundry',
    }));
    expect(patchSteps(plan(rows, stored()))).toEqual([
      { receiverCompanyId: 'comp_dc', receiverFacilityProcess: 'LAUNDRY' },
    ]);
  });

  // Spec 03, PATCH rule 3: "to remove the receiver, send both as null".
  it('blank receiver columns without a buyer facility process remove another receiver, and keep the default', () => {
    const blank = THREE_LINES.map((row) => ({
      ...row,
      buyer_facility_process: '',
      receiver_code: '',
      receiver_facility_process: '',
    }));
    const moved = stored({
      buyerFacilityProcess: null,
      receiverCompanyId: 'comp_dc',
      receiverFacilityProcess: 'WAREHOUSE',
    });
    expect(patchSteps(plan(blank, moved))).toEqual([
      { receiverCompanyId: null, receiverFacilityProcess: null },
    ]);
    const defaulted = { buyerFacilityProcess: null, receiverFacilityProcess: null };
    expect(plan(blank, stored({ ...defaulted, receiverCompanyId: OWN })).kind).toBe('unchanged');
    expect(plan(blank, stored({ ...defaulted, receiverCompanyId: null })).kind).toBe('unchanged');
  });

  it('lists every kept line when one changes: unchanged as bare ids, changed with only their changes', () => {
    const rows = [
      THREE_LINES[0],
      { ...THREE_LINES[1], quantity: '21', unit: 'pair' },
      THREE_LINES[2],
    ] as Array<Record<string, CellValue>>;
    const result = plan(rows, stored());
    expect(patchSteps(result)).toEqual([
      { lines: [{ id: 'ordline_1' }, { id: 'ordline_2', quantity: 21, unit: 'PAIR' }, { id: 'ordline_3' }] },
    ]);
    expect(result).toMatchObject({ lines: { updated: 1, unchanged: 2, created: 0, deleted: 0 } });
  });

  it('creates new lines without an id and updates a changed product by platform id', () => {
    const rows = [
      ...THREE_LINES.slice(0, 2),
      { ...THREE_LINES[2], product_external_id: 'TSHIRT-RED-M' },
      lineRow({ line_number: '4', secondary_quantity_kg: '1.2345' }),
    ];
    expect(patchSteps(plan(rows as Array<Record<string, CellValue>>, stored()))).toEqual([
      {
        lines: [
          { id: 'ordline_1' },
          { id: 'ordline_2' },
          { id: 'ordline_3', styleId: 'style_m' },
          { orderLineNumber: '4', styleId: 'style_m', quantity: 10, unit: 'PIECES', secondaryQuantity: 1.23 },
        ],
      },
    ]);
  });
});

describe('complete and incomplete exports', () => {
  const twoLines = THREE_LINES.slice(0, 2);

  it('keeps lines an incomplete export does not list: nothing to write', () => {
    expect(plan(twoLines, stored(), { complete: false }).kind).toBe('unchanged');
  });

  it('keeps them as bare ids when another line changes', () => {
    const rows = [twoLines[0], { ...twoLines[1], quantity: '25' }] as Array<Record<string, CellValue>>;
    expect(patchSteps(plan(rows, stored(), { complete: false }))[0]?.lines).toEqual([
      { id: 'ordline_1' },
      { id: 'ordline_2', quantity: 25 },
      { id: 'ordline_3' },
    ]);
  });

  it('deletes them (leaves them out) when the export is complete', () => {
    const result = plan(twoLines, stored(), { complete: true });
    expect(patchSteps(result)).toEqual([{ lines: [{ id: 'ordline_1' }, { id: 'ordline_2' }] }]);
    expect(result).toMatchObject({ lines: { deleted: 1 } });
  });

  // Spec 03, line reconciliation: "an entry without `id` creates a line; any existing line absent from the array is
  // deleted". Without numbers, a changed unit (or product) matches no platform line: new line or replacement?
  describe('without line numbers', () => {
    const unnumbered = (rows: Array<Record<string, CellValue>>) =>
      rows.map((row) => ({ ...row, line_number: null }));

    it('refuses a line whose unit changed while the old line goes unmatched, unless the export is complete', () => {
      const rows = unnumbered([THREE_LINES[0]!, { ...THREE_LINES[1]!, unit: 'PAIR' }]);
      const refused = plan(rows, stored(), { complete: false });
      expect(refused).toMatchObject({ kind: 'rejected', rejection: { code: 'lines_ambiguous' } });
      const message = refused.kind === 'rejected' ? refused.rejection.message : '';
      expect(message).toContain('row 3 (TSHIRT-RED-L, 20 PAIR)');
      expect(message).toContain("lines '2' (TSHIRT-RED-L, 20 PIECES), '3' (product style_s, 5.5 PIECES)");
      expect(message).toContain('set "complete": true in the profile');

      const replaced = plan(rows, stored(), { complete: true });
      expect(patchSteps(replaced)[0]?.lines).toEqual([
        { id: 'ordline_1' },
        { styleId: 'style_l', quantity: 20, unit: 'PAIR' },
      ]);
    });

    it('takes a changed quantity, or an added line, without complete', () => {
      const fewer = unnumbered([{ ...THREE_LINES[1]!, quantity: '25' }]);
      expect(patchSteps(plan(fewer, stored(), { complete: false }))[0]?.lines).toEqual([
        { id: 'ordline_2', quantity: 25 },
        { id: 'ordline_1' },
        { id: 'ordline_3' },
      ]);
      const more = unnumbered([...THREE_LINES, { ...THREE_LINES[0]!, quantity: '1' }]);
      expect(plan(more, stored(), { complete: false })).toMatchObject({
        kind: 'patch',
        lines: { created: 1, deleted: 0 },
      });
    });
  });
});

describe('renumbering lines', () => {
  const withIds = (pairs: Array<[string, string, string]>) =>
    pairs.map(([lineId, number, product]) =>
      lineRow({
        line_id: lineId,
        line_number: number,
        product_external_id: product,
        quantity: product === 'TSHIRT-RED-M' ? '10' : product === 'TSHIRT-RED-L' ? '20' : '5.5',
      }),
    );

  it('splits a swap of two line numbers into two requests through temporary numbers', () => {
    const rows = withIds([
      ['ordline_1', '2', 'TSHIRT-RED-M'],
      ['ordline_2', '1', 'TSHIRT-RED-L'],
      ['ordline_3', '3', 'TSHIRT-RED-S'],
    ]);
    const steps = patchSteps(plan(rows, stored()));
    expect(steps).toEqual([
      {
        lines: [
          { id: 'ordline_1', orderLineNumber: '~tmp~ordline_1' },
          { id: 'ordline_2', orderLineNumber: '~tmp~ordline_2' },
          { id: 'ordline_3' },
        ],
      },
      {
        lines: [
          { id: 'ordline_1', orderLineNumber: '2' },
          { id: 'ordline_2', orderLineNumber: '1' },
          { id: 'ordline_3' },
        ],
      },
    ]);
  });

  // Spec: "Order fields and lines are changed atomically" (per request); "use a temporary number in two requests".
  it('a two-step renumbering carries the request that puts step 1 back, should step 2 be refused', () => {
    const rows = withIds([
      ['ordline_1', '2', 'TSHIRT-RED-M'],
      ['ordline_2', '1', 'TSHIRT-RED-L'],
      ['ordline_3', '3', 'TSHIRT-RED-S'],
    ]);
    const result = plan(rows, stored());
    if (result.kind !== 'patch') throw new Error(`expected a patch, got ${result.kind}`);
    expect(result.undoFirst).toEqual({
      moved: [
        { id: 'ordline_1', orderLineNumber: '1', temporary: '~tmp~ordline_1' },
        { id: 'ordline_2', orderLineNumber: '2', temporary: '~tmp~ordline_2' },
      ],
      body: {
        lines: [
          { id: 'ordline_1', orderLineNumber: '1' },
          { id: 'ordline_2', orderLineNumber: '2' },
          { id: 'ordline_3' },
        ],
      },
    });
    expect(orderPatchSchema.safeParse(result.undoFirst?.body).success).toBe(true);
    const oneStep = plan(withIds([['ordline_1', '9', 'TSHIRT-RED-M']]), stored());
    expect(oneStep).toMatchObject({ kind: 'patch', steps: [expect.anything()] });
    expect(oneStep).not.toHaveProperty('undoFirst');
  });

  it('needs two steps too when a line takes the number another kept line holds now', () => {
    const rows = withIds([
      ['ordline_1', '3', 'TSHIRT-RED-M'],
      ['ordline_2', '2', 'TSHIRT-RED-L'],
      ['ordline_3', '4', 'TSHIRT-RED-S'],
    ]);
    expect(patchSteps(plan(rows, stored()))).toHaveLength(2);
  });

  it('renames in one step when the new number is free (or freed by a deletion)', () => {
    const rows = withIds([
      ['ordline_1', '10', 'TSHIRT-RED-M'],
      ['ordline_2', '2', 'TSHIRT-RED-L'],
      ['ordline_3', '3', 'TSHIRT-RED-S'],
    ]);
    expect(patchSteps(plan(rows, stored()))).toEqual([
      { lines: [{ id: 'ordline_1', orderLineNumber: '10' }, { id: 'ordline_2' }, { id: 'ordline_3' }] },
    ]);
    const freed = withIds([
      ['ordline_1', '3', 'TSHIRT-RED-M'],
      ['ordline_2', '2', 'TSHIRT-RED-L'],
    ]);
    expect(patchSteps(plan(freed, stored(), { complete: true }))).toEqual([
      { lines: [{ id: 'ordline_1', orderLineNumber: '3' }, { id: 'ordline_2' }] },
    ]);
  });

  it('rejects a number an unlisted line keeps in an incomplete export, and a line id not on the order', () => {
    const taken = withIds([['ordline_1', '3', 'TSHIRT-RED-M']]);
    expect(plan(taken, stored())).toMatchObject({
      kind: 'rejected',
      rejection: { code: 'line_number_taken', rows: [2] },
    });
    const foreign = withIds([['ordline_99', '1', 'TSHIRT-RED-M']]);
    expect(plan(foreign, stored())).toMatchObject({
      kind: 'rejected',
      rejection: { code: 'unknown_line_id' },
    });
  });

  it('finishes an interrupted two-step plan in one step', () => {
    const halfway = stored();
    halfway.lines = halfway.lines.map((line) =>
      line.id === 'ordline_3' ? line : { ...line, orderLineNumber: `~tmp~${line.id}` },
    );
    const rows = withIds([
      ['ordline_1', '2', 'TSHIRT-RED-M'],
      ['ordline_2', '1', 'TSHIRT-RED-L'],
      ['ordline_3', '3', 'TSHIRT-RED-S'],
    ]);
    expect(patchSteps(plan(rows, halfway))).toHaveLength(1);
  });
});
