/**
 * Issue 14: the push read against spec 03 ("Orders, Files, Certificates...") and fed real exports. Each test quotes
 * the spec sentence it holds the job to, on a real Temporal dev server and the sandbox over HTTP.
 * This file: orders, their numbers, types and fields; lines and what a run reports are in erp-orders-spec-runs.test.ts,
 * the shared setup in erp-stack.ts.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_PROFILE } from '../../connectors/erp-orders/profile';
import { BRAND, erpSpecStack, SUPPLIER } from './erp-stack';

describe('erpOrders by the spec, on real Temporal and the sandbox (issue 14)', () => {
  const { stack, dir, copiesOf, only, writesSince, writeCsv, writeProfile, push, byIdProfile } =
    erpSpecStack();

  // Item 1. Spec, Order.orderNumber: "Unique within the owner company for the same order type".
  it('a purchase order and a sales order with the same number in one file are two orders, not a header_conflict', async () => {
    const file = await writeCsv('same-number.csv', [
      {
        order_number: 'TWIN-1',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 5,
        unit: 'PIECES',
      },
      {
        order_number: 'TWIN-1',
        buyer_id: SUPPLIER,
        supplier_id: BRAND,
        line_number: '1',
        product_external_id: 'PLM-JKT-010-NVY',
        quantity: 7,
        unit: 'PIECES',
      },
    ]);
    const result = await push({ file, mappingFile: byIdProfile() });
    expect(result.orders).toMatchObject({ created: 2, rejected: 0 });
    const copies = await copiesOf('TWIN-1');
    expect(copies.map((order) => [order.orderType, order.lines.map((line) => line.quantity)]).sort()).toEqual(
      [
        ['PURCHASE_ORDER', [5]],
        ['SALES_ORDER', [7]],
      ],
    );
    // Pushed again, both are recognised by number and type: nothing is written.
    const before = { ...stack().apiClient.stats().byMethodStatus };
    const again = await push({ file, mappingFile: byIdProfile() });
    expect(again.orders).toMatchObject({ unchanged: 2, created: 0, rejected: 0 });
    expect(writesSince(before)).toEqual({});
  });

  // Item 5. Spec, Order.orderType: "Server computed ... Re-derived on every update", and numbers are unique per
  // type only: a file that changes an order's type must not silently create a second order beside it.
  it('parties that change an existing order type are reported as a conflict, never a second order', async () => {
    const first = await writeCsv('type-before.csv', [
      {
        order_number: 'FLIP-1',
        buyer_id: BRAND,
        supplier_id: SUPPLIER,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 3,
        unit: 'PIECES',
      },
    ]);
    expect((await push({ file: first, mappingFile: byIdProfile() })).orders).toMatchObject({ created: 1 });
    const flipped = await writeCsv('type-after.csv', [
      {
        order_number: 'FLIP-1',
        buyer_id: SUPPLIER,
        supplier_id: BRAND,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 3,
        unit: 'PIECES',
      },
    ]);
    const before = { ...stack().apiClient.stats().byMethodStatus };
    const result = await push({ file: flipped, mappingFile: byIdProfile() });
    expect(result.orders).toMatchObject({ created: 0, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'FLIP-1',
        code: 'order_type_changed',
        message: expect.stringContaining('PURCHASE_ORDER'),
      }),
    ]);
    expect(writesSince(before)).toEqual({});
    expect((await only('FLIP-1')).orderType).toBe('PURCHASE_ORDER');
  });

  // Spec 03, Order.orderNumber: "Unique within the owner company for the same order type"; "archived orders still
  // block number reuse" within their type only. The order_type_changed rejection advises to "archive or delete the
  // old one on the platform and push again": once archived, the old order of the other type no longer blocks.
  it('after the advised archive of the old order, the order of the new type is created; a live one still blocks', async () => {
    const row = (buyer: string, supplier: string) => ({
      order_number: 'FLIP-2',
      buyer_id: buyer,
      supplier_id: supplier,
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 3,
      unit: 'PIECES',
    });
    const first = await writeCsv('flip2-before.csv', [row(BRAND, SUPPLIER)]);
    expect((await push({ file: first, mappingFile: byIdProfile() })).orders).toMatchObject({ created: 1 });
    const flipped = await writeCsv('flip2-after.csv', [row(SUPPLIER, BRAND)]);
    const refused = await push({ file: flipped, mappingFile: byIdProfile() });
    expect(refused.rejections).toEqual([
      expect.objectContaining({
        code: 'order_type_changed',
        message: expect.stringContaining('archive or delete the old one'),
      }),
    ]);
    await stack().apiClient.orders.update((await only('FLIP-2')).id, { isArchived: true });
    const result = await push({ file: flipped, mappingFile: byIdProfile() });
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    const copies = await copiesOf('FLIP-2');
    expect(copies.map((order) => [order.orderType, order.isArchived]).sort()).toEqual([
      ['PURCHASE_ORDER', true],
      ['SALES_ORDER', false],
    ]);
  });

  // Item 2. Spec, PATCH /orders/{id}: "partial update; omitted fields are unchanged".
  it('an export without receiver columns leaves the platform receiver alone', async () => {
    const created = await stack().apiClient.orders.create({
      orderNumber: 'RCV-1',
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      buyerFacilityProcess: 'WAREHOUSE',
      receiverCompanyId: 'cmp_sup_porto_trims',
      receiverFacilityProcess: 'CUT_MAKE_TRIM',
      orderDate: '2024-03-01',
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 4, unit: 'PIECES' }],
    });
    const file = await writeCsv('no-receiver.csv', [
      {
        order_number: 'RCV-1',
        supplier_code: 'SUP-1001',
        buyer_facility_process: 'Warehouse',
        order_date: '2024-04-02',
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 4,
        unit: 'PIECES',
      },
    ]);
    const result = await push({ file });
    expect(result.orders).toMatchObject({ patched: 1, rejected: 0 });
    const after = await only('RCV-1');
    expect(after.id).toBe(created.id);
    expect(after.orderDate).toBe('2024-04-02');
    expect([after.receiverCompanyId, after.receiverFacilityProcess]).toEqual([
      'cmp_sup_porto_trims',
      'CUT_MAKE_TRIM',
    ]);
  });

  // Spec 03, PATCH /orders/{id} rule 3: "Receiver pair rule: send both or neither; to remove the receiver, send both
  // as null". Blank receiver columns mean the default receiver; without a buyer facility process the default (the
  // buyer with the buyer's process) cannot be written as a pair, so another receiver is removed.
  it('blank receiver columns remove a receiver when the buyer has no facility process; the default stays', async () => {
    const created = await stack().apiClient.orders.create({
      orderNumber: 'RCV-2',
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      receiverCompanyId: 'cmp_sup_porto_trims',
      receiverFacilityProcess: 'CUT_MAKE_TRIM',
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 4, unit: 'PIECES' }],
    });
    const row = (orderNumber: string) => ({
      order_number: orderNumber,
      supplier_code: 'SUP-1001',
      receiver_code: '',
      receiver_facility_process: '',
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 4,
      unit: 'PIECES',
    });
    const file = await writeCsv('blank-receiver.csv', [row('RCV-2'), row('RCV-3')]);
    const result = await push({ file });
    expect(result.orders).toMatchObject({ patched: 1, created: 1, rejected: 0 });
    const removed = await only('RCV-2');
    expect(removed.id).toBe(created.id);
    expect([removed.receiverCompanyId, removed.receiverFacilityProcess]).toEqual([null, null]);
    // Pushed again: the removed receiver and the server's default on the new order both match; nothing is written.
    const before = { ...stack().apiClient.stats().byMethodStatus };
    const again = await push({ file });
    expect(again.orders).toMatchObject({ unchanged: 2, patched: 0, created: 0 });
    expect(writesSince(before)).toEqual({});
  });

  // Item 3. Spec, Order.internalResponsiblePersons: "Unknown entry: 404 `responsible_person_not_found`"; DESIGN:
  // "4xx answers are row-level, non-retryable outcomes recorded with their `code`".
  it('a 404 naming bad data on PATCH is the order outcome: rejected with its code, the run carries on', async () => {
    const rows = ['NF-1', 'NF-2'].map((orderNumber) => ({
      order_number: orderNumber,
      supplier_code: 'SUP-1001',
      responsible_persons: '',
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 2,
      unit: 'PIECES',
    }));
    await push({ file: await writeCsv('nf-before.csv', rows) });
    const edited = [
      { ...rows[0], responsible_persons: 'nobody@nowhere.example' },
      { ...rows[1], quantity: 3 },
    ];
    const before = { ...stack().apiClient.stats().byMethodStatus };
    const result = await push({ file: await writeCsv('nf-after.csv', edited) });
    expect(result.orders).toMatchObject({ patched: 1, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({ orderNumber: 'NF-1', code: 'responsible_person_not_found' }),
    ]);
    expect(writesSince(before)).toEqual({ 'PATCH 404': 1, 'PATCH 200': 1 });
    expect(readFileSync(result.rejectsFile!, 'utf8')).toContain('responsible_person_not_found');
  }, 120_000);

  // Spec 03, Order audit fields: "Key-made writes fill the ApiKey pair and leave the User pair null; platform-UI
  // writes do the reverse". The push keys on orderNumber, so an order a platform user made with the same number is
  // updated (not refused); the run says so, naming who made it, until the push has written it once.
  it('an order made in the platform UI with the same number is updated with a warning naming its maker, once', async () => {
    const ui = await fetch(`${stack().sandbox.baseUrl}/orders`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-bearer-brand', 'content-type': 'application/json' },
      body: JSON.stringify({
        orderNumber: 'UI-1',
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 2, unit: 'PIECES' }],
      }),
    });
    expect(ui.status).toBe(201);
    const row = {
      order_number: 'UI-1',
      supplier_code: 'SUP-1001',
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 5,
      unit: 'PIECES',
    };
    const first = await push({ file: await writeCsv('ui-made.csv', [row]) });
    expect(first.orders).toMatchObject({ patched: 1, rejected: 0 });
    const aboutIt = (warnings: string[]) => warnings.filter((warning) => warning.startsWith("order 'UI-1'"));
    expect(aboutIt(first.warnings)).toEqual([expect.stringMatching(/made in the platform UI by Ines Buyer/)]);

    const again = await push({ file: await writeCsv('ui-made-2.csv', [{ ...row, quantity: 6 }]) });
    expect(again.orders).toMatchObject({ patched: 1 });
    expect(aboutIt(again.warnings)).toEqual([]);
  });

  // Spec 03, Order.orderNumber: "exact match (no trimming or case folding). Unique within the owner company for the
  // same order type". A JSON number past 2^53 loses digits when read: 9007199254740993 would be read as
  // 9007199254740992 and two ERP orders would become one.
  it('a JSON order number that cannot be read exactly is refused (quote it), never merged into another order', async () => {
    const line = (orderNumber: string, product: string) =>
      `{"order_number":${orderNumber},"supplier_code":"SUP-1001","line_number":1,` +
      `"product_external_id":"${product}","quantity":2,"unit":"PIECES"}\n`;
    const file = path.join(dir(), 'big-numbers.ndjson');
    await writeFile(
      file,
      line('9007199254740993', 'PLM-TEE-001-BLK') + line('9007199254740992', 'PLM-JKT-010-NVY'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
    expect(result.rejections).toEqual([
      expect.objectContaining({
        code: 'invalid_value',
        message: expect.stringMatching(
          /row 1, column 'order_number' \(orderNumber\): the JSON number 9007199254740993 .*"9007199254740993"/,
        ),
      }),
    ]);
    expect((await only('9007199254740992')).lines.map((l) => l.styleId)).toHaveLength(1);
    expect(await copiesOf('9007199254740993')).toEqual([]);
    // The rejects file gives the number back as written, ready to be quoted and pushed again.
    const rejects = readFileSync(result.rejectsFile!, 'utf8');
    expect(rejects).toContain('"order_number":9007199254740993,');
  });

  // Spec, Order.internalResponsiblePersons: "E-mail addresses or user ids …; e-mails resolve to user ids, match
  // case-insensitively". The platform stores ids; an export that names people by e-mail must not read as changed
  // on every push (each PATCH of a traced order re-syncs it and notifies the counterparty).
  describe('responsible persons given as e-mails', () => {
    const PEOPLE = 'ines.buyer@nordicthreads.example; ola.quality@NORDICTHREADS.example';
    const personRow = (orderNumber: string) => ({
      order_number: orderNumber,
      supplier_code: 'SUP-1001',
      responsible_persons: PEOPLE,
      line_number: '1',
      product_external_id: 'PLM-TEE-001-BLK',
      quantity: 4,
      unit: 'PIECES',
    });

    it('two people named by e-mail: the second push writes nothing', async () => {
      const file = await writeCsv('persons-two.csv', [personRow('RP-1'), personRow('RP-2')]);
      const first = await push({ file });
      expect(first.orders).toMatchObject({ created: 2, rejected: 0 });
      expect((await only('RP-1')).internalResponsiblePersons?.sort()).toEqual([
        'user_brand_buyer',
        'user_brand_qa',
      ]);
      const before = { ...stack().apiClient.stats().byMethodStatus };
      const again = await push({ file });
      expect(again.orders).toMatchObject({ unchanged: 2, patched: 0 });
      expect(writesSince(before)).toEqual({});
    });

    it("the mapping profile's responsiblePersonIds: an order the worker never wrote compares as unchanged", async () => {
      // Written with ids by someone else: this worker has learned nothing of these people from this order.
      await stack().apiClient.orders.create({
        orderNumber: 'RP-3',
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        internalResponsiblePersons: ['user_brand_qa'],
        lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 4, unit: 'PIECES' }],
      });
      const row = { ...personRow('RP-3'), responsible_persons: 'Ola.Quality@nordicthreads.example' };
      const mappingFile = await writeProfile('persons-mapped.json', {
        ...DEFAULT_PROFILE,
        responsiblePersonIds: { 'ola.quality@nordicthreads.example': 'user_brand_qa' },
      });
      const before = { ...stack().apiClient.stats().byMethodStatus };
      const result = await push({ file: await writeCsv('persons-mapped.csv', [row]), mappingFile });
      expect(result.orders).toMatchObject({ unchanged: 1, patched: 0, rejected: 0 });
      expect(writesSince(before)).toEqual({});
    });

    // Spec 03, PATCH rule 1: even an empty body "counts as a write (bumps `updatedAt` and records an audit entry)",
    // so the next pull exports the order again; tracing rule 5: "Updating an order that is part of a tracing chain
    // re-syncs the linked tracing orders and notifies the counterparty". A deploy must not do that to every order.
    it('after a worker restart, the same file still writes nothing: no PATCH, updatedAt unchanged', async () => {
      const rows = [
        personRow('RP-4'),
        { ...personRow('RP-5'), responsible_persons: 'Ines.Buyer@nordicthreads.example' },
      ];
      const file = await writeCsv('persons-restart.csv', rows);
      expect((await push({ file })).orders).toMatchObject({ created: 2, rejected: 0 });
      const updatedAt = async () =>
        Promise.all(['RP-4', 'RP-5'].map(async (number) => (await only(number)).updatedAt));
      const stampsBefore = await updatedAt();

      await stack().restartWorker();
      const before = { ...stack().apiClient.stats().byMethodStatus };
      const again = await push({ file });
      expect(again.orders).toMatchObject({ unchanged: 2, patched: 0, rejected: 0 });
      expect(writesSince(before)).toEqual({});
      expect(await updatedAt()).toEqual(stampsBefore);
    });
  });
  // Spec 03, Order: "counterpartyOrderNumberRef | string | The counterparty's own order number": unlike orderNumber
  // ("1-255 characters") and shipmentReference ("Max 255"), no length is stated, here or under Limits. A long
  // reference (a consolidated order citing the counterparty's many numbers) is the API's to refuse, not the push's.
  it('a counterparty order reference longer than 255 characters is pushed, not refused as too_long', async () => {
    const reference = Array.from({ length: 30 }, (_, i) => `SO-2026-${String(i).padStart(5, '0')}`).join(
      '; ',
    );
    expect(reference.length).toBeGreaterThan(255);
    const file = await writeCsv('counterparty-long.csv', [
      {
        order_number: 'CPREF-1',
        supplier_code: 'SUP-1001',
        counterparty_order_number: reference,
        line_number: '1',
        product_external_id: 'PLM-TEE-001-BLK',
        quantity: 2,
        unit: 'PIECES',
      },
    ]);
    const result = await push({ file });
    expect(result.rejections).toEqual([]);
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    const order = await only('CPREF-1');
    expect((await stack().apiClient.orders.get(order.id)).counterpartyOrderNumberRef).toBe(reference);
    expect((await push({ file })).orders).toMatchObject({ unchanged: 1, rejected: 0 });
  });
});
