import {
  api,
  BRAND,
  created,
  line,
  type Line,
  nextNumber,
  type Order,
  OTHER_SUPPLIER,
  purchase,
  SUPPLIER,
  tick,
  useOrdersSandbox,
} from './orders-support';

const sandbox = useOrdersSandbox();

describe('orders: PATCH', () => {
  it('rule: omitted fields are unchanged and null clears a nullable field', async () => {
    const order = await created(
      purchase({ orderDate: '2025-01-01', shipmentReference: 'SHIP-1', status: 'IN_PROGRESS' }),
    );
    const patched = await api('PATCH', `/orders/${order.id}`, { orderDate: null, status: 'COMPLETED' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      orderDate: null,
      shipmentReference: 'SHIP-1',
      status: 'COMPLETED',
    });
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
    const internal = await created({
      orderNumber: first.orderNumber,
      buyerCompanyId: BRAND,
      supplierCompanyId: BRAND,
    });
    const byType = await api('PATCH', `/orders/${internal.id}`, { supplierCompanyId: SUPPLIER });
    expect(byType.status).toBe(400);
    expect(byType.body.code).toBe('order_number_already_existing');
  });

  it('rule: on update the receiver pair is both or neither; both null removes the receiver', async () => {
    const order = await created(purchase());
    expect((await api('PATCH', `/orders/${order.id}`, { receiverCompanyId: SUPPLIER })).status).toBe(400);
    const removed = await api('PATCH', `/orders/${order.id}`, {
      receiverCompanyId: null,
      receiverFacilityProcess: null,
    });
    expect(removed.body.data).toMatchObject({ receiverCompanyId: null, receiverFacilityProcess: null });
  });

  it('rule: isArchived toggles the archive flag and the order stays readable', async () => {
    const order = await created(purchase());
    expect((await api('PATCH', `/orders/${order.id}`, { isArchived: true })).body.data.isArchived).toBe(true);
    expect((await api('GET', `/orders/${order.id}`)).body.data.isArchived).toBe(true);
    expect((await api('PATCH', `/orders/${order.id}`, { isArchived: false })).body.data.isArchived).toBe(
      false,
    );
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
    expect((await api('PATCH', `/orders/${order.id}`, { status: 'IN_REVIEW' })).body.data.lines).toHaveLength(
      3,
    );
    const patched = await api('PATCH', `/orders/${order.id}`, {
      lines: [{ id: first?.id }, { id: third?.id }],
    });
    expect(patched.body.data.lines.map((entry) => entry.id)).toEqual([first?.id, third?.id]);
    expect(patched.body.data.lineCount).toBe(2);
  });

  it('rule: a bare id keeps the line as is, audit fields included', async () => {
    const order = await threeLines();
    await tick();
    const patched = await api('PATCH', `/orders/${order.id}`, {
      lines: order.lines.map((entry) => ({ id: entry.id })),
    });
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
    expect(updated).toMatchObject({
      id: target.id,
      quantity: 3.33,
      unit: 'PIECES',
      orderLineNumber: target.orderLineNumber,
    });
    expect(updated.updatedAt).not.toBe(target.updatedAt);
  });

  it('rule: new lines are numbered after the highest kept lineNo, so a freed number is reused', async () => {
    const order = await threeLines();
    const [first, second] = order.lines;
    const patched = await api('PATCH', `/orders/${order.id}`, {
      lines: [{ id: first?.id }, { id: second?.id }, line()],
    });
    const added = patched.body.data.lines[2] as Line;
    expect(added.lineNo).toBe(3);
    expect(added.orderLineNumber).toBe(`${order.orderNumber}-PURCHASE_ORDER-L3`);
    expect(added.id).not.toBe(order.lines[2]?.id);
  });

  it('rule: deletes run before inserts, so a new line may take the orderLineNumber of a removed one', async () => {
    const order = await created(
      purchase({ lines: [line({ orderLineNumber: 'KEEP' }), line({ orderLineNumber: 'FREE' })] }),
    );
    const patched = await api('PATCH', `/orders/${order.id}`, {
      lines: [{ id: order.lines[0]?.id }, line({ orderLineNumber: 'FREE' })],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.lines.map((entry) => entry.orderLineNumber)).toEqual(['KEEP', 'FREE']);
  });

  it('rule: swapping orderLineNumber between two lines in one request is 409', async () => {
    const order = await created(
      purchase({ lines: [line({ orderLineNumber: 'A' }), line({ orderLineNumber: 'B' })] }),
    );
    const [a, b] = order.lines;
    const response = await api('PATCH', `/orders/${order.id}`, {
      lines: [
        { id: a?.id, orderLineNumber: 'B' },
        { id: b?.id, orderLineNumber: 'A' },
      ],
    });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('order_not_unique');
  });

  it('rule: a new line duplicating an existing orderLineNumber is 409 order_not_unique', async () => {
    const order = await created(purchase({ lines: [line({ orderLineNumber: 'A' })] }));
    const response = await api('PATCH', `/orders/${order.id}`, {
      lines: [{ id: order.lines[0]?.id }, line({ orderLineNumber: 'A' })],
    });
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
    const response = await api('PATCH', `/orders/${order.id}`, {
      status: 'COMPLETED',
      lines: [{ id: order.lines[0]?.id }, line({ styleId: 'PLM-FLC-002' })],
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('style_not_found');
    const after = await api('GET', `/orders/${order.id}`);
    expect(after.body.data).toEqual(order);
  });

  it('rule: null secondaryQuantity on update clears secondaryUnit too', async () => {
    const order = await created(purchase({ lines: [line({ secondaryQuantity: 4 })] }));
    const patched = await api('PATCH', `/orders/${order.id}`, {
      lines: [{ id: order.lines[0]?.id, secondaryQuantity: null }],
    });
    expect(patched.body.data.lines[0]).toMatchObject({ secondaryQuantity: null, secondaryUnit: null });
  });

  it('rule: changing orderNumber does not renumber existing auto-generated line numbers', async () => {
    const order = await threeLines();
    const patched = await api('PATCH', `/orders/${order.id}`, { orderNumber: nextNumber() });
    expect(patched.body.data.lines.map((entry) => entry.orderLineNumber)).toEqual(
      order.lines.map((entry) => entry.orderLineNumber),
    );
  });
});

describe('orders: tracing coupling (sandbox model)', () => {
  it('rule: once the counterparty linked the order, structural fields give 409 order_structural_fields_locked_by_tracing', async () => {
    const order = await created(purchase({ lines: [line()] }));
    const control = await fetch(`${sandbox().url}/__sandbox/orders/${order.id}/tracing`, {
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
      await fetch(`${sandbox().url}/__sandbox/orders/${order.id}/tracing`, {
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
