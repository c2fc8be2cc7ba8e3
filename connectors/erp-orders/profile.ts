import { readInputText } from '../storage';
import { z } from 'zod';
import { configProblems } from '../config-problems';
import { unitSchema } from '../traceability/schemas/common';
import { orderStatusSchema } from '../traceability/schemas/orders';
import { DATE_FIELDS } from './orders/draft';

/** Order header fields a column (or a constant) can feed. `…Code` fields go through the company lookup. */
export const ORDER_SOURCE_FIELDS = [
  'orderNumber',
  'buyerCompanyCode',
  'buyerCompanyId',
  'supplierCompanyCode',
  'supplierCompanyId',
  'receiverCompanyCode',
  'receiverCompanyId',
  'vendorCompanyCode',
  'vendorCompanyId',
  'factoryCode',
  'factoryId',
  'buyerFacilityProcess',
  'supplierFacilityProcess',
  'receiverFacilityProcess',
  ...DATE_FIELDS,
  'status',
  'orderSubType',
  'tags',
  'shipmentReference',
  'counterpartyOrderNumberRef',
  'internalResponsiblePersons',
] as const;
export type OrderSourceField = (typeof ORDER_SOURCE_FIELDS)[number];

/**
 * Line fields. `lineId` (optional) is the platform line id, as written by the order export: it lets an export
 * renumber lines (`orderLineNumber` changes); without it lines are matched by `orderLineNumber`.
 */
export const LINE_SOURCE_FIELDS = [
  'lineId',
  'orderLineNumber',
  'productExternalId',
  'productCode',
  'quantity',
  'unit',
  'secondaryQuantity',
] as const;
export type LineSourceField = (typeof LINE_SOURCE_FIELDS)[number];
export type SourceField = OrderSourceField | LineSourceField;
export const SOURCE_FIELDS: readonly SourceField[] = [...ORDER_SOURCE_FIELDS, ...LINE_SOURCE_FIELDS];

/** Fields that identify a row and so cannot be a constant. */
const NOT_CONSTANT: ReadonlySet<SourceField> = new Set([
  'orderNumber',
  'lineId',
  'orderLineNumber',
  'quantity',
]);

const columnName = z.string().trim().min(1);
const columnsSchema = z.strictObject(
  Object.fromEntries(SOURCE_FIELDS.map((field) => [field, columnName.optional()])) as Record<
    SourceField,
    z.ZodOptional<typeof columnName>
  >,
);
const constantsSchema = z.strictObject(
  Object.fromEntries(SOURCE_FIELDS.map((field) => [field, z.string().optional()])) as Record<
    SourceField,
    z.ZodOptional<z.ZodString>
  >,
);

export const mappingProfileSchema = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    /** Which column feeds which field; header names match case-insensitively, spaces trimmed. */
    columns: columnsSchema,
    /** Values used when a field has no column or its cell is blank (company codes, process names, status...). */
    constants: constantsSchema.default({}),
    /** The caller's own company fills this party when no column or constant gives one. */
    ownCompanyAs: z.enum(['buyer', 'supplier', 'none']).default('buyer'),
    /** Code type of `productCode` cells (a products' `codes[].codeId`). */
    productCodeId: z.string().min(1).default('ERP_ID'),
    dateFormat: z.enum(['iso', 'dmy', 'mdy']).default('iso'),
    /**
     * The decimal mark of quantities written as text. Unset: a ';'-delimited csv uses ',' and a ','-delimited one '.'
     * (as Excel and SAP write them); elsewhere a number that reads two ways (`1,250`) is refused naming both.
     */
    decimalSeparator: z.enum(['.', ',']).optional(),
    /** Separators splitting tags and responsible persons; a comma always splits tags on the server anyway. */
    listSeparators: z.array(z.string().min(1)).min(1).default([',', ';']),
    /** Extra unit spellings (case-insensitive) on top of the built-in ones, for example `{"stuks": "PIECES"}`. */
    unitAliases: z.record(z.string().min(1), unitSchema).default({}),
    /**
     * The export's status words (case-insensitive) → spec 03's order statuses, for example
     * `{"Open": "IN_PROGRESS", "Released": "IN_REVIEW", "Closed": "COMPLETED"}`; the enumeration's own values are
     * read without one.
     */
    statusAliases: z.record(z.string().trim().min(1), orderStatusSchema).default({}),
    /**
     * The export lists every line of each order it contains: lines missing from it are deleted. Without it, an export
     * without line numbers cannot change a line's product or unit (`lines_ambiguous`): replacement or addition?
     */
    complete: z.boolean().default(false),
    /** xlsx: the sheet to read, even a hidden one (default: the first visible sheet with cells). */
    sheet: z.string().min(1).optional(),
    /**
     * Responsible persons' e-mails → their platform user ids (e-mails match case-insensitively), for exports that name
     * people by e-mail: the platform stores ids and has no lookup, so without them an order this worker has not
     * written since it started compares as changed once.
     */
    responsiblePersonIds: z
      .record(z.string().trim().toLowerCase().email(), z.string().trim().min(1))
      .default({}),
  })
  .superRefine((profile, ctx) => {
    const has = (field: SourceField): boolean =>
      profile.columns[field] !== undefined || profile.constants[field] !== undefined;
    if (profile.columns.orderNumber === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['columns', 'orderNumber'],
        message: 'a column must feed orderNumber',
      });
    }
    if (profile.columns.quantity === undefined) {
      ctx.addIssue({ code: 'custom', path: ['columns', 'quantity'], message: 'a column must feed quantity' });
    }
    if (!has('unit'))
      ctx.addIssue({
        code: 'custom',
        path: ['columns', 'unit'],
        message: 'a column or a constant must give the unit',
      });
    if (!has('productExternalId') && !has('productCode')) {
      ctx.addIssue({
        code: 'custom',
        path: ['columns', 'productExternalId'],
        message: 'a column must give the product (productExternalId or productCode)',
      });
    }
    for (const field of Object.keys(profile.constants) as SourceField[]) {
      if (NOT_CONSTANT.has(field))
        ctx.addIssue({
          code: 'custom',
          path: ['constants', field],
          message: `${field} cannot be a constant`,
        });
    }
  });
export type MappingProfile = z.output<typeof mappingProfileSchema>;
export type MappingProfileInput = z.input<typeof mappingProfileSchema>;

/** The default profile: snake_case columns, the caller's company as buyer, ISO dates, incomplete exports. */
export const DEFAULT_PROFILE: MappingProfile = mappingProfileSchema.parse({
  name: 'default',
  description: 'One row per order line; the brand is the buyer unless a buyer_code column says otherwise.',
  columns: {
    orderNumber: 'order_number',
    buyerCompanyCode: 'buyer_code',
    supplierCompanyCode: 'supplier_code',
    receiverCompanyCode: 'receiver_code',
    vendorCompanyCode: 'vendor_code',
    factoryCode: 'factory_code',
    buyerFacilityProcess: 'buyer_facility_process',
    supplierFacilityProcess: 'supplier_facility_process',
    receiverFacilityProcess: 'receiver_facility_process',
    orderDate: 'order_date',
    deliveryDate: 'delivery_date',
    agreedDeliveryDate: 'agreed_delivery_date',
    expectedShippingDate: 'expected_shipping_date',
    shippingDate: 'shipping_date',
    handoverDate: 'handover_date',
    actualDeliveryDate: 'actual_delivery_date',
    status: 'status',
    orderSubType: 'order_sub_type',
    tags: 'tags',
    shipmentReference: 'shipment_reference',
    counterpartyOrderNumberRef: 'counterparty_order_number',
    internalResponsiblePersons: 'responsible_persons',
    lineId: 'line_id',
    orderLineNumber: 'line_number',
    productExternalId: 'product_external_id',
    productCode: 'product_code',
    quantity: 'quantity',
    unit: 'unit',
    secondaryQuantity: 'secondary_quantity_kg',
  },
});

export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}

/** Validates a profile given as data (workflow input, parsed JSON); the error lists every problem by path. */
export function parseProfile(input: unknown, origin = 'mapping profile'): MappingProfile {
  const parsed = mappingProfileSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    throw new ProfileError(`${origin} is not valid: ${configProblems(mappingProfileSchema, parsed.error)}`);
  }
  return parsed.data;
}

export async function loadProfileFile(path: string): Promise<MappingProfile> {
  let data: unknown;
  try {
    data = JSON.parse(await readInputText(path)); // a worker path or an s3:// reference
  } catch (error) {
    throw new ProfileError(`cannot read mapping profile ${path}: ${(error as Error).message}`);
  }
  return parseProfile(data, `mapping profile ${path}`);
}

/** Which of the profile's columns the export has, by the export's own header spelling. */
export interface ColumnBinding {
  /** Field → the export's header for it. */
  bound: Partial<Record<SourceField, string>>;
  /** Mapped fields whose column the export lacks (fine for optional fields: their constants apply). */
  missing: Array<{ field: SourceField; column: string }>;
}

export function bindColumns(profile: MappingProfile, header: readonly string[]): ColumnBinding {
  const byKey = new Map(header.map((name) => [name.trim().toLowerCase(), name]));
  const binding: ColumnBinding = { bound: {}, missing: [] };
  for (const field of SOURCE_FIELDS) {
    const column = profile.columns[field];
    if (column === undefined) continue;
    const actual = byKey.get(column.trim().toLowerCase());
    if (actual === undefined) binding.missing.push({ field, column });
    else binding.bound[field] = actual;
  }
  return binding;
}

/** Columns an export cannot do without: a missing one makes every row unusable, so the whole file is refused. */
export function missingRequiredColumns(profile: MappingProfile, binding: ColumnBinding): string[] {
  const missing = new Set(binding.missing.map((entry) => entry.field));
  const problems: string[] = [];
  for (const field of ['orderNumber', 'quantity'] as const) {
    if (missing.has(field)) problems.push(`column '${profile.columns[field] ?? field}' (${field})`);
  }
  if (missing.has('unit') && profile.constants.unit === undefined)
    problems.push(`column '${profile.columns.unit}' (unit)`);
  const productBound =
    binding.bound.productExternalId !== undefined || binding.bound.productCode !== undefined;
  const productConstant =
    profile.constants.productExternalId !== undefined || profile.constants.productCode !== undefined;
  if (!productBound && !productConstant) problems.push('a product column (productExternalId or productCode)');
  return problems;
}
