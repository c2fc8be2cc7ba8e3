import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import * as XLSX from 'xlsx';
import { erpOrders } from '../../workflows';
import type { PushErpOrdersResult } from '../../workflows/erp-orders';
import { buildDemoSeed } from '../../sandbox/seed/demo';
import { sandboxApi, type TestStack } from '../harness';
import { withStaleDimension } from '../unit/stale-dimension';
import { erpOrdersRunner, startJobStack } from './job-stack';

/**
 * How the push reads real exports (report-style csv, encodings, xlsx cells) and what a user running the job sees
 * of it, on a real Temporal dev server and the sandbox over HTTP.
 */
interface RawLine {
  id: string;
  orderLineNumber: string;
  quantity: number;
}
interface RawOrder {
  id: string;
  orderNumber: string;
  shipmentReference: string | null;
  orderDate: string | null;
  deliveryDate: string | null;
  tags: string[] | null;
  lines: RawLine[];
}

describe('erpOrders reading exports, on real Temporal and the sandbox', () => {
  let stack: TestStack;
  let dir: string;
  const { api } = sandboxApi(() => stack);
  const copiesOf = async (orderNumber: string): Promise<RawOrder[]> => {
    const listed = await api<RawOrder[]>(`/orders?limit=100&orderNumber=${encodeURIComponent(orderNumber)}`);
    return Promise.all(
      listed
        .filter((order) => order.orderNumber === orderNumber)
        .map((order) => api<RawOrder>(`/orders/${order.id}`)),
    );
  };
  const linesOf = async (orderNumber: string): Promise<string[]> =>
    (await copiesOf(orderNumber))
      .flatMap((order) => order.lines.map((line) => `${line.orderLineNumber}:${line.quantity}`))
      .sort();
  const push = erpOrdersRunner(() => stack, 'erp-reading');
  const csvRows = (file: string): Array<Record<string, string>> =>
    Papa.parse<Record<string, string>>(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    }).data;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('erp-reading-it-'));
  }, 60_000);

  afterAll(() => stack?.stop());

  // connectors/erp-orders/README: "Rows with blank parties join the order of the row above" and "The rejects file
  // carries every row of each rejected order (so a complete-export profile cannot delete lines when it is fed
  // back)". Report-style exports print the order number on an order's first row only.
  it('a row with a blank order number continues the order of the row above; no order is pushed in part', async () => {
    const header = 'order_number,supplier_code,line_number,product_external_id,quantity,unit';
    const file = path.join(dir, 'report-style.csv');
    await writeFile(
      file,
      [
        header,
        ',SUP-1001,9,PLM-TEE-001-BLK,1,pcs', // no order above it: refused alone
        'RPT-1,SUP-1001,1,PLM-TEE-001-BLK,10,pcs',
        ',,2,PLM-TEE-001-OWH,20,pcs',
        ',,3,PLM-JKT-010-NVY,30,pcs',
        'RPT-2,SUP-1001,1,PLM-TEE-001-BLK,5,pcs',
        ',,2,PLM-TEE-001-OWH,6,crates', // a bad line: the whole of RPT-2 waits in the rejects file
        '',
      ].join('\n'),
    );
    const first = await push({ file, complete: true });
    expect(first.orders).toMatchObject({ created: 1, rejected: 2 });
    expect(await linesOf('RPT-1')).toEqual(['1:10', '2:20', '3:30']);
    expect(await copiesOf('RPT-2')).toEqual([]);
    expect(first.rejections).toEqual([
      expect.objectContaining({
        orderNumber: '',
        code: 'missing_value',
        message: expect.stringContaining('row 2'),
      }),
      expect.objectContaining({ orderNumber: 'RPT-2', code: 'invalid_unit' }),
    ]);
    const rejects = csvRows(first.rejectsFile!);
    expect(rejects.map((row) => [row['order_number'], row['line_number'], row['error_code']])).toEqual([
      ['', '9', 'missing_value'],
      ['RPT-2', '1', 'invalid_unit'],
      ['', '2', 'invalid_unit'],
    ]);

    // The operator fixes the unit and pushes the rejects file as it is (blank numbers too), still complete.
    const fixed = path.join(dir, 'report-style-fixed.csv');
    await writeFile(
      fixed,
      [
        `${header},error_code,error_message`,
        'RPT-2,SUP-1001,1,PLM-TEE-001-BLK,5,pcs,,',
        ',,2,PLM-TEE-001-OWH,6,pcs,,',
        '',
      ].join('\n'),
    );
    const second = await push({ file: fixed, complete: true });
    expect(second.orders).toMatchObject({ created: 1, rejected: 0 });
    expect(await linesOf('RPT-2')).toEqual(['1:5', '2:6']);
    expect(await linesOf('RPT-1')).toHaveLength(3);
  });
  // Item 2 of the audit. README: the push "Reads csv (any delimiter, BOM, Windows-1252)", and input-limits says of
  // UTF-16 with a byte-order mark that "the csv readers decode it themselves". Spec 01 carries text as JSON strings:
  // what reaches the platform must be the characters the file holds, never U+FFFD.
  describe('csv text encodings, decided over the whole file', () => {
    const header =
      'order_number;supplier_code;tags;shipment_reference;line_number;product_external_id;quantity;unit';
    const row = (order: string, tag: string, reference: string) =>
      `${order};SUP-1001;${tag};${reference};1;PLM-TEE-001-BLK;10;pcs`;

    it('a Windows-1252 csv whose first 64 KB are ASCII keeps its later accented text', async () => {
      // An unmapped column of plain ASCII fills the first 90 KB; the accents come after it.
      const filler = 'x'.repeat(30_000);
      const lines = [
        `${header};note`,
        `${row('ENC-1A', 'core', 'REF-1')};${filler}`,
        `${row('ENC-1B', 'core', 'REF-1')};${filler}`,
        `${row('ENC-1C', 'core', 'REF-1')};${filler}`,
        `${row('ENC-2', 'Été 2025', 'Müller Köln')};`,
      ];
      const file = path.join(dir, 'late-accent.csv');
      await writeFile(file, Buffer.from(lines.join('\r\n') + '\r\n', 'latin1'));
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 4, rejected: 0 });
      const [order] = await copiesOf('ENC-2');
      expect(order?.shipmentReference).toBe('Müller Köln');
      expect(order?.tags).toEqual(['Été 2025']);
    });

    it('a UTF-16LE csv with a byte-order mark (Excel "Unicode Text") is decoded, its rejects file written alike', async () => {
      const text =
        [header, row('ENC-3', 'Été', 'Müller'), row('ENC-4', 'Été', 'SUP-unknown')].join('\r\n') + '\r\n';
      const file = path.join(dir, 'utf16.csv');
      await writeFile(
        file,
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from(text.replace('ENC-4;SUP-1001', 'ENC-4;SUP-9999'), 'utf16le'),
        ]),
      );
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
      const [order] = await copiesOf('ENC-3');
      expect(order?.shipmentReference).toBe('Müller');
      expect(order?.tags).toEqual(['Été']);
      const rejects = readFileSync(result.rejectsFile!);
      expect([...rejects.subarray(0, 2)]).toEqual([0xff, 0xfe]);
      expect(rejects.subarray(2).toString('utf16le').split('\r\n')[1]).toMatch(
        /^ENC-4;SUP-9999;Été;SUP-unknown;1;PLM-TEE-001-BLK;10;pcs;unknown_company;/,
      );
    });

    it("Excel's sep=; first line names the delimiter and is not the header", async () => {
      const file = path.join(dir, 'sep-line.csv');
      await writeFile(file, ['sep=;', header, row('ENC-5', 'core', 'REF-5'), ''].join('\r\n'));
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
      expect((await copiesOf('ENC-5'))[0]?.shipmentReference).toBe('REF-5');
    });
  });
  // Spec 03, Order.orderNumber: "exact match (no trimming or case folding)". Excel keeps an ERP number such as
  // 0004500012 as the number 4500012 in a zero-padding format; the number is what Excel shows. And a workbook saved
  // in the 1904 date system counts its date serials from 1904-01-01, 1462 days after Excel's 1900 epoch.
  describe('xlsx cells read as Excel shows them', () => {
    const workbook = (date1904: boolean, prefix: string): Buffer => {
      const shift = date1904 ? 1462 : 0;
      const sheet = XLSX.utils.aoa_to_sheet([
        [
          'order_number',
          'supplier_code',
          'order_date',
          'delivery_date',
          'line_number',
          'product_external_id',
        ],
      ]);
      XLSX.utils.sheet_add_aoa(sheet, [['product_code', 'quantity', 'unit']], { origin: 'G1' });
      const put = (address: string, cell: XLSX.CellObject): void => {
        sheet[address] = cell;
      };
      put('A2', { t: 'n', v: Number(`${prefix}4500012`), z: '0000000000' }); // shows 0014500012 (prefix 1)
      put('B2', { t: 's', v: 'SUP-1001' });
      put('C2', { t: 'n', v: 45352 - shift, z: 'yyyy-mm-dd' }); // shows 2024-03-01
      put('D2', { t: 'n', v: 45353 - shift }); // a serial in a General cell of a date column: 2024-03-02
      put('E2', { t: 'n', v: 10, z: '000' }); // shows 010
      put('F2', { t: 's', v: 'PLM-TEE-001-BLK' });
      put('H2', { t: 'n', v: 5 });
      put('I2', { t: 's', v: 'pcs' });
      put('A3', { t: 'n', v: Number(`${prefix}4500013`), z: '0000000000' });
      put('B3', { t: 's', v: 'SUP-1001' });
      put('E3', { t: 'n', v: 10, z: '000' });
      put('G3', { t: 'n', v: 12345, z: '00000000' }); // shows 00012345: an ERP_ID code value
      put('H3', { t: 'n', v: 5 });
      put('I3', { t: 's', v: 'pcs' });
      sheet['!ref'] = 'A1:I3';
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, sheet, 'Orders');
      if (date1904) book.Workbook = { ...(book.Workbook ?? {}), WBProps: { date1904: true } };
      return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    };

    it('"exact match (no trimming or case folding)": zero-padded number cells keep the zeros Excel shows', async () => {
      const file = path.join(dir, 'cells-zeros.xlsx');
      await writeFile(file, workbook(false, '1'));
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
      const [order] = await copiesOf('0014500012');
      expect(order?.lines.map((line) => line.orderLineNumber)).toEqual(['010']);
      expect(order?.orderDate).toBe('2024-03-01');
      expect(result.rejections).toEqual([
        expect.objectContaining({
          orderNumber: '0014500013',
          code: 'style_not_found',
          message: expect.stringContaining('00012345'),
        }),
      ]);
    });

    it('a 1904-date-system workbook gives the dates Excel shows, date-formatted or not', async () => {
      const file = path.join(dir, 'cells-1904.xlsx');
      await writeFile(file, workbook(true, '2'));
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 1 });
      const [order] = await copiesOf('0024500012');
      expect(order?.orderDate).toBe('2024-03-01');
      expect(order?.deliveryDate).toBe('2024-03-02');
    });
  });
  describe('xlsx sheets Excel users see', () => {
    const ORDER_HEADER = [
      'order_number',
      'supplier_code',
      'line_number',
      'product_external_id',
      'quantity',
      'unit',
    ];
    const bookOf = (sheets: ReadonlyArray<{ name: string; rows: unknown[][]; hidden?: 1 }>): Buffer => {
      const book = XLSX.utils.book_new();
      for (const sheet of sheets)
        XLSX.utils.book_append_sheet(
          book,
          XLSX.utils.aoa_to_sheet([ORDER_HEADER, ...sheet.rows]),
          sheet.name,
        );
      book.Workbook = { Sheets: sheets.map((sheet) => ({ name: sheet.name, Hidden: sheet.hidden ?? 0 })) };
      return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    };

    // A hidden sheet (an archived copy, a lookup list) is one Excel users never see.
    it('a hidden first sheet is not read: the first visible sheet is, and a warning names the hidden one', async () => {
      const file = path.join(dir, 'hidden-first.xlsx');
      await writeFile(
        file,
        bookOf([
          { name: 'Archive', rows: [['HID-OLD-1', 'SUP-1001', 1, 'PLM-TEE-001-BLK', 99, 'pcs']], hidden: 1 },
          { name: 'Orders', rows: [['HID-NEW-1', 'SUP-1001', 1, 'PLM-TEE-001-BLK', 7, 'pcs']] },
        ]),
      );
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
      expect(await copiesOf('HID-OLD-1')).toEqual([]);
      expect(await linesOf('HID-NEW-1')).toEqual(['1:7']);
      expect(result.warnings).toEqual(
        expect.arrayContaining([expect.stringMatching(/hidden sheet\(s\) 'Archive'.* not read/)]),
      );
    });
  });
  // Some non-Excel writers leave the xlsx <dimension> tag stale; SheetJS takes the sheet's range from it.
  it('a stale <dimension> (A1:F2 over 3 order lines) pushes every line', async () => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(
      book,
      XLSX.utils.aoa_to_sheet([
        ['order_number', 'supplier_code', 'line_number', 'product_external_id', 'quantity', 'unit'],
        ['DIM-1', 'SUP-1001', 1, 'PLM-TEE-001-BLK', 1, 'pcs'],
        ['DIM-1', 'SUP-1001', 2, 'PLM-TEE-001-OWH', 2, 'pcs'],
        ['DIM-2', 'SUP-1001', 1, 'PLM-TEE-001-BLK', 3, 'pcs'],
      ]),
      'Orders',
    );
    const file = path.join(dir, 'stale-dimension.xlsx');
    await writeFile(
      file,
      withStaleDimension(XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer, 'A1:F2'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 2, rejected: 0 });
    expect(await linesOf('DIM-1')).toEqual(['1:1', '2:2']);
    expect(await linesOf('DIM-2')).toEqual(['1:3']);
  });

  // A vertical merge groups an order's lines (a report prints its number once); a merge across columns is layout.
  it('a cell merged across shipment_reference and tags gives its value to shipment_reference only; a merged order number still covers its lines', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      [
        'order_number',
        'supplier_code',
        'shipment_reference',
        'tags',
        'line_number',
        'product_external_id',
        'quantity',
        'unit',
      ],
      // Cells a merge covers are absent, as Excel saves them.
      ['MRG-1', 'SUP-1001', 'SHIP-77', null, 1, 'PLM-TEE-001-BLK', 4, 'pcs'],
      [null, null, null, null, 2, 'PLM-TEE-001-OWH', 5, 'pcs'],
    ]);
    sheet['!merges'] = [
      { s: { r: 1, c: 0 }, e: { r: 2, c: 0 } },
      { s: { r: 1, c: 1 }, e: { r: 2, c: 1 } },
      { s: { r: 1, c: 2 }, e: { r: 1, c: 3 } },
    ];
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Orders');
    const file = path.join(dir, 'merged-across.xlsx');
    await writeFile(file, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    const [order] = await copiesOf('MRG-1');
    expect(order?.shipmentReference).toBe('SHIP-77');
    expect(order?.tags ?? []).toEqual([]);
    expect(await linesOf('MRG-1')).toEqual(['1:4', '2:5']);
  });

  // A German export's weight 0,250 (kg) pushed with the default profile (decimalSeparator '.'): "0,ddd" is never a
  // thousands group, so it is not 250; the row error says the profile's separator may be wrong.
  it("\"0,250\" with the profile's decimal separator '.' rejects its order naming row, column and the separator, never 250", async () => {
    const file = path.join(dir, 'german-quantity.csv');
    await writeFile(
      file,
      [
        'order_number,supplier_code,line_number,product_external_id,quantity,unit',
        'QTY-DE-1,SUP-1001,1,PLM-TEE-001-BLK,"0,250",kg',
        'QTY-DE-2,SUP-1001,1,PLM-TEE-001-BLK,"1,250",kg',
        '',
      ].join('\n'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
    expect(await copiesOf('QTY-DE-1')).toEqual([]);
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'QTY-DE-1',
        code: 'invalid_quantity',
        message: expect.stringMatching(/row 2.*quantity.*'0,250'.*decimalSeparator/),
      }),
    ]);
    expect(await linesOf('QTY-DE-2')).toEqual(['1:1250']);
  });

  // Approval (README, "erp-orders --approve"): the plan lists "creates, updates, deletes, rejects"; an order the
  // reader refused is a reject of the run as much as one the API would refuse, and the operator approves the plan.
  it('the approval plan counts and lists the orders refused while reading the export', async () => {
    const file = path.join(dir, 'plan-read-rejects.csv');
    await writeFile(
      file,
      [
        'order_number,supplier_code,order_date,line_number,product_external_id,quantity,unit',
        'PLN-OK-1,SUP-1001,2024-03-01,1,PLM-TEE-001-BLK,10,pcs',
        'PLN-BAD-1,SUP-1001,31/02/2024x,1,PLM-TEE-001-BLK,10,pcs',
        'PLN-BAD-2,NO-SUCH-SUPPLIER,2024-03-01,1,PLM-TEE-001-BLK,10,pcs',
        '',
      ].join('\n'),
    );
    const handle = await stack.client.workflow.start(erpOrders, {
      args: [{ file, approval: true }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-reading-plan'),
    });
    for (let i = 0; i < 240; i++) {
      const progress = (await handle.query('progress').catch(() => undefined)) as
        { phase?: string } | undefined;
      if (progress?.phase === 'awaiting approval') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const html = readFileSync(
      path.join(stack.config.dataDir, 'runs', handle.workflowId, 'plan.html'),
      'utf8',
    );
    expect(html).toContain('1 orders to create, 0 to update, 0 with lines to delete, 2 rejected');
    expect(html).toContain('PLN-BAD-1');
    expect(html).toContain('invalid_date');
    expect(html).toContain('PLN-BAD-2');
    expect(html).toContain('unknown_company');
    const book = XLSX.read(
      readFileSync(path.join(stack.config.dataDir, 'runs', handle.workflowId, 'plan.xlsx')),
    );
    const rejects = XLSX.utils.sheet_to_json<Record<string, string>>(book.Sheets['Rejects']!);
    expect(rejects.map((row) => [row['orderNumber'], row['code']])).toEqual([
      ['PLN-BAD-1', 'invalid_date'],
      ['PLN-BAD-2', 'unknown_company'],
    ]);
    await handle.signal('reject', { by: 'test', reason: 'checked the plan' });
    await handle.result();
  });
});

// Spec 03, GET /companies: the `internalCompanyCode` filter is a "case-insensitive substring" and the endpoint "maps an
// external company code to the platform company id". A code two companies share maps to neither; and the push reads
// codes one filter at a time or the whole network at once (whichever is fewer calls): both must give one answer.
describe('erpOrders company codes over a network of more than one page', () => {
  let stack: TestStack;
  let dir: string;
  const BRAND = 'cmp_brand_nordic_threads';
  const run = erpOrdersRunner(() => stack, 'erp-codes');
  const push = (file: string): Promise<PushErpOrdersResult> => run({ file });
  const csv = async (name: string, rows: ReadonlyArray<[string, string]>): Promise<string> => {
    const file = path.join(dir, name);
    const lines = rows.map(([order, code]) => `${order},${code},1,PLM-TEE-001-BLK,1,pcs`);
    await writeFile(
      file,
      ['order_number,supplier_code,line_number,product_external_id,quantity,unit', ...lines, ''].join('\n'),
    );
    return file;
  };

  beforeAll(async () => {
    const seed = buildDemoSeed(Date.now());
    const extra = [
      { id: 'cmp_dup_izmir', name: 'Anatolia Izmir', internalCompanyCode: 'DUP-1001' },
      { id: 'cmp_dup_bursa', name: 'Anatolia Bursa', internalCompanyCode: 'DUP-1001' },
      { id: 'cmp_case_only', name: 'Case Mills', internalCompanyCode: 'CASE-7' },
      ...Array.from({ length: 120 }, (_, n) => ({
        id: `cmp_fill_${n}`,
        name: `Filler ${n}`,
        internalCompanyCode: `FILL-${n}`,
      })),
    ].map((company) => ({ ...company, officialName: null, city: null, country: null, network: [BRAND] }));
    const companies = seed.companies.map((company) =>
      company.id === BRAND
        ? { ...company, network: [...company.network, ...extra.map((e) => e.id)] }
        : company,
    );
    ({ dir, stack } = await startJobStack('erp-codes-it-', {
      seed: { ...seed, companies: [...companies, ...extra] },
    }));
  }, 60_000);

  afterAll(() => stack?.stop());

  const refusal = (result: PushErpOrdersResult, orderNumber: string) =>
    result.rejections.find((rejection) => rejection.orderNumber === orderNumber);

  it('a code two companies share is refused for its order, naming both, whether read by code or whole network', async () => {
    // One code, a network of two pages: the code is looked up through the filter.
    const byCode = await push(await csv('one-code.csv', [['DUPC-1', 'DUP-1001']]));
    // Three codes, two pages: the whole network is read.
    const whole = await push(
      await csv('three-codes.csv', [
        ['DUPW-1', 'DUP-1001'],
        ['DUPW-2', 'SUP-1001'],
        ['DUPW-3', 'FILL-7'],
      ]),
    );
    expect(byCode.orders).toMatchObject({ created: 0, rejected: 1 });
    expect(whole.orders).toMatchObject({ created: 2, rejected: 1 });
    for (const rejected of [refusal(byCode, 'DUPC-1'), refusal(whole, 'DUPW-1')]) {
      expect(rejected?.message).toContain("'DUP-1001'");
      expect(rejected?.message).toContain('cmp_dup_izmir');
      expect(rejected?.message).toContain('cmp_dup_bursa');
    }
  });

  it('a code differing only in case resolves the same way on both read paths', async () => {
    const byCode = await push(await csv('case-one.csv', [['CASEC-1', 'case-7']]));
    const whole = await push(
      await csv('case-three.csv', [
        ['CASEW-1', 'case-7'],
        ['CASEW-2', 'SUP-1001'],
        ['CASEW-3', 'FILL-8'],
      ]),
    );
    expect(byCode.orders).toMatchObject({ created: 1, rejected: 0 });
    expect(whole.orders).toMatchObject({ created: 3, rejected: 0 });
  });
});
