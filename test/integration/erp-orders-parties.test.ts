/**
 * An order's parties as an export gives them, on a real Temporal dev server and the sandbox over HTTP. Spec 03,
 * POST /orders: "Your company must be the buyer or the supplier of the order" (400 order_owner_not_party). The
 * shared setup is in erp-stack.ts.
 */
import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { DEFAULT_PROFILE } from '../../connectors/erp-orders/profile';
import { BRAND, erpSpecStack } from './erp-stack';

describe('erpOrders and an order whose parties are not your company', () => {
  const { stack, copiesOf, writesSince, writeCsv, writeProfile, push } = erpSpecStack();

  /** The default profile's columns: the brand (the key's company, no company code) is the buyer when buyer_code is blank. */
  const row = (order: string, buyer: string, supplier: string, line: number) => ({
    order_number: order,
    buyer_code: buyer,
    supplier_code: supplier,
    line_number: String(line),
    product_external_id: line === 1 ? 'PLM-TEE-001-BLK' : 'PLM-JKT-010-NVY',
    quantity: 4 * line,
    unit: 'PIECES',
  });

  it('an order naming two other companies is rejected in the export’s words, the others go through, and the fixed cell creates it once', async () => {
    const rows = (strayBuyer: string) => [
      row('PARTY-1', '', 'SUP-1001', 1),
      row('PARTY-2', strayBuyer, 'SUP-1002', 1),
      row('PARTY-2', strayBuyer, 'SUP-1002', 2),
      row('PARTY-3', '', 'SUP-1003', 1),
    ];
    const before = { ...stack().apiClient.stats().byMethodStatus };
    // SUP-1004 is a supplier of the network, buying from SUP-1002 here: neither party is the key's company.
    const first = await push({ file: await writeCsv('parties-stray.csv', rows('SUP-1004')) });
    expect(first.orders).toMatchObject({ created: 2, rejected: 1 });
    expect(first.rejections.map((rejection) => [rejection.orderNumber, rejection.code])).toEqual([
      ['PARTY-2', 'order_owner_not_party'],
    ]);
    const rejects = Papa.parse<Record<string, string>>(
      readFileSync(first.rejectsFile ?? '', 'utf8').replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(
      rejects.map((r) => [r['order_number'], r['line_number'], r['buyer_code'], r['error_code']]),
    ).toEqual([
      ['PARTY-2', '1', 'SUP-1004', 'order_owner_not_party'],
      ['PARTY-2', '2', 'SUP-1004', 'order_owner_not_party'],
    ]);
    const message = rejects[0]?.['error_message'] ?? '';
    // The export's columns and codes, never the API's ids or field names.
    expect(message).toContain("order 'PARTY-2' (rows 3, 4)");
    expect(message).toContain("column 'buyer_code' 'SUP-1004' and column 'supplier_code' 'SUP-1002'");
    expect(message).not.toMatch(/cmp_|buyerCompanyId|supplierCompanyId/);
    // What to do: your company has no code to write, and the profile makes it the buyer of a blank buyer_code.
    expect(message).toContain("leave column 'buyer_code' blank for your company");
    expect(await copiesOf('PARTY-2')).toEqual([]);
    expect(writesSince(before)).toEqual({ 'POST 201': 2 });

    // The operator blanks the cell: the order is created, the others are left as they are.
    const fixed = await writeCsv('parties-fixed.csv', rows(''));
    const second = await push({ file: fixed });
    expect(second.orders).toMatchObject({ created: 1, unchanged: 2, rejected: 0 });
    const [created] = await copiesOf('PARTY-2');
    expect(await copiesOf('PARTY-2')).toHaveLength(1);
    expect(created?.orderType).toBe('PURCHASE_ORDER');
    expect(created?.lines.map((line) => [line.orderLineNumber, line.quantity])).toEqual([
      ['1', 4],
      ['2', 8],
    ]);
    // Once: the same export again writes nothing.
    const settled = { ...stack().apiClient.stats().byMethodStatus };
    expect((await push({ file: fixed })).orders).toMatchObject({ created: 0, unchanged: 3, rejected: 0 });
    expect(writesSince(settled)).toEqual({});
    expect(await copiesOf('PARTY-2')).toHaveLength(1);
  });
  // ownCompanyAs 'none': a blank cell names no one, and the key's company has no company code to write. The remedy
  // points to what names it there: its id in the export's id column, or ownCompanyAs.
  it('with ownCompanyAs none, the reject tells to give your company’s id in the id column or to set ownCompanyAs, and the id creates the order', async () => {
    const mappingFile = await writeProfile('parties-none.json', {
      ...DEFAULT_PROFILE,
      name: 'parties-none',
      ownCompanyAs: 'none',
      columns: { ...DEFAULT_PROFILE.columns, buyerCompanyId: 'buyer_id' },
    });
    const rows = (buyerId: string) => [{ ...row('PARTY-N-1', 'SUP-1004', 'SUP-1002', 1), buyer_id: buyerId }];
    const first = await push({ file: await writeCsv('parties-none.csv', rows('')), mappingFile });
    expect(first.rejections.map((rejection) => [rejection.orderNumber, rejection.code])).toEqual([
      ['PARTY-N-1', 'order_owner_not_party'],
    ]);
    const message = first.rejections[0]?.message ?? '';
    expect(message).toContain(`give your company's id '${BRAND}' in column 'buyer_id'`);
    expect(message).toContain("set ownCompanyAs 'buyer' or 'supplier' in the mapping");
    expect(await copiesOf('PARTY-N-1')).toEqual([]);

    // The operator does as told: the id in buyer_id makes the key's company the buyer.
    const second = await push({ file: await writeCsv('parties-none-id.csv', rows(BRAND)), mappingFile });
    expect(second.orders).toMatchObject({ created: 1, rejected: 0 });
    expect((await copiesOf('PARTY-N-1')).map((order) => order.orderType)).toEqual(['PURCHASE_ORDER']);
  });
});
