/**
 * The generated part of the bad-input corpus: hostile and huge files as an attacker or a careless exporter would
 * make them. They are written at test time (the big ones would be megabytes of blobs in git); the small, committed
 * part lives in test/fixtures/bad-input. Run alone to look at them:
 *   node bin/run-ts.cjs test/bad-input/corpus.ts /tmp/corpus
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { writeZip } from '../fixtures/plm/zip-writer';

/** The header of an ERP order export (default profile) that is also nothing like a product sheet. */
export const ORDER_HEADER = [
  'order_number',
  'supplier_code',
  'supplier_facility_process',
  'order_date',
  'line_number',
  'product_external_id',
  'quantity',
  'unit',
] as const;

/** One order line in the default profile's columns. */
export function orderLine(orderNumber: string, line = 1): string[] {
  return [
    orderNumber,
    'SUP-1001',
    'Cut make trim',
    '2024-03-01',
    String(line),
    'PLM-TEE-001-BLK',
    '10',
    'PIECES',
  ];
}

function csvText(rows: ReadonlyArray<readonly string[]>): string {
  const field = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  return rows.map((row) => row.map(field).join(',')).join('\n') + '\n';
}

function workbook(rows: unknown[][], patch?: (sheet: XLSX.WorkSheet) => void): Buffer {
  const sheet = XLSX.utils.aoa_to_sheet(rows);
  patch?.(sheet);
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Sheet1');
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}

/** A file of `bytes` made of `unit` repeated, written in 1 MB pieces. */
function repeated(path: string, unit: string, bytes: number, prefix = ''): void {
  const fd = openSync(path, 'w');
  try {
    if (prefix) writeSync(fd, prefix);
    const piece = unit.repeat(Math.ceil((1024 * 1024) / unit.length));
    for (let written = 0; written < bytes; written += piece.length) writeSync(fd, piece);
  } finally {
    closeSync(fd);
  }
}

interface CfbApi {
  utils: { cfb_new(): unknown; cfb_add(container: unknown, name: string, content: Buffer): void };
  write(container: unknown, options: { type: 'buffer' }): Buffer;
}

/**
 * An Office file encrypted with a password to open, as Excel saves it: an OLE2 compound file holding
 * `EncryptionInfo` and `EncryptedPackage` streams (their content here is filler: no reader gets that far).
 */
function passwordProtectedWorkbook(): Buffer {
  const cfb = (XLSX as unknown as { CFB: CfbApi }).CFB;
  const container = cfb.utils.cfb_new();
  cfb.utils.cfb_add(
    container,
    '/EncryptionInfo',
    Buffer.concat([Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]), Buffer.alloc(512, 1)]),
  );
  cfb.utils.cfb_add(container, '/EncryptedPackage', Buffer.alloc(4096, 7));
  return cfb.write(container, { type: 'buffer' });
}

/** Column letters of the first 26 columns are enough here. */
const letter = (c: number): string => String.fromCharCode(65 + c);
const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A workbook zipped by hand: SheetJS's writer refuses what a hostile file may hold (a cell over 32,767 characters). */
function rawWorkbook(rows: Iterable<readonly string[]>): Buffer {
  const parts: string[] = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>',
  ];
  let r = 0;
  for (const row of rows) {
    r += 1;
    const cells = row.map(
      (text, c) => `<c r="${letter(c)}${r}" t="inlineStr"><is><t>${escapeXml(text)}</t></is></c>`,
    );
    parts.push(`<row r="${r}">${cells.join('')}</row>`);
  }
  parts.push('</sheetData></worksheet>');
  return sheetXmlWorkbook(Buffer.from(parts.join(''), 'utf8'));
}

/** A one-sheet workbook whose sheet XML is given whole (a hostile file's `<dimension>`, merges, styled rows...). */
export function sheetXmlWorkbook(sheetXml: Buffer): Buffer {
  const xml = (text: string) => Buffer.from(text, 'utf8');
  return writeZip([
    {
      name: '[Content_Types].xml',
      content: xml(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
      ),
    },
    {
      name: '_rels/.rels',
      content: xml(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
      ),
    },
    {
      name: 'xl/workbook.xml',
      content: xml(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
      ),
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      content: xml(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
      ),
    },
    { name: 'xl/worksheets/sheet1.xml', content: sheetXml },
  ]);
}

const SHEET_START =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">';
const row = (r: number, cells: readonly string[]): string =>
  `<row r="${r}">${cells.map((text, c) => `<c r="${letter(c)}${r}" t="inlineStr"><is><t>${text}</t></is></c>`).join('')}</row>`;

/** A header and one data row, then `merges` copies of one merge of 10,000 rows below it (15 KB zipped for 200,000). */
export function manyMerges(header: readonly string[], data: readonly string[], merges: number): Buffer {
  const parts = [SHEET_START, '<sheetData>', row(1, header), row(2, data), '</sheetData>'];
  parts.push(`<mergeCells count="${merges}">`);
  for (let i = 0; i < merges; i++) parts.push('<mergeCell ref="A2:A10001"/>');
  parts.push('</mergeCells></worksheet>');
  return sheetXmlWorkbook(Buffer.from(parts.join('')));
}

/** A header and one data row, then `rows` rows holding only a styled blank cell in column XFD (1 MB zipped for 200,000). */
export function farRightStubs(header: readonly string[], data: readonly string[], rows: number): Buffer {
  const parts = [SHEET_START, '<sheetData>', row(1, header), row(2, data)];
  for (let r = 3; r < 3 + rows; r++) parts.push(`<row r="${r}"><c r="XFD${r}" s="1"/></row>`);
  parts.push('</sheetData></worksheet>');
  return sheetXmlWorkbook(Buffer.from(parts.join('')));
}

/** `rows` rows holding only a styled blank cell in column XFD, then the header and one data row below them. */
export function headerBelowStubs(header: readonly string[], data: readonly string[], rows: number): Buffer {
  const parts = [SHEET_START, '<sheetData>'];
  for (let r = 1; r <= rows; r++) parts.push(`<row r="${r}"><c r="XFD${r}" s="1"/></row>`);
  parts.push(row(rows + 1, header), row(rows + 2, data), '</sheetData></worksheet>');
  return sheetXmlWorkbook(Buffer.from(parts.join('')));
}

/**
 * The worst workbook under the limits: `rows` rows of 10 text cells each, as inline strings (no shared-string table
 * to help), zipped. SheetJS needs seconds for it, all of it CPU: what must not run on the worker's event loop.
 */
export function heavyWorkbook(rows: number): Buffer {
  const columns = ['sku', 'colour', 'size', 'fabric', 'note', 'a', 'b', 'c', 'd', 'e'];
  function* all(): Generator<string[]> {
    yield columns;
    for (let r = 2; r <= rows + 1; r++) yield columns.map((name, c) => `${name}-${r}-${c}`);
  }
  return rawWorkbook(all());
}

/** A csv of `header` then `line(0)`, `line(1)`, ... until it holds `bytes` or a little more. Returns the data rows. */
export function largeCsv(path: string, header: string, bytes: number, line: (row: number) => string): number {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `${header}\n`);
    let written = 0;
    let rows = 0;
    while (written < bytes) {
      const chunk: string[] = [];
      for (let i = 0; i < 2_000; i++, rows++) chunk.push(line(rows));
      written += writeSync(fd, chunk.join('\n') + '\n');
    }
    return rows;
  } finally {
    closeSync(fd);
  }
}

/**
 * A large but well-formed ERP order export (csv, default profile, suppliers of test/unit/erp/support's CONTEXT):
 * `bytes` or a little more of order lines, four to an order, each with a 200-character note. Returns the data rows.
 */
export function largeOrderExport(path: string, bytes: number): number {
  const note = 'x'.repeat(200);
  return largeCsv(
    path,
    'order_number,supplier_code,supplier_facility_process,order_date,delivery_date,line_number,product_external_id,quantity,unit,note',
    bytes,
    (row) =>
      `PO-BIG-${Math.floor(row / 4)},ACME,CUT_MAKE_TRIM,2024-03-01,2024-04-01,${(row % 4) + 1},TSHIRT-RED-M,10,pcs,${note}`,
  );
}

/** Rows of the heavy workbook in the corpus: a few seconds of SheetJS on a quiet machine. */
export const HEAVY_WORKBOOK_ROWS = 60_000;

/**
 * Writes the generated corpus into `dir` and returns the file names. Names say what each file is; the expected
 * outcome of each, per job, is in test/integration/bad-input-jobs.test.ts.
 */
export function generateCorpus(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const put = (name: string, content: string | Buffer): void => {
    writeFileSync(join(dir, name), content);
    files.push(name);
  };
  const header = [...ORDER_HEADER];

  // Headers: repeated names (the old quadratic rename), a header past the length limit, too many columns.
  put(
    'gen-header-1500-repeated-note.csv',
    `externalId,order_number,name,${Array(1500).fill('note').join(',')}\nX-1,PO-1,n,${Array(1500).fill('x').join(',')}\n`,
  );
  put('gen-header-30000-repeated-note.csv', `${Array(30000).fill('note').join(',')}\n1\n`);
  repeated(join(dir, 'gen-10mb-of-y-comma.csv'), 'y,', 10 * 1024 * 1024);
  files.push('gen-10mb-of-y-comma.csv');
  repeated(join(dir, 'gen-one-10mb-line.csv'), 'abcdefghij', 10 * 1024 * 1024);
  files.push('gen-one-10mb-line.csv');
  put('gen-2500-columns.csv', `${Array.from({ length: 2500 }, (_, i) => `c${i}`).join(',')}\n1\n`);
  put(
    'gen-duplicate-order-columns.csv',
    csvText([
      [...header, 'quantity'],
      [...orderLine('PO-DUP-1'), '99'],
    ]),
  );

  // Cells and lines: a 3 MB line, a cell over Excel's 32,767 characters, 500,000 quoted line breaks in one cell.
  put('gen-3mb-order-number-line.csv', csvText([header, orderLine('P'.repeat(3 * 1024 * 1024))]));
  // Both jobs' columns, so the PLM import reaches the rows too (it checks the profile's columns first).
  const both = [...header, 'externalId', 'name'];
  put('gen-40k-char-cell.csv', csvText([both, [...orderLine(`PO-${'9'.repeat(40_000)}`), 'X-1', 'n']]));
  put('gen-500k-quoted-line-breaks.csv', `${both.join(',')}\n"${'\n'.repeat(500_000)}",x\n`);
  put(
    'gen-3mb-order-number.json',
    JSON.stringify([
      Object.fromEntries(
        header.map((name, i) => [name, i === 0 ? 'Q'.repeat(3 * 1024 * 1024) : orderLine('x')[i]]),
      ),
    ]),
  );
  put('gen-40k-char-cell.xlsx', rawWorkbook([header, orderLine(`PO-${'8'.repeat(40_000)}`)]));

  // Quotes, NUL bytes, encodings.
  put(
    'gen-unbalanced-quote.csv',
    `${header.join(',')}\n${orderLine('"PO-Q1').join(',')}\n${orderLine('PO-Q2').join(',')}\n${orderLine('PO-Q3').join(',')}\n`,
  );
  put(
    'gen-quote-swallows-next-row.csv',
    `${header.join(',')}\n${orderLine('"PO-Q1').join(',')}\n${orderLine('"PO-Q2"').join(',')}\n`,
  );
  put('gen-nul-in-order-number.csv', `${header.join(',')}\n${orderLine('PO-\u0000-1').join(',')}\n`);
  put(
    'gen-utf16-without-bom.csv',
    Buffer.from(`${header.join(',')}\n${orderLine('PO-U16').join(',')}\n`, 'utf16le'),
  );
  put(
    'gen-nul-in-order-number.json',
    JSON.stringify([
      Object.fromEntries(header.map((name, i) => [name, i === 0 ? 'PO-\u0000-J' : orderLine('x')[i]])),
    ]),
  );

  // Workbooks: no cached formula values, a password, too many columns, the heavy one.
  // A formula whose result was never saved (a file written by a program that does not calculate): its row is
  // rejected naming the formula, never read as a blank cell.
  put(
    'gen-formula-without-value-orders.xlsx',
    workbook([header, orderLine('PO-BADIN-F1'), orderLine('PO-BADIN-F2')], (sheet) => {
      sheet['G2'] = { t: 'n', f: 'SUM(Z1:Z3)' } as XLSX.CellObject;
    }),
  );
  put(
    'gen-formula-without-value-products.xlsx',
    workbook(
      [
        ['externalId', 'level', 'name', 'styleType', 'isComponent', 'PLM_ID'],
        ['BADIN-F1', 'style', 'Tee F1', 'T-shirts', 'no', 'BADIN-F1'],
        ['BADIN-F2', 'style', 'Tee F2', 'T-shirts', 'no', 'BADIN-F2'],
      ],
      (sheet) => {
        sheet['C2'] = { t: 's', f: 'CONCAT("Tee ", A2)' } as XLSX.CellObject;
      },
    ),
  );
  // Every data cell a formula saved with an empty result, as a script writing formulas (SheetJS `{ f, v: '' }`) leaves
  // it: each row reads as blank, so the reason the sheet has no rows is the formulas, not the export.
  const neverCalculated = (rows: string[][], from: number) =>
    workbook(rows.slice(0, from), (sheet) => {
      rows.slice(from).forEach((row, r) =>
        row.forEach((text, c) => {
          sheet[XLSX.utils.encode_cell({ r: r + from, c })] = { t: 's', v: '', f: `"${text}"` };
        }),
      );
      sheet['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: rows.length - 1, c: 7 } });
    });
  put('gen-formulas-never-calculated-orders.xlsx', neverCalculated([header, orderLine('PO-BADIN-NC1')], 1));
  put(
    'gen-formulas-never-calculated-products.xlsx',
    neverCalculated(
      [
        ['Product export'],
        [],
        ['externalId', 'level', 'name', 'styleType', 'isComponent', 'PLM_ID'],
        ['BADIN-NC1', 'style', 'Tee NC1', 'T-shirts', 'no', 'BADIN-NC1'],
      ],
      3,
    ),
  );
  put('gen-password-protected.xlsx', passwordProtectedWorkbook());
  put('gen-3000-columns.xlsx', workbook([Array.from({ length: 3000 }, (_, i) => `c${i}`), [1]]));
  put('gen-heavy-workbook.xlsx', heavyWorkbook(HEAVY_WORKBOOK_ROWS));

  // Rows: more than the limit; a file over the size limit (sparse: costs no disk).
  repeated(join(dir, 'gen-1000002-rows.csv'), 'x\n', 1_000_003 * 2, 'order_number\n');
  files.push('gen-1000002-rows.csv');
  const sparse = openSync(join(dir, 'gen-101mb-sparse.csv'), 'w');
  writeSync(sparse, `${header.join(',')}\n`);
  ftruncateSync(sparse, 101 * 1024 * 1024);
  closeSync(sparse);
  files.push('gen-101mb-sparse.csv');

  // JSON nested a million deep: the parser's stack, not the worker's, must give out.
  put('gen-deep-nesting.json', `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
  return files;
}

if (process.argv[1] === __filename) {
  const target = process.argv[2];
  if (!target) {
    console.error('usage: node bin/run-ts.cjs test/bad-input/corpus.ts <folder>');
    process.exit(2);
  }
  console.log(generateCorpus(target).join('\n'));
}
