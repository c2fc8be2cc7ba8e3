import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { DEFAULT_PROFILE } from '../../connectors/erp-orders/profile';
import { erpOrders } from '../../workflows';
import type { ApprovalOutcome } from '../../workflows/approval';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import { TraceStatus } from '../../worker/search-attributes';
import { sandboxApi } from '../harness/sandbox-api';
import { BRAND, BY_ID_PROFILE, SUPPLIER } from './erp-stack';
import { awaitingApproval, planApproveStack } from './job-stack';

/**
 * Issue 21, "Plan, then approve", for the ERP push: `erp-orders --approve` plans, writes plan.html and plan.xlsx,
 * awaits `approve` or `reject`, and an order the platform changed in between is held back, never blindly written.
 * The PLM import's plan and approval are in plan-approve.test.ts, the shared setup in job-stack.ts.
 */
describe('plan, then approve (ERP push): erp-orders --approve', () => {
  const { stack, dir, cli, startAwaiting, currentDetails, cancelWhilePlanning } =
    planApproveStack('plan-approve-erp-');

  const HEADER =
    'order_number,supplier_code,buyer_facility_process,supplier_facility_process,order_date,line_number,product_external_id,quantity,unit\n';
  const line = (order: string, quantity: number) =>
    `${order},SUP-1001,Warehouse,Cut make trim,2025-03-01,1,PLM-TEE-001-BLK,${quantity},PIECES\n`;
  const orders = (name: string, ...rows: string[]) => {
    const file = path.join(dir(), name);
    writeFileSync(file, HEADER + rows.join(''));
    return file;
  };
  const onPlatformOrder = async (orderNumber: string) =>
    (await stack().apiClient.orders.list({ orderNumber })).items.find((o) => o.orderNumber === orderNumber);
  type ErpResult = PushErpOrdersResult & { approval?: ApprovalOutcome };

  it('approve pushes the planned orders; an order the platform got in between is held back, not created twice', async () => {
    const handle = await startAwaiting(
      orders('apv-orders.csv', line('APV-PO-1', 10), line('APV-PO-2', 20)),
      'erp-orders',
    );
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('awaiting-approval');
    const html = readFileSync(
      path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.html'),
      'utf8',
    );
    expect(html).toContain('APV-PO-1');
    expect(html).toContain(`<code>npx trace-sync reject ${handle.workflowId}</code>`);
    // One heading a section: the page heads each table with its count, so the table gives no caption of its own.
    expect(html.match(/Creates \(\d+\)/g)).toEqual(['Creates (2)']);
    expect(await onPlatformOrder('APV-PO-1')).toBeUndefined();
    // While the plan waits, another run pushes APV-PO-2.
    const other = await stack().client.workflow.start(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('other-push'),
      args: [{ file: orders('other.csv', line('APV-PO-2', 20)) }],
    });
    await other.result();
    expect((await cli('approve', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as ErpResult;
    expect(result.orders).toMatchObject({ created: 1 });
    expect(result.approval?.replanned).toEqual([
      {
        externalId: 'APV-PO-2',
        orderType: 'PURCHASE_ORDER',
        approved: 'create (lines +1 ~0 -0)',
        now: 'unchanged (lines +0 ~0 -0)',
      },
    ]);
    expect(
      (await stack().apiClient.orders.list({ orderNumber: 'APV-PO-2' })).items.filter(
        (o) => o.orderNumber === 'APV-PO-2',
      ),
    ).toHaveLength(1);
    expect(await onPlatformOrder('APV-PO-1')).toBeDefined();
  }, 300_000);

  // Issue 21: "Approve applies exactly the planned changes; if the platform changed in between, the changed
  // products are re-planned and reported, never blindly written". An order update is the fields it changes and
  // their values: the plan lists each before → after, and an edit of a planned field during the wait holds it back.
  it('the plan lists each order field an update changes, before → after; a platform edit of it during the wait holds the order back', async () => {
    const seeded = await stack().client.workflow.execute(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('fields-seed'),
      args: [{ file: orders('apv-fields-seed.csv', line('APV-F-1', 10), line('APV-F-2', 10)) }],
    });
    expect(seeded.orders).toMatchObject({ created: 2 });
    const moved = (order: string) => line(order, 10).replace('2025-03-01', '2025-03-15');
    const handle = await startAwaiting(
      orders('apv-fields.csv', moved('APV-F-1'), moved('APV-F-2')),
      'erp-orders',
    );
    const runDir = path.join(stack().config.dataDir, 'runs', handle.workflowId);
    expect(readFileSync(path.join(runDir, 'plan.html'), 'utf8')).toContain(
      'order_date: 2025-03-01 → 2025-03-15',
    );
    const updates = XLSX.utils.sheet_to_json<Record<string, string>>(
      XLSX.readFile(path.join(runDir, 'plan.xlsx')).Sheets.Updates as XLSX.WorkSheet,
    );
    expect(updates.map((row) => [row['orderNumber'], row['fields changed (before → after)']])).toEqual([
      ['APV-F-1', 'order_date: 2025-03-01 → 2025-03-15'],
      ['APV-F-2', 'order_date: 2025-03-01 → 2025-03-15'],
    ]);
    // While the plan waits, a colleague sets APV-F-1's order date on the platform.
    const edited = await onPlatformOrder('APV-F-1');
    await stack().apiClient.orders.update(edited!.id, { orderDate: '2025-03-10' });

    expect((await cli('approve', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as ErpResult;
    expect(result.approval?.replanned).toEqual([
      {
        externalId: 'APV-F-1',
        orderType: 'PURCHASE_ORDER',
        approved: 'update (lines +0 ~0 -0; order_date: 2025-03-01 → 2025-03-15)',
        now: 'update (lines +0 ~0 -0; order_date: 2025-03-10 → 2025-03-15)',
      },
    ]);
    expect(result.orders).toMatchObject({ patched: 1 });
    expect((await onPlatformOrder('APV-F-1'))?.orderDate).toBe('2025-03-10');
    expect((await onPlatformOrder('APV-F-2'))?.orderDate).toBe('2025-03-15');
  }, 300_000);

  // Spec 03, Order.orderNumber: "Unique within the owner company for the same order type".
  it('a purchase and a sales order with one number are held back by type: an edit of one on the platform is never approved by the other', async () => {
    const BRAND = 'cmp_brand_nordic_threads';
    const SUPPLIER = 'cmp_sup_anatolia_garments';
    const profile = path.join(dir(), 'twin-by-id.json');
    writeFileSync(profile, JSON.stringify(BY_ID_PROFILE));
    const file = path.join(dir(), 'twin-orders.csv');
    writeFileSync(
      file,
      'order_number,buyer_id,supplier_id,line_number,product_external_id,quantity,unit\n' +
        `APV-TWIN,${BRAND},${SUPPLIER},1,PLM-TEE-001-BLK,5,PIECES\n` +
        `APV-TWIN,${SUPPLIER},${BRAND},1,PLM-JKT-010-NVY,7,PIECES\n`,
    );
    const seeded = await stack().client.workflow.execute(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('twin-seed'),
      args: [{ file, mappingFile: profile }],
    });
    expect(seeded.orders).toMatchObject({ created: 2, rejected: 0 });

    const handle = await startAwaiting(file, 'erp-orders', '--mapping', profile, '--complete');
    // While the plan waits, someone adds three lines to the purchase order on the platform.
    const purchase = (await stack().apiClient.orders.list({ orderNumber: 'APV-TWIN' })).items.find(
      (o) => o.orderType === 'PURCHASE_ORDER',
    );
    const full = await stack().apiClient.orders.get(purchase!.id);
    await stack().apiClient.orders.update(full.id, {
      lines: [
        ...(full.lines ?? []).map((l) => ({ id: l.id })),
        ...['2', '3', '4'].map((n) => ({
          orderLineNumber: n,
          styleId: 'PLM-TEE-001-BLK',
          quantity: 1,
          unit: 'PIECES' as const,
        })),
      ],
    });

    expect((await cli('approve', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as ErpResult;
    expect(result.approval?.replanned).toEqual([
      {
        externalId: 'APV-TWIN',
        orderType: 'PURCHASE_ORDER',
        approved: 'unchanged (lines +0 ~0 -0)',
        now: 'update (lines +0 ~0 -3)',
      },
    ]);
    // Nobody approved deleting the three lines: they are still there.
    expect((await stack().apiClient.orders.get(full.id)).lines).toHaveLength(4);
    expect(result.orders).toMatchObject({ unchanged: 1, patched: 0, rejected: 0 });
    // The plan shows the type beside the number, so an operator can tell the two orders apart.
    const workbook = XLSX.readFile(path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.xlsx'));
    expect(
      XLSX.utils.sheet_to_json<string[]>(workbook.Sheets.Updates as XLSX.WorkSheet, { header: 1 })[0],
    ).toEqual([
      'orderNumber',
      'orderType',
      'rows',
      'lines created',
      'lines updated',
      'lines deleted',
      'fields changed (before → after)',
    ]);
  }, 300_000);

  // An order's receiver is a pair the export gives as a company code and a facility process name: the approver reads
  // the plan in those words (the export's columns and what they hold), never the platform's ids.
  it('the plan shows an update of the receiver in the export’s columns and words, escaped, not the platform’s ids', async () => {
    const header =
      'order_number,supplier_code,receiver_code,receiver_facility_process,tags,line_number,product_external_id,quantity,unit\n';
    const sheet = (name: string, receiver: string, process: string, tags: string) => {
      const file = path.join(dir(), name);
      writeFileSync(
        file,
        `${header}APV-W-1,SUP-1001,${receiver},${process},${tags},1,PLM-TEE-001-BLK,5,PIECES\n`,
      );
      return file;
    };
    const seeded = await stack().client.workflow.execute(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('words-seed'),
      args: [{ file: sheet('apv-words-seed.csv', 'SUP-1002', 'Warehouse', 'summer') }],
    });
    expect(seeded.orders).toMatchObject({ created: 1 });
    const handle = await startAwaiting(
      sheet('apv-words.csv', 'SUP-1003', 'Cut make trim', '"summer,<b>sale</b>"'),
      'erp-orders',
    );
    const html = readFileSync(
      path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.html'),
      'utf8',
    );
    const updates = html.match(/<h2>Updates[\s\S]*?<\/table>/)?.[0] ?? '';
    expect(updates).toContain('receiver_code: SUP-1002 → SUP-1003');
    expect(updates).toContain('receiver_facility_process: Warehouse → Cut make trim');
    expect(updates).toContain('tags: summer → summer, &lt;b&gt;sale&lt;/b&gt;');
    expect(html).not.toMatch(/cmp_|receiverCompanyId|receiverFacilityProcess/);
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    await handle.result();
  }, 300_000);

  /** An update's changed fields as plan.html lists them (the Updates table). */
  const planUpdates = (workflowId: string) =>
    readFileSync(path.join(stack().config.dataDir, 'runs', workflowId, 'plan.html'), 'utf8').match(
      /<h2>Updates[\s\S]*?<\/table>/,
    )?.[0] ?? '';
  const sheetFile = (name: string, header: string, ...rows: string[]) => {
    const file = path.join(dir(), name);
    writeFileSync(file, `${header}\n${rows.join('\n')}\n`);
    return file;
  };

  // Spec 03: "e-mails resolve to user ids"; reads answer ids only. The export names people by e-mail and the run
  // learned whose id each is: the plan says both sides in e-mails, never one side in ids the operator cannot read.
  it('the plan shows the responsible persons before and after as the export names them (e-mails), not user ids', async () => {
    const header =
      'order_number,supplier_code,responsible_persons,line_number,product_external_id,quantity,unit';
    const sheet = (name: string, people: string) =>
      sheetFile(name, header, `APV-RP-1,SUP-1001,"${people}",1,PLM-TEE-001-BLK,5,PIECES`);
    const seeded = await stack().client.workflow.execute(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('persons-seed'),
      args: [{ file: sheet('apv-rp-seed.csv', 'ola.quality@nordicthreads.example') }],
    });
    expect(seeded.orders).toMatchObject({ created: 1 });
    const handle = await startAwaiting(
      sheet('apv-rp.csv', 'ines.buyer@nordicthreads.example; ola.quality@nordicthreads.example'),
      'erp-orders',
    );
    const updates = planUpdates(handle.workflowId);
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    await handle.result();
    expect(updates).toContain(
      'responsible_persons: ola.quality@nordicthreads.example → ines.buyer@nordicthreads.example, ola.quality@nordicthreads.example',
    );
    expect(updates).not.toContain('user_brand');
  }, 300_000);

  // The key's company has no company code (the export names it by a blank cell, ownCompanyAs): the plan names it
  // "your company", not by the platform id nobody at the ERP knows.
  it('the plan names your company as "your company" where the platform’s order names it, not by its id', async () => {
    await stack().apiClient.orders.create({
      orderNumber: 'APV-OWN-1',
      buyerCompanyId: BRAND,
      supplierCompanyId: SUPPLIER,
      receiverCompanyId: BRAND,
      receiverFacilityProcess: 'WAREHOUSE',
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 5, unit: 'PIECES' }],
    });
    const handle = await startAwaiting(
      sheetFile(
        'apv-own.csv',
        'order_number,supplier_code,receiver_code,receiver_facility_process,line_number,product_external_id,quantity,unit',
        'APV-OWN-1,SUP-1001,SUP-1003,Warehouse,1,PLM-TEE-001-BLK,5,PIECES',
      ),
      'erp-orders',
    );
    const updates = planUpdates(handle.workflowId);
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    await handle.result();
    expect(updates).toContain('receiver_code: your company → SUP-1003');
    expect(updates).not.toMatch(/cmp_/);
    // The facility process goes to the API with the receiver (spec 03), but it did not change: not a change to read.
    expect(updates).not.toContain('receiver_facility_process');
  }, 300_000);

  // A field the mapping sets by a constant has no column in the export: the plan names it as the mapping's constant,
  // where the operator changes it, not as a column the export lacks.
  it('the plan labels a field set by a constant of the mapping as that constant, not as a column the export lacks', async () => {
    const profile = (reference: string) => {
      const file = path.join(dir(), `constant-${reference}.json`);
      writeFileSync(
        file,
        JSON.stringify({ ...DEFAULT_PROFILE, name: 'constant', constants: { shipmentReference: reference } }),
      );
      return file;
    };
    const file = orders('apv-constant.csv', line('APV-C-1', 5));
    const seeded = await stack().client.workflow.execute(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('constant-seed'),
      args: [{ file, mappingFile: profile('SHIP-1') }],
    });
    expect(seeded.orders).toMatchObject({ created: 1 });
    const handle = await startAwaiting(file, 'erp-orders', '--mapping', profile('SHIP-2'));
    const updates = planUpdates(handle.workflowId);
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    await handle.result();
    expect(updates).toContain('shipmentReference (constant in mapping): SHIP-1 → SHIP-2');
  }, 300_000);

  it('a reject sent before the plan is written is ignored: the run says so and awaits a decision on the plan', async () => {
    const handle = await stack().client.workflow.start(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('early-orders'),
      args: [{ file: orders('early-orders.csv', line('ERL-PO-1', 5)), approval: true }],
    });
    await handle.signal('reject', { by: 'bob', reason: 'not yet' });
    await awaitingApproval(handle);
    expect(await currentDetails(handle, (text) => text.includes('before the plan'))).toContain(
      '`reject` from bob came before the plan was written and was ignored: read the plan, then send it again',
    );
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('awaiting-approval');
    expect((await cli('approve', handle.workflowId, '--by', 'carol')).status).toBe(0);
    const result = (await handle.result()) as ErpResult;
    expect(result.approval).toMatchObject({ decision: 'approved', by: 'carol' });
    expect(await onPlatformOrder('ERL-PO-1')).toBeDefined();
  }, 300_000);

  // TEMPORAL-NOTES: "a history errors at 51,200 events ... `continueAsNewSuggested` tells when to continue-as-new".
  // The plan and the recheck are a dry pass of every batch (an activity each, ~6 events): a long plan continues
  // as new as the push does (the test server suggests it after 40 events), so no run of the chain grows with it.
  it('a plan of many batches continues as new during its dry passes: no run of the chain grows with the batches', async () => {
    const count = 12;
    const file = orders(
      'long-plan.csv',
      ...Array.from({ length: count }, (_, i) => line(`LNG-PO-${i + 1}`, 10 + i)),
    );
    const handle = await stack().client.workflow.start(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('long-plan'),
      args: [{ file, approval: true, batchSize: 1 }],
    });
    await awaitingApproval(handle);
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    await handle.signal('approve', { by: 'carol' });
    const result = (await handle.result()) as ErpResult;
    expect(result.approval).toMatchObject({ decision: 'approved', by: 'carol', replannedCount: 0 });
    expect(result.orders).toMatchObject({ created: count, rejected: 0 });
    const lengths: number[] = [];
    for await (const run of stack().client.workflow.list({ query: `WorkflowId = "${handle.workflowId}"` })) {
      const history = await stack().client.workflow.getHandle(handle.workflowId, run.runId).fetchHistory();
      lengths.push(history.events?.length ?? 0);
    }
    expect(lengths.length).toBeGreaterThan(2);
    // 40 (the suggestion) + one batch + the plan, the wait and its signal: never two passes' worth (12 x 6 x 2).
    expect(Math.max(...lengths)).toBeLessThan(70);
  }, 300_000);

  // The plan says what the run will: an order a platform user made under the export's number is updated with the
  // run's warning naming its maker (erp-orders-spec.test.ts), and an archived one is refused as `order_archived`,
  // which the run's result counts as rejected.
  it("the plan shows the run's warning for an order made in the platform UI, and an archived order as the run rejects it", async () => {
    const ui = await fetch(`${stack().sandbox.baseUrl}/orders`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-bearer-brand', 'content-type': 'application/json' },
      body: JSON.stringify({
        orderNumber: 'APV-UI-1',
        buyerCompanyId: BRAND,
        supplierCompanyId: SUPPLIER,
        lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 2, unit: 'PIECES' }],
      }),
    });
    expect(ui.status).toBe(201);
    const seeded = await stack().client.workflow.execute(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('archived-seed'),
      args: [{ file: orders('apv-archived-seed.csv', line('APV-ARC-1', 10)) }],
    });
    expect(seeded.orders).toMatchObject({ created: 1 });
    await stack().apiClient.orders.update((await onPlatformOrder('APV-ARC-1'))!.id, { isArchived: true });

    const handle = await startAwaiting(
      orders(
        'apv-warned.csv',
        line('APV-UI-1', 5),
        line('APV-ARC-1', 12),
        // A second line: the rejected order is two export rows, which the plan counts as the run's end does.
        'APV-ARC-1,SUP-1001,Warehouse,Cut make trim,2025-03-01,2,PLM-TEE-001-BLK,3,PIECES\n',
      ),
      'erp-orders',
    );
    const runDir = path.join(stack().config.dataDir, 'runs', handle.workflowId);
    // What the Web UI and --wait show while the plan waits: the warning too, not only "1 rejected".
    const details = await currentDetails(handle, (text) => text.includes('Awaiting approval'));
    expect(details).toMatch(/\n- order 'APV-UI-1' was made in the platform UI by Ines Buyer/);
    const html = readFileSync(path.join(runDir, 'plan.html'), 'utf8');
    expect(html).toContain('1 to update');
    expect(html).toContain('1 rejected (2 export rows)');
    expect(html).toContain('1 with a warning');
    expect(html).toMatch(/<h2>Warnings \(\d+\)<\/h2>[^]*APV-UI-1[^]*made in the platform UI by Ines Buyer/);
    const sheet = <T>(name: string) =>
      XLSX.utils.sheet_to_json<T>(
        XLSX.readFile(path.join(runDir, 'plan.xlsx')).Sheets[name] as XLSX.WorkSheet,
      );
    // The order's warning first, then the export's own (the columns of the profile it lacks).
    expect(sheet<Record<string, string>>('Warnings').filter((row) => row['orderNumber'])).toEqual([
      {
        orderNumber: 'APV-UI-1',
        orderType: 'PURCHASE_ORDER',
        warning: expect.stringMatching(/^order 'APV-UI-1' was made in the platform UI by Ines Buyer/),
      },
    ]);
    expect(sheet<Record<string, string>>('Rejects').map((row) => [row['orderNumber'], row['code']])).toEqual([
      ['APV-ARC-1', 'order_archived'],
    ]);

    expect((await cli('approve', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as ErpResult;
    expect(result.orders).toMatchObject({ patched: 1, rejected: 1 });
    expect(result.rejections.map((r) => [r.orderNumber, r.code])).toEqual([['APV-ARC-1', 'order_archived']]);
    expect(result.warnings.filter((w) => w.startsWith("order 'APV-UI-1'"))).toEqual([
      sheet<Record<string, string>>('Warnings')[0]?.['warning'],
    ]);
    // The csv lacks some of the default profile's columns: the run warns of each, and the plan counts them.
    expect(details).toContain(
      `0 orders to create, 1 to update, 0 with lines to delete, 1 rejected (2 export rows); 1 with a warning, ${result.warnings.length - 1} warnings reading the export (see Warnings)`,
    );
    // The same warnings as the run's result, which lists the export's first.
    expect(
      sheet<Record<string, string>>('Warnings')
        .map((row) => row['warning'])
        .sort(),
    ).toEqual([...result.warnings].sort());
    expect(result.rejectedRows).toBe(2);
    expect(await currentDetails(handle, (text) => text.startsWith('orders:'))).toBe(
      `orders: 0 created, 1 patched, 0 unchanged, 1 rejected (2 export rows) — rejects file: ${result.rejectsFile}`,
    );
  }, 300_000);

  // The run's result lists the warnings from reading the export (a hidden sheet not read, hidden rows pushed all the
  // same); the approver must see them before approving, in plan.html and the details the Web UI shows.
  it('the plan and the details awaiting approval carry the warnings from reading the export: a hidden sheet, hidden rows', async () => {
    const header = [
      'order_number',
      'supplier_code',
      'line_number',
      'product_external_id',
      'quantity',
      'unit',
    ];
    const orderSheet = XLSX.utils.aoa_to_sheet([
      header,
      ['HDN-PO-1', 'SUP-1001', 1, 'PLM-TEE-001-BLK', 3, 'pcs'],
      ['HDN-PO-2', 'SUP-1001', 1, 'PLM-TEE-001-BLK', 4, 'pcs'],
    ]);
    // Row 3 (1-based, header = 1) hidden, as a filter hides it.
    orderSheet['!rows'] = [{}, {}, { hidden: true }];
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet([header, ['HDN-OLD-1', 'SUP-1001', 1, 'PLM-TEE-001-BLK', 99, 'pcs']]),
      'Archive',
    );
    XLSX.utils.book_append_sheet(book, orderSheet, 'Orders');
    book.Workbook = {
      Sheets: [
        { name: 'Archive', Hidden: 1 },
        { name: 'Orders', Hidden: 0 },
      ],
    };
    const file = path.join(dir(), 'hidden.xlsx');
    writeFileSync(file, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);

    const handle = await startAwaiting(file, 'erp-orders');
    const details = await currentDetails(handle, (text) => text.includes('Awaiting approval'));
    const runDir = path.join(stack().config.dataDir, 'runs', handle.workflowId);
    const html = readFileSync(path.join(runDir, 'plan.html'), 'utf8');
    const warnings = XLSX.utils.sheet_to_json<Record<string, string>>(
      XLSX.readFile(path.join(runDir, 'plan.xlsx')).Sheets['Warnings'] as XLSX.WorkSheet,
    );
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as ErpResult;
    const hiddenSheet = result.warnings.find((w) => /hidden sheet\(s\) 'Archive'/.test(w));
    const hiddenRows = result.warnings.find((w) => /row of sheet 'Orders' is hidden/.test(w));
    expect({ hiddenSheet, hiddenRows }).toEqual({
      hiddenSheet: expect.any(String),
      hiddenRows: expect.any(String),
    });

    // 23 columns of the default profile the sheet lacks, the hidden sheet and the hidden rows: the run lists the first
    // 20 and says there are 5 more; the plan counts all 25.
    expect(result.warnings).toContain('and 5 more warnings reading the export (the first 20 are listed)');
    expect(details).toContain(
      '2 orders to create, 0 to update, 0 with lines to delete, 0 rejected; 25 warnings reading the export (see Warnings)',
    );
    expect(details).toContain(`- ${hiddenSheet}`);
    expect(details).toContain(`- ${hiddenRows}`);
    expect(html).toContain('25 warnings reading the export');
    expect(html).toMatch(
      new RegExp(
        `<h2>Warnings \\(${result.warnings.length}\\)</h2>[^]*hidden sheet\\(s\\) &#39;Archive&#39;`,
      ),
    );
    expect(warnings.map((row) => row['warning'])).toEqual(result.warnings);
    expect(warnings.every((row) => !row['orderNumber'])).toBe(true);
  }, 300_000);

  // The prepare step keeps the first 20 warnings from reading the export; the run must say how many it left out, and
  // the plan count them all.
  it('an export with more than 20 warnings says how many more there are, in the result and the details', async () => {
    // The default profile reads 29 columns; this export has 4 of them: 25 warnings, one a column it lacks.
    const file = path.join(dir(), 'few-columns.csv');
    writeFileSync(file, 'order_number,product_external_id,quantity,unit\nFEW-PO-1,PLM-TEE-001-BLK,3,pcs\n');
    const handle = await startAwaiting(file, 'erp-orders');
    const details = await currentDetails(handle, (text) => text.includes('Awaiting approval'));
    const runDir = path.join(stack().config.dataDir, 'runs', handle.workflowId);
    const html = readFileSync(path.join(runDir, 'plan.html'), 'utf8');
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as ErpResult;

    const missing = result.warnings.filter((w) =>
      /^column '.*' \(.*\) of profile 'default' is not in the export/.test(w),
    );
    expect(missing).toHaveLength(20);
    expect(result.warnings).toContain('and 5 more warnings reading the export (the first 20 are listed)');
    expect(details).toContain('25 warnings reading the export (see Warnings)');
    expect(html).toContain('25 warnings reading the export');
    expect(html).toContain('and 5 more warnings reading the export (the first 20 are listed)');
  }, 300_000);

  // As a cancel during the wait: the run never got to write, so "run it again to write the rest" would mislead.
  it('a run cancelled while it still makes its plan (its dry pass, before the wait): watch says nothing was written, the plan was never approved, run the input again for a new plan', async () => {
    const { control } = sandboxApi(stack);
    // CPL-PO-1 on the platform already: the dry pass reads it back (a new order it need not read).
    await stack().client.workflow.execute(erpOrders, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('cancel-planning-first'),
      args: [{ file: orders('cancel-planning-first.csv', line('CPL-PO-1', 5)) }],
    });
    const file = orders('cancel-planning.csv', line('CPL-PO-1', 7), line('CPL-PO-2', 6));
    // Each read of an order takes 10 s, so the cancel finds the run in its dry pass.
    await control('/__sandbox/faults', 'PUT', { latencyMs: 10_000, methods: ['GET'], pathPrefix: '/orders' });
    try {
      const handle = await stack().client.workflow.start(erpOrders, {
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('cancel-planning'),
        args: [{ file, approval: true }],
      });
      // Cancelled once the dry pass's first batch is under way.
      await cancelWhilePlanning(handle, 'applyErpOrderBatch');
      expect(await onPlatformOrder('CPL-PO-2')).toBeUndefined();
    } finally {
      await control('/__sandbox/faults', 'DELETE');
    }
  }, 300_000);

  it('a reject writes nothing', async () => {
    const handle = await startAwaiting(orders('rej-orders.csv', line('RJT-PO-1', 5)), 'erp-orders');
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as ErpResult;
    expect(result.approval).toMatchObject({ decision: 'rejected' });
    expect(result.orders).toMatchObject({ created: 0, patched: 0 });
    expect(await onPlatformOrder('RJT-PO-1')).toBeUndefined();
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('rejected');
  }, 300_000);
});
