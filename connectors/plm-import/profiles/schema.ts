import { z } from 'zod';
import { configProblems, notBlank } from '../../config-problems';
import { looseKey } from '../read/sheet';

export const productLevels = ['style', 'variant', 'sku'] as const;
export type ProductLevel = (typeof productLevels)[number];

const scalarSchema = z.union([z.string(), z.number(), z.boolean()]);

const columnName = notBlank('a column name');

/** A value comes from exactly one of a column, a template or a constant. */
const oneOrigin = (source: { column?: string; template?: string; constant?: unknown }): boolean =>
  [source.column, source.template, source.constant].filter((part) => part !== undefined).length === 1;

const optionalSchema = z
  .boolean()
  .optional()
  .describe(
    'true: the sheet may lack the column (or a column of the template), which then reads as blank; default false: a mapping naming a column the sheet lacks is refused.',
  );

const fallbackSchema = z
  .strictObject({
    column: columnName.optional().describe('Another column, read when the first cell is blank.'),
    template: notBlank('a template')
      .optional()
      .describe('A template such as "{Handle}-{Option1 Value}", built when the cell is blank.'),
    constant: scalarSchema.optional().describe('A fixed value used when the cell is blank.'),
    optional: optionalSchema,
  })
  .refine(oneOrigin, { message: 'give exactly one of column, template or constant' });

const sourceObjectSchema = z
  .strictObject({
    column: columnName
      .optional()
      .describe('Header text of the column (matched ignoring case and repeated spaces).'),
    template: notBlank('a template')
      .optional()
      .describe(
        'Text built from columns, e.g. "{Style Number}-{Colour Code}"; blank when any column in it is blank, except one written {Column|text}, whose blank cell reads as text (e.g. "{Size|One size}").',
      ),
    constant: scalarSchema.optional().describe('The same value on every row.'),
    optional: optionalSchema,
    default: scalarSchema
      .optional()
      .describe('Used when the cell (or template) is blank and no fallback gives a value.'),
    fallback: fallbackSchema
      .optional()
      .describe('Where the value comes from when the cell or template is blank.'),
    values: z
      .record(z.string().min(1), scalarSchema)
      .optional()
      .describe(
        'Translation table: a cell value (matched ignoring case and spacing) is replaced by its entry, e.g. {"Bracelet": "Jewellery"}.',
      ),
    otherValues: scalarSchema
      .optional()
      .describe(
        'With values: what a value missing from the table becomes; without it such a value passes through unchanged.',
      ),
    split: z
      .string()
      .min(1)
      .optional()
      .describe('List fields: the characters that separate items, e.g. ";" or ";,". Default ";".'),
  })
  .refine(oneOrigin, { message: 'give exactly one of column, template or constant' });

/** Where a value comes from: a column name as shorthand, or { column | template | constant, default?, split? }. */
type SourceObject = z.output<typeof sourceObjectSchema>;
export const valueSourceSchema = z.union([
  columnName.transform((column): SourceObject => ({ column })),
  sourceObjectSchema,
]);
export type ValueSource = z.output<typeof valueSourceSchema>;

export const mappedFields = [
  'name',
  'description',
  'gender',
  'color',
  'dimension',
  'styleTypeId',
  'styleLevelId',
  'isComponent',
  'brands',
  'seasons',
  'collections',
  'departments',
  'suppliers',
  'vendors',
  'claimIntentions',
  'mainSupplier',
  'weightValue',
  'weightUnit',
  'composition',
] as const;
export type MappedField = (typeof mappedFields)[number];

const customPropertySchema = z.union([
  columnName.transform((column) => ({ source: { column } as SourceObject, type: 'text' as const })),
  z.strictObject({
    source: valueSourceSchema.describe('Where the value comes from.'),
    type: z
      .enum(['text', 'number', 'date', 'boolean'])
      .default('text')
      .describe('How the cell is converted (default text).'),
  }),
]);

const codeSourceSchema = z
  .strictObject({
    codeId: notBlank('a code type')
      .optional()
      .describe('Code type, e.g. PLM_ID, EAN_GTIN_13, OTHER_ID1 (or byDigits).'),
    byDigits: z
      .record(z.string().regex(/^[1-9]\d*$/, 'a number of digits'), notBlank('a code type'))
      .optional()
      .describe(
        'Instead of codeId, the code type by how many digits the value has, e.g. {"12": "UPC_GTIN_12", "13": "EAN_GTIN_13"}; a value of other characters or another length is a bad_code row error.',
      ),
    source: valueSourceSchema.describe('Where the code value comes from; a blank cell gives no code.'),
  })
  .refine((code) => (code.codeId === undefined) !== (code.byDigits === undefined), {
    message: 'give exactly one of codeId or byDigits',
  });

/** How one product level is read from a row. */
export const levelMappingSchema = z.strictObject({
  externalId: valueSourceSchema.describe("The product's key."),
  fields: z
    .partialRecord(z.enum(mappedFields), valueSourceSchema)
    .default({})
    .describe(
      'Product fields by value source (names of style types, brands, seasons... are looked up in the API lists; suppliers, vendors and mainSupplier take a company id, internalCompanyCode, name or official name of a company the key sees).',
    ),
  codes: z.array(codeSourceSchema).default([]).describe('Product codes.'),
  autoCodeColumns: z
    .boolean()
    .default(false)
    .describe('Columns whose header is a code type (PLM_ID, EAN_GTIN_13, OTHER_ID1...) become codes.'),
  customProperties: z
    .record(notBlank('a custom property key'), customPropertySchema)
    .default({})
    .describe('Keys of the JSON document stored in customProperties (merged with the keys the product has).'),
});
export type LevelMapping = z.output<typeof levelMappingSchema>;

const optionColumnsSchema = z
  .strictObject({
    pairs: z
      .array(
        z.strictObject({
          name: columnName.describe('The column holding the option\'s name, e.g. "Option1 Name".'),
          value: columnName.describe('The column holding its value, e.g. "Option1 Value".'),
        }),
      )
      .min(1)
      .describe(
        "Name/value column pairs, e.g. Shopify's Option1 Name/Option1 Value ... Option3 Name/Option3 Value.",
      ),
    columns: z
      .record(columnName, z.array(notBlank('an option name')).min(1))
      .refine((columns) => Object.keys(columns).length > 0, { message: 'name at least one column' })
      .refine(
        (columns) => {
          const names = Object.values(columns).flatMap((list) => list.map(looseKey));
          return new Set(names).size === names.length;
        },
        { message: 'an option name may be listed under one column only' },
      )
      .describe(
        'Columns the pairs fill, each with the option names that feed it (matched ignoring case and spacing), e.g. {"Colour": ["Color", "Colour", "Farbe"], "Size": ["Size", "Größe"]}.',
      ),
  })
  .describe(
    "Columns chosen by another column's value: a pair's value goes to the column whose list holds the pair's name, and fields and templates read these columns like sheet columns (blank when no pair names them). A value whose name is in no list, without a name, or a second value for one column, is a row error. Flat layout: the names carry down the rows of the same style.",
  );

const commonSchema = {
  $schema: z.string().optional().describe('Optional pointer to the JSON Schema, for editors.'),
  name: notBlank('a mapping name').describe('Name shown in results and messages.'),
  description: z.string().optional().describe('Free text for people reading the mapping.'),
  dateOrder: z.enum(['DMY', 'MDY']).default('DMY').describe('How text dates like 03/04/2025 are read.'),
  sheet: notBlank('a sheet name')
    .optional()
    .describe(
      'xlsx/xls: the sheet to read, even a hidden one (default the first visible sheet with cells); --sheet overrides it.',
    ),
  skipRows: z
    .strictObject({
      whenBlank: z
        .array(columnName)
        .min(1)
        .describe('Columns that are all blank on a row that holds no product.'),
    })
    .optional()
    .describe(
      'Rows that hold no product (for example Shopify image-only rows): skipped and counted, never rejected.',
    ),
  blankValues: z
    .record(columnName, z.array(z.string().min(1)).min(1))
    .default({})
    .describe(
      'Cell texts that mean "no value" in a column, e.g. {"Option1 Value": ["Default Title"]} (Shopify\'s placeholder for a product without options): read as a blank cell everywhere (fields, templates, fallbacks, defaults, skipRows), matched ignoring case and spacing.',
    ),
  rawMaterials: z
    .record(notBlank('a material name'), notBlank('a raw-material id'))
    .default({})
    .describe('Raw-material ids by the material names compositions use, e.g. {"Cotton": "rawmat_cotton"}.'),
  compositionName: notBlank('a composition name')
    .max(255)
    .default('Composition')
    .describe(
      'Material header name for a composition without section labels (labelled sections use their label).',
    ),
  optionColumns: optionColumnsSchema.optional(),
  ignoreMissingColumns: z
    .boolean()
    .default(false)
    .describe(
      'true: mapped columns the sheet lacks read as blank (key columns are still required). Default false: an error naming the column.',
    ),
};

/** One row per product at any level, linked by externalId / parentExternalId. */
export const nativeProfileSchema = z
  .strictObject({
    ...commonSchema,
    layout: z.literal('native').describe('One row per product at any level.'),
    parentExternalId: valueSourceSchema.describe("The parent's externalId (blank: a style)."),
    level: valueSourceSchema
      .optional()
      .describe('style, variant or sku; when absent or blank the level follows the parent chain.'),
    mapping: levelMappingSchema.describe('How every row is read.'),
  })
  .describe('One row per product at any level, linked by externalId / parentExternalId.');

/** One row per SKU carrying its style and variant; continuation rows may leave parent columns blank. */
export const flatProfileSchema = z
  .strictObject({
    ...commonSchema,
    layout: z.literal('flat').describe('One row per SKU carrying its style and variant.'),
    fillDown: z
      .array(columnName)
      .default([])
      .describe('Columns that, when blank, repeat the value of the row above.'),
    style: levelMappingSchema.describe("How a row's style is read."),
    variant: levelMappingSchema.describe("How a row's variant (colour) is read."),
    sku: levelMappingSchema.describe("How a row's SKU is read."),
  })
  .describe(
    'One row per SKU carrying its style and variant; continuation rows may leave parent columns blank.',
  );

export const mappingProfileSchema = z.discriminatedUnion('layout', [nativeProfileSchema, flatProfileSchema]);
export type MappingProfile = z.output<typeof mappingProfileSchema>;
export type NativeProfile = z.output<typeof nativeProfileSchema>;
export type FlatProfile = z.output<typeof flatProfileSchema>;
export type MappingProfileInput = z.input<typeof mappingProfileSchema>;

/** Parses a profile (from JSON) and says which path is wrong when it is not valid. */
export function parseMappingProfile(input: unknown): MappingProfile {
  const result = mappingProfileSchema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new Error(`invalid mapping profile: ${configProblems(mappingProfileSchema, result.error)}`);
}
