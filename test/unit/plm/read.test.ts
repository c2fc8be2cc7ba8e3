import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { PlmFileError } from '../../../connectors/plm-import/issues';
import { detectDelimiter } from '../../../connectors/plm-import/read/csv';
import { openSheet } from '../../../connectors/plm-import/read/open-sheet';
import { withStaleDimension } from '../stale-dimension';
import { collect, fixtures, tempDir } from './helpers';

describe('openSheet: csv', () => {
  const dir = tempDir();
  afterAll(dir.cleanup);
  const write = (name: string, content: string | Buffer): string => {
    const path = join(dir.path, name);
    writeFileSync(path, content);
    return path;
  };

  it.each([
    [',', 'a,b,c\n1,2,3\n'],
    [';', 'a;b;c\n1,5;2;3\n'],
    ['\t', 'a\tb\tc\n1\t2\t3\n'],
    ['|', 'a|b|c\n"1|x"|2|3\n'],
  ])('detects the %j delimiter', async (delimiter, content) => {
    expect(detectDelimiter(content)).toBe(delimiter);
    const sheet = await openSheet(write(`d${content.length}.csv`, content));
    expect(sheet.delimiter).toBe(delimiter);
    expect(sheet.headers).toEqual(['a', 'b', 'c']);
  });

  it('skips title rows above the header, trims cells, skips blank rows and keeps sheet row numbers', async () => {
    const path = write(
      'title.csv',
      'Product export;;\n;;\nexternalId;name;note\n  A-1 ; Tee\u00a0;\n;;\n\nB-2;Shirt;"two\nlines"\nC-3;Coat;x\n',
    );
    const sheet = await openSheet(path);
    expect(sheet.headerRowNumber).toBe(3);
    const rows = await collect(sheet.rows());
    expect(rows).toEqual([
      { rowNumber: 4, cells: { externalId: 'A-1', name: 'Tee', note: null } },
      { rowNumber: 7, cells: { externalId: 'B-2', name: 'Shirt', note: 'two\nlines' } },
      { rowNumber: 8, cells: { externalId: 'C-3', name: 'Coat', note: 'x' } },
    ]);
  });

  // Audit (session 45), finding 3: the old trim regex took seconds per cell of inner spaces.
  it('trims only the ends of cells whose middle is 32,000 spaces or no-break spaces', async () => {
    const spaces = ' '.repeat(32_000);
    const noBreak = '\u00a0'.repeat(32_000);
    const rows = Array.from({ length: 20 }, (_, i) => `S-${i},Fine${spaces}knit,\u00a0 x${noBreak}y \u00a0`);
    const sheet = await openSheet(write('spaces.csv', `externalId,description,note\n${rows.join('\n')}\n`));
    const read = await collect(sheet.rows());
    expect(read).toHaveLength(20);
    expect(read[19]).toEqual({
      rowNumber: 21,
      cells: { externalId: 'S-19', description: `Fine${spaces}knit`, note: `x${noBreak}y` },
    });
  });

  it('streams its rows only once', async () => {
    const sheet = await openSheet(write('once.csv', 'a,b\n1,2\n'));
    await collect(sheet.rows());
    await expect(collect(sheet.rows())).rejects.toThrow(/only once/);
  });

  it('reads UTF-16LE text with a byte-order mark (Excel "Unicode text")', async () => {
    const path = write(
      'utf16.csv',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\tb\nCaf\u00e9\t2\n', 'utf16le')]),
    );
    const sheet = await openSheet(path);
    expect(sheet.encoding).toBe('utf-16le');
    expect(await collect(sheet.rows())).toEqual([{ rowNumber: 2, cells: { a: 'Café', b: '2' } }]);
  });

  it("reads Excel's sep=; first line as the delimiter, not as a row (connectors/csv-encoding.ts, shared)", async () => {
    const sheet = await openSheet(write('sep.csv', 'sep=;\r\na;b\r\nCaf\u00e9;2\r\n'));
    expect(sheet.delimiter).toBe(';');
    expect(await collect(sheet.rows())).toEqual([{ rowNumber: 2, cells: { a: 'Café', b: '2' } }]);
  });

  it('refuses more rows than maxRows while streaming', async () => {
    const path = write('many.csv', 'a,b\n' + '1,2\n'.repeat(50));
    const sheet = await openSheet(path, { maxRows: 10 });
    await expect(collect(sheet.rows())).rejects.toMatchObject({ code: 'too_many_rows' });
  });

  it('ignores error_code and error_message columns, so a rejects file reads like the original', async () => {
    const sheet = await openSheet(
      write('rejects.csv', 'a,b,error_code,error_message\n1,2,bad_number,row 2: oops\n'),
    );
    expect(sheet.headers).toEqual(['a', 'b']);
    expect(await collect(sheet.rows())).toEqual([{ rowNumber: 2, cells: { a: '1', b: '2' } }]);
  });

  it('says so when no row looks like a header', async () => {
    const path = write('numbers.csv', '1,2,3\n4,5,6\n');
    await expect(openSheet(path)).rejects.toMatchObject({
      code: 'no_header_row',
      message: expect.stringContaining('no header row'),
    });
  });

  it('reports a missing file clearly', async () => {
    await expect(openSheet(join(dir.path, 'nope.csv'))).rejects.toBeInstanceOf(PlmFileError);
  });
});

describe('openSheet: workbooks', () => {
  it('reads the sample xlsx with the header below the title rows and merged style cells copied to each row', async () => {
    const sheet = await openSheet(join(fixtures, 'flat.xlsx'));
    expect(sheet.format).toBe('xlsx');
    expect(sheet.headerRowNumber).toBe(3);
    const rows = await collect(sheet.rows());
    expect(rows.map((row) => row.rowNumber)).toEqual([4, 5, 6, 7, 8]);
    expect(rows.map((row) => row.cells['Style Name'])).toEqual([
      'Classic Tee',
      'Classic Tee',
      'Classic Tee',
      'Straight Jeans',
      'Straight Jeans',
    ]);
    expect(rows[0]?.cells['Weight (g)']).toBe(180);
  });

  // Some non-Excel writers leave the xlsx <dimension> tag stale; SheetJS takes the sheet's range from it.
  it('a stale <dimension> (A1:B2 over 5 data rows) loses no row; the row limit applies to the rows the sheet holds', async () => {
    const dir = tempDir();
    try {
      const book = XLSX.utils.book_new();
      const rows = [['externalId', 'name'], ...Array.from({ length: 5 }, (_, i) => [`ST-${i}`, `Tee ${i}`])];
      XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), 'Products');
      const path = join(dir.path, 'stale.xlsx');
      writeFileSync(
        path,
        withStaleDimension(XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer, 'A1:B2'),
      );
      const sheet = await openSheet(path);
      expect((await collect(sheet.rows())).map((row) => row.cells['externalId'])).toEqual([
        'ST-0',
        'ST-1',
        'ST-2',
        'ST-3',
        'ST-4',
      ]);
      await expect(openSheet(path, { maxRows: 3, headerScanRows: 1 })).rejects.toMatchObject({
        code: 'too_many_rows',
      });
    } finally {
      dir.cleanup();
    }
  });

  // A vertical merge is how PLM exports group a style's rows; a merge across columns is layout, not a value of each.
  it('a merge fills down its first column only: cells it covers across columns stay blank', async () => {
    const dir = tempDir();
    try {
      const sheet = XLSX.utils.aoa_to_sheet([
        ['Style', 'Description', 'Gender', 'SKU'],
        ['Tee', 'Long text', null, 'T-S'],
        [null, null, null, 'T-M'],
      ]);
      sheet['!merges'] = [
        { s: { r: 1, c: 0 }, e: { r: 2, c: 0 } },
        { s: { r: 1, c: 1 }, e: { r: 1, c: 2 } },
      ];
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, sheet, 'Products');
      const path = join(dir.path, 'merges.xlsx');
      writeFileSync(path, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
      expect((await collect((await openSheet(path)).rows())).map((row) => row.cells)).toEqual([
        { Style: 'Tee', Description: 'Long text', Gender: null, SKU: 'T-S' },
        { Style: 'Tee', Description: null, Gender: null, SKU: 'T-M' },
      ]);
    } finally {
      dir.cleanup();
    }
  });

  it('reads legacy .xls (BIFF8)', async () => {
    const sheet = await openSheet(join(fixtures, 'flat.xls'));
    expect(sheet.format).toBe('xls');
    expect((await collect(sheet.rows())).length).toBe(5);
  });

  it('picks a named sheet and names the sheets when it does not exist', async () => {
    const dir = tempDir();
    try {
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['notes'], ['hello']]), 'Readme');
      XLSX.utils.book_append_sheet(
        book,
        XLSX.utils.aoa_to_sheet([
          ['externalId', 'name'],
          ['A', 'Tee'],
        ]),
        'Products',
      );
      const path = join(dir.path, 'two.xlsx');
      XLSX.writeFile(book, path);
      const sheet = await openSheet(path, { sheetName: 'Products' });
      expect(await collect(sheet.rows())).toEqual([
        { rowNumber: 2, cells: { externalId: 'A', name: 'Tee' } },
      ]);
      await expect(openSheet(path, { sheetName: 'Nope' })).rejects.toMatchObject({
        code: 'sheet_not_found',
        message: expect.stringContaining('Readme, Products'),
      });
    } finally {
      dir.cleanup();
    }
  });

  // A GTIN or article number kept as a number cell formatted `000000000000` shows its leading zeros in Excel; the
  // identifier is that text (spec 01: codes carry "codeValue a non-empty string"). Other numbers stay numbers.
  it.each(['xlsx', 'biff8'] as const)(
    'reads a %s number cell in a zero-padding format as the text Excel shows',
    async (bookType) => {
      const dir = tempDir();
      try {
        const sheet = XLSX.utils.aoa_to_sheet([
          ['externalId', 'UPC_GTIN_12', 'weight'],
          [42, 12345678905, 180.5],
          ['B', 123456789012, 7],
        ]);
        for (const address of ['B2', 'B3']) (sheet[address] as XLSX.CellObject).z = '000000000000';
        (sheet['A2'] as XLSX.CellObject).z = '00000';
        (sheet['C2'] as XLSX.CellObject).z = '0000';
        (sheet['C3'] as XLSX.CellObject).z = '0.00';
        const book = XLSX.utils.book_new();
        XLSX.utils.book_append_sheet(book, sheet, 'Products');
        const path = join(dir.path, `zeros.${bookType === 'xlsx' ? 'xlsx' : 'xls'}`);
        XLSX.writeFile(book, path, { bookType });
        expect((await collect((await openSheet(path)).rows())).map((row) => row.cells)).toEqual([
          { externalId: '00042', UPC_GTIN_12: '012345678905', weight: 180.5 },
          { externalId: 'B', UPC_GTIN_12: 123456789012, weight: 7 },
        ]);
      } finally {
        dir.cleanup();
      }
    },
  );

  // Shared with the ERP push (connectors/workbook-cells.ts): a 1904-date-system workbook counts serials from
  // 1904-01-01; a date cell reads as the date Excel shows.
  it('reads a date cell of a 1904-date-system workbook as the date Excel shows', async () => {
    const dir = tempDir();
    try {
      const sheet = XLSX.utils.aoa_to_sheet([['externalId', 'launch']]);
      sheet['A2'] = { t: 's', v: 'A-1' };
      sheet['B2'] = { t: 'n', v: 45352 - 1462, z: 'yyyy-mm-dd' };
      sheet['!ref'] = 'A1:B2';
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, sheet, 'Products');
      book.Workbook = { ...book.Workbook, WBProps: { date1904: true } };
      const path = join(dir.path, 'dates-1904.xlsx');
      XLSX.writeFile(book, path);
      expect((await collect((await openSheet(path)).rows())).map((row) => row.cells)).toEqual([
        { externalId: 'A-1', launch: '2024-03-01' },
      ]);
    } finally {
      dir.cleanup();
    }
  });
});
