import {
  DEFAULT_PROFILE,
  parseProfile,
  type MappingProfileInput,
} from '../../../connectors/erp-orders/profile';
import { buildOrders } from '../../../connectors/erp-orders/orders/build';
import { ExportMismatchError } from '../../../connectors/erp-orders/orders/export-needs';
import { orderDraftSchema, type OrderRejection } from '../../../connectors/erp-orders/orders/draft';
import type { CellValue } from '../../../connectors/erp-orders/read/types';
import { CONTEXT, lineRow, OWN, tableOf } from './support';

const profileWith = (overrides: Partial<MappingProfileInput>) =>
  parseProfile({
    ...DEFAULT_PROFILE,
    ...overrides,
    columns: { ...DEFAULT_PROFILE.columns, ...overrides.columns },
  });

function onlyRejection(rejections: OrderRejection[]): OrderRejection {
  expect(rejections).toHaveLength(1);
  return rejections[0] as OrderRejection;
}

describe('grouping rows into orders', () => {
  it('groups lines by order number, resolving codes, processes and dates', () => {
    const { drafts, rejections } = buildOrders(
      tableOf([
        lineRow(),
        lineRow({ line_number: '2', product_external_id: 'TSHIRT-RED-L', quantity: '2.345', unit: 'kg' }),
        lineRow({ order_number: 'PO-2', supplier_code: 'acme', order_date: '2024-04-01T10:00:00Z' }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(rejections).toEqual([]);
    expect(drafts.map((draft) => [draft.orderNumber, draft.rows, draft.lines.length])).toEqual([
      ['PO-1', [2, 3], 2],
      ['PO-2', [4], 1],
    ]);
    const [first] = drafts;
    expect(first).toMatchObject({
      orderType: 'PURCHASE_ORDER',
      buyerCompanyId: OWN,
      supplierCompanyId: 'comp_acme',
      buyerFacilityProcess: 'WAREHOUSE',
      supplierFacilityProcess: 'CUT_MAKE_TRIM',
      orderDate: '2024-03-01',
    });
    expect(first?.lines[1]).toEqual({
      rows: [3],
      orderLineNumber: '2',
      productRef: { externalId: 'TSHIRT-RED-L' },
      quantity: 2.35,
      unit: 'KILOGRAM',
    });
    expect(drafts[1]?.orderDate).toBe('2024-04-01');
    for (const draft of drafts) expect(orderDraftSchema.safeParse(draft).success).toBe(true);
  });

  it('lets the header sit on the first row only, blanks on later rows not counting', () => {
    const { drafts } = buildOrders(
      tableOf([
        lineRow(),
        lineRow({ line_number: '2', supplier_code: '', order_date: '', buyer_facility_process: '' }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(drafts[0]).toMatchObject({ supplierCompanyId: 'comp_acme', orderDate: '2024-03-01' });
  });

  it('rejects an order whose rows disagree on a header field, naming field, values and rows, and keeps the others', () => {
    const { drafts, rejections } = buildOrders(
      tableOf([
        lineRow(),
        lineRow({ line_number: '2', order_date: '02/03/2024' }),
        lineRow({ order_number: 'PO-2' }),
      ]),
      profileWith({ dateFormat: 'dmy' }),
      CONTEXT,
    );
    expect(drafts.map((draft) => draft.orderNumber)).toEqual(['PO-2']);
    const rejection = onlyRejection(rejections);
    expect(rejection).toMatchObject({
      orderNumber: 'PO-1',
      rows: [2, 3],
      code: 'header_conflict',
      field: 'orderDate',
    });
    expect(rejection.message).toBe(
      "order 'PO-1', column 'order_date' (orderDate): the rows of one order disagree: '2024-03-01' (row 2) vs '2024-03-02' (row 3)",
    );
  });

  it('compares header values after normalising them, so two spellings of one date agree', () => {
    const { drafts, rejections } = buildOrders(
      tableOf([lineRow({ order_date: '01/03/2024' }), lineRow({ line_number: '2', order_date: 45352 })]),
      profileWith({ dateFormat: 'dmy' }),
      CONTEXT,
    );
    expect(rejections).toEqual([]);
    expect(drafts[0]?.orderDate).toBe('2024-03-01');
  });

  it('names the row, the column and the reason of a bad cell', () => {
    const { rejections } = buildOrders(
      tableOf([lineRow({ quantity: '-4', unit: 'boxes', order_date: '2024-13-01' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    const rejection = onlyRejection(rejections);
    expect(rejection.problems.map((problem) => [problem.code, problem.row, problem.column])).toEqual([
      ['invalid_date', 2, 'order_date'],
      ['invalid_quantity', 2, 'quantity'],
      ['invalid_unit', 2, 'unit'],
    ]);
    expect(rejection.message).toMatch(
      /^row 2, column 'order_date' \(orderDate\): 2024-13-01 is not a real calendar date \(and 2 more problems\)$/,
    );
    expect(rejection.problems[1]?.message).toBe(
      "row 2, column 'quantity' (quantity): '-4' is not a positive quantity",
    );
  });

  it('rejects a row without an order number on its own', () => {
    const { drafts, rejections } = buildOrders(
      tableOf([lineRow({ order_number: ' ' }), lineRow()]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(drafts).toHaveLength(1);
    expect(onlyRejection(rejections)).toMatchObject({
      orderNumber: '',
      rows: [2],
      code: 'missing_value',
      field: 'orderNumber',
    });
  });

  it('rejects duplicate line numbers within one order, naming both rows', () => {
    const { rejections } = buildOrders(
      tableOf([lineRow(), lineRow({ product_external_id: 'OTHER' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(onlyRejection(rejections)).toMatchObject({
      code: 'duplicate_line_number',
      field: 'orderLineNumber',
      rows: [2, 3],
    });
    expect(rejections[0]?.message).toMatch(/line number '1' appears on 2 rows/);
  });

  it('leaves the line number to the server when the export has none', () => {
    const rows = [lineRow({ line_number: '' }), lineRow({ line_number: '' })];
    const { drafts } = buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT);
    // No number in the export: none is invented (matching goes by content, the server numbers new lines).
    expect(drafts[0]?.lines.map((line) => line.orderLineNumber)).toEqual([undefined, undefined]);
  });

  it('refuses a file missing a required column as a whole, and warns about missing optional ones', () => {
    expect(() =>
      buildOrders(
        tableOf([{ order_number: 'PO-1', unit: 'pcs', product_code: 'A' }]),
        DEFAULT_PROFILE,
        CONTEXT,
      ),
    ).toThrow(ExportMismatchError);
    expect(() =>
      buildOrders(
        tableOf([{ order_number: 'PO-1', unit: 'pcs', product_code: 'A' }]),
        DEFAULT_PROFILE,
        CONTEXT,
      ),
    ).toThrow(/lacks column 'quantity' \(quantity\)/);
    const { warnings } = buildOrders(tableOf([lineRow()]), DEFAULT_PROFILE, CONTEXT);
    expect(warnings).toContain(
      "column 'delivery_date' (deliveryDate) of profile 'default' is not in the export; the field is left as it is",
    );
  });
});

describe('parties and reference values', () => {
  it('names an unknown company code with the closest codes', () => {
    const { rejections } = buildOrders(
      tableOf([lineRow({ supplier_code: 'ACMEE' }), lineRow({ line_number: '2', supplier_code: 'ACMEE' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    const rejection = onlyRejection(rejections);
    expect(rejection).toMatchObject({ code: 'unknown_company', field: 'supplierCompanyId' });
    expect(rejection.message).toBe(
      "order 'PO-1' (rows 2, 3), column 'supplier_code' (supplierCompanyCode): no company has the code 'ACMEE'; did you mean 'ACME' or 'ACME-X'?",
    );
  });

  it('takes facility processes by id or by display name, and suggests on an unknown one', () => {
    const ok = buildOrders(
      tableOf([lineRow({ supplier_facility_process: 'cut, make and TRIM ' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(ok.drafts[0]?.supplierFacilityProcess).toBe('CUT_MAKE_TRIM');
    const bad = buildOrders(
      tableOf([lineRow({ supplier_facility_process: 'Weaving mil' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(onlyRejection(bad.rejections)).toMatchObject({
      code: 'unknown_facility_process',
      field: 'supplierFacilityProcess',
    });
    expect(bad.rejections[0]?.message).toMatch(
      /'Weaving mil' is not a facility process name or id; did you mean 'Weaving mill'/,
    );
  });

  it('requires the receiver company and the receiver facility process together', () => {
    const onlyCompany = buildOrders(
      tableOf([lineRow({ receiver_code: 'DC-PARIS' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(onlyRejection(onlyCompany.rejections)).toMatchObject({
      code: 'receiver_pair_incomplete',
      field: 'receiverFacilityProcess',
    });
    // The export's columns, not the API's receiverCompanyId the code becomes.
    expect(onlyCompany.rejections[0]?.message).toBe(
      "order 'PO-1' (row 2), receiverFacilityProcess: column 'receiver_code' gives the receiver company but the export has no column for receiverFacilityProcess; the receiver company and its facility process go together (both or neither)",
    );
    const onlyProcess = buildOrders(
      tableOf([lineRow({ receiver_facility_process: 'Warehouse' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(onlyRejection(onlyProcess.rejections)).toMatchObject({
      code: 'receiver_pair_incomplete',
      field: 'receiverCompanyId',
    });
    const both = buildOrders(
      tableOf([lineRow({ receiver_code: 'DC-PARIS', receiver_facility_process: 'Warehouse' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(both.drafts[0]).toMatchObject({
      receiverCompanyId: 'comp_dc',
      receiverFacilityProcess: 'WAREHOUSE',
    });
    const neither = buildOrders(
      tableOf([lineRow({ receiver_code: '', receiver_facility_process: '' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    // Present but blank: the server's default receiver (null); absent columns would leave it undefined.
    expect(neither.drafts[0]?.receiverCompanyId).toBeNull();
    expect(neither.drafts[0]?.receiverFacilityProcess).toBeNull();
    const absent = buildOrders(tableOf([lineRow()]), DEFAULT_PROFILE, CONTEXT);
    expect(absent.drafts[0]?.receiverCompanyId).toBeUndefined();
  });

  it('derives the order type from the parties and rejects an order the caller is no party to', () => {
    const sales = profileWith({
      ownCompanyAs: 'supplier',
      columns: { supplierCompanyCode: 'supplier_code', buyerCompanyCode: 'buyer_code' },
    });
    const rows = [
      lineRow({ order_number: 'SO-1', buyer_code: 'ACME', supplier_code: '' }),
      lineRow({ order_number: 'IO-1', buyer_code: 'BRAND', supplier_code: 'BRAND' }),
      lineRow({ order_number: 'XX-1', buyer_code: 'ACME', supplier_code: 'MILL-01' }),
    ];
    const { drafts, rejections } = buildOrders(tableOf(rows), sales, CONTEXT);
    expect(drafts.map((draft) => [draft.orderNumber, draft.orderType])).toEqual([
      ['SO-1', 'SALES_ORDER'],
      ['IO-1', 'INTERNAL_ORDER'],
    ]);
    expect(onlyRejection(rejections)).toMatchObject({ orderNumber: 'XX-1', code: 'order_owner_not_party' });
    // The operator's words: the export's columns and the codes they wrote, never the API's ids and field names.
    expect(onlyRejection(rejections).message).toBe(
      "order 'XX-1' (row 4), column 'buyer_code' 'ACME' and column 'supplier_code' 'MILL-01': neither the buyer nor " +
        'the supplier is your company (the one of the API key), and an order is pushed by its buyer or its supplier; ' +
        "leave column 'supplier_code' blank for your company to be the supplier (ownCompanyAs 'supplier'), correct " +
        'the code in one of these columns, or leave the order out of the export',
    );
  });

  it('names the blank party column of an order without a buyer or supplier, and what to fill in', () => {
    const { rejections } = buildOrders(tableOf([lineRow({ supplier_code: ' ' })]), DEFAULT_PROFILE, CONTEXT);
    expect(onlyRejection(rejections)).toMatchObject({ code: 'missing_value', field: 'supplierCompanyId' });
    expect(onlyRejection(rejections).message).toBe(
      "order 'PO-1' (row 2), column 'supplier_code' (supplierCompanyCode): blank, so the order has no supplier; " +
        "give the supplier's company code there, or a constant supplierCompanyCode in the mapping",
    );

    const noOwn = profileWith({ ownCompanyAs: 'none' });
    const buyerless = buildOrders(tableOf([lineRow()]), noOwn, CONTEXT);
    expect(onlyRejection(buyerless.rejections).message).toBe(
      "order 'PO-1' (row 2), buyerCompanyCode: the export has no column 'buyer_code', so the order has no buyer; " +
        "add that column with the buyer's company code, or set a constant buyerCompanyCode in the mapping, or " +
        "ownCompanyAs 'buyer' if the buyer is your company",
    );
  });

  it('applies constants when a column is absent or blank', () => {
    const profile = profileWith({
      constants: { status: 'in progress', supplierFacilityProcess: 'Laundry', unit: 'PAIR' },
    });
    const { drafts } = buildOrders(
      tableOf([lineRow({ supplier_facility_process: '', unit: '' })]),
      profile,
      CONTEXT,
    );
    expect(drafts[0]).toMatchObject({ status: 'IN_PROGRESS', supplierFacilityProcess: 'LAUNDRY' });
    expect(drafts[0]?.lines[0]?.unit).toBe('PAIR');
  });
});

describe('optional header fields', () => {
  it('splits tags and responsible persons, never producing the deprecated single-person form', () => {
    const { drafts } = buildOrders(
      tableOf([
        lineRow({
          tags: ' summer , ss25;; eco ',
          responsible_persons: 'ana@brand.example; ANA@brand.example, usr_2',
        }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(drafts[0]?.tags).toEqual(['summer', 'ss25', 'eco']);
    expect(drafts[0]?.internalResponsiblePersons).toEqual(['ana@brand.example', 'usr_2']);
    expect(drafts[0]).not.toHaveProperty('internalResponsiblePerson');
  });

  it('distinguishes a blank column (clear the value) from an absent one (leave it)', () => {
    const { drafts } = buildOrders(
      tableOf([lineRow({ delivery_date: '', tags: '', vendor_code: '', secondary_quantity_kg: '' })]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    const draft = drafts[0];
    expect(draft?.deliveryDate).toBeNull();
    expect(draft?.tags).toEqual([]);
    expect(draft?.vendorCompanyId).toBeNull();
    expect(draft?.lines[0]?.secondaryQuantity).toBeNull();
    expect(draft?.shippingDate).toBeUndefined();
    expect(draft).not.toHaveProperty('status');
  });

  it('reads product codes with the profile code type', () => {
    const profile = profileWith({
      productCodeId: 'PLM_ID',
      columns: { productExternalId: undefined, productCode: 'sku' },
    });
    const { drafts } = buildOrders(
      tableOf([lineRow({ product_external_id: '', sku: 'SKU-77' })]),
      profile,
      CONTEXT,
    );
    expect(drafts[0]?.lines[0]?.productRef).toEqual({ codeId: 'PLM_ID', codeValue: 'SKU-77' });
  });
});

describe('large orders', () => {
  const manyLines = (count: number, overrides: (index: number) => Record<string, string> = () => ({})) =>
    Array.from({ length: count }, (_, index) =>
      lineRow({
        line_number: String(index + 1),
        product_external_id: `P-${index}`,
        ...(index > 0 ? { supplier_code: '', order_date: '' } : {}),
        ...overrides(index),
      }),
    );

  it('builds one order of 10,000 lines, every line in file order under the header of its first row', () => {
    const { drafts, rejections } = buildOrders(tableOf(manyLines(10_000)), DEFAULT_PROFILE, CONTEXT);
    expect(rejections).toEqual([]);
    expect(drafts).toHaveLength(1);
    const [draft] = drafts;
    expect(draft).toMatchObject({
      orderNumber: 'PO-1',
      supplierCompanyId: 'comp_acme',
      orderDate: '2024-03-01',
    });
    expect(draft?.rows).toEqual(Array.from({ length: 10_000 }, (_, index) => index + 2));
    expect(draft?.lines).toHaveLength(10_000);
    expect(draft?.lines[9_999]).toMatchObject({
      rows: [10_001],
      orderLineNumber: '10000',
      productRef: { externalId: 'P-9999' },
    });
  });

  it('splits 10,000 rows of one number by order type, each row going to the type of its parties', () => {
    const sales = profileWith({
      columns: { supplierCompanyCode: 'supplier_code', buyerCompanyCode: 'buyer_code' },
    });
    // Purchase and sales lines alternate in blocks of 100 rows; only the first row of a block names the parties.
    const rows = manyLines(10_000, (index) => {
      if (index % 100 !== 0) return { supplier_code: '', buyer_code: '' };
      return index % 200 === 0
        ? { buyer_code: 'BRAND', supplier_code: 'ACME' }
        : { buyer_code: 'ACME', supplier_code: 'BRAND' };
    });
    const { drafts, rejections } = buildOrders(tableOf(rows), sales, CONTEXT);
    expect(rejections).toEqual([]);
    expect(drafts.map((draft) => [draft.orderType, draft.lines.length])).toEqual([
      ['PURCHASE_ORDER', 5_000],
      ['SALES_ORDER', 5_000],
    ]);
    expect(drafts[1]?.rows.slice(0, 2)).toEqual([102, 103]);
  });

  it('names the rows of a line number repeated in an order of 10,000 lines', () => {
    const rows = manyLines(10_000, (index): Record<string, string> =>
      index % 2_500 === 7 ? { line_number: 'DUP' } : {},
    );
    const rejection = onlyRejection(buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT).rejections);
    expect(rejection).toMatchObject({ code: 'duplicate_line_number', field: 'orderLineNumber' });
    expect(rejection.problems).toHaveLength(1);
    expect(rejection.message).toMatch(/line number 'DUP' appears on 4 rows/);
    expect(rejection.message).toMatch(/\(rows 9, 2509, 5009, 7509\)/);
  });

  it('names the first 10 rows of an order-level problem on 10,000 rows, and counts the rest', () => {
    const rows = manyLines(10_000, () => ({ supplier_code: 'NOPE' }));
    const rejection = onlyRejection(buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT).rejections);
    expect(rejection).toMatchObject({ code: 'unknown_company', field: 'supplierCompanyId' });
    expect(rejection.message).toMatch(
      /^order 'PO-1' \(rows 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 9,990 more\), column 'supplier_code' \(supplierCompanyCode\): no company has the code 'NOPE'/,
    );
    expect(rejection.rows).toHaveLength(10_000);
  });

  it('bounds a header conflict over 10,000 rows: 10 rows per value, 5 values', () => {
    const twoDates = manyLines(10_000, (index) => ({ order_date: index % 2 ? '2024-03-02' : '2024-03-01' }));
    const [dates] = buildOrders(tableOf(twoDates), DEFAULT_PROFILE, CONTEXT).rejections;
    expect(dates?.message).toBe(
      "order 'PO-1', column 'order_date' (orderDate): the rows of one order disagree: " +
        "'2024-03-01' (rows 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 and 4,990 more) vs " +
        "'2024-03-02' (rows 3, 5, 7, 9, 11, 13, 15, 17, 19, 21 and 4,990 more)",
    );
    const tagPerRow = manyLines(10_000, (index) => ({ tags: `T${index}` }));
    const [tags] = buildOrders(tableOf(tagPerRow), DEFAULT_PROFILE, CONTEXT).rejections;
    expect(tags).toMatchObject({ code: 'header_conflict', field: 'tags' });
    expect(tags?.message).toBe(
      "order 'PO-1', column 'tags' (tags): the rows of one order disagree: " +
        "'T0' (row 2) vs 'T1' (row 3) vs 'T2' (row 4) vs 'T3' (row 5) vs 'T4' (row 6) and 9,995 more values",
    );
  });

  it('quotes a long disagreeing value to its first 200 characters and its length', () => {
    const long = (letter: string) => letter.repeat(32_000);
    const rows = manyLines(2, (index) => ({ tags: long(index === 0 ? 'a' : 'b') }));
    const [tags] = buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT).rejections;
    expect(tags?.message).toBe(
      "order 'PO-1', column 'tags' (tags): the rows of one order disagree: " +
        `'${'a'.repeat(200)}… (32,000 characters)' (row 2) vs '${'b'.repeat(200)}… (32,000 characters)' (row 3)`,
    );
  });
});

// A real export's rows that are no order line (see connectors/erp-orders/orders/skipped-rows.ts): skipped with a
// warning only when nothing else could be meant; a line that merely lacks its product still rejects its order.
describe('repeated header rows and totals rows', () => {
  const skipped = (warnings: readonly string[]) =>
    warnings.filter((warning) => !warning.startsWith('column '));
  const total = (quantity: string, extra: Record<string, string> = {}) => ({
    order_number: '',
    quantity,
    ...extra,
  });

  it('skips a subtotal of its order and a grand total, naming them, and pushes the lines', () => {
    const { drafts, rejections, warnings } = buildOrders(
      tableOf([
        lineRow({ quantity: '10' }),
        lineRow({ line_number: '2', quantity: '2.345' }),
        total('12.35', { unit: 'pcs' }),
        lineRow({ order_number: 'PO-2', quantity: '5' }),
        total('17.35'),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(rejections).toEqual([]);
    expect(drafts.map((draft) => [draft.orderNumber, draft.rows])).toEqual([
      ['PO-1', [2, 3]],
      ['PO-2', [5]],
    ]);
    expect(skipped(warnings)).toEqual([
      expect.stringMatching(
        /^row 4 \(the sum of the 2 lines from row 2 to row 3\), row 6 \(the sum of the 3 lines/,
      ),
    ]);
  });

  it('a line without product whose quantity sums nothing above, or one line only, still rejects its order', () => {
    for (const rows of [
      [lineRow({ quantity: '10' }), lineRow({ line_number: '2', quantity: '20' }), total('25')],
      [lineRow({ quantity: '10' }), total('10')],
      [
        lineRow({ quantity: '10' }),
        lineRow({ line_number: '2', quantity: '20' }),
        total('30', { line_number: '3' }),
      ],
    ]) {
      const { drafts, rejections } = buildOrders(tableOf(rows), DEFAULT_PROFILE, CONTEXT);
      expect(drafts).toEqual([]);
      expect(onlyRejection(rejections)).toMatchObject({ orderNumber: 'PO-1', code: 'missing_value' });
    }
  });

  it("a totals row labelled with its order's number or a word is skipped too, not a line or an order", () => {
    const { drafts, rejections, warnings } = buildOrders(
      tableOf([
        lineRow({ quantity: '10' }),
        lineRow({ line_number: '2', quantity: '20' }),
        total('30', { order_number: 'PO-1' }),
        lineRow({ order_number: 'PO-2', quantity: '5' }),
        total('35', { order_number: 'Total' }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(rejections).toEqual([]);
    expect(drafts.map((draft) => [draft.orderNumber, draft.lines.length])).toEqual([
      ['PO-1', 2],
      ['PO-2', 1],
    ]);
    expect(skipped(warnings)).toEqual([expect.stringMatching(/^row 4 .*, row 6 .*: totals rows/)]);
  });

  it("a row labelled with another order's number is that order's line, never a total of the order above", () => {
    // The next order's first row that forgot its product: its quantity (100) happens to be PO-1's sum and the
    // running total. It rejects PO-2, as before; skipped as a total, PO-2 would be pushed without that line.
    const { drafts, rejections, warnings } = buildOrders(
      tableOf([
        lineRow({ quantity: '50' }),
        lineRow({ line_number: '2', quantity: '50' }),
        total('100', { order_number: 'PO-2' }),
        lineRow({ order_number: 'PO-2', line_number: '2', quantity: '7' }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(drafts.map((draft) => [draft.orderNumber, draft.lines.length])).toEqual([['PO-1', 2]]);
    expect(onlyRejection(rejections)).toMatchObject({ orderNumber: 'PO-2', code: 'missing_value' });
    expect(skipped(warnings)).toEqual([]);
  });

  it('a grand total is labelled blank or with a word, not with an order number', () => {
    const { drafts, rejections } = buildOrders(
      tableOf([
        lineRow({ quantity: '10' }),
        lineRow({ order_number: 'PO-2', quantity: '20' }),
        total('30', { order_number: 'SUM-3' }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(drafts.map((draft) => draft.orderNumber)).toEqual(['PO-1', 'PO-2']);
    expect(onlyRejection(rejections)).toMatchObject({ orderNumber: 'SUM-3' });
  });

  it('totals rows as Excel, SAP and Nordic or German exports label them are skipped', () => {
    // Excel's Data > Subtotal writes "PO-1 Total" and "Grand Total"; a Stockholm brand's ERP "Summa" / "Totalt".
    for (const [subtotal, grand] of [
      ['PO-1 Total', 'Grand Total'],
      ['Summa', 'Totalsumma'],
      ['Sub Total', 'Totalt'],
      ['Order total', 'Gesamtergebnis'],
      ['PO-1 Ergebnis', 'Summe:'],
      ['Delsumma', 'Total'],
    ]) {
      const { drafts, rejections, warnings } = buildOrders(
        tableOf([
          lineRow({ quantity: '10' }),
          lineRow({ line_number: '2', quantity: '20' }),
          total('30', { order_number: subtotal ?? '' }),
          total('30', { order_number: grand ?? '' }),
        ]),
        DEFAULT_PROFILE,
        CONTEXT,
      );
      expect([subtotal, rejections]).toEqual([subtotal, []]);
      expect(drafts.map((draft) => [draft.orderNumber, draft.lines.length])).toEqual([['PO-1', 2]]);
      expect(skipped(warnings)).toEqual([expect.stringMatching(/^row 4 .*, row 5 .*: totals rows/)]);
    }
  });

  it('an order number that merely starts with a total word is an order number', () => {
    const { drafts, rejections } = buildOrders(
      tableOf([
        lineRow({ quantity: '10' }),
        lineRow({ line_number: '2', quantity: '20' }),
        total('30', { order_number: 'TOTAL-7' }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(drafts.map((draft) => draft.orderNumber)).toEqual(['PO-1']);
    expect(onlyRejection(rejections)).toMatchObject({ orderNumber: 'TOTAL-7' });
  });

  it('rows that give a quantity and nothing else are lines, even when one sums those above', () => {
    const profile = profileWith({
      columns: { orderLineNumber: undefined, productExternalId: undefined },
      constants: { productExternalId: 'TSHIRT-RED-M', supplierCompanyCode: 'ACME', unit: 'PIECES' },
    } as Partial<MappingProfileInput>);
    const { drafts, warnings } = buildOrders(
      tableOf([
        { order_number: 'PO-1', quantity: '10' },
        { order_number: 'PO-1', quantity: '10' },
        { order_number: 'PO-1', quantity: '20' },
      ]),
      profile,
      CONTEXT,
    );
    expect(drafts[0]?.lines.map((line) => line.quantity)).toEqual([10, 10, 20]);
    expect(skipped(warnings)).toEqual([]);
  });

  it('a totals row under a constant product is skipped, never a line of the sum', () => {
    const profile = profileWith({
      columns: { productExternalId: undefined },
      constants: { productExternalId: 'TSHIRT-RED-M' },
    } as Partial<MappingProfileInput>);
    const rows = [
      lineRow({ quantity: '10' }),
      lineRow({ line_number: '2', quantity: '20' }),
      total('30'),
    ].map((row: Record<string, CellValue>) => {
      const { product_external_id: _, ...rest } = row;
      return rest;
    });
    const { drafts, warnings } = buildOrders(tableOf(rows), profile, CONTEXT);
    expect(drafts[0]?.lines.map((line) => line.quantity)).toEqual([10, 20]);
    expect(skipped(warnings)).toEqual([expect.stringMatching(/^row 4 .*a totals row/)]);
  });

  it('skips a repeated header row (a pasted export, its byte-order mark too); one cell naming its column is data', () => {
    const header = Object.fromEntries(Object.keys(lineRow()).map((column) => [column, column.toUpperCase()]));
    const { drafts, rejections, warnings } = buildOrders(
      tableOf([
        lineRow(),
        { ...header, order_number: '\uFEFForder_number' },
        lineRow({ order_number: 'PO-2' }),
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(rejections).toEqual([]);
    expect(drafts.map((draft) => draft.orderNumber)).toEqual(['PO-1', 'PO-2']);
    expect(skipped(warnings)).toEqual([expect.stringMatching(/^row 3 repeats the header row/)]);

    const one = buildOrders(tableOf([lineRow({ order_number: 'order_number' })]), DEFAULT_PROFILE, CONTEXT);
    expect(one.drafts.map((draft) => draft.orderNumber)).toEqual(['order_number']);
  });
});

// SAP, Dynamics and report tools end an export with a blank row and notes (connectors/trailing-notes.ts, the PLM
// import's rule). Read as data, a note in the order number column was an order named after it, rejected with four
// problems (and written to the rejects file); a note in another column joined the last order as a line naming no
// product and rejected that real order.
describe('notes below the data', () => {
  /** A table whose rows sit on the given spreadsheet rows (a gap is a blank row). */
  const onRows = (rows: ReadonlyArray<[number, Record<string, CellValue>]>) => {
    const table = tableOf(rows.map(([, values]) => values));
    table.rows = rows.map(([row, values]) => ({ row, values }));
    return table;
  };
  const notes = (warnings: readonly string[]) => warnings.filter((warning) => /note/.test(warning));

  it('one-text-cell rows after a blank row are skipped with one warning naming rows and texts, in any column', () => {
    for (const column of ['order_number', 'product_external_id']) {
      const { drafts, rejections, warnings } = buildOrders(
        onRows([
          [2, lineRow()],
          [3, lineRow({ line_number: '2', quantity: '6' })],
          [5, { [column]: 'Generated by SAP S/4HANA on 30.11.2026 14:02' }],
          [6, { [column]: 'Printed by jsmith' }],
          [7, { [column]: 'Confidential' }],
        ]),
        DEFAULT_PROFILE,
        CONTEXT,
      );
      expect([column, rejections]).toEqual([column, []]);
      expect(drafts.map((draft) => [draft.orderNumber, draft.rows])).toEqual([['PO-1', [2, 3]]]);
      expect(notes(warnings)).toEqual([
        "rows 5, 6 and 7 below the data hold one text cell each ('Generated by SAP S/4HANA on 30.11.2026 14:02', " +
          "'Printed by jsmith', 'Confidential'): notes, not orders, skipped",
      ]);
    }
  });

  it('a one-cell row between data rows, or right below them without a blank row, is read as before', () => {
    for (const rows of [
      [
        [2, lineRow()],
        [4, { order_number: 'Confidential' }],
        [5, lineRow({ order_number: 'PO-2' })],
      ],
      [
        [2, lineRow()],
        [3, { order_number: 'Confidential' }],
      ],
    ] as Array<Array<[number, Record<string, CellValue>]>>) {
      const { rejections, warnings } = buildOrders(onRows(rows), DEFAULT_PROFILE, CONTEXT);
      expect(onlyRejection(rejections)).toMatchObject({ orderNumber: 'Confidential', code: 'missing_value' });
      expect(notes(warnings)).toEqual([]);
    }
  });

  // Every line needs a quantity cell (the quantity column is required), so the only row of one cell that can be an
  // order line is a quantity alone: a sparse profile's line (constant product, number on the order's first row) or a
  // grand total below a blank row. Neither is taken for a note.
  it('a quantity alone below a blank row is a line of a sparse profile, or a totals row, never a note', () => {
    const sparse = profileWith({
      columns: { orderLineNumber: undefined, productExternalId: undefined },
      constants: { productExternalId: 'TSHIRT-RED-M', supplierCompanyCode: 'ACME', unit: 'PIECES' },
    } as Partial<MappingProfileInput>);
    const line = buildOrders(
      onRows([
        [2, { order_number: 'PO-1', quantity: '10' }],
        [4, { order_number: '', quantity: '7' }],
      ]),
      sparse,
      CONTEXT,
    );
    expect(line.drafts[0]?.lines.map((each) => each.quantity)).toEqual([10, 7]);
    expect(notes(line.warnings)).toEqual([]);

    const total = buildOrders(
      onRows([
        [2, lineRow()],
        [3, lineRow({ line_number: '2', quantity: '20' })],
        [5, { quantity: '30' }],
      ]),
      DEFAULT_PROFILE,
      CONTEXT,
    );
    expect(total.rejections).toEqual([]);
    expect(total.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^row 5 .*a totals row/)]));
    expect(notes(total.warnings)).toEqual([]);
  });
});

// README "The profile format": a constant is the value of a blank cell of a bound column. A row whose only cells
// are a quantity that sums two or more lines above is the classic subtotal even so: the lines name their products
// in the column, and a line that leaves it blank for the constant while its quantity happens to equal the sum of
// the lines above is far rarer than an ERP's subtotal (which, read as a line, would double the order's quantity).
it('a quantity-only sum row is a totals row even where a product constant fills blank product cells', () => {
  const profile = profileWith({
    constants: { productExternalId: 'TSHIRT-RED-M' },
  } as Partial<MappingProfileInput>);
  const { drafts, rejections, warnings } = buildOrders(
    tableOf([
      lineRow({ product_external_id: 'TSHIRT-RED-L', quantity: '10' }),
      lineRow({ line_number: '2', product_external_id: '', quantity: '20' }),
      { order_number: '', quantity: '30' },
    ]),
    profile,
    CONTEXT,
  );
  expect(rejections).toEqual([]);
  expect(drafts[0]?.lines.map((line) => [line.productRef, line.quantity])).toEqual([
    [{ externalId: 'TSHIRT-RED-L' }, 10],
    [{ externalId: 'TSHIRT-RED-M' }, 20],
  ]);
  expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^row 4 .*a totals row/)]));
});
