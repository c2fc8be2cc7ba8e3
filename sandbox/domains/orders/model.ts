import type { Unit } from '../catalogue/units';
import type { AuditSide } from '../v2-common/audit';
import type { DateField, OrderType, ORDER_STATUSES, ORDER_SUB_TYPES } from './schemas';

export interface OrderLineRecord {
  id: string;
  orderId: string;
  orderLineNumber: string;
  lineNo: number;
  styleId: string;
  quantity: number;
  unit: Unit;
  secondaryQuantity: number | null;
  secondaryUnit: Unit | null;
  tracingReflectionOrderId: string | null;
  tracingOrderRequestedAt: string | null;
  createdAt: string;
  updatedAt: string;
  created: AuditSide;
  updated: AuditSide;
}

export type OrderDates = Record<DateField, string | null>;

export interface OrderRecord extends OrderDates {
  id: string;
  forCompanyId: string;
  orderNumber: string;
  orderType: OrderType;
  orderSubType: (typeof ORDER_SUB_TYPES)[number] | null;
  status: (typeof ORDER_STATUSES)[number] | null;
  /** Stored as one comma-joined string, as the platform does. */
  tags: string;
  buyerCompanyId: string;
  supplierCompanyId: string;
  receiverCompanyId: string | null;
  vendorCompanyId: string | null;
  factory: string | null;
  buyerFacilityProcess: string | null;
  supplierFacilityProcess: string | null;
  receiverFacilityProcess: string | null;
  shipmentReference: string | null;
  internalResponsiblePersons: string[];
  counterpartyOrderNumberRef: string | null;
  isArchived: boolean;
  tracingStatus: string | null;
  /** Sandbox model of tracing rule 3: the counterparty linked its own order, structural fields are locked. */
  structuralFieldsLocked: boolean;
  lines: OrderLineRecord[];
  createdAt: string;
  updatedAt: string;
  created: AuditSide;
  updated: AuditSide;
}

export const STRUCTURAL_FIELDS = [
  'buyerCompanyId',
  'supplierCompanyId',
  'receiverCompanyId',
  'buyerFacilityProcess',
  'supplierFacilityProcess',
  'receiverFacilityProcess',
] as const;

export function computeOrderType(
  callerCompanyId: string,
  buyerCompanyId: string,
  supplierCompanyId: string,
): OrderType {
  const isBuyer = buyerCompanyId === callerCompanyId;
  const isSupplier = supplierCompanyId === callerCompanyId;
  if (isBuyer && isSupplier) return 'INTERNAL_ORDER';
  return isBuyer ? 'PURCHASE_ORDER' : 'SALES_ORDER';
}

export function autoLineNumber(orderNumber: string, orderType: OrderType, lineNo: number): string {
  return `${orderNumber}-${orderType}-L${lineNo}`;
}

export function cloneOrder(order: OrderRecord): OrderRecord {
  return structuredClone(order);
}
