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
import { farRightStubs, headerBelowStubs, manyMerges, ORDER_HEADER, orderLine } from '../bad-input/corpus';
import { native, references, tempDir } from './plm/helpers';

const PRODUCT_HEADER = ['externalId', 'name', 'styleType'];

// Generous: the fixed readers need a few seconds on a busy machine; before the fix these files took minutes.
const READ_LIMIT_MS = 30_000;
jest.setTimeout(90_000);

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
