import { z } from 'zod';

const nullishString = z.string().nullish();

/** The parts of an order line (GET /orders/{id}) the reconciliation compares. Other fields pass through. */
export const existingOrderLineSchema = z.looseObject({
  id: z.string().min(1),
  orderLineNumber: z.string(),
  lineNo: z.number(),
  /** Always a platform id in responses. */
  styleId: z.string(),
  quantity: z.number(),
  unit: z.string(),
  secondaryQuantity: z.number().nullish(),
  tracingReflectionOrderId: nullishString,
});
export type ExistingOrderLine = z.infer<typeof existingOrderLineSchema>;

/** An order as GET /orders/{id} returns it, reduced to what the push compares (and the export writes). */
export const existingOrderSchema = z.looseObject({
  id: z.string().min(1),
  orderNumber: z.string(),
  orderType: z.enum(['PURCHASE_ORDER', 'SALES_ORDER', 'INTERNAL_ORDER']),
  orderSubType: nullishString,
  status: nullishString,
  tags: z.array(z.string()).nullish(),
  buyerCompanyId: z.string(),
  supplierCompanyId: z.string(),
  receiverCompanyId: nullishString,
  vendorCompanyId: nullishString,
  factory: nullishString,
  buyerFacilityProcess: nullishString,
  supplierFacilityProcess: nullishString,
  receiverFacilityProcess: nullishString,
  orderDate: nullishString,
  deliveryDate: nullishString,
  agreedDeliveryDate: nullishString,
  expectedShippingDate: nullishString,
  shippingDate: nullishString,
  handoverDate: nullishString,
  actualDeliveryDate: nullishString,
  shipmentReference: nullishString,
  counterpartyOrderNumberRef: nullishString,
  internalResponsiblePersons: z.array(z.string()).nullish(),
  isArchived: z.boolean().optional(),
  updatedAt: nullishString,
  lines: z.array(existingOrderLineSchema).default([]),
});
export type ExistingOrder = z.infer<typeof existingOrderSchema>;
