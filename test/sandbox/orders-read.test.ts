import {
  api,
  BRAND,
  created,
  line,
  type Line,
  nextNumber,
  type Order,
  OTHER_BRAND,
  purchase,
  SUPPLIER,
  useOrdersSandbox,
} from './orders-support';

const sandbox = useOrdersSandbox();

describe('orders: GET /orders', () => {
  it('rule: orderNumber filters exactly (case- and whitespace-sensitive)', async () => {
    const order = await created(purchase());
    const exact = await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(order.orderNumber)}`);
    expect(exact.body.data.map((entry) => entry.id)).toEqual([order.id]);
    expect(
      (
        await api<Order[]>(
          'GET',
          `/orders?orderNumber=${encodeURIComponent(order.orderNumber.toLowerCase())}`,
        )
      ).body.data,
    ).toEqual([]);
    expect(
      (await api<Order[]>('GET', `/orders?orderNumber=${encodeURIComponent(order.orderNumber + ' ')}`)).body
        .data,
    ).toEqual([]);
  });

  it('rule: tag matches one whole tag, case-insensitively, never a substring', async () => {
    const tag = `Batch${Date.now()}`;
    const order = await created(purchase({ tags: [tag, 'other'] }));
    expect(
      (await api<Order[]>('GET', `/orders?tag=${tag.toUpperCase()}`)).body.data.map((entry) => entry.id),
    ).toEqual([order.id]);
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
    const both = await api<Order[]>(
      'GET',
      `/orders?updatedAfterUnixMs=${at}&updatedBeforeUnixMs=${at}&limit=100`,
    );
    expect(both.body.data.map((entry) => entry.id)).toContain(order.id);
    const after = await api<Order[]>('GET', `/orders?updatedAfterUnixMs=${at + 1}&limit=100`);
    expect(after.body.data.map((entry) => entry.id)).not.toContain(order.id);
  });

  it('rule: type, supplier, buyer, status and isArchived filter; unmatched values give an empty 200 page', async () => {
    const status = await created(
      purchase({ status: 'IN_REVIEW', buyerCompanyId: BRAND, supplierCompanyId: 'cmp_sup_prato_wool' }),
    );
    const bySupplier = await api<Order[]>(
      'GET',
      '/orders?supplier=cmp_sup_prato_wool&type=PURCHASE_ORDER&status=IN_REVIEW&isArchived=false',
    );
    expect(bySupplier.body.data.map((entry) => entry.id)).toEqual([status.id]);
    expect(
      (await api<Order[]>('GET', `/orders?buyer=${SUPPLIER}`)).body.data.every(
        (entry) => entry['buyerCompanyId'] === SUPPLIER,
      ),
    ).toBe(true);
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

  it("rule: another company never sees the caller's orders", async () => {
    const order = await created(purchase());
    const list = await api<Order[]>(
      'GET',
      `/orders?orderNumber=${encodeURIComponent(order.orderNumber)}`,
      undefined,
      { companyapikey: 'sandbox-key-supplier' },
    );
    expect(list.body.data).toEqual([]);
  });
});

describe('orders: /order-lines (read-only)', () => {
  it("rule: GET /order-lines?orderId lists the order's lines by lineNo with orderId and the order summary", async () => {
    const order = await created(purchase({ tags: ['x'], lines: [line(), line()] }));
    const list = await api<Line[]>('GET', `/order-lines?orderId=${order.id}`);
    expect(list.body.data.map((entry) => entry.lineNo)).toEqual([1, 2]);
    expect(list.body.data[0]).toMatchObject({
      orderId: order.id,
      order: { id: order.id, orderNumber: order.orderNumber, orderType: 'PURCHASE_ORDER', tags: ['x'] },
    });
  });

  it('rule: GET /order-lines without orderId is "Always ordered by ascending `lineNo`", across orders', async () => {
    await created(purchase({ lines: [line(), line()] }));
    await created(purchase({ lines: [line(), line()] }));
    const all: Line[] = [];
    for (let page = 1; ; page++) {
      const listed = await api<Line[]>('GET', `/order-lines?limit=100&page=${page}`);
      all.push(...listed.body.data);
      if (listed.body.data.length < 100) break;
    }
    const lineNos = all.map((entry) => entry.lineNo);
    expect(lineNos).toEqual([...lineNos].sort((a, b) => a - b));
    expect(new Set(all.map((entry) => entry.id)).size).toBe(all.length);
  });

  it('rule: an unknown or foreign orderId gives 200 with an empty array', async () => {
    const order = await created(purchase({ lines: [line()] }));
    expect((await api<Line[]>('GET', '/order-lines?orderId=order_unknown')).body.data).toEqual([]);
    const foreign = await api<Line[]>('GET', `/order-lines?orderId=${order.id}`, undefined, {
      companyapikey: 'sandbox-key-supplier',
    });
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
    const response = await api('POST', '/orders', purchase(), {
      authorization: 'Bearer sandbox-bearer-brand',
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      createdByUserId: 'user_brand_buyer',
      createdByApiKeyId: null,
    });
  });

  it('rule: a credential bound to no company gets 403 insufficient_rights', async () => {
    const response = await api('GET', '/orders', undefined, { companyapikey: 'sandbox-key-unbound' });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('insufficient_rights');
  });

  it('rule: order creation is not rate limited while other calls are', async () => {
    await fetch(`${sandbox().url}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rateLimitPerMinute: 1 }),
    });
    try {
      await api('GET', '/orders?limit=1', undefined, { companyapikey: 'sandbox-key-other-brand' });
      expect(
        (await api('GET', '/orders?limit=1', undefined, { companyapikey: 'sandbox-key-other-brand' })).status,
      ).toBe(429);
      const body = { orderNumber: nextNumber(), buyerCompanyId: OTHER_BRAND, supplierCompanyId: OTHER_BRAND };
      const create = await api('POST', '/orders', body, { companyapikey: 'sandbox-key-other-brand' });
      expect(create.status).toBe(201);
    } finally {
      await fetch(`${sandbox().url}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rateLimitPerMinute: 600 }),
      });
    }
  });

  it('rule: a create dropped after commit leaves exactly one order, found by its number', async () => {
    const body = purchase({ lines: [line()] });
    await fetch(`${sandbox().url}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dropAfterCommitRate: 1, methods: ['POST'], pathPrefix: '/orders' }),
    });
    try {
      await expect(api('POST', '/orders', body)).rejects.toThrow();
    } finally {
      await fetch(`${sandbox().url}/__sandbox/faults`, { method: 'DELETE' });
    }
    const found = await api<Order[]>(
      'GET',
      `/orders?orderNumber=${encodeURIComponent(String(body['orderNumber']))}`,
    );
    expect(found.body.data).toHaveLength(1);
    expect((await api('POST', '/orders', body)).body.code).toBe('order_number_already_existing');
  });
});
