/**
 * How the push reads real exports (report-style csv, encodings, xlsx cells) and what a user running the job sees
 * of it, on a real Temporal dev server and the sandbox over HTTP.
 * This file: xlsx workbooks (cells, sheets, dimensions, merges); csv exports are in erp-orders-reading.test.ts, the
 * shared setup in erp-stack.ts.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { withStaleDimension } from '../unit/stale-dimension';
import { erpReadingStack } from './erp-stack';

describe('erpOrders reading exports, on real Temporal and the sandbox', () => {
  const { dir, copiesOf, linesOf, push } = erpReadingStack();

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
      const file = path.join(dir(), 'cells-zeros.xlsx');
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
      const file = path.join(dir(), 'cells-1904.xlsx');
      await writeFile(file, workbook(true, '2'));
      const result = await push({ file });
      expect(result.orders).toMatchObject({ created: 1 });
      const [order] = await copiesOf('0024500012');
      expect(order?.orderDate).toBe('2024-03-01');
      expect(order?.deliveryDate).toBe('2024-03-02');
    });

    // Spec 01: order dates are calendar dates. SAP's YYYYMMDD lands in a workbook as the number 20261231, far past the
    // last Excel serial (9999-12-31): it is that day, in either date system. A true serial stays a date.
    it('a number cell 20261231 in a date column is YYYYMMDD; a date serial beside it stays a date', async () => {
      for (const date1904 of [false, true]) {
        const order = `XD-${date1904 ? '1904' : '1900'}`;
        const sheet = XLSX.utils.aoa_to_sheet([
          [
            'order_number',
            'supplier_code',
            'order_date',
            'delivery_date',
            'product_external_id',
            'quantity',
            'unit',
          ],
          [order, 'SUP-1001', 45352 - (date1904 ? 1462 : 0), 20261231, 'PLM-TEE-001-BLK', 5, 'pcs'],
        ]);
        const book = XLSX.utils.book_new();
        XLSX.utils.book_append_sheet(book, sheet, 'Orders');
        if (date1904) book.Workbook = { WBProps: { date1904: true } };
        const file = path.join(dir(), `${order}.xlsx`);
        await writeFile(file, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
        const result = await push({ file });
        expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
        expect((await copiesOf(order)).map((o) => [o.orderDate, o.deliveryDate])).toEqual([
          ['2024-03-01', '2026-12-31'],
        ]);
      }
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
      const file = path.join(dir(), 'hidden-first.xlsx');
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
  // Rows hidden by a filter (a cancelled order filtered out) or by hand are in the file, and the push reads the file:
  // they are pushed, but the user, who may not know they are there, is told how many and which.
  it('rows hidden in the sheet (a filter) are pushed, and a warning names how many and the first of them', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      ['order_number', 'supplier_code', 'line_number', 'product_external_id', 'quantity', 'unit'],
      ...Array.from({ length: 8 }, (_, i) => [`HR-${i + 1}`, 'SUP-1001', 1, 'PLM-TEE-001-BLK', i + 1, 'pcs']),
    ]);
    // Rows 3, 5, 6, 7, 8 and 9 (1-based, header = 1) hidden.
    sheet['!rows'] = [
      {},
      {},
      { hidden: true },
      {},
      { hidden: true },
      { hidden: true },
      { hidden: true },
      { hidden: true },
      { hidden: true },
    ];
    sheet['!autofilter'] = { ref: 'A1:F9' };
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Orders');
    const file = path.join(dir(), 'hidden-rows.xlsx');
    await writeFile(file, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 8, rejected: 0 });
    expect(await linesOf('HR-2')).toEqual(['1:2']);
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^6 rows of sheet 'Orders' are hidden \(rows 3, 5, 6, 7, 8 and 1 more\).*were pushed/,
        ),
      ]),
    );
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
    const file = path.join(dir(), 'stale-dimension.xlsx');
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
    const file = path.join(dir(), 'merged-across.xlsx');
    await writeFile(file, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const result = await push({ file });
    expect(result.orders).toMatchObject({ created: 1, rejected: 0 });
    const [order] = await copiesOf('MRG-1');
    expect(order?.shipmentReference).toBe('SHIP-77');
    expect(order?.tags ?? []).toEqual([]);
    expect(await linesOf('MRG-1')).toEqual(['1:4', '2:5']);
  });
});
