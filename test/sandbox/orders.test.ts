import { startSandbox, type RunningSandbox } from '../../sandbox/server';

interface Envelope<T> {
  metadata: { success: boolean; pagination?: { page: number; limit: number; total: number; totalPages: number } };
  data: T;
  statusCode?: number;
  code?: string;
  message?: string;
}
interface Line {
  id: string;
  orderId: string;
  lineNo: number;
  orderLineNumber: string;
  styleId: string;
  quantity: number;
  unit: string;
  secondaryQuantity: number | null;
  secondaryUnit: string | null;
  updatedAt: string;
  order?: Record<string, unknown>;
  [key: string]: unknown;
}
interface Order {
  id: string;
  orderNumber: string;
  orderType: string;
  updatedAt: string;
  lines: Line[];
  lineCount: number;
  tags: string[];
  [key: string]: unknown;
}

const BRAND = 'cmp_brand_nordic_threads';
const SUPPLIER = 'cmp_sup_anatolia_garments';
const OTHER_SUPPLIER = 'cmp_sup_gujarat_mills';
const OTHER_BRAND = 'cmp_brand_other_label';
const TEE = 'PLM-TEE-001';
const TEE_ID = 'style_01J9ZDEM000000000000000001';

let sandbox: RunningSandbox;
let sequence = 0;
const nextNumber = (prefix = 'PO'): string => `${prefix}-${Date.now()}-${++sequence}`;

async function api<T = Order>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { companyapikey: 'sandbox-key-brand' },
): Promise<{ status: number; body: Envelope<T>; headers: Headers }> {
  const response = await fetch(sandbox.baseUrl + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Envelope<T>, headers: response.headers };
}

const purchase = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  orderNumber: nextNumber(),
  buyerCompanyId: BRAND,
  supplierCompanyId: SUPPLIER,
  ...extra,
});
const line = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ styleId: TEE, quantity: 10, unit: 'PIECES', ...extra });

async function created(body: Record<string, unknown>): Promise<Order> {
  const response = await api('POST', '/orders', body);
  expect(response.status).toBe(201);
  return response.body.data;
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, childLinkDelayMs: 0 });
});
afterAll(async () => {
  await sandbox.close();
});

describe('orders: creation rules', () => {
  it('rule: orderType is PURCHASE_ORDER for the buyer, SALES_ORDER for the supplier, INTERNAL_ORDER for both', async () => {
    expect((await created(purchase())).orderType).toBe('PURCHASE_ORDER');
    expect((await created({ orderNumber: nextNumber(), buyerCompanyId: OTHER_SUPPLIER, supplierCompanyId: BRAND })).orderType).toBe('SALES_ORDER');
    expect((await created({ orderNumber: nextNumber(), buyerCompanyId: BRAND, supplierCompanyId: BRAND })).orderType).toBe('INTERNAL_ORDER');
  });

  it('rule: a second POST /orders with the same number and type is 400 order_number_already_existing', async () => {
    const body = purchase();
    await created(body);
    const second = await api('POST', '/orders', body);
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({ metadata: { success: false }, statusCode: 400, code: 'order_number_already_existing' });
  });

  it('rule: the same orderNumber is allowed again under another order type', async () => {
    const orderNumber = nextNumber();
    await created({ orderNumber, buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER });
    const sales = await created({ orderNumber, buyerCompanyId: OTHER_SUPPLIER, supplierCompanyId: BRAND });
    expect(sales.orderType).toBe('SALES_ORDER');
  });

  it('rule: orderNumber is matched exactly, without trimming or case folding', async () => {
    const orderNumber = nextNumber('po');
    await created({ orderNumber, buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER });
    expect((await created({ orderNumber: orderNumber.toUpperCase(), buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER })).orderNumber).toBe(orderNumber.toUpperCase());
    expect((await created({ orderNumber: ` ${orderNumber}`, buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER })).orderNumber).toBe(` ${orderNumber}`);
  });

  it('rule: a caller that is neither buyer nor supplier gets 400 order_owner_not_party', async () => {
    const response = await api('POST', '/orders', { orderNumber: nextNumber(), buyerCompanyId: SUPPLIER, supplierCompanyId: OTHER_SUPPLIER });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('order_owner_not_party');
  });

  it('rule: receiverCompanyId and receiverFacilityProcess must be sent together (400)', async () => {
    expect((await api('POST', '/orders', purchase({ receiverCompanyId: SUPPLIER }))).status).toBe(400);
    expect((await api('POST', '/orders', purchase({ receiverFacilityProcess: 'WAREHOUSE' }))).status).toBe(400);
    const both = await created(purchase({ receiverCompanyId: SUPPLIER, receiverFacilityProcess: 'WAREHOUSE' }));
    expect(both).toMatchObject({ receiverCompanyId: SUPPLIER, receiverFacilityProcess: 'WAREHOUSE' });
  });

  it('rule: the receiver defaults to the buyer and the receiver process to the buyer process', async () => {
    const order = await created(purchase({ buyerFacilityProcess: 'DISTRIBUTION_CENTRE', supplierFacilityProcess: 'CUT_MAKE_TRIM' }));
    expect(order).toMatchObject({ receiverCompanyId: BRAND, receiverFacilityProcess: 'DISTRIBUTION_CENTRE' });
  });

  it('rule: an unknown facility process id is 400 invalid_facility_process_ids naming the id', async () => {
    const response = await api('POST', '/orders', purchase({ supplierFacilityProcess: 'Cut make trim' }));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_facility_process_ids');
    expect(response.body.message).toContain('Cut make trim');
  });

  it('rule: an unknown or unreachable party company is 404 invalid_company_id', async () => {
    const unknown = await api('POST', '/orders', purchase({ supplierCompanyId: 'cmp_does_not_exist' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('invalid_company_id');
    const unreachable = await api('POST', '/orders', purchase({ vendorCompanyId: OTHER_BRAND }));
    expect(unreachable.status).toBe(404);
    expect(unreachable.body.code).toBe('invalid_company_id');
  });

  it('rule: a company id longer than 36 characters is a 400', async () => {
    expect((await api('POST', '/orders', purchase({ factory: 'x'.repeat(37) }))).status).toBe(400);
  });

  it('rule: dates are YYYY-MM-DD only; a date-time or an impossible date is 400', async () => {
    const order = await created(purchase({ orderDate: '2025-03-01', deliveryDate: null }));
    expect(order).toMatchObject({ orderDate: '2025-03-01', deliveryDate: null });
    const dateTime = await api('POST', '/orders', purchase({ orderDate: '2025-03-01T00:00:00Z' }));
    expect(dateTime.status).toBe(400);
    expect(dateTime.body.message).toContain('orderDate');
    expect((await api('POST', '/orders', purchase({ shippingDate: '2025-02-30' }))).status).toBe(400);
  });

  it('rule: unknown body fields are rejected with 400 naming the field', async () => {
    const response = await api('POST', '/orders', purchase({ colour: 'red' }));
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('colour');
    const inLine = await api('POST', '/orders', purchase({ lines: [line({ size: 'M' })] }));
    expect(inLine.status).toBe(400);
    expect(inLine.body.message).toContain('size');
  });

  it('rule: missing orderNumber, buyerCompanyId or supplierCompanyId is 400', async () => {
    expect((await api('POST', '/orders', { buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER })).status).toBe(400);
    expect((await api('POST', '/orders', { orderNumber: nextNumber(), supplierCompanyId: SUPPLIER })).status).toBe(400);
    expect((await api('POST', '/orders', { orderNumber: '', buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER })).status).toBe(400);
  });

  it('rule: orderType, tracingStatus and isArchived sent on create are ignored', async () => {
    const order = await created(purchase({ orderType: 'SALES_ORDER', tracingStatus: 'DONE', isArchived: true }));
    expect(order).toMatchObject({ orderType: 'PURCHASE_ORDER', tracingStatus: null, isArchived: false });
  });

  it('rule: tags are trimmed, empties dropped, and a tag holding a comma comes back as two', async () => {
    const order = await created(purchase({ tags: ['  summer ', '', 'eu, express'] }));
    expect(order.tags).toEqual(['summer', 'eu', 'express']);
    expect((await created(purchase())).tags).toEqual([]);
    expect((await api('POST', '/orders', purchase({ tags: null }))).status).toBe(400);
  });

  it('rule: fields never sent come back null', async () => {
    const order = await created(purchase());
    expect(order).toMatchObject({ status: null, orderSubType: null, shipmentReference: null, vendorCompanyId: null, handoverDate: null, internalResponsiblePerson: null });
    expect(order.internalResponsiblePersons).toEqual([]);
  });
});

describe('orders: lines on create', () => {
  it('rule: quantities are stored with 2 decimals, rounded half-up', async () => {
    const order = await created(purchase({ lines: [line({ quantity: 1.005 }), line({ quantity: 2.344 }), line({ quantity: 7.125 })] }));
    expect(order.lines.map((entry) => entry.quantity)).toEqual([1.01, 2.34, 7.13]);
  });

  it('rule: quantity must be positive and below 1e17 (400 otherwise)', async () => {
    for (const quantity of [0, -1, 1e17, 0.001]) {
      const response = await api('POST', '/orders', purchase({ lines: [line({ quantity })] }));
      expect(response.status).toBe(400);
    }
  });

  it('rule: units come from the unit enumeration; other values are 400', async () => {
    expect((await created(purchase({ lines: [line({ unit: 'SQUARE_METRE' })] }))).lines[0]?.unit).toBe('SQUARE_METRE');
    expect((await api('POST', '/orders', purchase({ lines: [line({ unit: 'pcs' })] }))).status).toBe(400);
  });

  it('rule: a secondaryQuantity sets secondaryUnit KILOGRAM; a secondaryUnit alone has no effect', async () => {
    const order = await created(purchase({ lines: [line({ secondaryQuantity: 12.345 }), line({ secondaryUnit: 'GRAM' })] }));
    expect(order.lines[0]).toMatchObject({ secondaryQuantity: 12.35, secondaryUnit: 'KILOGRAM' });
    expect(order.lines[1]).toMatchObject({ secondaryQuantity: null, secondaryUnit: null });
  });

  it('rule: lines are numbered 1, 2, 3 and get orderLineNumber {orderNumber}-{orderType}-L{lineNo} when omitted', async () => {
    const body = purchase({ lines: [line(), line({ orderLineNumber: 'CUSTOM-7' }), line()] });
    const order = await created(body);
    expect(order.lines.map((entry) => entry.lineNo)).toEqual([1, 2, 3]);
    expect(order.lines.map((entry) => entry.orderLineNumber)).toEqual([
      `${String(body['orderNumber'])}-PURCHASE_ORDER-L1`,
      'CUSTOM-7',
      `${String(body['orderNumber'])}-PURCHASE_ORDER-L3`,
    ]);
    expect(order.lineCount).toBe(3);
  });

  it('rule: line styleId accepts the externalId and answers the platform id', async () => {
    const order = await created(purchase({ lines: [line({ styleId: TEE })] }));
    expect(order.lines[0]?.styleId).toBe(TEE_ID);
  });

  it('rule: a line styleId that is unknown, archived or another company\'s is 404 style_not_found', async () => {
    for (const styleId of ['NO-SUCH-STYLE', 'PLM-FLC-002', 'style_01J9ZDEM000000000000000050']) {
      const response = await api('POST', '/orders', purchase({ lines: [line({ styleId })] }));
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('style_not_found');
    }
  });

  it('rule: a duplicate orderLineNumber in the request is 409 order_not_unique', async () => {
    const response = await api('POST', '/orders', purchase({ lines: [line({ orderLineNumber: 'A' }), line({ orderLineNumber: 'A' })] }));
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('order_not_unique');
  });

  it('rule: a failing line rolls the whole create back (no order is left behind)', async () => {
    const body = purchase({ lines: [line(), line({ styleId: 'NO-SUCH-STYLE' })] });
    expect((await api('POST', '/orders', body)).status).toBe(404);
    const list = await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(String(body['orderNumber']))}`);
    expect(list.body.data).toEqual([]);
  });
});

describe('orders: responsible persons', () => {
  it('rule: e-mails resolve case-insensitively to user ids, duplicates removed, empty strings skipped', async () => {
    const order = await created(
      purchase({ internalResponsiblePersons: ['OLA.quality@nordicthreads.example', 'user_brand_qa', '', 'ines.buyer@NORDICTHREADS.example'] }),
    );
    expect(order.internalResponsiblePersons).toEqual(['user_brand_qa', 'user_brand_buyer']);
    expect(order.internalResponsiblePerson).toBe('user_brand_qa');
  });

  it('rule: an unknown person, or a user of another company, is 404 responsible_person_not_found', async () => {
    for (const person of ['nobody@nordicthreads.example', 'deniz.sales@anatolia.example']) {
      const response = await api('POST', '/orders', purchase({ internalResponsiblePersons: [person] }));
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('responsible_person_not_found');
    }
  });

  it('rule: the deprecated single form maps to a one-element array; both forms is 400; an empty string is 400', async () => {
    const order = await created(purchase({ internalResponsiblePerson: 'ines.buyer@nordicthreads.example' }));
    expect(order.internalResponsiblePersons).toEqual(['user_brand_buyer']);
    expect(
      (await api('POST', '/orders', purchase({ internalResponsiblePerson: 'user_brand_qa', internalResponsiblePersons: ['user_brand_qa'] }))).status,
    ).toBe(400);
    expect((await api('POST', '/orders', purchase({ internalResponsiblePerson: '' }))).status).toBe(400);
  });
});

describe('orders: expectedDeliveryDate alias', () => {
  it('rule: expectedDeliveryDate is written to handoverDate and mirrored in responses', async () => {
    const order = await created(purchase({ expectedDeliveryDate: '2025-06-01' }));
    expect(order).toMatchObject({ handoverDate: '2025-06-01', expectedDeliveryDate: '2025-06-01' });
  });

  it('rule: when both are sent handoverDate wins without an error', async () => {
    const order = await created(purchase({ expectedDeliveryDate: '2025-06-01', handoverDate: '2025-07-01' }));
    expect(order).toMatchObject({ handoverDate: '2025-07-01', expectedDeliveryDate: '2025-07-01' });
  });
});

describe('orders: PATCH', () => {
  it('rule: omitted fields are unchanged and null clears a nullable field', async () => {
    const order = await created(purchase({ orderDate: '2025-01-01', shipmentReference: 'SHIP-1', status: 'IN_PROGRESS' }));
    const patched = await api('PATCH', `/orders/${order.id}`, { orderDate: null, status: 'COMPLETED' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ orderDate: null, shipmentReference: 'SHIP-1', status: 'COMPLETED' });
  });

  it('rule: an empty PATCH is accepted and bumps updatedAt', async () => {
    const order = await created(purchase());
    await tick();
    const patched = await api('PATCH', `/orders/${order.id}`, {});
    expect(patched.status).toBe(200);
    expect(Date.parse(patched.body.data.updatedAt)).toBeGreaterThan(Date.parse(order.updatedAt));
  });

  it('rule: orderType is re-derived from the parties on update', async () => {
    const order = await created(purchase());
    const patched = await api('PATCH', `/orders/${order.id}`, { supplierCompanyId: BRAND });
    expect(patched.body.data.orderType).toBe('INTERNAL_ORDER');
  });

  it('rule: a number or type change that collides is 400 order_number_already_existing', async () => {
    const first = await created(purchase());
    const second = await created(purchase());
    const byNumber = await api('PATCH', `/orders/${second.id}`, { orderNumber: first.orderNumber });
    expect(byNumber.status).toBe(400);
    expect(byNumber.body.code).toBe('order_number_already_existing');
    const internal = await created({ orderNumber: first.orderNumber, buyerCompanyId: BRAND, supplierCompanyId: BRAND });
    const byType = await api('PATCH', `/orders/${internal.id}`, { supplierCompanyId: SUPPLIER });
    expect(byType.status).toBe(400);
    expect(byType.body.code).toBe('order_number_already_existing');
  });

  it('rule: on update the receiver pair is both or neither; both null removes the receiver', async () => {
    const order = await created(purchase());
    expect((await api('PATCH', `/orders/${order.id}`, { receiverCompanyId: SUPPLIER })).status).toBe(400);
    const removed = await api('PATCH', `/orders/${order.id}`, { receiverCompanyId: null, receiverFacilityProcess: null });
    expect(removed.body.data).toMatchObject({ receiverCompanyId: null, receiverFacilityProcess: null });
  });

  it('rule: isArchived toggles the archive flag and the order stays readable', async () => {
    const order = await created(purchase());
    expect((await api('PATCH', `/orders/${order.id}`, { isArchived: true })).body.data.isArchived).toBe(true);
    expect((await api('GET', `/orders/${order.id}`)).body.data.isArchived).toBe(true);
    expect((await api('PATCH', `/orders/${order.id}`, { isArchived: false })).body.data.isArchived).toBe(false);
  });

  it('rule: a foreign order is 404 on read, update and delete', async () => {
    const order = await created(purchase());
    const supplier = { companyapikey: 'sandbox-key-supplier' };
    expect((await api('GET', `/orders/${order.id}`, undefined, supplier)).status).toBe(404);
    expect((await api('PATCH', `/orders/${order.id}`, {}, supplier)).status).toBe(404);
    expect((await api('DELETE', `/orders/${order.id}`, undefined, supplier)).status).toBe(404);
  });
});

describe('orders: line reconciliation on PATCH', () => {
  async function threeLines(): Promise<Order> {
    return created(purchase({ lines: [line(), line(), line()] }));
  }

  it('rule: lines left out of the array are deleted and the lines key absent leaves lines untouched', async () => {
    const order = await threeLines();
    const [first, , third] = order.lines;
    expect((await api('PATCH', `/orders/${order.id}`, { status: 'IN_REVIEW' })).body.data.lines).toHaveLength(3);
    const patched = await api('PATCH', `/orders/${order.id}`, { lines: [{ id: first?.id }, { id: third?.id }] });
    expect(patched.body.data.lines.map((entry) => entry.id)).toEqual([first?.id, third?.id]);
    expect(patched.body.data.lineCount).toBe(2);
  });

  it('rule: a bare id keeps the line as is, audit fields included', async () => {
    const order = await threeLines();
    await tick();
    const patched = await api('PATCH', `/orders/${order.id}`, { lines: order.lines.map((entry) => ({ id: entry.id })) });
    expect(patched.body.data.lines).toEqual(order.lines);
  });

  it('rule: an entry with id changes only the fields it includes', async () => {
    const order = await threeLines();
    const target = order.lines[1] as Line;
    await tick();
    const patched = await api('PATCH', `/orders/${order.id}`, {
      lines: [{ id: order.lines[0]?.id }, { id: target.id, quantity: 3.333 }, { id: order.lines[2]?.id }],
    });
    const updated = patched.body.data.lines[1] as Line;
    expect(updated).toMatchObject({ id: target.id, quantity: 3.33, unit: 'PIECES', orderLineNumber: target.orderLineNumber });
    expect(updated.updatedAt).not.toBe(target.updatedAt);
  });

  it('rule: new lines are numbered after the highest kept lineNo, so a freed number is reused', async () => {
    const order = await threeLines();
    const [first, second] = order.lines;
    const patched = await api('PATCH', `/orders/${order.id}`, { lines: [{ id: first?.id }, { id: second?.id }, line()] });
    const added = patched.body.data.lines[2] as Line;
    expect(added.lineNo).toBe(3);
    expect(added.orderLineNumber).toBe(`${order.orderNumber}-PURCHASE_ORDER-L3`);
    expect(added.id).not.toBe(order.lines[2]?.id);
  });

  it('rule: deletes run before inserts, so a new line may take the orderLineNumber of a removed one', async () => {
    const order = await created(purchase({ lines: [line({ orderLineNumber: 'KEEP' }), line({ orderLineNumber: 'FREE' })] }));
    const patched = await api('PATCH', `/orders/${order.id}`, { lines: [{ id: order.lines[0]?.id }, line({ orderLineNumber: 'FREE' })] });
    expect(patched.status).toBe(200);
    expect(patched.body.data.lines.map((entry) => entry.orderLineNumber)).toEqual(['KEEP', 'FREE']);
  });

  it('rule: swapping orderLineNumber between two lines in one request is 409', async () => {
    const order = await created(purchase({ lines: [line({ orderLineNumber: 'A' }), line({ orderLineNumber: 'B' })] }));
    const [a, b] = order.lines;
    const response = await api('PATCH', `/orders/${order.id}`, {
      lines: [{ id: a?.id, orderLineNumber: 'B' }, { id: b?.id, orderLineNumber: 'A' }],
    });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('order_not_unique');
  });

  it('rule: a new line duplicating an existing orderLineNumber is 409 order_not_unique', async () => {
    const order = await created(purchase({ lines: [line({ orderLineNumber: 'A' })] }));
    const response = await api('PATCH', `/orders/${order.id}`, { lines: [{ id: order.lines[0]?.id }, line({ orderLineNumber: 'A' })] });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('order_not_unique');
  });

  it('rule: a line id that is not on the order is 404 order_line_not_found', async () => {
    const order = await threeLines();
    const other = await threeLines();
    const response = await api('PATCH', `/orders/${order.id}`, { lines: [{ id: other.lines[0]?.id }] });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('order_line_not_found');
  });

  it('rule: order fields and lines change atomically (a failing line leaves the order untouched)', async () => {
    const order = await threeLines();
    const response = await api('PATCH', `/orders/${order.id}`, { status: 'COMPLETED', lines: [{ id: order.lines[0]?.id }, line({ styleId: 'PLM-FLC-002' })] });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('style_not_found');
    const after = await api('GET', `/orders/${order.id}`);
    expect(after.body.data).toEqual(order);
  });

  it('rule: null secondaryQuantity on update clears secondaryUnit too', async () => {
    const order = await created(purchase({ lines: [line({ secondaryQuantity: 4 })] }));
    const patched = await api('PATCH', `/orders/${order.id}`, { lines: [{ id: order.lines[0]?.id, secondaryQuantity: null }] });
    expect(patched.body.data.lines[0]).toMatchObject({ secondaryQuantity: null, secondaryUnit: null });
  });

  it('rule: changing orderNumber does not renumber existing auto-generated line numbers', async () => {
    const order = await threeLines();
    const patched = await api('PATCH', `/orders/${order.id}`, { orderNumber: nextNumber() });
    expect(patched.body.data.lines.map((entry) => entry.orderLineNumber)).toEqual(order.lines.map((entry) => entry.orderLineNumber));
  });
});

describe('orders: tracing coupling (sandbox model)', () => {
  it('rule: once the counterparty linked the order, structural fields give 409 order_structural_fields_locked_by_tracing', async () => {
    const order = await created(purchase({ lines: [line()] }));
    const control = await fetch(`${sandbox.url}/__sandbox/orders/${order.id}/tracing`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ linesSentToTracing: true, structuralFieldsLocked: true }),
    });
    expect(control.status).toBe(200);
    const locked = await api('PATCH', `/orders/${order.id}`, { supplierCompanyId: OTHER_SUPPLIER });
    expect(locked.status).toBe(409);
    expect(locked.body.code).toBe('order_structural_fields_locked_by_tracing');
    expect((await api('PATCH', `/orders/${order.id}`, { status: 'IN_REVIEW' })).status).toBe(200);
    const read = await api('GET', `/orders/${order.id}`);
    expect(read.body.data.lines[0]?.tracingReflectionOrderId).toEqual(expect.stringMatching(/^trcord_/));
  });

  it('rule: renaming a traced line onto another tracing reference of the caller is 400 order_number_already_existing', async () => {
    const first = await created(purchase({ lines: [line({ orderLineNumber: nextNumber('TRC') })] }));
    const second = await created(purchase({ lines: [line({ orderLineNumber: nextNumber('TRC') })] }));
    for (const order of [first, second]) {
      await fetch(`${sandbox.url}/__sandbox/orders/${order.id}/tracing`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ linesSentToTracing: true }),
      });
    }
    const response = await api('PATCH', `/orders/${second.id}`, {
      lines: [{ id: second.lines[0]?.id, orderLineNumber: first.lines[0]?.orderLineNumber }],
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('order_number_already_existing');
  });
});

describe('orders: delete', () => {
  it('rule: DELETE is a hard delete (204, then 404) that frees the number for reuse', async () => {
    const body = purchase({ lines: [line()] });
    const order = await created(body);
    const deleted = await api('DELETE', `/orders/${order.id}`);
    expect(deleted.status).toBe(204);
    expect((await api('GET', `/orders/${order.id}`)).status).toBe(404);
    expect((await api('DELETE', `/orders/${order.id}`)).status).toBe(404);
    expect((await api('GET', `/order-lines/${order.lines[0]?.id}`)).status).toBe(404);
    await created(body);
  });

  it('rule: an archived order still blocks reuse of its number', async () => {
    const body = purchase();
    const order = await created(body);
    await api('PATCH', `/orders/${order.id}`, { isArchived: true });
    expect((await api('POST', '/orders', body)).body.code).toBe('order_number_already_existing');
  });
});

describe('orders: GET /orders', () => {
  it('rule: orderNumber filters exactly (case- and whitespace-sensitive)', async () => {
    const order = await created(purchase());
    const exact = await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(order.orderNumber)}`);
    expect(exact.body.data.map((entry) => entry.id)).toEqual([order.id]);
    expect((await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(order.orderNumber.toLowerCase())}`)).body.data).toEqual([]);
    expect((await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(order.orderNumber + ' ')}`)).body.data).toEqual([]);
  });

  it('rule: tag matches one whole tag, case-insensitively, never a substring', async () => {
    const tag = `Batch${Date.now()}`;
    const order = await created(purchase({ tags: [tag, 'other'] }));
    expect((await api<Order[]>('GET', `/orders?tag=${tag.toUpperCase()}`)).body.data.map((entry) => entry.id)).toEqual([order.id]);
    expect((await api<Order[]>('GET', `/orders?tag=${tag.slice(0, -2)}`)).body.data).toEqual([]);
  });

  it('rule: lists carry lineCount but always an empty lines array', async () => {
    const order = await created(purchase({ lines: [line(), line()] }));
    const list = await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(order.orderNumber)}`);
    expect(list.body.data[0]).toMatchObject({ lineCount: 2, lines: [] });
  });

  it('rule: updatedAfterUnixMs and updatedBeforeUnixMs are inclusive millisecond bounds', async () => {
    const order = await created(purchase());
    const at = Date.parse(order.updatedAt);
    const both = await api<Order[]>('GET', `/orders?updatedAfterUnixMs=${at}&updatedBeforeUnixMs=${at}&limit=100`);
    expect(both.body.data.map((entry) => entry.id)).toContain(order.id);
    const after = await api<Order[]>('GET', `/orders?updatedAfterUnixMs=${at + 1}&limit=100`);
    expect(after.body.data.map((entry) => entry.id)).not.toContain(order.id);
  });

  it('rule: type, supplier, buyer, status and isArchived filter; unmatched values give an empty 200 page', async () => {
    const status = await created(purchase({ status: 'IN_REVIEW', buyerCompanyId: BRAND, supplierCompanyId: 'cmp_sup_prato_wool' }));
    const bySupplier = await api<Order[]>('GET', '/orders?supplier=cmp_sup_prato_wool&type=PURCHASE_ORDER&status=IN_REVIEW&isArchived=false');
    expect(bySupplier.body.data.map((entry) => entry.id)).toEqual([status.id]);
    expect((await api<Order[]>('GET', `/orders?buyer=${SUPPLIER}`)).body.data.every((entry) => entry['buyerCompanyId'] === SUPPLIER)).toBe(true);
    const none = await api<Order[]>('GET', '/orders?type=NOT_A_TYPE');
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  it('rule: isArchived accepts only true or false', async () => {
    expect((await api('GET', '/orders?isArchived=yes')).status).toBe(400);
  });

  it('rule: unknown query parameters are ignored', async () => {
    const all = await api<Order[]>('GET', '/orders?limit=5');
    const typo = await api<Order[]>('GET', '/orders?limit=5&ordrNumber=nothing');
    expect(typo.status).toBe(200);
    expect(typo.body.data).toEqual(all.body.data);
  });

  it('rule: sort and order accept ASC/DESC', async () => {
    const asc = await api<Order[]>('GET', '/orders?sort=orderNumber&order=ASC&limit=100');
    const numbers = asc.body.data.map((entry) => entry.orderNumber);
    expect(numbers).toEqual([...numbers].sort());
    expect((await api('GET', '/orders?sort=colour')).status).toBe(400);
  });

  it('rule: limit is 1-100', async () => {
    expect((await api('GET', '/orders?limit=101')).status).toBe(400);
    expect((await api('GET', '/orders?limit=0')).status).toBe(400);
  });

  it('rule: another company never sees the caller\'s orders', async () => {
    const order = await created(purchase());
    const list = await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(order.orderNumber)}`, undefined, { companyapikey: 'sandbox-key-supplier' });
    expect(list.body.data).toEqual([]);
  });
});

describe('orders: /order-lines (read-only)', () => {
  it('rule: GET /order-lines?orderId lists the order\'s lines by lineNo with orderId and the order summary', async () => {
    const order = await created(purchase({ tags: ['x'], lines: [line(), line()] }));
    const list = await api<Line[]>('GET', `/order-lines?orderId=${order.id}`);
    expect(list.body.data.map((entry) => entry.lineNo)).toEqual([1, 2]);
    expect(list.body.data[0]).toMatchObject({ orderId: order.id, order: { id: order.id, orderNumber: order.orderNumber, orderType: 'PURCHASE_ORDER', tags: ['x'] } });
  });

  it('rule: an unknown or foreign orderId gives 200 with an empty array', async () => {
    const order = await created(purchase({ lines: [line()] }));
    expect((await api<Line[]>('GET', '/order-lines?orderId=order_unknown')).body.data).toEqual([]);
    const foreign = await api<Line[]>('GET', `/order-lines?orderId=${order.id}`, undefined, { companyapikey: 'sandbox-key-supplier' });
    expect(foreign.status).toBe(200);
    expect(foreign.body.data).toEqual([]);
  });

  it('rule: GET /order-lines/{id} returns one line with its order summary; unknown is 404', async () => {
    const order = await created(purchase({ lines: [line()] }));
    const one = await api<Line>('GET', `/order-lines/${order.lines[0]?.id}`);
    expect(one.body.data).toMatchObject({ id: order.lines[0]?.id, order: { id: order.id } });
    expect((await api('GET', '/order-lines/ordline_missing')).status).toBe(404);
  });

  it('rule: order lines cannot be written directly', async () => {
    expect((await api('POST', '/order-lines', line())).status).toBe(404);
  });
});

describe('orders: audit, auth and retries', () => {
  it('rule: key-made writes fill the ApiKey audit pair and leave the User pair null', async () => {
    const order = await created(purchase());
    expect(order).toMatchObject({
      createdByApiKeyId: 'apikey_brand',
      createdByApiKeyLabel: 'Nordic Threads integration',
      createdByUserId: null,
      createdByUserName: null,
      createdByCompanyId: BRAND,
      updatedByApiKeyId: 'apikey_brand',
    });
  });

  it('rule: order endpoints accept a platform bearer token, whose writes fill the User pair', async () => {
    const response = await api('POST', '/orders', purchase(), { authorization: 'Bearer sandbox-bearer-brand' });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ createdByUserId: 'user_brand_buyer', createdByApiKeyId: null });
  });

  it('rule: a credential bound to no company gets 403 insufficient_rights', async () => {
    const response = await api('GET', '/orders', undefined, { companyapikey: 'sandbox-key-unbound' });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('insufficient_rights');
  });

  it('rule: order creation is not rate limited while other calls are', async () => {
    await fetch(`${sandbox.url}/__sandbox/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rateLimitPerMinute: 1 }) });
    try {
      await api('GET', '/orders?limit=1', undefined, { companyapikey: 'sandbox-key-other-brand' });
      expect((await api('GET', '/orders?limit=1', undefined, { companyapikey: 'sandbox-key-other-brand' })).status).toBe(429);
      const body = { orderNumber: nextNumber(), buyerCompanyId: OTHER_BRAND, supplierCompanyId: OTHER_BRAND };
      const create = await api('POST', '/orders', body, { companyapikey: 'sandbox-key-other-brand' });
      expect(create.status).toBe(201);
    } finally {
      await fetch(`${sandbox.url}/__sandbox/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rateLimitPerMinute: 600 }) });
    }
  });

  it('rule: a create dropped after commit leaves exactly one order, found by its number', async () => {
    const body = purchase({ lines: [line()] });
    await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dropAfterCommitRate: 1, methods: ['POST'], pathPrefix: '/orders' }),
    });
    try {
      await expect(api('POST', '/orders', body)).rejects.toThrow();
    } finally {
      await fetch(`${sandbox.url}/__sandbox/faults`, { method: 'DELETE' });
    }
    const found = await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(String(body['orderNumber']))}`);
    expect(found.body.data).toHaveLength(1);
    expect((await api('POST', '/orders', body)).body.code).toBe('order_number_already_existing');
  });
});
