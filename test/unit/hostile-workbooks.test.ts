/**
 * Workbooks small on disk whose shape (not their size) made a reader work for minutes: merged ranges repeated by the
 * hundred thousand, and a styled blank cell in the sheet's last column (XFD) of every row. The figures (time, memory)
 * are printed by bench/bad-input.ts; here each file must read, or be refused, well inside the read limit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as XLSX from 'xlsx';
import { readExportFile } from '../../connectors/erp-orders/read';
import { InputLimitError, inputLimits } from '../../connectors/input-limits';
import { parseProductSheet } from '../../connectors/plm-import/profiles/parse-sheet';
import { fillMergesDown } from '../../connectors/workbook-cells';
import { ORDER_HEADER, orderLine, sheetXmlWorkbook } from '../bad-input/corpus';
import { native, references, tempDir } from './plm/helpers';

const SHEET_START =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">';
const letter = (c: number): string => String.fromCharCode(65 + c);
const row = (r: number, cells: readonly string[]): string =>
  `<row r="${r}">${cells.map((text, c) => `<c r="${letter(c)}${r}" t="inlineStr"><is><t>${text}</t></is></c>`).join('')}</row>`;

const PRODUCT_HEADER = ['externalId', 'name', 'styleType'];

/** A header and one data row, then `merges` copies of one merge of 10,000 rows below it (15 KB zipped for 200,000). */
function manyMerges(header: readonly string[], data: readonly string[], merges: number): Buffer {
  const parts = [SHEET_START, '<sheetData>', row(1, header), row(2, data), '</sheetData>'];
  parts.push(`<mergeCells count="${merges}">`);
  for (let i = 0; i < merges; i++) parts.push('<mergeCell ref="A2:A10001"/>');
  parts.push('</mergeCells></worksheet>');
  return sheetXmlWorkbook(Buffer.from(parts.join('')));
}

/** A header and one data row, then `rows` rows holding only a styled blank cell in column XFD (1 MB zipped for 200,000). */
function farRightStubs(header: readonly string[], data: readonly string[], rows: number): Buffer {
  const parts = [SHEET_START, '<sheetData>', row(1, header), row(2, data)];
  for (let r = 3; r < 3 + rows; r++) parts.push(`<row r="${r}"><c r="XFD${r}" s="1"/></row>`);
  parts.push('</sheetData></worksheet>');
  return sheetXmlWorkbook(Buffer.from(parts.join('')));
}

// Generous: the fixed readers need a few seconds on a busy machine; before the fix these files took minutes.
const READ_LIMIT_MS = 30_000;
jest.setTimeout(90_000);

/** `rows` rows holding only a styled blank cell in column XFD, then the header and one data row below them. */
function headerBelowStubs(header: readonly string[], data: readonly string[], rows: number): Buffer {
  const parts = [SHEET_START, '<sheetData>'];
  for (let r = 1; r <= rows; r++) parts.push(`<row r="${r}"><c r="XFD${r}" s="1"/></row>`);
  parts.push(row(rows + 1, header), row(rows + 2, data), '</sheetData></worksheet>');
  return sheetXmlWorkbook(Buffer.from(parts.join('')));
}

describe('workbooks whose shape, not size, stalls a reader', () => {
  const temp = tempDir();
  const dir = temp.path;
  afterAll(() => temp.cleanup());

  it('merged ranges covering more rows in all than the limit are refused, naming the limit, before any row is filled', () => {
    const data: Array<Array<XLSX.CellObject | undefined> | undefined> = [[{ t: 's', v: 'PO-1' }]];
    const merges = Array.from({ length: 2_000 }, () => ({ s: { r: 0, c: 0 }, e: { r: 9_999, c: 0 } }));
    let thrown: unknown;
    try {
      fillMergesDown(data, merges, 0, []);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InputLimitError);
    expect((thrown as InputLimitError).code).toBe('too_many_merged_cells');
    expect((thrown as InputLimitError).message).toContain(inputLimits.mergedRows.toLocaleString('en-US'));
    expect((thrown as InputLimitError).message.length).toBeLessThan(500);
    // Nothing half-filled.
    expect(data.length).toBe(1);
  });

  it('a 15 KB order export of 200,000 repeated merges fails at once with one bounded error', async () => {
    const file = join(dir, 'many-merges-orders.xlsx');
    writeFileSync(file, manyMerges(ORDER_HEADER, orderLine('PO-MERGE-1'), 200_000));
    await expect(readExportFile(file, { timeoutMs: READ_LIMIT_MS })).rejects.toMatchObject({
      code: 'too_many_merged_cells',
    });
  });

  it('a 15 KB product sheet of 200,000 repeated merges fails at once with one bounded error', async () => {
    const file = join(dir, 'many-merges-products.xlsx');
    writeFileSync(file, manyMerges(PRODUCT_HEADER, ['X-1', 'Tee', 'T-Shirt'], 200_000));
    await expect(
      parseProductSheet(file, { profile: native(), references, read: { readTimeoutMs: READ_LIMIT_MS } }),
    ).rejects.toMatchObject({ code: 'too_many_merged_cells' });
  });

  it('an order export with 200,000 blank rows styled in column XFD above its header reads its order, not until the read limit', async () => {
    const file = join(dir, 'header-below-stubs-orders.xlsx');
    writeFileSync(file, headerBelowStubs(ORDER_HEADER, orderLine('PO-STUBS-1'), 200_000));
    const table = await readExportFile(file, { timeoutMs: READ_LIMIT_MS });
    expect(table.headerRow).toBe(200_001);
    expect(table.rows.map((read) => read.values.order_number)).toEqual(['PO-STUBS-1']);
  });

  it('a product sheet with a styled blank cell in column XFD of 200,000 rows reads its one product, not until the read limit', async () => {
    const file = join(dir, 'far-right-stubs-products.xlsx');
    writeFileSync(file, farRightStubs(PRODUCT_HEADER, ['X-1', 'Tee', 'T-Shirt'], 200_000));
    const parsed = await parseProductSheet(file, {
      profile: native(),
      references,
      read: { readTimeoutMs: READ_LIMIT_MS },
    });
    expect(parsed.drafts.map((draft) => draft.externalId)).toEqual(['X-1']);
  });
});
