import { readInputText } from '../storage';
import { z } from 'zod';
import { configProblems, notBlank } from '../config-problems';
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
export const NOT_CONSTANT: ReadonlySet<SourceField> = new Set([
  'orderNumber',
  'lineId',
  'orderLineNumber',
  'quantity',
]);

/** Fields a column must feed (a constant cannot: see NOT_CONSTANT). */
export const REQUIRED_COLUMNS = ['orderNumber', 'quantity'] as const satisfies readonly SourceField[];

const party = (name: string) => ({
  code: `The ${name} by its company code in the network, looked up exactly, else case aside (a code several companies share is refused).`,
  id: `The ${name} by platform company id, checked against the network.`,
  process: `The ${name}'s facility process: an id or a display name (case-insensitive) from the facility-process list.`,
});
const dateDoc = (what: string): string =>
  `${what}: an ISO date or date-time (the written date is kept), YYYYMMDD, an Excel date, or D/M/YYYY or M/D/YYYY per dateFormat.`;

/** What each field of `columns` and `constants` feeds: the JSON Schema's descriptions and the README's field table. */
export const FIELD_DOCS: Record<SourceField, string> = {
  orderNumber:
    "The order's number (spec 03: exact match, 1-255 characters). Rows with the same number and order type are one order; a blank one continues the order of the row above.",
  buyerCompanyCode: party('buyer').code,
  buyerCompanyId: party('buyer').id,
  supplierCompanyCode: party('supplier').code,
  supplierCompanyId: party('supplier').id,
  receiverCompanyCode: `${party('receiver').code} No receiver column nor constant leaves the platform's receiver alone; a blank cell is the server default, the buyer.`,
  receiverCompanyId: party('receiver').id,
  vendorCompanyCode: party('vendor').code,
  vendorCompanyId: party('vendor').id,
  factoryCode: party('factory').code,
  factoryId: party('factory').id,
  buyerFacilityProcess: party('buyer').process,
  supplierFacilityProcess: party('supplier').process,
  receiverFacilityProcess: `${party('receiver').process} Sent together with the receiver (spec 03).`,
  orderDate: dateDoc('Order date'),
  deliveryDate: dateDoc('Delivery date'),
  agreedDeliveryDate: dateDoc('Agreed delivery date'),
  expectedShippingDate: dateDoc('Expected shipping date'),
  shippingDate: dateDoc('Shipping date'),
  handoverDate: dateDoc("Handover date (the API's deprecated expectedDeliveryDate)"),
  actualDeliveryDate: dateDoc('Actual delivery date'),
  status:
    '`IN_PROGRESS`, `IN_REVIEW`, `COMPLETED` (case-insensitive), or a word of statusAliases. A blank cell never clears it.',
  orderSubType:
    '`STANDARD`, `REPEAT`, `COMMIT`, `SAMPLE` or `EXTRACTION_SPLIT`. A blank cell never clears it.',
  tags: 'Tags, split at commas and at listSeparators.',
  shipmentReference: 'Text, at most 255 characters.',
  counterpartyOrderNumberRef: "The counterparty's own order number (spec 03 states no length limit).",
  internalResponsiblePersons:
    "E-mails or user ids of the caller's company's users, split at listSeparators; see responsiblePersonIds.",
  lineId:
    'The platform line id, as the order export writes it: lines match by it, so an export may renumber them.',
  orderLineNumber:
    'The line number; lines match by it when there is no lineId, else by product, unit and quantity. Blank on a new line: the server numbers it.',
  productExternalId:
    "The line's product by its externalId. This or productCode is required (a column or a constant).",
  productCode: "The line's product by a code of type productCodeId.",
  quantity:
    'A positive number, rounded half-up to 2 decimals; text follows decimalSeparator (`1.250,5` with `,`).',
  unit: 'A spec 03 unit (`PIECES`, `KILOGRAM`...) or a spelling of unitAliases; required (a column or a constant).',
  secondaryQuantity: 'A weight in kilograms (spec 03); 0 or blank is none.',
};

const columnName = notBlank('a column name').trim();
const columnsSchema = z
  .strictObject(
    Object.fromEntries(
      SOURCE_FIELDS.map((field) => [field, columnName.optional().meta({ description: FIELD_DOCS[field] })]),
    ) as Record<SourceField, z.ZodOptional<typeof columnName>>,
  )
  .meta({
    description:
      'Which column feeds which field: the header, matched case-insensitively with spaces trimmed (a name of only blanks is refused). orderNumber and quantity are required; a unit and a product (productExternalId or productCode) by a column or a constant.',
    examples: [{ orderNumber: 'PO', quantity: 'Qty', unit: 'UoM', productExternalId: 'Article' }],
  });
const constantsSchema = z
  .strictObject(
    Object.fromEntries(
      SOURCE_FIELDS.map((field) => [field, z.string().optional().meta({ description: FIELD_DOCS[field] })]),
    ) as Record<SourceField, z.ZodOptional<z.ZodString>>,
  )
  .meta({
    description: `Values used when a field has no column or its cell is blank, read as a cell would be (company codes, process names, status...; one of only blanks is none). Not for ${[...NOT_CONSTANT].join(', ')}.`,
    examples: [{ supplierCompanyCode: 'SUP-1001', unit: 'PIECES' }],
  });

/**
 * Read as a cell would be, a constant of only blanks gives nothing: it is none, as if left out, so that a unit or a
 * product it seemed to give is asked of a column.
 */
function given(constant: string | undefined): boolean {
  return constant !== undefined && /\S/.test(constant);
}

export const mappingProfileSchema = z
  .strictObject({
    $schema: z
      .string()
      .optional()
      .meta({
        description: 'Optional pointer to the JSON Schema, for editors; ignored by the push.',
        examples: ['../../connectors/erp-orders/profile.schema.json'],
      }),
    name: notBlank('a profile name').meta({
      description: 'Names the profile in messages.',
      examples: ['sap-purchase-orders'],
    }),
    description: z
      .string()
      .optional()
      .meta({
        description: 'Free text for people reading the profile.',
        examples: ['Semicolon csv from SAP'],
      }),
    columns: columnsSchema,
    constants: constantsSchema.default({}),
    ownCompanyAs: z
      .enum(['buyer', 'supplier', 'none'])
      .default('buyer')
      .meta({
        description:
          "The party the caller's own company fills when no column or constant gives one (`none`: every order must name its buyer and supplier).",
        examples: ['supplier'],
      }),
    productCodeId: notBlank('a code type')
      .default('ERP_ID')
      .meta({
        description: "Code type of `productCode` cells (a product's `codes[].codeId`, spec 01).",
        examples: ['EAN_GTIN_13'],
      }),
    dateFormat: z
      .enum(['iso', 'dmy', 'mdy'])
      .default('iso')
      .meta({
        description:
          'How text dates like 03/04/2026 are read: `dmy` day first, `mdy` month first; ISO dates, YYYYMMDD and Excel dates are read whatever it says.',
        examples: ['dmy'],
      }),
    /** Unset: the csv's delimiter implies the mark, as Excel and SAP write them (connectors/number-text.ts). */
    decimalSeparator: z
      .enum(['.', ','])
      .optional()
      .meta({
        description:
          "The decimal mark of quantities written as text. Unset: a ';'-delimited csv uses ',' and a ','-delimited one '.'; elsewhere a number that reads two ways (`1,250`) is refused naming both.",
        examples: [','],
      }),
    listSeparators: z
      .array(z.string().min(1))
      .min(1)
      .default([',', ';'])
      .meta({
        description:
          'Separators splitting tags and responsible persons; a comma always splits tags (the server stores them comma-joined).',
        examples: [['|']],
      }),
    unitAliases: z
      .record(notBlank('a unit spelling'), unitSchema.meta({ title: 'a spec 03 unit' }))
      .default({})
      .meta({
        description: 'Extra unit spellings (case-insensitive) → spec 03 units, on top of the built-in ones.',
        examples: [{ stuks: 'PIECES', ST: 'PIECES' }],
      }),
    statusAliases: z
      .record(notBlank('a status word').trim(), orderStatusSchema)
      .default({})
      .meta({
        description:
          "The export's status words (case-insensitive) → spec 03 order statuses; the statuses' own names are read without one.",
        examples: [{ Open: 'IN_PROGRESS', Released: 'IN_REVIEW', Closed: 'COMPLETED' }],
      }),
    complete: z
      .boolean()
      .default(false)
      .meta({
        description:
          'The export lists every line of each order it holds: platform lines missing from it are deleted. Without it, a line without id or number whose product or unit changed is `lines_ambiguous` (replacement or addition?).',
        examples: [true],
      }),
    sheet: notBlank('a sheet name')
      .optional()
      .meta({
        description:
          'xlsx: the sheet to read, even a hidden one (default: the first visible sheet with cells).',
        examples: ['Orders'],
      }),
    /** The platform stores ids and has no lookup of users (spec 03), hence the table. */
    responsiblePersonIds: z
      .record(z.string().trim().toLowerCase().email(), notBlank('a user id').trim())
      .default({})
      .meta({
        description:
          "Responsible persons' e-mails (case-insensitive) → their platform user ids, for exports that name people by e-mail: without them an order this worker has not written since it started compares as changed once.",
        examples: [{ 'ana@brand.example': 'usr_8f2c' }],
      }),
  })
  .meta({
    title: 'ERP order push mapping profile',
    description:
      'How the ERP order push reads an order export: which column or constant gives each order and line field, and how cells are read. Documented key by key in connectors/erp-orders/README.md.',
  })
  .superRefine((profile, ctx) => {
    const has = (field: SourceField): boolean =>
      profile.columns[field] !== undefined || given(profile.constants[field]);
    for (const field of REQUIRED_COLUMNS) {
      if (profile.columns[field] === undefined)
        ctx.addIssue({ code: 'custom', path: ['columns', field], message: `a column must feed ${field}` });
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
  const constants = Object.fromEntries(
    Object.entries(parsed.data.constants).filter(([, value]) => given(value)),
  ) as MappingProfile['constants'];
  return { ...parsed.data, constants };
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
