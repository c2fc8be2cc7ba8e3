import { toCsv, type Column } from '../reports';
import type { ExistingOrder, ExistingOrderLine } from '../erp-orders/reconcile/existing';
import { DATE_FIELDS } from '../erp-orders/orders/draft';

/** One line of an order with its order, or the order alone when it has no lines. */
interface OrderLineRow {
  order: ExistingOrder;
  line: ExistingOrderLine | undefined;
}

const orderColumn = (
  header: string,
  value: (order: ExistingOrder) => string | number | boolean | null | undefined,
): Column<OrderLineRow> => ({
  header,
  value: (row) => value(row.order),
});
const lineColumn = (
  header: string,
  value: (line: ExistingOrderLine) => string | number | null | undefined,
): Column<OrderLineRow> => ({
  header,
  value: (row) => (row.line === undefined ? null : value(row.line)),
});
const snake = (field: string): string => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Column names follow the default mapping profile where the field is the same (ids here, not company codes). */
export const ORDER_EXPORT_COLUMNS: readonly Column<OrderLineRow>[] = [
  orderColumn('order_id', (order) => order.id),
  orderColumn('order_number', (order) => order.orderNumber),
  orderColumn('order_type', (order) => order.orderType),
  orderColumn('order_sub_type', (order) => order.orderSubType),
  orderColumn('status', (order) => order.status),
  orderColumn('buyer_company_id', (order) => order.buyerCompanyId),
  orderColumn('supplier_company_id', (order) => order.supplierCompanyId),
  orderColumn('receiver_company_id', (order) => order.receiverCompanyId),
  orderColumn('vendor_company_id', (order) => order.vendorCompanyId),
  orderColumn('factory_id', (order) => order.factory),
  orderColumn('buyer_facility_process', (order) => order.buyerFacilityProcess),
  orderColumn('supplier_facility_process', (order) => order.supplierFacilityProcess),
  orderColumn('receiver_facility_process', (order) => order.receiverFacilityProcess),
  ...DATE_FIELDS.map((field) => orderColumn(snake(field), (order) => order[field])),
  orderColumn('tags', (order) => (order.tags ?? []).join(',')),
  orderColumn('shipment_reference', (order) => order.shipmentReference),
  orderColumn('counterparty_order_number', (order) => order.counterpartyOrderNumberRef),
  orderColumn('responsible_persons', (order) => (order.internalResponsiblePersons ?? []).join(',')),
  orderColumn('is_archived', (order) => order.isArchived),
  orderColumn('updated_at', (order) => order.updatedAt),
  lineColumn('line_id', (line) => line.id),
  lineColumn('line_number', (line) => line.orderLineNumber),
  lineColumn('line_no', (line) => line.lineNo),
  lineColumn('style_id', (line) => line.styleId),
  lineColumn('quantity', (line) => line.quantity),
  lineColumn('unit', (line) => line.unit),
  lineColumn('secondary_quantity_kg', (line) => line.secondaryQuantity),
];

/**
 * One CSV row per order line (an order without lines gets one row with empty line cells). Text a spreadsheet
 * would run as a formula (starting with = + - @) is prefixed with an apostrophe. UTF-8 with BOM, CRLF.
 */
export function ordersToCsv(orders: readonly ExistingOrder[]): string {
  const rows = orders.flatMap((order): OrderLineRow[] =>
    order.lines.length === 0 ? [{ order, line: undefined }] : order.lines.map((line) => ({ order, line })),
  );
  return toCsv({ name: 'orders', columns: ORDER_EXPORT_COLUMNS, rows });
}

/** One JSON object per line: the order as read from the API, lines nested. */
export function ordersToNdjson(orders: readonly ExistingOrder[]): string {
  return orders.map((order) => JSON.stringify(order)).join('\n') + (orders.length > 0 ? '\n' : '');
}
