import {
  api,
  BRAND,
  created,
  line,
  nextNumber,
  type Order,
  OTHER_BRAND,
  OTHER_SUPPLIER,
  purchase,
  SUPPLIER,
  TEE,
  TEE_ID,
  useOrdersSandbox,
} from './orders-support';

useOrdersSandbox();

describe('orders: creation rules', () => {
  it('rule: orderType is PURCHASE_ORDER for the buyer, SALES_ORDER for the supplier, INTERNAL_ORDER for both', async () => {
    expect((await created(purchase())).orderType).toBe('PURCHASE_ORDER');
    expect(
      (await created({ orderNumber: nextNumber(), buyerCompanyId: OTHER_SUPPLIER, supplierCompanyId: BRAND }))
        .orderType,
    ).toBe('SALES_ORDER');
    expect(
      (await created({ orderNumber: nextNumber(), buyerCompanyId: BRAND, supplierCompanyId: BRAND }))
        .orderType,
    ).toBe('INTERNAL_ORDER');
  });

  it('rule: a second POST /orders with the same number and type is 400 order_number_already_existing', async () => {
    const body = purchase();
    await created(body);
    const second = await api('POST', '/orders', body);
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({
      metadata: { success: false },
      statusCode: 400,
      code: 'order_number_already_existing',
    });
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
    expect(
      (
        await created({
          orderNumber: orderNumber.toUpperCase(),
          buyerCompanyId: BRAND,
          supplierCompanyId: SUPPLIER,
        })
      ).orderNumber,
    ).toBe(orderNumber.toUpperCase());
    expect(
      (await created({ orderNumber: ` ${orderNumber}`, buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER }))
        .orderNumber,
    ).toBe(` ${orderNumber}`);
  });

  it('rule: a caller that is neither buyer nor supplier gets 400 order_owner_not_party', async () => {
    const response = await api('POST', '/orders', {
      orderNumber: nextNumber(),
      buyerCompanyId: SUPPLIER,
      supplierCompanyId: OTHER_SUPPLIER,
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('order_owner_not_party');
  });

  it('rule: receiverCompanyId and receiverFacilityProcess must be sent together (400)', async () => {
    expect((await api('POST', '/orders', purchase({ receiverCompanyId: SUPPLIER }))).status).toBe(400);
    expect((await api('POST', '/orders', purchase({ receiverFacilityProcess: 'WAREHOUSE' }))).status).toBe(
      400,
    );
    const both = await created(
      purchase({ receiverCompanyId: SUPPLIER, receiverFacilityProcess: 'WAREHOUSE' }),
    );
    expect(both).toMatchObject({ receiverCompanyId: SUPPLIER, receiverFacilityProcess: 'WAREHOUSE' });
  });

  it('rule: the receiver defaults to the buyer and the receiver process to the buyer process', async () => {
    const order = await created(
      purchase({ buyerFacilityProcess: 'DISTRIBUTION_CENTRE', supplierFacilityProcess: 'CUT_MAKE_TRIM' }),
    );
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
    expect(
      (await api('POST', '/orders', { buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER })).status,
    ).toBe(400);
    expect(
      (await api('POST', '/orders', { orderNumber: nextNumber(), supplierCompanyId: SUPPLIER })).status,
    ).toBe(400);
    expect(
      (await api('POST', '/orders', { orderNumber: '', buyerCompanyId: BRAND, supplierCompanyId: SUPPLIER }))
        .status,
    ).toBe(400);
  });

  it('rule: orderType, tracingStatus and isArchived sent on create are ignored', async () => {
    const order = await created(
      purchase({ orderType: 'SALES_ORDER', tracingStatus: 'DONE', isArchived: true }),
    );
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
    expect(order).toMatchObject({
      status: null,
      orderSubType: null,
      shipmentReference: null,
      vendorCompanyId: null,
      handoverDate: null,
      internalResponsiblePerson: null,
    });
    expect(order.internalResponsiblePersons).toEqual([]);
  });
});

describe('orders: lines on create', () => {
  it('rule: quantities are stored with 2 decimals, rounded half-up', async () => {
    const order = await created(
      purchase({ lines: [line({ quantity: 1.005 }), line({ quantity: 2.344 }), line({ quantity: 7.125 })] }),
    );
    expect(order.lines.map((entry) => entry.quantity)).toEqual([1.01, 2.34, 7.13]);
  });

  it('rule: quantity must be positive and below 1e17 (400 otherwise)', async () => {
    for (const quantity of [0, -1, 1e17, 0.001]) {
      const response = await api('POST', '/orders', purchase({ lines: [line({ quantity })] }));
      expect(response.status).toBe(400);
    }
  });

  it('rule: units come from the unit enumeration; other values are 400', async () => {
    expect((await created(purchase({ lines: [line({ unit: 'SQUARE_METRE' })] }))).lines[0]?.unit).toBe(
      'SQUARE_METRE',
    );
    expect((await api('POST', '/orders', purchase({ lines: [line({ unit: 'pcs' })] }))).status).toBe(400);
  });

  it('rule: a secondaryQuantity sets secondaryUnit KILOGRAM; a secondaryUnit alone has no effect', async () => {
    const order = await created(
      purchase({ lines: [line({ secondaryQuantity: 12.345 }), line({ secondaryUnit: 'GRAM' })] }),
    );
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

  it("rule: a line styleId that is unknown, archived or another company's is 404 style_not_found", async () => {
    for (const styleId of ['NO-SUCH-STYLE', 'PLM-FLC-002', 'style_01J9ZDEM000000000000000050']) {
      const response = await api('POST', '/orders', purchase({ lines: [line({ styleId })] }));
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('style_not_found');
    }
  });

  it('rule: a duplicate orderLineNumber in the request is 409 order_not_unique', async () => {
    const response = await api(
      'POST',
      '/orders',
      purchase({ lines: [line({ orderLineNumber: 'A' }), line({ orderLineNumber: 'A' })] }),
    );
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('order_not_unique');
  });

  it('rule: a failing line rolls the whole create back (no order is left behind)', async () => {
    const body = purchase({ lines: [line(), line({ styleId: 'NO-SUCH-STYLE' })] });
    expect((await api('POST', '/orders', body)).status).toBe(404);
    const list = await api<Order[]>(
      'GET',
      `/orders?orderNumber=${encodeURIComponent(String(body['orderNumber']))}`,
    );
    expect(list.body.data).toEqual([]);
  });
});

describe('orders: responsible persons', () => {
  it('rule: e-mails resolve case-insensitively to user ids, duplicates removed, empty strings skipped', async () => {
    const order = await created(
      purchase({
        internalResponsiblePersons: [
          'OLA.quality@nordicthreads.example',
          'user_brand_qa',
          '',
          'ines.buyer@NORDICTHREADS.example',
        ],
      }),
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
      (
        await api(
          'POST',
          '/orders',
          purchase({
            internalResponsiblePerson: 'user_brand_qa',
            internalResponsiblePersons: ['user_brand_qa'],
          }),
        )
      ).status,
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
