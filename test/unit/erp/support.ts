import { type BuildContext } from '../../../connectors/erp-orders/orders/build';
import { companyResolverFromDirectory } from '../../../connectors/erp-orders/orders/lookups';
import type {
  CellValue,
  CsvDialect,
  ExportTable,
  SourceRow,
} from '../../../connectors/erp-orders/read/types';

export const OWN = 'comp_brand';

export const CONTEXT: BuildContext = {
  ownCompanyId: OWN,
  companies: companyResolverFromDirectory([
    { id: OWN, code: 'BRAND' },
    { id: 'comp_acme', code: 'ACME' },
    { id: 'comp_acmex', code: 'ACME-X' },
    { id: 'comp_dc', code: 'DC-PARIS' },
    { id: 'comp_mill', code: 'MILL-01' },
  ]),
  facilityProcesses: [
    { id: 'CUT_MAKE_TRIM', name: 'Cut, make and trim' },
    { id: 'WAREHOUSE', name: 'Warehouse' },
    { id: 'WEAVING_MILL', name: 'Weaving mill' },
    { id: 'LAUNDRY', name: 'Laundry' },
  ],
};

/** An export table from row objects (rows numbered from 2, as under a header), columns in first-seen order. */
export function tableOf(
  rows: ReadonlyArray<Record<string, CellValue>>,
  format: ExportTable['format'] = 'csv',
): ExportTable {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const sourceRows: SourceRow[] = rows.map((values, index) => ({ row: index + 2, values }));
  // A csv is a ','-delimited one, whose text numbers use the decimal point.
  const dialect: CsvDialect = { delimiter: ',', encoding: 'utf-8', newline: '\n', bom: false };
  return { format, columns, rows: sourceRows, ...(format === 'csv' ? { csvDialect: dialect } : {}) };
}

/** A typical line row under the default profile. */
export function lineRow(overrides: Record<string, CellValue> = {}): Record<string, CellValue> {
  return {
    order_number: 'PO-1',
    supplier_code: 'ACME',
    supplier_facility_process: 'CUT_MAKE_TRIM',
    buyer_facility_process: 'Warehouse',
    order_date: '2024-03-01',
    line_number: '1',
    product_external_id: 'TSHIRT-RED-M',
    quantity: '10',
    unit: 'pcs',
    ...overrides,
  };
}
