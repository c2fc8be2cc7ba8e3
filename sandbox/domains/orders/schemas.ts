import { z } from 'zod';
import { UNIT_ENUM } from '../catalogue/units';

// The spec's order lists; the connectors keep their own copies (connectors/erp-orders) on purpose: the sandbox is the oracle.
export const ORDER_SUB_TYPES = ['STANDARD', 'REPEAT', 'COMMIT', 'SAMPLE', 'EXTRACTION_SPLIT'] as const;
export const ORDER_STATUSES = ['IN_PROGRESS', 'IN_REVIEW', 'COMPLETED'] as const;
export const ORDER_TYPES = ['PURCHASE_ORDER', 'SALES_ORDER', 'INTERNAL_ORDER'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const DATE_FIELDS = [
  'orderDate',
  'deliveryDate',
  'agreedDeliveryDate',
  'expectedShippingDate',
  'shippingDate',
  'handoverDate',
  'actualDeliveryDate',
] as const;
export type DateField = (typeof DATE_FIELDS)[number];

/** A calendar date `YYYY-MM-DD` that exists; a date-time is rejected. */
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date in the form YYYY-MM-DD (a date-time is not accepted)')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'is not a valid calendar date');

const companyId = z.string().min(1).max(36);
const quantity = z.number().positive('must be positive').lt(1e17, 'must be below 1e17');
const unit = z.enum(UNIT_ENUM);

/** Read-only line fields a client may echo back; accepted and ignored. */
const readOnlyLineFields = {
  tracingReflectionOrderId: z.unknown().optional(),
  tracingOrderRequestedAt: z.unknown().optional(),
};

export const newLineSchema = z
  .object({
    orderLineNumber: z.string().min(1).max(255).optional(),
    styleId: z.string().min(1),
    quantity,
    unit,
    secondaryQuantity: quantity.nullable().optional(),
    secondaryUnit: unit.nullable().optional(),
    ...readOnlyLineFields,
  })
  .strict();
export type NewLineInput = z.infer<typeof newLineSchema>;

export const lineUpdateSchema = z
  .object({
    id: z.string().min(1),
    orderLineNumber: z.string().min(1).max(255).optional(),
    styleId: z.string().min(1).optional(),
    quantity: quantity.optional(),
    unit: unit.optional(),
    secondaryQuantity: quantity.nullable().optional(),
    secondaryUnit: unit.nullable().optional(),
    ...readOnlyLineFields,
  })
  .strict();
export type LineUpdateInput = z.infer<typeof lineUpdateSchema>;

/** A PATCH `lines` entry: with `id` it is parsed by `lineUpdateSchema`, without by `newLineSchema` (see service). */
const patchLineEntry = z.record(z.string(), z.unknown());

const orderFields = {
  orderNumber: z.string().min(1).max(255),
  orderSubType: z.enum(ORDER_SUB_TYPES).nullable(),
  status: z.enum(ORDER_STATUSES).nullable(),
  tags: z.array(z.string()),
  buyerCompanyId: companyId,
  supplierCompanyId: companyId,
  receiverCompanyId: companyId.nullable(),
  vendorCompanyId: companyId.nullable(),
  factory: companyId.nullable(),
  buyerFacilityProcess: z.string().min(1).nullable(),
  supplierFacilityProcess: z.string().min(1).nullable(),
  receiverFacilityProcess: z.string().min(1).nullable(),
  orderDate: calendarDate.nullable(),
  deliveryDate: calendarDate.nullable(),
  agreedDeliveryDate: calendarDate.nullable(),
  expectedShippingDate: calendarDate.nullable(),
  shippingDate: calendarDate.nullable(),
  handoverDate: calendarDate.nullable(),
  actualDeliveryDate: calendarDate.nullable(),
  expectedDeliveryDate: calendarDate.nullable(),
  shipmentReference: z.string().max(255).nullable(),
  internalResponsiblePersons: z.array(z.string()).nullable(),
  internalResponsiblePerson: z.string().min(1, 'must not be an empty string').nullable(),
  // Spec 03 states no length for it (it does for orderNumber and shipmentReference).
  counterpartyOrderNumberRef: z.string().nullable(),
  isArchived: z.boolean(),
  // Server computed; the spec lets a client send them and ignores them.
  orderType: z.unknown(),
  tracingStatus: z.unknown(),
};

export const createOrderSchema = z
  .object({
    ...orderFields,
    orderSubType: orderFields.orderSubType.optional(),
    status: orderFields.status.optional(),
    tags: orderFields.tags.optional(),
    receiverCompanyId: orderFields.receiverCompanyId.optional(),
    vendorCompanyId: orderFields.vendorCompanyId.optional(),
    factory: orderFields.factory.optional(),
    buyerFacilityProcess: orderFields.buyerFacilityProcess.optional(),
    supplierFacilityProcess: orderFields.supplierFacilityProcess.optional(),
    receiverFacilityProcess: orderFields.receiverFacilityProcess.optional(),
    orderDate: orderFields.orderDate.optional(),
    deliveryDate: orderFields.deliveryDate.optional(),
    agreedDeliveryDate: orderFields.agreedDeliveryDate.optional(),
    expectedShippingDate: orderFields.expectedShippingDate.optional(),
    shippingDate: orderFields.shippingDate.optional(),
    handoverDate: orderFields.handoverDate.optional(),
    actualDeliveryDate: orderFields.actualDeliveryDate.optional(),
    expectedDeliveryDate: orderFields.expectedDeliveryDate.optional(),
    shipmentReference: orderFields.shipmentReference.optional(),
    internalResponsiblePersons: orderFields.internalResponsiblePersons.optional(),
    internalResponsiblePerson: orderFields.internalResponsiblePerson.optional(),
    counterpartyOrderNumberRef: orderFields.counterpartyOrderNumberRef.optional(),
    isArchived: orderFields.isArchived.optional(),
    orderType: orderFields.orderType.optional(),
    tracingStatus: orderFields.tracingStatus.optional(),
    lines: z.array(newLineSchema).optional(),
  })
  .strict();
export type CreateOrderInput = z.infer<typeof createOrderSchema>;

export const patchOrderSchema = z
  .object({ ...orderFields, lines: z.array(patchLineEntry) })
  .partial()
  .strict();
export type PatchOrderInput = z.infer<typeof patchOrderSchema>;
