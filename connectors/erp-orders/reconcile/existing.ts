import { z } from 'zod';
import { orderSchema } from '../../traceability/schemas/orders';

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

/**
 * An order as GET /orders/{id} returns it: the client's order schema, with the lines reduced to what the push
 * compares (and the export writes), and `isArchived` optional so list items and older answers still parse.
 */
export const existingOrderSchema = orderSchema.extend({
  isArchived: z.boolean().optional(),
  lines: z.array(existingOrderLineSchema).default([]),
});
export type ExistingOrder = z.infer<typeof existingOrderSchema>;
