import { NATIVE_HEADER } from '../unit/plm-activities/native-sheet';

/**
 * The chaos runs' inputs, generated from the run's seed: a native-layout PLM sheet (styles, variants, SKUs) and an
 * ERP order export (one row per line). Names and codes are ones the sandbox's demo seed knows, so every row is
 * valid: any rejection or difference at the end is the jobs' doing, not the input's.
 */

// The native sheet of the import's own tests, plus a multi-use code on SKUs.
export const PLM_COLUMNS = [...NATIVE_HEADER, 'OTHER_ID1'] as const;
type PlmColumn = (typeof PLM_COLUMNS)[number];
export type PlmRow = Partial<Record<PlmColumn, string>> & { externalId: string };

export type Level = 'style' | 'variant' | 'sku';

/** What the catalogue must hold for one row of the sheet. */
export interface ExpectedProduct {
  externalId: string;
  level: Level;
  parentExternalId: string | null;
  name: string;
  color: string | null;
  dimension: string | null;
  /** `codeId=codeValue`, sorted. */
  codes: string[];
}

export interface PlmSheet {
  rows: PlmRow[];
  csv: string;
  expected: ExpectedProduct[];
}

/** Styles × (1 + colours × (1 + sizes)) rows; 40 × 7 × 6 gives 2,000, 4 × 7 × 6 gives 200. */
export function plmSheet(prefix: string, styles: number, colours = 7, sizes = 6): PlmSheet {
  const rows: PlmRow[] = [];
  const expected: ExpectedProduct[] = [];
  for (let s = 1; s <= styles; s++) {
    const style = `${prefix}-S${s}`;
    rows.push({
      externalId: style,
      level: 'style',
      name: `Chaos tee ${s}`,
      styleType: 'T-shirts',
      isComponent: 'no',
      description: `Chaos tee number ${s}`,
      gender: 'Unisex',
      brands: 'Nordic Threads',
      seasons: 'SS25',
      PLM_ID: style,
    });
    expected.push({
      externalId: style,
      level: 'style',
      parentExternalId: null,
      name: `Chaos tee ${s}`,
      color: null,
      dimension: null,
      codes: [`PLM_ID=${style}`],
    });
    for (let c = 1; c <= colours; c++) {
      const variant = `${style}-C${c}`;
      rows.push({
        externalId: variant,
        parentExternalId: style,
        level: 'variant',
        name: `Chaos tee ${s} colour ${c}`,
        color: `Colour ${c}`,
        PLM_ID: variant,
      });
      expected.push({
        externalId: variant,
        level: 'variant',
        parentExternalId: style,
        name: `Chaos tee ${s} colour ${c}`,
        color: `Colour ${c}`,
        dimension: null,
        codes: [`PLM_ID=${variant}`],
      });
      for (let z = 1; z <= sizes; z++) {
        const sku = `${variant}-Z${z}`;
        const other = `ALT-${prefix}-${s}-${c}-${z}`;
        rows.push({
          externalId: sku,
          parentExternalId: variant,
          level: 'sku',
          name: `Chaos tee ${s} colour ${c} size ${z}`,
          color: `Colour ${c}`,
          dimension: `Size ${z}`,
          weight: String(150 + z * 10),
          weightUnit: 'GRAM',
          PLM_ID: sku,
          OTHER_ID1: other,
        });
        expected.push({
          externalId: sku,
          level: 'sku',
          parentExternalId: variant,
          name: `Chaos tee ${s} colour ${c} size ${z}`,
          color: `Colour ${c}`,
          dimension: `Size ${z}`,
          codes: [`OTHER_ID1=${other}`, `PLM_ID=${sku}`],
        });
      }
    }
  }
  const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  const lines = [
    PLM_COLUMNS.join(','),
    ...rows.map((row) => PLM_COLUMNS.map((column) => field(row[column] ?? '')).join(',')),
  ];
  return { rows, csv: `${lines.join('\r\n')}\r\n`, expected };
}

/** Demo-seed products an order line may name, by externalId. */
export const ORDER_PRODUCTS = [
  'PLM-TEE-001-BLK',
  'PLM-TEE-001-OWH',
  'PLM-JKT-010-NVY',
  'CMP-BTN-15',
] as const;
/** Supplier codes of the demo network and the company ids they stand for. */
export const SUPPLIERS: Readonly<Record<string, string>> = {
  'SUP-1001': 'cmp_sup_anatolia_garments',
  'SUP-1002': 'cmp_sup_gujarat_mills',
  'SUP-1003': 'cmp_sup_porto_trims',
};

export interface ExpectedOrderLine {
  orderLineNumber: string;
  productExternalId: string;
  quantity: number;
  unit: 'PIECES';
}

/** What the platform must hold for one order number of the export. */
export interface ExpectedOrder {
  orderNumber: string;
  supplierCompanyId: string;
  orderDate: string;
  deliveryDate: string;
  lines: ExpectedOrderLine[];
}

export interface OrderExport {
  csv: string;
  expected: ExpectedOrder[];
  lineCount: number;
}

const ORDER_COLUMNS = [
  'order_number',
  'supplier_code',
  'buyer_facility_process',
  'supplier_facility_process',
  'order_date',
  'delivery_date',
  'status',
  'line_number',
  'product_external_id',
  'quantity',
  'unit',
] as const;

function isoDay(base: number, offsetDays: number): string {
  return new Date(base + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/** `count` orders of 1-5 lines each, quantities and dates drawn from `random`. */
export function orderExport(prefix: string, count: number, random: () => number): OrderExport {
  const base = Date.UTC(2025, 0, 1);
  const supplierCodes = Object.keys(SUPPLIERS);
  const rows: string[] = [ORDER_COLUMNS.join(',')];
  const expected: ExpectedOrder[] = [];
  let lineCount = 0;
  for (let o = 1; o <= count; o++) {
    const orderNumber = `${prefix}-PO-${String(o).padStart(5, '0')}`;
    const supplierCode = supplierCodes[Math.floor(random() * supplierCodes.length)] as string;
    const orderDate = isoDay(base, Math.floor(random() * 300));
    const deliveryDate = isoDay(Date.parse(orderDate), 30 + Math.floor(random() * 60));
    const lines: ExpectedOrderLine[] = [];
    const n = 1 + Math.floor(random() * 5);
    for (let l = 1; l <= n; l++) {
      const line: ExpectedOrderLine = {
        orderLineNumber: String(l),
        productExternalId: ORDER_PRODUCTS[Math.floor(random() * ORDER_PRODUCTS.length)] as string,
        quantity: 1 + Math.floor(random() * 999),
        unit: 'PIECES',
      };
      lines.push(line);
      rows.push(
        [
          orderNumber,
          supplierCode,
          'Warehouse',
          'Cut make trim',
          orderDate,
          deliveryDate,
          'IN_PROGRESS',
          line.orderLineNumber,
          line.productExternalId,
          String(line.quantity),
          line.unit,
        ].join(','),
      );
    }
    lineCount += n;
    expected.push({
      orderNumber,
      supplierCompanyId: SUPPLIERS[supplierCode] as string,
      orderDate,
      deliveryDate,
      lines,
    });
  }
  return { csv: `${rows.join('\n')}\n`, expected, lineCount };
}
