import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import * as XLSX from 'xlsx';
import {
  ExportReadError,
  formatOfFile,
  guessDelimiter,
  readCsv,
  readExportFile,
  readJson,
  readNdjson,
  readXlsx,
} from '../../../connectors/erp-orders/read';
import { withStaleDimension } from '../stale-dimension';

describe('csv', () => {
  it('guesses a semicolon delimiter, drops the BOM and numbers rows as a spreadsheet does', async () => {
    const table = await readCsv(
      '\uFEFForder_number;quantity;note\r\nPO-1;12,5;"two\nlines"\r\n\r\nPO-2;3;x\r\n',
    );
    expect(table.columns).toEqual(['order_number', 'quantity', 'note']);
    expect(table.rows.map((row) => [row.row, row.values['order_number']])).toEqual([
      [2, 'PO-1'],
      [4, 'PO-2'],
    ]);
    expect(table.rows[0]?.values['note']).toBe('two\nlines');
    expect(table.rows[0]?.values['quantity']).toBe('12,5');
  });

  it('reads tab and comma separated files from a stream, split across chunks and multi-byte characters', async () => {
    const text = 'order_number\tproduct\nPO-1\tJupe plissée\n';
    const bytes = Buffer.from(text, 'utf8');
    const cut = bytes.indexOf(Buffer.from('é')) + 1; // split inside the two-byte é
    const table = await readCsv(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]));
    expect(table.rows[0]?.values['product']).toBe('Jupe plissée');
    const commas = await readCsv('a,b\n1,2\n');
    expect(commas.rows[0]?.values).toEqual({ a: '1', b: '2' });
  });

  it('guesses the delimiter from the header line, ignoring quoted text', () => {
    expect(guessDelimiter('"a,b";c;d\n1,5;2;3')).toBe(';');
    expect(guessDelimiter('a|b|c\r\n')).toBe('|');
    expect(guessDelimiter('a\tb\n')).toBe('\t');
    expect(guessDelimiter('single\n')).toBe(',');
  });

  it('flags a row with more cells than the header instead of dropping them silently', async () => {
    const table = await readCsv('a,b\n1,2,3\n');
    expect(table.rows[0]?.problem).toMatch(/3 cells but the header has 2 columns/);
  });

  // Issue 17: a repeated name used to be renamed silently ('a (2)'); both jobs now refuse it.
  it('names an empty header cell by its position and refuses a repeated name', async () => {
    const table = await readCsv('a,b,\n1,2,3\n');
    expect(table.columns).toEqual(['a', 'b', 'column_3']);
    await expect(readCsv('a,A ,\n1,2,3\n')).rejects.toMatchObject({
      code: 'duplicate_headers',
      message: expect.stringMatching(
        /^header row 1 names the same column more than once: 'a' \(columns A, B\)/,
      ),
    });
  });

  it("with the profile's columns, refuses only a repeated name the profile reads; other repeats keep their cells", async () => {
    const table = await readCsv('PO,Name,Qty,name\n1,Acme,5,Tee\n', ['po', 'QTY']);
    expect(table.columns).toEqual(['PO', 'Name', 'Qty', 'name (column D)']);
    expect(table.rows[0]?.values).toEqual({ PO: '1', Name: 'Acme', Qty: '5', 'name (column D)': 'Tee' });
    await expect(readCsv('PO,Qty,qty\n1,5,6\n', ['PO', 'Qty'])).rejects.toMatchObject({
      code: 'duplicate_headers',
      message: expect.stringMatching(/'Qty' \(columns B, C\)/),
    });
  });

  it('reads a Windows-1252 export (older ERPs) without mangling accents', async () => {
    const table = await readCsv(Buffer.from('order_number;product\nPO-1;Café Crème Größe\n', 'latin1'));
    expect(table.rows[0]?.values['product']).toBe('Café Crème Größe');
  });

  it('refuses an empty file', async () => {
    await expect(readCsv('')).rejects.toThrow(ExportReadError);
  });
});

describe('xlsx', () => {
  function workbook(rows: unknown[][], origin = 'A1'): Buffer {
    const book = XLSX.utils.book_new();
    const sheet = XLSX.utils.aoa_to_sheet([]);
    XLSX.utils.sheet_add_aoa(sheet, rows, { origin });
    XLSX.utils.book_append_sheet(book, sheet, 'Orders');
    return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
  }

  it('keeps cell types and the sheet row numbers, skipping blank rows', () => {
    const table = readXlsx(
      workbook([
        ['order_number', 'quantity', 'order_date'],
        ['PO-1', 12.5, 45356],
        [],
        ['PO-2', 3, '2024-03-06'],
      ]),
    );
    expect(table.sheetName).toBe('Orders');
    expect(table.rows.map((row) => row.row)).toEqual([2, 4]);
    expect(table.rows[0]?.values).toEqual({ order_number: 'PO-1', quantity: 12.5, order_date: 45356 });
  });

  it('numbers rows from where the table starts on the sheet', () => {
    const table = readXlsx(workbook([['order_number'], ['PO-9']], 'B3'));
    expect(table.rows[0]?.row).toBe(4);
  });

  it('refuses a workbook that would inflate beyond the limit before inflating it', () => {
    const big = workbook([['order_number'], ...Array.from({ length: 200 }, (_, i) => [`PO-${i}`])]);
    expect(readXlsx(big).rows).toHaveLength(200);
    expect(() => readXlsx(big, undefined, 1000)).toThrow(/would inflate to .* more than the 0 MB allowed/);
  });

  // Some non-Excel writers leave the xlsx <dimension> tag stale; SheetJS takes the sheet's range from it.
  it('a stale <dimension> (A1:A2 over 4 data rows) loses no row', () => {
    const bytes = withStaleDimension(
      workbook([['order_number'], ['PO-1'], ['PO-2'], ['PO-3'], ['PO-4']]),
      'A1:A2',
    );
    expect(readXlsx(bytes).rows.map((row) => [row.row, row.values['order_number']])).toEqual([
      [2, 'PO-1'],
      [3, 'PO-2'],
      [4, 'PO-3'],
      [5, 'PO-4'],
    ]);
  });

  // A vertical merge groups an order's lines; a merge across columns is layout, not a value of each column.
  it('a merge fills down its first column only: cells it covers across columns stay blank', () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      ['order_number', 'supplier', 'reference', 'tags'],
      ['PO-1', 'SUP-1', 'REF-1', null],
      [null, null, null, 'x'],
    ]);
    sheet['!merges'] = [
      { s: { r: 1, c: 0 }, e: { r: 2, c: 1 } }, // a block: order number down its rows, supplier column left alone
      { s: { r: 1, c: 2 }, e: { r: 1, c: 3 } }, // across reference and tags
    ];
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Orders');
    const table = readXlsx(XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    expect(table.rows.map((row) => row.values)).toEqual([
      { order_number: 'PO-1', supplier: 'SUP-1', reference: 'REF-1', tags: null },
      { order_number: 'PO-1', supplier: null, reference: null, tags: 'x' },
    ]);
  });

  it('reads the first visible sheet by default, naming the hidden ones it passed over; a named hidden sheet is read', () => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['order_number'], ['OLD-1']]), 'Archive');
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['order_number'], ['PO-1']]), 'Orders');
    book.Workbook = {
      Sheets: [
        { name: 'Archive', Hidden: 1 },
        { name: 'Orders', Hidden: 0 },
      ],
    };
    const bytes = XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    const table = readXlsx(bytes);
    expect(table.sheetName).toBe('Orders');
    expect(table.rows.map((row) => row.values['order_number'])).toEqual(['PO-1']);
    expect(table.warnings).toEqual([expect.stringMatching(/^hidden sheet\(s\) 'Archive' were not read/)]);
    const named = readXlsx(bytes, 'Archive');
    expect(named.rows.map((row) => row.values['order_number'])).toEqual(['OLD-1']);
    expect(named.warnings).toBeUndefined();
  });

  it('names the sheets when the requested one is missing, and refuses non-xlsx bytes', () => {
    expect(() => readXlsx(workbook([['a']]), 'Lines')).toThrow(/sheet 'Lines' not found; sheets are: Orders/);
    expect(() => readXlsx(Buffer.from('not a workbook at all'))).toThrow(ExportReadError);
  });
});

describe('json and ndjson', () => {
  it('reads an array of objects, rows numbered by position, arrays kept as lists', async () => {
    const table = await readJson(
      JSON.stringify([{ order_number: 'PO-1', tags: ['a', 'b'], quantity: 2 }, { order_number: 'PO-2' }]),
    );
    expect(table.format).toBe('json');
    expect(table.columns).toEqual(['order_number', 'tags', 'quantity']);
    expect(table.rows[0]).toEqual({
      row: 1,
      values: { order_number: 'PO-1', tags: ['a', 'b'], quantity: 2 },
    });
    expect(table.rows[1]?.row).toBe(2);
  });

  it('reads NDJSON by line number, a malformed line becoming a row problem', async () => {
    const table = await readNdjson(
      '{"order_number":"PO-1"}\n\n{oops\n{"order_number":"PO-2","x":{"nested":1}}\n',
    );
    expect(table.format).toBe('ndjson');
    expect(table.rows.map((row) => row.row)).toEqual([1, 3, 4]);
    expect(table.rows[1]?.problem).toMatch(/not valid JSON/);
    expect(table.rows[1]?.rawText).toBe('{oops');
    expect(table.rows[2]?.problem).toMatch(/nested values are not supported in: 'x'/);
  });

  it('keeps a number as written where the value read would print otherwise (digits past 2^53, 1.50, 1e3)', async () => {
    const ndjson = await readJson(
      '{"order_number":9007199254740993,"quantity":1.50,"line_number":1e3,"ok":9007199254740992,' +
        '"s":"9\\"}","tags":[9007199254740993,"b",2]}\n{"a":1,"a":2.0}\n',
    );
    expect(ndjson.rows[0]).toEqual({
      row: 1,
      values: {
        order_number: 9007199254740992,
        quantity: 1.5,
        line_number: 1000,
        ok: 9007199254740992,
        s: '9"}',
        tags: ['9007199254740993', 'b', '2'],
      },
      numberTexts: { order_number: '9007199254740993', quantity: '1.50', line_number: '1e3' },
    });
    // A repeated key: the last value counts, as in JSON.parse.
    expect(ndjson.rows[1]?.numberTexts).toEqual({ a: '2.0' });
    const array = await readJson(
      '[ {"n": 9007199254740993, "x": {"skip": [1.0, "]"]}}, 7, {"n" : -0.0}, {"n": 12} ]',
    );
    expect(array.rows.map((row) => row.numberTexts)).toEqual([
      { n: '9007199254740993' },
      undefined,
      { n: '-0.0' },
      undefined,
    ]);
  });

  // "one clear, bounded error": a cut-off last line's parser reason quotes the line, control characters and all.
  it('names a cut-off last line with its control characters made visible', async () => {
    const cut = readNdjson('{"order_number":"PO-1"}\n{"order_number":\u0001\u0007}');
    await expect(cut).rejects.toThrow(/^the file looks cut off: its last line \(line 2\)/);
    const message = await cut.then(
      () => '',
      (error: unknown) => (error as Error).message,
    );
    // eslint-disable-next-line no-control-regex
    expect(message).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(message).toContain('\\u0001\\u0007');
  });

  it('tells NDJSON from a JSON array by content', async () => {
    expect((await readJson('{"a":1}\n{"a":2}')).format).toBe('ndjson');
    await expect(readJson('{"a":1}')).resolves.toMatchObject({ format: 'ndjson' });
    await expect(readJson('[{"a":1},')).rejects.toThrow(/not valid JSON/);
  });
});

describe('files', () => {
  it('chooses the reader by extension and refuses unknown ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'erp-read-'));
    const path = join(dir, 'orders.jsonl');
    writeFileSync(path, '{"order_number":"PO-1"}\n');
    await expect(readExportFile(path)).resolves.toMatchObject({ format: 'ndjson', rows: [{ row: 1 }] });
    expect(formatOfFile('x.XLSX')).toBe('xlsx');
    expect(() => formatOfFile('orders.pdf')).toThrow(/cannot tell the format of 'orders.pdf'/);
  });
});
