import { z } from 'zod';
import { counted } from '../../counted';
import { calendarDateSchema, unitSchema } from '../../traceability/schemas/common';
import { orderStatusSchema, orderSubTypeSchema, orderTypeSchema } from '../../traceability/schemas/orders';

/** A line's product as the export names it; the activity resolves it to a platform id. */
export const productRefSchema = z.union([
  z.strictObject({ externalId: z.string().min(1) }),
  z.strictObject({ codeId: z.string().min(1), codeValue: z.string().min(1) }),
]);
export type ProductRef = z.infer<typeof productRefSchema>;

/** A stable text key of a product ref, for `resolvedStyleIds` maps and de-duplicated lookups. */
export function productRefKey(ref: ProductRef): string {
  return 'externalId' in ref ? `externalId:${ref.externalId}` : `code:${ref.codeId}:${ref.codeValue}`;
}

const sourceRows = z.array(z.number().int().positive()).min(1);
const quantity = z.number().positive().lt(1e17);

export const lineDraftSchema = z.strictObject({
  /** Where the line came from in the export. */
  rows: sourceRows,
  /** Platform line id given by the export (lets it renumber a line); otherwise lines match by number. */
  lineId: z.string().min(1).optional(),
  /**
   * The export's line number. Absent when the export carries none: the line is then matched by content (product and
   * unit, then quantity), never by position, and a new line gets the server's number (`{orderNumber}-{type}-L{n}`).
   */
  orderLineNumber: z.string().min(1).max(255).optional(),
  productRef: productRefSchema,
  quantity,
  unit: unitSchema,
  /** Kilograms; `null` when the export's column is there but blank (clears it on the platform). */
  secondaryQuantity: quantity.nullable().optional(),
});
export type LineDraft = z.infer<typeof lineDraftSchema>;

const companyId = z.string().min(1).max(36);
/** `undefined`: the export does not manage the field (leave it); `null`: the export says it is empty (clear it). */
const clearable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** The order's business dates (the sandbox keeps its own copy of this spec list on purpose: it is the oracle). */
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

/** An order as the export describes it: the POST /orders body fields (ids resolved) plus its lines and origin. */
export const orderDraftSchema = z
  .strictObject({
    orderType: orderTypeSchema,
    rows: sourceRows,
    orderNumber: z.string().min(1).max(255),
    buyerCompanyId: companyId,
    supplierCompanyId: companyId,
    /**
     * `undefined`: the export has no receiver column (the platform's receiver is left alone); `null`: the column is
     * there but blank, which means the server's default (the buyer, with the buyer's facility process).
     */
    receiverCompanyId: companyId.nullable().optional(),
    receiverFacilityProcess: z.string().min(1).nullable().optional(),
    vendorCompanyId: clearable(companyId),
    factory: clearable(companyId),
    buyerFacilityProcess: clearable(z.string().min(1)),
    supplierFacilityProcess: clearable(z.string().min(1)),
    orderDate: clearable(calendarDateSchema),
    deliveryDate: clearable(calendarDateSchema),
    agreedDeliveryDate: clearable(calendarDateSchema),
    expectedShippingDate: clearable(calendarDateSchema),
    shippingDate: clearable(calendarDateSchema),
    handoverDate: clearable(calendarDateSchema),
    actualDeliveryDate: clearable(calendarDateSchema),
    status: orderStatusSchema.optional(),
    orderSubType: orderSubTypeSchema.optional(),
    tags: z.array(z.string().min(1)).optional(),
    shipmentReference: clearable(z.string().min(1).max(255)),
    counterpartyOrderNumberRef: clearable(z.string().min(1)),
    internalResponsiblePersons: z.array(z.string().min(1)).optional(),
    lines: z.array(lineDraftSchema),
  })
  .superRefine((draft, ctx) => {
    if (
      (typeof draft.receiverCompanyId === 'string') !==
      (typeof draft.receiverFacilityProcess === 'string')
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['receiverFacilityProcess'],
        message: 'receiver company and receiver facility process go together',
      });
    }
  });
export type OrderDraft = z.infer<typeof orderDraftSchema>;

export const REJECTION_CODES = [
  'unreadable_row',
  'missing_value',
  'too_long',
  'invalid_date',
  'invalid_quantity',
  'invalid_unit',
  'invalid_value',
  'header_conflict',
  'duplicate_line_number',
  'duplicate_line_id',
  'receiver_pair_incomplete',
  'unknown_company',
  'unknown_facility_process',
  'order_owner_not_party',
  'style_not_found',
  'invalid_company_id',
  'line_number_taken',
  'unknown_line_id',
  'traced_line_protected',
  'lines_ambiguous',
  'order_type_changed',
  'order_archived',
] as const;
export const rejectionCodeSchema = z.enum(REJECTION_CODES);
export type RejectionCode = z.infer<typeof rejectionCodeSchema>;

/** One thing wrong, pinned to a row and column where it has one. */
export const problemSchema = z.strictObject({
  code: rejectionCodeSchema,
  field: z.string(),
  message: z.string(),
  row: z.number().int().positive().optional(),
  column: z.string().optional(),
});
export type Problem = z.infer<typeof problemSchema>;

/** An order that cannot be pushed: `code`/`field`/`message` give the first problem, `problems` all of them. */
export const orderRejectionSchema = z.strictObject({
  orderNumber: z.string(),
  rows: z.array(z.number().int().positive()),
  code: rejectionCodeSchema,
  field: z.string(),
  message: z.string(),
  problems: z.array(problemSchema).min(1),
});
export type OrderRejection = z.infer<typeof orderRejectionSchema>;

export function rejectionOf(
  orderNumber: string,
  rows: readonly number[],
  problems: readonly Problem[],
): OrderRejection {
  const [first, ...rest] = problems;
  if (!first) throw new Error('a rejection needs at least one problem');
  return {
    orderNumber,
    rows: [...rows].sort((a, b) => a - b),
    code: first.code,
    field: first.field,
    message:
      rest.length > 0 ? `${first.message} (and ${counted(rest.length, 'more problem')})` : first.message,
    problems: [first, ...rest],
  };
}

/** "row 12, column 'delivery_date' (deliveryDate): ..." */
export function describeAt(row: number | undefined, column: string | undefined, field: string): string {
  const where = [
    row === undefined ? undefined : `row ${row}`,
    column === undefined ? undefined : `column '${column}'`,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  return where === '' ? field : `${where} (${field})`;
}
