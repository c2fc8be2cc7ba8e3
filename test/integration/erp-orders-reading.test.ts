/**
 * How the push reads real exports (report-style csv, encodings, xlsx cells) and what a user running the job sees
 * of it, on a real Temporal dev server and the sandbox over HTTP.
 * This file: csv exports and what a run shows of them; xlsx workbooks are in erp-orders-reading-xlsx.test.ts, the
 * shared setup in erp-stack.ts.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { erpOrders } from '../../workflows';
import { failureText } from '../harness/errors';
import { erpReadingStack } from './erp-stack';

describe('erpOrders reading exports, on real Temporal and the sandbox', () => {
  const { stack, dir, copiesOf, linesOf, push, csvRows } = erpReadingStack();

  // connectors/erp-orders/README: "Rows with blank parties join the order of the row above" and "The rejects file
  // carries every row of each rejected order (so a complete-export profile cannot delete lines when it is fed
  // back)". Report-style exports print the order number on an order's first row only.
  it('a row with a blank order number continues the order of the row above; no order is pushed in part', async () => {
    const header = 'order_number,supplier_code,line_number,product_external_id,quantity,unit';
    const file = path.join(dir(), 'report-style.csv');
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
    const fixed = path.join(dir(), 'report-style-fixed.csv');
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
      const file = path.join(dir(), 'late-accent.csv');
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
      const file = path.join(dir(), 'utf16.csv');
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
      const file = path.join(dir(), 'sep-line.csv');
      await writeFile(file, ['sep=;', header, row('ENC-5', 'core', 'REF-5'), ''].join('\r\n'));
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
      expect((await copiesOf('ENC-5'))[0]?.shipmentReference).toBe('REF-5');
    });
  });

  // A German export's weight 0,250 (kg) pushed with the default profile (decimalSeparator '.'): "0,ddd" is never a
  // thousands group, so it is not 250; the row error says the profile's separator may be wrong.
  it("\"0,250\" with the profile's decimal separator '.' rejects its order naming row, column and the separator, never 250", async () => {
    const file = path.join(dir(), 'german-quantity.csv');
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

  // Excel and SAP write a ';'-delimited csv where the comma is the decimal mark (German, French... locales), and SAP
  // writes quantities with three decimals: `10,000` ST is ten pieces. Spec 03: quantity "Positive, 2 decimals". With a
  // profile silent on decimalSeparator the delimiter decides, as the PLM import does; a profile that sets it wins.
  it("a ';'-delimited export with no decimalSeparator in the profile reads '10,000' as 10 and '1,250' as 1.25", async () => {
    const file = path.join(dir(), 'sap-quantities.csv');
    await writeFile(
      file,
      [
        'order_number;supplier_code;line_number;product_external_id;quantity;unit;secondary_quantity_kg',
        'QTY-SAP-1;SUP-1001;1;PLM-TEE-001-BLK;10,000;ST;1,250',
        'QTY-SAP-1;SUP-1001;2;PLM-TEE-001-OWH;1.250,500;KG;',
        '',
      ].join('\n'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    const [order] = await copiesOf('QTY-SAP-1');
    expect(order?.lines.map((line) => [line.orderLineNumber, line.quantity, line.secondaryQuantity])).toEqual(
      [
        ['1', 10, 1.25],
        ['2', 1250.5, null],
      ],
    );
  });

  // Spec 03, OrderLine.unit: "Any value of the unit enumeration (document 1); other values 400". SAP and EDI exports
  // write the UN/ECE Recommendation 20 codes (PCE, C62, KGM, MTR, MTK) and German ones with a period (`Stk.`): each is
  // the enumeration's unit, not a refused order.
  it("UN/ECE unit codes (PCE, C62, KGM, MTK) and abbreviations with a period (Stk.) are the enumeration's units", async () => {
    const file = path.join(dir(), 'ece-units.csv');
    await writeFile(
      file,
      [
        'order_number;supplier_code;line_number;product_external_id;quantity;unit',
        'UNIT-ECE-1;SUP-1001;1;PLM-TEE-001-BLK;2;PCE',
        'UNIT-ECE-1;SUP-1001;2;PLM-TEE-001-OWH;3;C62',
        'UNIT-ECE-1;SUP-1001;3;PLM-JKT-010-NVY;4;Stk.',
        'UNIT-ECE-1;SUP-1001;4;PLM-TEE-001-BLK;5;KGM',
        'UNIT-ECE-1;SUP-1001;5;PLM-TEE-001-OWH;6;MTK',
        '',
      ].join('\n'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    const [order] = await copiesOf('UNIT-ECE-1');
    expect(order?.lines.map((line) => [line.orderLineNumber, line.unit])).toEqual([
      ['1', 'PIECES'],
      ['2', 'PIECES'],
      ['3', 'PIECES'],
      ['4', 'KILOGRAM'],
      ['5', 'SQUARE_METRE'],
    ]);
  });

  // Spec 03, Order.status: "enum | `IN_PROGRESS`, `IN_REVIEW`, `COMPLETED`", a "free carrier of the caller's own
  // process state". ERP exports write their own words (Open, Released, Closed, Canceled): the profile's
  // statusAliases say which word is which value; a word with none rejects its order naming row, column, value and
  // the values it may be.
  it("ERP status words map to spec 03's statuses by the profile's statusAliases, in any case; an unmapped word is a clear reject", async () => {
    const rows = [
      'order_number,supplier_code,status,line_number,product_external_id,quantity,unit',
      'ST-1,SUP-1001,open,1,PLM-TEE-001-BLK,1,pcs',
      'ST-2,SUP-1001,RELEASED,1,PLM-TEE-001-BLK,1,pcs',
      'ST-3,SUP-1001,Closed,1,PLM-TEE-001-BLK,1,pcs',
      'ST-4,SUP-1001,Canceled,1,PLM-TEE-001-BLK,1,pcs',
      'ST-5,SUP-1001,completed,1,PLM-TEE-001-BLK,1,pcs',
      'ST-6,SUP-1001,On hold,1,PLM-TEE-001-BLK,1,pcs',
      '',
    ];
    const file = path.join(dir(), 'status-words.csv');
    await writeFile(file, rows.join('\n'));
    const mappingFile = path.join(dir(), 'status-words.json');
    await writeFile(
      mappingFile,
      JSON.stringify({
        name: 'status-words',
        columns: {
          orderNumber: 'order_number',
          supplierCompanyCode: 'supplier_code',
          status: 'status',
          orderLineNumber: 'line_number',
          productExternalId: 'product_external_id',
          quantity: 'quantity',
          unit: 'unit',
        },
        statusAliases: {
          Open: 'IN_PROGRESS',
          Released: 'IN_REVIEW',
          Closed: 'COMPLETED',
          Cancelled: 'COMPLETED',
          Canceled: 'COMPLETED',
        },
      }),
    );

    // Without aliases (the default profile), the words are refused, each naming its row and what to do.
    const plain = await push({ file, dryRun: true });
    expect(plain.orders).toMatchObject({ rejected: 5 });
    expect(plain.rejections).toContainEqual(
      expect.objectContaining({
        orderNumber: 'ST-1',
        code: 'invalid_value',
        message: expect.stringMatching(
          /row 2, column 'status'.*'open' is not an order status: IN_PROGRESS, IN_REVIEW, COMPLETED.*statusAliases/,
        ),
      }),
    );

    const result = await push({ file, mappingFile });
    expect(result.orders).toMatchObject({ created: 5, rejected: 1 });
    const statuses: Array<[string, string | undefined]> = [];
    for (const orderNumber of ['ST-1', 'ST-2', 'ST-3', 'ST-4', 'ST-5']) {
      const [order] = await copiesOf(orderNumber);
      statuses.push([orderNumber, (order as { status?: string } | undefined)?.status]);
    }
    expect(statuses).toEqual([
      ['ST-1', 'IN_PROGRESS'],
      ['ST-2', 'IN_REVIEW'],
      ['ST-3', 'COMPLETED'],
      ['ST-4', 'COMPLETED'],
      ['ST-5', 'COMPLETED'],
    ]);
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'ST-6',
        code: 'invalid_value',
        message: expect.stringMatching(
          /row 7, column 'status'.*'On hold' is not an order status: IN_PROGRESS, IN_REVIEW, COMPLETED, or a word of the profile's statusAliases \(Open, Released, Closed, Cancelled, Canceled\)/,
        ),
      }),
    ]);
  });

  // Spec 03, OrderLine.secondaryQuantity: "Positive, 2 decimals", not required. SAP writes a weight it has not got as
  // `0,000`: that is no weight (a blank cell), not a refused line.
  it("a zero secondary quantity ('0,000', SAP's no value) is a blank one; a zero quantity is still refused", async () => {
    const file = path.join(dir(), 'sap-zero-weight.csv');
    await writeFile(
      file,
      [
        'order_number;supplier_code;line_number;product_external_id;quantity;unit;secondary_quantity_kg',
        'QTY-ZW-1;SUP-1001;1;PLM-TEE-001-BLK;10,000;ST;0,000',
        'QTY-ZW-2;SUP-1001;1;PLM-TEE-001-BLK;0,000;ST;1,000',
        '',
      ].join('\n'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
    const [order] = await copiesOf('QTY-ZW-1');
    expect(order?.lines.map((line) => [line.quantity, line.secondaryQuantity])).toEqual([[10, null]]);
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'QTY-ZW-2',
        code: 'invalid_quantity',
        message: expect.stringMatching(/row 3, column 'quantity'.*not a positive quantity/),
      }),
    ]);
  });

  // Spec 01: order dates are calendar dates (`YYYY-MM-DD`); README: "Two-digit years are refused". Text of digits only
  // says no date: `261231` (YYMMDD) is no Excel serial 261231 (2615-03-23), nor `2026` serial 2026 (1905-07-18). Only
  // eight digits are a date, SAP's YYYYMMDD; SAP writes an empty date as `00000000` or `00.00.0000`.
  it("digits-only date text is refused naming row, column and text, except YYYYMMDD; SAP's 00000000 is blank", async () => {
    const file = path.join(dir(), 'digit-dates.csv');
    await writeFile(
      file,
      [
        'order_number,supplier_code,order_date,delivery_date,line_number,product_external_id,quantity,unit',
        'DT-1,SUP-1001,2026-01-05,261231,1,PLM-TEE-001-BLK,10,pcs',
        'DT-2,SUP-1001,2026,2026-12-31,1,PLM-TEE-001-BLK,10,pcs',
        'DT-3,SUP-1001,00000000,20261231,1,PLM-TEE-001-BLK,10,pcs',
        'DT-4,SUP-1001,00.00.0000,2026-12-30,1,PLM-TEE-001-BLK,10,pcs',
        'DT-5,SUP-1001,2026-01-05,20261331,1,PLM-TEE-001-BLK,10,pcs',
        '',
      ].join('\n'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 2, rejected: 3 });
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'DT-1',
        code: 'invalid_date',
        message: expect.stringMatching(/row 2, column 'delivery_date'.*'261231' is digits only/),
      }),
      expect.objectContaining({
        orderNumber: 'DT-2',
        code: 'invalid_date',
        message: expect.stringMatching(/row 3, column 'order_date'.*'2026' is digits only/),
      }),
      expect.objectContaining({
        orderNumber: 'DT-5',
        code: 'invalid_date',
        message: expect.stringMatching(/row 6, column 'delivery_date'.*'20261331'/),
      }),
    ]);
    expect(await copiesOf('DT-1')).toEqual([]);
    expect(await copiesOf('DT-2')).toEqual([]);
    expect((await copiesOf('DT-3')).map((o) => [o.orderDate, o.deliveryDate])).toEqual([
      [null, '2026-12-31'],
    ]);
    expect((await copiesOf('DT-4')).map((o) => [o.orderDate, o.deliveryDate])).toEqual([
      [null, '2026-12-30'],
    ]);
  });

  // README: a repeated header is refused because "guessing which of two `quantity` columns the profile means would
  // push wrong data". A NetSuite export repeats `Name` (customer, item) in columns the profile does not read: there is
  // nothing to guess, so only a repeated column the profile maps refuses the file; the rejects file keeps both.
  it('a repeated header the profile does not map is read (rejects file keeps both); a repeated mapped one refuses the file', async () => {
    const file = path.join(dir(), 'netsuite-names.csv');
    await writeFile(
      file,
      [
        'order_number,Name,supplier_code,Name,line_number,product_external_id,quantity,unit',
        'NS-1,Acme,SUP-1001,Merino tee,1,PLM-TEE-001-BLK,10,pcs',
        'NS-2,Acme,SUP-1001,Wool tee,1,PLM-TEE-001-BLK,10,crates',
        '',
      ].join('\n'),
    );
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 1 });
    expect(await linesOf('NS-1')).toEqual(['1:10']);
    const rejects = readFileSync(result.rejectsFile!, 'utf8').split('\n');
    expect(rejects[1]).toMatch(/^NS-2,Acme,SUP-1001,Wool tee,1,PLM-TEE-001-BLK,10,crates,invalid_unit,/);

    const mapped = path.join(dir(), 'two-quantities.csv');
    await writeFile(
      mapped,
      [
        'order_number,supplier_code,product_external_id,quantity,unit,Quantity',
        'NS-3,SUP-1001,PLM-TEE-001-BLK,10,pcs,12',
        '',
      ].join('\n'),
    );
    const failure = await push({ file: mapped }).then(
      () => 'completed',
      (error: unknown) => failureText(error, ' / '),
    );
    expect(failure).toMatch(/header row 1 names the same column more than once: 'quantity' \(columns D, F\)/);
    expect(await copiesOf('NS-3')).toEqual([]);
  });

  // The shipped eu profile against what SAP and Dynamics users really hand over: a UTF-8 csv with a BOM, ';'
  // separators, CRLF, decimal commas and three decimals, two exports pasted one under the other (the second's header,
  // BOM and all, is a data row now) and totals rows (an order's subtotal, the grand total) that carry a quantity
  // and a label at most. Spec 03: a line needs "styleId ... on create"; a row with no product and no line number
  // whose quantity is the sum of the lines above it is no line, and a repeated header is no order: neither may reject
  // a real order (a totals row used to join the order above and reject it, "the line names no product"; the header
  // row was a bogus order 'order_number' with twelve problems).
  it('a SAP-style csv with a repeated header line and totals rows pushes every order, the skipped rows named in warnings', async () => {
    const header =
      'order_number;supplier_code;receiver_code;buyer_facility_process;supplier_facility_process;receiver_facility_process;order_date;delivery_date;status;tags;line_number;product_external_id;product_code;quantity;unit;secondary_quantity_kg';
    const file = path.join(dir(), 'sap-pasted-exports.csv');
    const rows = [
      `\uFEFF${header}`,
      'SAP-TOT-1;SUP-1001;;Warehouse;Cut make trim;;01.03.2024;15.05.2024;IN_PROGRESS;;000010;PLM-TEE-001-BLK;;1.250,000;ST;0,000',
      'SAP-TOT-1;SUP-1001;;Warehouse;Cut make trim;;01.03.2024;15.05.2024;IN_PROGRESS;;000020;PLM-TEE-001-OWH;;250,000;ST;0,000',
      'SAP-TOT-1;;;;;;;;;;;;;1.500,000;ST;', // the order's subtotal, labelled with its number (row 4)
      `\uFEFF${header}`, // the second export's header (row 5)
      'SAP-TOT-2;SUP-1001;;;Cut make trim;;02.03.2024;;;;000010;PLM-JKT-010-NVY;;40,000;ST;18,750',
      'SAP-TOT-2;SUP-1001;;;Cut make trim;;02.03.2024;;;;000020;PLM-TEE-001-BLK;;10,000;ST;',
      ';;;;;;;;;;;;;1.550,000;;', // the grand total (row 8)
    ];
    await writeFile(file, `${rows.join('\r\n')}\r\n`, 'utf8');
    const mappingFile = path.join(process.cwd(), 'examples/erp/profile-eu.json');
    const first = await push({ file, mappingFile });
    expect(first.rejections).toEqual([]);
    expect(first.orders).toMatchObject({ created: 2, rejected: 0 });
    expect(await linesOf('SAP-TOT-1')).toEqual(['000010:1250', '000020:250']);
    expect(await linesOf('SAP-TOT-2')).toEqual(['000010:40', '000020:10']);
    expect(first.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/row 5 repeats the header row/),
        expect.stringMatching(/row 4 .*totals row/),
        expect.stringMatching(/row 8 .*totals row/),
      ]),
    );
    const again = await push({ file, mappingFile });
    expect(again.orders).toMatchObject({ created: 0, patched: 0, unchanged: 2, rejected: 0 });
  });

  // SAP S/4HANA ends a list export with a blank row and notes. Read as data they were three orders named after the
  // notes, each rejected (and written to the rejects file); they are skipped with one warning, as the PLM import does.
  it('notes below a SAP csv after a blank row are skipped with one warning; the orders are pushed, no rejects', async () => {
    const file = path.join(dir(), 'sap-notes.csv');
    const rows = [
      'order_number;supplier_code;line_number;product_external_id;quantity;unit',
      'SAP-NOTE-1;SUP-1001;000010;PLM-TEE-001-BLK;5,000;ST',
      'SAP-NOTE-1;SUP-1001;000020;PLM-TEE-001-OWH;6,000;ST',
      ';;;;;',
      'Generated by SAP S/4HANA on 30.11.2026 14:02;;;;;',
      'Printed by jsmith;;;;;',
      'Confidential;;;;;',
    ];
    await writeFile(file, `${rows.join('\r\n')}\r\n`, 'utf8');
    const result = await push({
      file,
      mappingFile: path.join(process.cwd(), 'examples/erp/profile-eu.json'),
    });
    expect(result.rejections).toEqual([]);
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    expect(result.rejectsFile).toBeNull();
    expect(await linesOf('SAP-NOTE-1')).toEqual(['000010:5', '000020:6']);
    expect(result.warnings).toContain(
      "rows 5, 6 and 7 below the data hold one text cell each ('Generated by SAP S/4HANA on 30.11.2026 14:02', " +
        "'Printed by jsmith', 'Confidential'): notes, not orders, skipped",
    );
  });

  // Approval (README, "erp-orders --approve"): the plan lists "creates, updates, deletes, rejects"; an order the
  // reader refused is a reject of the run as much as one the API would refuse, and the operator approves the plan.
  it('the approval plan counts and lists the orders refused while reading the export', async () => {
    const file = path.join(dir(), 'plan-read-rejects.csv');
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
    const handle = await stack().client.workflow.start(erpOrders, {
      args: [{ file, approval: true }],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('erp-reading-plan'),
    });
    for (let i = 0; i < 240; i++) {
      const progress = (await handle.query('progress').catch(() => undefined)) as
        { phase?: string } | undefined;
      if (progress?.phase === 'awaiting approval') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const html = readFileSync(
      path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.html'),
      'utf8',
    );
    expect(html).toContain('1 orders to create, 0 to update, 0 with lines to delete, 2 rejected');
    expect(html).toContain('PLN-BAD-1');
    expect(html).toContain('invalid_date');
    expect(html).toContain('PLN-BAD-2');
    expect(html).toContain('unknown_company');
    const book = XLSX.read(
      readFileSync(path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.xlsx')),
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
