import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOrders, type BuildContext } from '../../../connectors/erp-orders/orders/build';
import { companyCodesIn } from '../../../connectors/erp-orders/orders/export-needs';
import { type OrderDraft } from '../../../connectors/erp-orders/orders/draft';
import { companyResolverFromDirectory } from '../../../connectors/erp-orders/orders/lookups';
import {
  DEFAULT_PROFILE,
  loadProfileFile,
  type MappingProfile,
} from '../../../connectors/erp-orders/profile';
import { readExportContent, readExportFile } from '../../../connectors/erp-orders/read';
import { type ExportTable } from '../../../connectors/erp-orders/read/types';
import { writeRejects } from '../../../connectors/erp-orders/rejects';

const FIXTURES = join(__dirname, '../../fixtures/erp');
const lookups = JSON.parse(readFileSync(join(FIXTURES, 'lookups.json'), 'utf8')) as {
  ownCompanyId: string;
  companies: Array<{ id: string; code: string }>;
  facilityProcesses: Array<{ id: string; name: string }>;
};
const CONTEXT: BuildContext = {
  ownCompanyId: lookups.ownCompanyId,
  companies: companyResolverFromDirectory(lookups.companies),
  facilityProcesses: lookups.facilityProcesses,
};

async function fixture(name: string): Promise<{ table: ExportTable; profile: MappingProfile }> {
  const profile = name.endsWith('.csv')
    ? await loadProfileFile(join(FIXTURES, 'profile-eu.json'))
    : DEFAULT_PROFILE;
  return { table: await readExportFile(join(FIXTURES, name)), profile };
}

const withoutRows = (drafts: OrderDraft[]) =>
  drafts.map(({ rows: _rows, lines, ...order }) => ({
    ...order,
    lines: lines.map(({ rows: _lineRows, ...line }) => line),
  }));

const FILES = ['orders.csv', 'orders.xlsx', 'orders.json', 'orders.ndjson'] as const;

describe('sample exports', () => {
  it('read from csv gives the expected drafts and rejections', async () => {
    const { table, profile } = await fixture('orders.csv');
    const { drafts, rejections } = buildOrders(table, profile, CONTEXT);
    expect(drafts.map((draft) => [draft.orderNumber, draft.rows])).toEqual([
      ['PO-24001', [2, 3, 4]],
      ['PO-24002', [5, 6]],
    ]);
    expect(drafts[0]).toMatchObject({
      orderType: 'PURCHASE_ORDER',
      buyerCompanyId: 'cmp_brand_nordic_threads',
      supplierCompanyId: 'cmp_sup_anatolia_garments',
      orderDate: '2024-03-01',
      deliveryDate: '2024-05-15',
      status: 'IN_PROGRESS',
      tags: ['SS25', 'core'],
    });
    expect(drafts[0]?.lines[2]).toMatchObject({ quantity: 40, unit: 'PIECES', secondaryQuantity: 18.75 });
    expect(drafts[1]).toMatchObject({
      receiverCompanyId: 'cmp_sup_porto_trims',
      receiverFacilityProcess: 'WAREHOUSE',
    });
    expect(drafts[1]?.lines.map((line) => [line.productRef, line.quantity, line.unit])).toEqual([
      [{ externalId: 'CMP-FAB-POP' }, 1250.5, 'METRE'],
      [{ codeId: 'ERP_ID', codeValue: '100001' }, 300, 'PIECES'],
    ]);
    expect(
      rejections.map((rejection) => [rejection.orderNumber, rejection.rows, rejection.code, rejection.field]),
    ).toEqual([
      ['PO-24003', [7, 8], 'invalid_unit', 'unit'],
      ['PO-24004', [9, 10], 'header_conflict', 'deliveryDate'],
    ]);
  });

  it('gives the same orders whatever the format', async () => {
    const results = await Promise.all(
      FILES.map(async (name) => {
        const { table, profile } = await fixture(name);
        return buildOrders(table, profile, CONTEXT);
      }),
    );
    const [csv, ...others] = results;
    for (const other of others) {
      expect(withoutRows(other.drafts)).toEqual(withoutRows(csv?.drafts ?? []));
      expect(other.rejections.map((rejection) => [rejection.orderNumber, rejection.code])).toEqual(
        csv?.rejections.map((rejection) => [rejection.orderNumber, rejection.code]),
      );
    }
  });

  it('lists the company codes to look up before building', async () => {
    const { table, profile } = await fixture('orders.xlsx');
    expect(companyCodesIn(table, profile)).toEqual(['SUP-1001', 'SUP-1002', 'SUP-1003']);
  });
});

describe('rejects round trip', () => {
  it.each(FILES)('%s: bad orders go back in the same format, and once fixed they pass', async (name) => {
    const { table, profile } = await fixture(name);
    const { rejections } = buildOrders(table, profile, CONTEXT);
    const rejects = writeRejects(table, rejections);
    expect(rejects.format).toBe(name === 'orders.json' ? 'ndjson' : table.format);
    expect(rejects.rowCount).toBe(4);

    const back = await readExportContent(rejects.content, rejects.format);
    // Spreadsheets get the two columns last; JSON objects get the two keys last.
    expect(back.columns).toEqual(expect.arrayContaining(['error_code', 'error_message']));
    for (const row of back.rows)
      expect(Object.keys(row.values).slice(-2)).toEqual(['error_code', 'error_message']);
    expect(back.rows.map((row) => [row.values['order_number'], row.values['error_code']])).toEqual([
      ['PO-24003', 'invalid_unit'],
      ['PO-24003', 'invalid_unit'],
      ['PO-24004', 'header_conflict'],
      ['PO-24004', 'header_conflict'],
    ]);
    const unitRow = back.rows[1];
    expect(String(unitRow?.values['error_message'])).toMatch(/column 'unit' \(unit\): 'boxes' is not a unit/);
    // The line that was fine carries the order's reason, so the reader knows why it came back.
    expect(String(back.rows[0]?.values['error_message'])).toMatch(/'boxes' is not a unit/);

    const fixedRows = back.rows.map((row) => {
      const values = { ...row.values };
      if (values['unit'] === 'boxes') values['unit'] = 'pcs';
      if (values['order_number'] === 'PO-24004')
        values['delivery_date'] = back.rows[2]?.values['delivery_date'] ?? null;
      return { ...row, values };
    });
    const fixed = buildOrders({ ...back, rows: fixedRows }, profile, CONTEXT);
    expect(fixed.rejections).toEqual([]);
    expect(
      fixed.drafts.map((draft) => [draft.orderNumber, draft.lines.length, draft.deliveryDate ?? null]),
    ).toEqual([
      ['PO-24003', 2, null],
      ['PO-24004', 2, '2024-06-01'],
    ]);
  });

  it('keeps an xlsx date cell a formatted date', async () => {
    const { table, profile } = await fixture('orders.xlsx');
    const rejects = writeRejects(table, buildOrders(table, profile, CONTEXT).rejections);
    const back = await readExportContent(rejects.content, 'xlsx');
    expect(back.rows[0]?.values['order_date']).toBe(45356);
    expect(back.rows[0]?.formats?.['order_date']).toBe('dd/mm/yyyy');
  });
});
