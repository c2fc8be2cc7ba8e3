import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { buildOrders, type BuildResult } from '../../../connectors/erp-orders/orders/build';
import { ExportMismatchError } from '../../../connectors/erp-orders/orders/export-needs';
import { DEFAULT_PROFILE, parseProfile, type MappingProfile } from '../../../connectors/erp-orders/profile';
import { readExportFile } from '../../../connectors/erp-orders/read';
import { ExportReadError, type ExportTable } from '../../../connectors/erp-orders/read/types';
import { largeOrderExport } from '../../bad-input/corpus';
import { CONTEXT } from './support';

/**
 * The bad-input corpus (test/fixtures/bad-input) through Job 2's readers, and ERP-shaped versions of the same
 * troubles made here. Every case ends in a clear error or per-row errors, within a few seconds (no hang), and never
 * with a crash (any error other than the readers' own two kinds fails the test).
 */

const corpus = join(__dirname, '..', '..', 'fixtures', 'bad-input');

type Outcome =
  | { kind: 'read-error'; message: string }
  | { kind: 'refused'; message: string; table: ExportTable }
  | { kind: 'built'; table: ExportTable; result: BuildResult };

/** Reads and builds one file, bounded in time; only the readers' own errors count as an outcome. */
async function outcomeOf(
  file: string,
  profile: MappingProfile = DEFAULT_PROFILE,
  limitMs = 10_000,
): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${file}: no outcome within ${limitMs} ms`)), limitMs);
  });
  const work = (async (): Promise<Outcome> => {
    let table: ExportTable;
    try {
      table = await readExportFile(file);
    } catch (error) {
      if (error instanceof ExportReadError) return { kind: 'read-error', message: error.message };
      throw error;
    }
    try {
      return { kind: 'built', table, result: buildOrders(table, profile, CONTEXT) };
    } catch (error) {
      if (error instanceof ExportMismatchError) return { kind: 'refused', message: error.message, table };
      throw error;
    }
  })();
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

const NO_DATA_ROWS = 'the file has a header row (row 1) but no data rows below it; there is nothing to push.';

const NOT_AN_ORDER_EXPORT =
  /^the export lacks column 'order_number' \(orderNumber\), column 'quantity' \(quantity\), column 'unit' \(unit\), a product column .* required by profile 'default'; its columns are: /;

/** What each corpus file gives through the ERP readers: whole-file refusals, or what the reader made of it. */
const CORPUS: Record<string, (outcome: Outcome) => void> = {
  'empty.csv': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message: 'the csv file is empty (0 bytes): no header row. Export the file again.',
    }),
  'binary-named.xlsx': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message: 'not an xlsx workbook (an xlsx file is a zip archive)',
    }),
  'zip-not-xlsx.xlsx': (o) =>
    expect(o).toMatchObject({
      kind: 'read-error',
      message: expect.stringMatching(/^not a readable xlsx workbook/),
    }),
  'zip-bomb.xlsx': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message:
        'the workbook would inflate to 300 MB, more than the 100 MB allowed; split the export or save it as csv',
    }),
  // Product sheets are not order exports: refused as a whole, naming what is missing and what the file has.
  // A header and no rows is refused whole, as the PLM import refuses it (issue 17: one answer for both jobs).
  'blank-lines.csv': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message: 'the csv file holds only blank lines: no header row. Export the file again.',
    }),
  'header-only.csv': (o) => expect(o).toEqual({ kind: 'read-error', message: NO_DATA_ROWS }),
  'header-only.xlsx': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message: NO_DATA_ROWS,
    }),
  'bad-code-type.csv': (o) => expect(o).toMatchObject({ kind: 'refused' }),
  'bad-rows.csv': (o) => expect(o).toMatchObject({ kind: 'refused' }),
  'dates-as-text.csv': (o) => expect(o).toMatchObject({ kind: 'refused' }),
  'semicolon-decimal-comma.csv': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: { columns: ['externalId', 'name', 'styleType', 'PLM_ID', 'weight', 'weightUnit'] },
    }),
  'utf8-bom.csv': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: { columns: ['externalId', 'name', 'styleType', 'PLM_ID'] },
    }),
  'windows-1252.csv': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: { rows: [{ values: { name: 'Café Crème Tee', description: 'Größe ½' } }] },
    }),
  'quoted-newlines.csv': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: { rows: [{ row: 2, values: { description: 'line one\nline two, with comma' } }, { row: 3 }] },
    }),
  'thousands-separators.csv': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: { rows: [{ values: { weight: '1,250.5' } }, {}, {}, { row: 5, values: { weight: '1,2,3' } }] },
    }),
  'unknown-delimiter.csv': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('its columns are: externalId:name:styleType:PLM_ID'),
    }),
  // A repeated header (case aside) is refused whole, as the PLM import refuses it: guessing which of the two
  // columns the profile means would push wrong data (issue 17; the reader used to rename the second silently).
  'duplicate-headers.csv': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message:
        "header row 1 names the same column more than once: 'name' (columns B, C). Rename or remove the extra columns and re-run.",
    }),
  'duplicate-headers.xlsx': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message:
        "header row 1 names the same column more than once: 'color' (columns B, D). Rename or remove the extra columns and re-run.",
    }),
  'formulas-and-errors.xlsx': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: { rows: [{ values: { name: 'Tee (from formula)' } }, { row: 3 }, { row: 4 }] },
    }),
  // Merged cells give their value to every row they cover (A2:A4 here).
  'merged-cells.xlsx': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: {
        rows: [
          { values: { 'Style Number': '1001', SKU: '1001-BLK-M' } },
          { values: { 'Style Number': '1001', SKU: '1001-BLK-L' } },
          { values: { 'Style Number': '1001', SKU: '1001-WHT-M' } },
        ],
      },
    }),
  'dates-serial.xlsx': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      table: {
        rows: [
          { values: { launchDate: 45731 }, formats: { launchDate: 'yyyy-mm-dd' } },
          { values: { launchDate: 45731 } },
        ],
      },
    }),
  // json / ndjson breakage (ERP-shaped rows under the unit tests' lookups).
  'orders-truncated.json': (o) =>
    expect(o).toMatchObject({
      kind: 'read-error',
      message: expect.stringMatching(/^not valid JSON: Unterminated string/),
    }),
  // No rows: said as such, not as "lacks column ... its columns are:" with an empty list.
  'orders-empty-array.json': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      message: "the file has no rows: there is no order line to read (profile 'default')",
      table: { rows: [] },
    }),
  'orders-blank.json': (o) =>
    expect(o).toMatchObject({
      kind: 'refused',
      message: "the file has no rows: there is no order line to read (profile 'default')",
      table: { rows: [] },
    }),
  // A .json holding an object (not an array) is refused whole, saying what a JSON export must be.
  'orders-object-not-array.json': (o) =>
    expect(o).toEqual({
      kind: 'read-error',
      message:
        "a JSON export must be an array of objects, one per order line, or NDJSON (one object per line); this file holds an object with keys 'orders'",
    }),
  'orders-non-object-lines.ndjson': (o) => {
    expect(o.kind).toBe('built');
    if (o.kind !== 'built') return;
    expect(o.result.drafts.map((d) => [d.orderNumber, d.lines.length])).toEqual([
      ['PO-J1', 2],
      ['PO-J2', 1],
    ]);
    expect(
      o.result.rejections.map((r) => [
        r.orderNumber,
        r.code,
        r.message.replace(/ \(and \d+ more problems\)$/, ''),
      ]),
    ).toEqual([
      ['', 'unreadable_row', 'row 3 (row): expected a JSON object, got number'],
      ['', 'unreadable_row', 'row 4 (row): expected a JSON object, got an array'],
      ['', 'unreadable_row', 'row 5 (row): expected a JSON object, got string'],
      ['PO-J3', 'unreadable_row', "row 6 (row): nested values are not supported in: 'supplier'"],
    ]);
  },
  // Cut mid-line (no newline after a last line that is not JSON): refused whole, naming the line.
  'orders-truncated.ndjson': (o) =>
    expect(o).toMatchObject({
      kind: 'read-error',
      message: expect.stringMatching(
        /^the file looks cut off: its last line \(line 4\) is not valid JSON \(.+\) and has no newline after it.*Export the file again$/,
      ),
    }),
};

describe('bad-input corpus through the ERP readers', () => {
  const files = readdirSync(corpus).sort();

  it('has an expected outcome for every file of the corpus', () => {
    expect(files.filter((file) => !(file in CORPUS))).toEqual([]);
  });

  it.each(files.filter((file) => file in CORPUS))('%s', async (file) => {
    const outcome = await outcomeOf(join(corpus, file));
    if (outcome.kind === 'refused' && !file.startsWith('orders-'))
      expect(outcome.message).toMatch(NOT_AN_ORDER_EXPORT);
    (CORPUS[file] as (o: Outcome) => void)(outcome);
  });

  // The cut line was PO-J1's third: pushing PO-J1 with two of its three lines (and, with a `complete` profile,
  // deleting the platform's third) is what refusing the file whole prevents.
  it('a truncated NDJSON export does not push the order whose line was cut', async () => {
    const outcome = await outcomeOf(join(corpus, 'orders-truncated.ndjson'));
    expect(outcome.kind).toBe('read-error');
    expect(outcome.kind === 'built' ? outcome.result.drafts.map((d) => d.orderNumber) : []).not.toContain(
      'PO-J1',
    );
  });
});

describe('ERP-shaped bad exports (made here)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'erp-bad-input-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const header =
    'order_number,supplier_code,supplier_facility_process,order_date,delivery_date,line_number,product_external_id,quantity,unit';
  const line = (
    n: string,
    l: number,
    extra: Partial<Record<'order_date' | 'delivery_date' | 'quantity', string>> = {},
  ) =>
    [
      n,
      'ACME',
      'CUT_MAKE_TRIM',
      extra.order_date ?? '2024-03-01',
      extra.delivery_date ?? '2024-04-01',
      String(l),
      'TSHIRT-RED-M',
      extra.quantity ?? '10',
      'pcs',
    ]
      .map((cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell))
      .join(',');
  const write = (name: string, content: string | Buffer): string => {
    const file = join(dir, name);
    writeFileSync(file, content);
    return file;
  };
  const built = async (file: string, profile?: MappingProfile): Promise<BuildResult> => {
    const outcome = await outcomeOf(file, profile);
    if (outcome.kind !== 'built') throw new Error(`${file}: ${outcome.kind}: ${outcome.message}`);
    return outcome.result;
  };
  const xlsxFile = (name: string, sheet: XLSX.WorkSheet): string => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Orders');
    return write(name, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
  };

  it('a header-only export is refused whole, as the PLM import refuses a header-only sheet', async () => {
    expect(await outcomeOf(write('header-only.csv', `${header}\n`))).toEqual({
      kind: 'read-error',
      message: NO_DATA_ROWS,
    });
  });

  it('a byte-order mark does not hide the first column, and Windows-1252 text keeps its accents', async () => {
    expect(
      (await built(write('bom.csv', `\uFEFF${header}\n${line('PO-BOM', 1)}\n`))).drafts.map(
        (d) => d.orderNumber,
      ),
    ).toEqual(['PO-BOM']);
    const latin1 = Buffer.from(`${header},tags\n${line('PO-ÆØÅ', 1)},Café\n`, 'latin1');
    expect((await built(write('cp1252.csv', latin1))).drafts.map((d) => d.orderNumber)).toEqual(['PO-ÆØÅ']);
  });

  it('a wrong delimiter is refused whole, naming the single column it saw', async () => {
    const outcome = await outcomeOf(
      write('colons.csv', `${header.replace(/,/g, ':')}\n${line('PO-1', 1).replace(/,/g, ':')}\n`),
    );
    expect(outcome).toMatchObject({
      kind: 'refused',
      message: expect.stringContaining(`its columns are: ${header.replace(/,/g, ':')}`),
    });
  });

  it('thousands separators: grouped quantities are read, an ambiguous one rejects its order only', async () => {
    const file = write(
      'thousands.csv',
      [
        header,
        line('PO-T1', 1, { quantity: '1,250' }),
        line('PO-T2', 1, { quantity: '1,250.5' }),
        line('PO-T3', 1, { quantity: '1,2,3' }),
      ].join('\n') + '\n',
    );
    const result = await built(file);
    expect(result.drafts.map((d) => [d.orderNumber, d.lines[0]?.quantity])).toEqual([
      ['PO-T1', 1250],
      ['PO-T2', 1250.5],
    ]);
    expect(result.rejections.map((r) => [r.orderNumber, r.code])).toEqual([
      ['PO-T3', expect.stringMatching(/quantity|number/)],
    ]);
  });

  it('dates as text: ISO, date-times and day-first are normalised, words reject their order only', async () => {
    const dmy = parseProfile({ ...DEFAULT_PROFILE, name: 'dmy', dateFormat: 'dmy' });
    const file = write(
      'dates.csv',
      [
        header,
        line('PO-D1', 1, { order_date: '15/03/2025' }),
        line('PO-D2', 1, { order_date: '2025-03-15T23:30:00+01:00' }),
        line('PO-D3', 1, { order_date: 'next week' }),
      ].join('\n') + '\n',
    );
    const result = await built(file, dmy);
    expect(result.drafts.map((d) => [d.orderNumber, d.orderDate])).toEqual([
      ['PO-D1', '2025-03-15'],
      ['PO-D2', '2025-03-15'],
    ]);
    expect(result.rejections).toEqual([
      expect.objectContaining({ orderNumber: 'PO-D3', message: expect.stringContaining("'next week'") }),
    ]);
  });

  it('dates as Excel serials: a date-formatted cell and a bare serial give the same day', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      header.split(','),
      ['PO-S1', 'ACME', 'CUT_MAKE_TRIM', 45731, 45761, '1', 'TSHIRT-RED-M', 10, 'pcs'],
    ]);
    (sheet.D2 as XLSX.CellObject).z = 'dd/mm/yyyy';
    const result = await built(xlsxFile('serials.xlsx', sheet));
    expect(result.drafts.map((d) => [d.orderDate, d.deliveryDate])).toEqual([['2025-03-15', '2025-04-14']]);
  });

  it('formulas: the cached result is used; an error in a required cell rejects the order', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      header.split(','),
      ['PO-F1', 'ACME', 'CUT_MAKE_TRIM', '2024-03-01', '2024-04-01', '1', 'TSHIRT-RED-M', 10, 'pcs'],
    ]);
    sheet.H2 = { t: 'n', v: 30, f: 'H1*3' };
    XLSX.utils.sheet_add_aoa(
      sheet,
      [['PO-F2', 'ACME', 'CUT_MAKE_TRIM', '2024-03-01', '2024-04-01', '1', 'TSHIRT-RED-M', null, 'pcs']],
      { origin: 'A3' },
    );
    sheet.H3 = { t: 'e', v: 0x2a, w: '#N/A', f: 'VLOOKUP(A3,Z:Z,2,0)' };
    const result = await built(xlsxFile('formulas.xlsx', sheet));
    expect(result.drafts.map((d) => [d.orderNumber, d.lines[0]?.quantity])).toEqual([['PO-F1', 30]]);
    expect(result.rejections.map((r) => r.orderNumber)).toEqual(['PO-F2']);
  });

  // A blank optional cell clears the platform's field; an error cell must not, so it rejects the order.
  it('an error cell (#N/A) in an optional column is a row error, not a blank that clears the field', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      header.split(','),
      ['PO-E1', 'ACME', 'CUT_MAKE_TRIM', '2024-03-01', null, '1', 'TSHIRT-RED-M', 10, 'pcs'],
    ]);
    sheet.E2 = { t: 'e', v: 0x2a, w: '#N/A', f: 'VLOOKUP(A2,Z:Z,2,0)' };
    const result = await built(xlsxFile('error-cell.xlsx', sheet));
    expect(result.drafts).toEqual([]);
    expect(result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'PO-E1',
        code: 'invalid_value',
        message: expect.stringMatching(
          /^row 2, column 'delivery_date' \(deliveryDate\): the cell holds the spreadsheet error #N\/A/,
        ),
      }),
    ]);
  });

  it('error cells without a cached text, and in a column the profile ignores', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      [...header.split(','), 'lookup_note'],
      ['PO-E2', 'ACME', 'CUT_MAKE_TRIM', '2024-03-01', '2024-04-01', '1', 'TSHIRT-RED-M', 10, 'pcs', null],
      ['PO-E3', 'ACME', 'CUT_MAKE_TRIM', '2024-03-01', '2024-04-01', '1', 'TSHIRT-RED-M', 10, 'pcs', 'ok'],
    ]);
    sheet.J2 = { t: 'e', v: 0x17 };
    sheet.H3 = { t: 'e', v: 0x07 };
    const outcome = await outcomeOf(xlsxFile('error-cells.xlsx', sheet));
    if (outcome.kind !== 'built') throw new Error(`unexpected ${outcome.kind}`);
    expect(outcome.table.rows.map((row) => row.cellErrors)).toEqual([
      { lookup_note: '#REF!' },
      { quantity: '#DIV/0!' },
    ]);
    expect(outcome.result.drafts.map((d) => d.orderNumber)).toEqual(['PO-E2']);
    expect(outcome.result.rejections).toEqual([
      expect.objectContaining({
        orderNumber: 'PO-E3',
        message: expect.stringMatching(
          /^row 3, column 'quantity' \(quantity\): the cell holds the spreadsheet error #DIV\/0!/,
        ),
      }),
    ]);
    expect(outcome.result.rejections[0]?.problems).toHaveLength(1);
  });

  // Merged order-number (and header) cells: every row of the range gets the top-left value.
  it('merged order-number cells keep every line with its order (or reject the order whole)', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      header.split(','),
      ['PO-M1', 'ACME', 'CUT_MAKE_TRIM', '2024-03-01', '2024-04-01', '1', 'TSHIRT-RED-M', 10, 'pcs'],
      [null, null, null, null, null, '2', 'TSHIRT-RED-M', 20, 'pcs'],
      [null, null, null, null, null, '3', 'TSHIRT-RED-M', 30, 'pcs'],
    ]);
    sheet['!merges'] = [0, 1, 2, 3, 4].map((c) => ({ s: { r: 1, c }, e: { r: 3, c } }));
    const result = await built(xlsxFile('merged.xlsx', sheet));
    const pushed = result.drafts.find((d) => d.orderNumber === 'PO-M1');
    expect(pushed === undefined || pushed.lines.length === 3).toBe(true);
    expect(result.rejections).toEqual([]);
    expect(pushed?.lines.map((l) => l.quantity)).toEqual([10, 20, 30]);
    expect(pushed?.deliveryDate).toBe('2024-04-01');
  });

  it('a .json file: one-line NDJSON is read, a lone JSON value is refused, a cut NDJSON is refused', async () => {
    const object = (n: string, l: number) =>
      JSON.stringify({
        order_number: n,
        supplier_code: 'ACME',
        supplier_facility_process: 'CUT_MAKE_TRIM',
        line_number: String(l),
        product_external_id: 'TSHIRT-RED-M',
        quantity: 10,
        unit: 'pcs',
      });
    expect(
      (await built(write('one.json', `${object('PO-N1', 1)}\n`))).drafts.map((d) => d.orderNumber),
    ).toEqual(['PO-N1']);
    expect(await outcomeOf(write('scalar.json', '"orders"\n'))).toEqual({
      kind: 'read-error',
      message:
        'a JSON export must be an array of objects, one per order line, or NDJSON (one object per line); this file holds a string',
    });
    const cut = `${object('PO-N2', 1)}\n${object('PO-N2', 2).slice(0, 40)}`;
    expect(await outcomeOf(write('cut.json', cut))).toMatchObject({
      kind: 'read-error',
      message: expect.stringMatching(/^the file looks cut off: its last line \(line 2\)/),
    });
    // A bad last line that does end with a newline is a row problem, not a cut file.
    const bad = await built(write('bad-last.ndjson', `${object('PO-N3', 1)}\n{not json}\n`));
    expect(bad.drafts.map((d) => d.orderNumber)).toEqual(['PO-N3']);
    expect(bad.rejections.map((r) => r.code)).toEqual(['unreadable_row']);
  });

  it('an NDJSON file whose rows are all unreadable says so rather than listing no columns', async () => {
    const outcome = await outcomeOf(write('all-bad.ndjson', '{oops\n{still oops}\n'));
    expect(outcome).toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(
        /^none of the file's 2 rows could be read \(row 1: line is not valid JSON/,
      ),
    });
  });

  it('duplicate headers: the file is refused, naming the column and both places (no silent rename)', async () => {
    const file = write('dup.csv', `${header},quantity\n${line('PO-DUP', 1)},99\n`);
    expect(await outcomeOf(file)).toEqual({
      kind: 'read-error',
      message:
        "header row 1 names the same column more than once: 'quantity' (columns H, J). Rename or remove the extra columns and re-run.",
    });
  });

  // How long this takes is a figure of bench/large-input.ts (erp-50mb-export); here the timeouts only catch a stall.
  it('a 50 MB export is read and grouped whole: every row, four lines an order, none rejected', async () => {
    const file = join(dir, 'big.csv');
    const rows = largeOrderExport(file, 50 * 1024 * 1024);
    const outcome = await outcomeOf(file, DEFAULT_PROFILE, 240_000);
    expect(outcome.kind).toBe('built');
    if (outcome.kind !== 'built') return;
    expect(outcome.table.rows).toHaveLength(rows);
    expect(outcome.result.drafts).toHaveLength(Math.ceil(rows / 4));
    expect(outcome.result.rejections).toEqual([]);
  }, 300_000);
});
