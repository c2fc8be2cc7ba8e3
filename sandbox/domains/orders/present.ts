import { flattenAudit } from '../v2-common/audit';
import type { OrderLineRecord, OrderRecord } from './model';
import { splitTags } from './rules';

function lineBody(line: OrderLineRecord): Record<string, unknown> {
  return {
    id: line.id,
    orderId: line.orderId,
    orderLineNumber: line.orderLineNumber,
    lineNo: line.lineNo,
    styleId: line.styleId,
    quantity: line.quantity,
    unit: line.unit,
    secondaryQuantity: line.secondaryQuantity,
    secondaryUnit: line.secondaryUnit,
    tracingReflectionOrderId: line.tracingReflectionOrderId,
    tracingOrderRequestedAt: line.tracingOrderRequestedAt,
    createdAt: line.createdAt,
    updatedAt: line.updatedAt,
    ...flattenAudit('created', line.created),
    ...flattenAudit('updated', line.updated),
  };
}

export function orderSummary(order: OrderRecord): Record<string, unknown> {
  return {
    id: order.id,
    orderNumber: order.orderNumber,
    orderType: order.orderType,
    buyerCompanyId: order.buyerCompanyId,
    supplierCompanyId: order.supplierCompanyId,
    orderDate: order.orderDate,
    updatedAt: order.updatedAt,
    updatedByUserName: order.updated.UserName,
    tracingStatus: order.tracingStatus,
    tags: splitTags(order.tags),
  };
}

/** A line as GET /order-lines shows it: with its parent's summary. */
export function presentLine(order: OrderRecord, line: OrderLineRecord): Record<string, unknown> {
  return { ...lineBody(line), order: orderSummary(order) };
}

/** `lines` is full on create and single reads, and always empty in lists. */
export function presentOrder(order: OrderRecord, withLines: boolean): Record<string, unknown> {
  return {
    id: order.id,
    forCompanyId: order.forCompanyId,
    orderNumber: order.orderNumber,
    orderType: order.orderType,
    orderSubType: order.orderSubType,
    status: order.status,
    tags: splitTags(order.tags),
    buyerCompanyId: order.buyerCompanyId,
    supplierCompanyId: order.supplierCompanyId,
    receiverCompanyId: order.receiverCompanyId,
    vendorCompanyId: order.vendorCompanyId,
    factory: order.factory,
    buyerFacilityProcess: order.buyerFacilityProcess,
    supplierFacilityProcess: order.supplierFacilityProcess,
    receiverFacilityProcess: order.receiverFacilityProcess,
    orderDate: order.orderDate,
    deliveryDate: order.deliveryDate,
    agreedDeliveryDate: order.agreedDeliveryDate,
    expectedShippingDate: order.expectedShippingDate,
    shippingDate: order.shippingDate,
    handoverDate: order.handoverDate,
    expectedDeliveryDate: order.handoverDate,
    actualDeliveryDate: order.actualDeliveryDate,
    shipmentReference: order.shipmentReference,
    internalResponsiblePersons: order.internalResponsiblePersons,
    internalResponsiblePerson: order.internalResponsiblePersons[0] ?? null,
    counterpartyOrderNumberRef: order.counterpartyOrderNumberRef,
    isArchived: order.isArchived,
    tracingStatus: order.tracingStatus,
    lineCount: order.lines.length,
    lines: withLines ? [...order.lines].sort((a, b) => a.lineNo - b.lineNo).map(lineBody) : [],
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    ...flattenAudit('created', order.created),
    ...flattenAudit('updated', order.updated),
  };
}
