import { z } from 'zod';
import { calendarDateSchema, nullishNumber, nullishString, pageQuerySchema, unitSchema } from './common';

export const orderTypeSchema = z.enum(['PURCHASE_ORDER', 'SALES_ORDER', 'INTERNAL_ORDER']);
export type OrderType = z.infer<typeof orderTypeSchema>;
export const orderSubTypeSchema = z.enum(['STANDARD', 'REPEAT', 'COMMIT', 'SAMPLE', 'EXTRACTION_SPLIT']);
export const orderStatusSchema = z.enum(['IN_PROGRESS', 'IN_REVIEW', 'COMPLETED']);

export const orderSummarySchema = z.looseObject({
  id: z.string(),
  orderNumber: z.string(),
  orderType: z.string().nullish(),
});

export const orderLineSchema = z.looseObject({
  id: z.string().min(1),
  orderId: nullishString,
  orderLineNumber: nullishString,
  lineNo: z.number(),
  styleId: z.string(),
  quantity: z.number(),
  unit: z.string(),
  secondaryQuantity: nullishNumber,
  secondaryUnit: nullishString,
  tracingReflectionOrderId: nullishString,
  tracingOrderRequestedAt: nullishString,
  order: orderSummarySchema.nullish(),
  createdAt: nullishString,
  updatedAt: nullishString,
});
export type OrderLine = z.infer<typeof orderLineSchema>;

export const orderSchema = z.looseObject({
  id: z.string().min(1),
  forCompanyId: nullishString,
  orderNumber: z.string(),
  orderType: orderTypeSchema,
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
  isArchived: z.boolean(),
  tracingStatus: nullishString,
  lineCount: nullishNumber,
  lines: z.array(orderLineSchema).nullish(),
  createdAt: nullishString,
  updatedAt: nullishString,
});
export type Order = z.infer<typeof orderSchema>;

const companyId = z.string().min(1).max(36);
const optionalDate = calendarDateSchema.nullish();

const orderLineCreateSchema = z.strictObject({
  orderLineNumber: z.string().min(1).max(255).optional(),
  styleId: z.string().min(1),
  quantity: z.number().positive().lt(1e17),
  unit: unitSchema,
  secondaryQuantity: z.number().positive().nullish(),
});
export type OrderLineCreate = z.input<typeof orderLineCreateSchema>;

const orderFields = {
  orderNumber: z.string().min(1).max(255),
  orderSubType: orderSubTypeSchema.optional(),
  status: orderStatusSchema.optional(),
  tags: z.array(z.string()).optional(),
  buyerCompanyId: companyId,
  supplierCompanyId: companyId,
  receiverCompanyId: companyId.nullish(),
  vendorCompanyId: companyId.nullish(),
  factory: companyId.nullish(),
  buyerFacilityProcess: z.string().min(1).nullish(),
  supplierFacilityProcess: z.string().min(1).nullish(),
  receiverFacilityProcess: z.string().min(1).nullish(),
  orderDate: optionalDate,
  deliveryDate: optionalDate,
  agreedDeliveryDate: optionalDate,
  expectedShippingDate: optionalDate,
  shippingDate: optionalDate,
  handoverDate: optionalDate,
  actualDeliveryDate: optionalDate,
  expectedDeliveryDate: optionalDate,
  shipmentReference: z.string().max(255).nullish(),
  internalResponsiblePersons: z.array(z.string()).optional(),
  internalResponsiblePerson: z.string().min(1).optional(),
  counterpartyOrderNumberRef: z.string().nullish(),
};

function partyRules(value: Partial<Record<string, unknown>>, ctx: z.RefinementCtx): void {
  const hasReceiver = value.receiverCompanyId !== undefined;
  const hasProcess = value.receiverFacilityProcess !== undefined;
  if (hasReceiver !== hasProcess) {
    ctx.addIssue({
      code: 'custom',
      path: ['receiverFacilityProcess'],
      message: 'receiverCompanyId and receiverFacilityProcess go together',
    });
  }
  if (value.internalResponsiblePersons !== undefined && value.internalResponsiblePerson !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['internalResponsiblePerson'],
      message: 'send internalResponsiblePersons or the deprecated internalResponsiblePerson, not both',
    });
  }
}

export const orderCreateSchema = z
  .strictObject({ ...orderFields, lines: z.array(orderLineCreateSchema).optional() })
  .superRefine(partyRules);
export type OrderCreate = z.input<typeof orderCreateSchema>;

/** A PATCH line entry: with `id` it updates that line, without it creates one. */
export const orderLinePatchSchema = z.strictObject({
  id: z.string().min(1).optional(),
  orderLineNumber: z.string().min(1).max(255).optional(),
  styleId: z.string().min(1).optional(),
  quantity: z.number().positive().lt(1e17).optional(),
  unit: unitSchema.optional(),
  secondaryQuantity: z.number().positive().nullish(),
});

/** PATCH /orders/{id}: omitted fields stay; a `lines` array fully synchronises the lines. */
export const orderPatchSchema = z
  .strictObject({
    ...orderFields,
    orderNumber: orderFields.orderNumber.optional(),
    buyerCompanyId: companyId.optional(),
    supplierCompanyId: companyId.optional(),
    isArchived: z.boolean().optional(),
    lines: z.array(orderLinePatchSchema).optional(),
  })
  .superRefine(partyRules)
  .superRefine((value, ctx) => {
    value.lines?.forEach((line, index) => {
      if (
        line.id === undefined &&
        (line.styleId === undefined || line.quantity === undefined || line.unit === undefined)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['lines', index],
          message: 'a new line needs styleId, quantity and unit',
        });
      }
    });
  });
export type OrderPatch = z.input<typeof orderPatchSchema>;

export const orderListQuerySchema = pageQuerySchema.extend({
  sort: z.enum(['updatedAt', 'createdAt', 'orderNumber', 'orderDate', 'status']).optional(),
  order: z.enum(['ASC', 'DESC']).optional(),
  type: orderTypeSchema.optional(),
  supplier: z.string().optional(),
  buyer: z.string().optional(),
  status: z.string().optional(),
  tag: z.string().optional(),
  orderNumber: z.string().optional(),
  isArchived: z.boolean().optional(),
  updatedAfterUnixMs: z.number().int().optional(),
  updatedBeforeUnixMs: z.number().int().optional(),
});
export type OrderListQuery = z.input<typeof orderListQuerySchema>;

export const orderLineListQuerySchema = pageQuerySchema.extend({ orderId: z.string().optional() });
export type OrderLineListQuery = z.input<typeof orderLineListQuerySchema>;
