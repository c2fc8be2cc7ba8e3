import { z } from 'zod';

export const productLevels = ['style', 'variant', 'sku'] as const;
export type ProductLevel = (typeof productLevels)[number];

const scalarSchema = z.union([z.string(), z.number(), z.boolean()]);

const sourceObjectSchema = z
  .strictObject({
    /** Header text of the column (matched ignoring case and repeated spaces). */
    column: z.string().min(1).optional(),
    /** Text built from columns, e.g. "{Style Number}-{Colour Code}"; blank when any column in it is blank. */
    template: z.string().min(1).optional(),
    /** The same value on every row. */
    constant: scalarSchema.optional(),
    /** Used when the cell is blank. */
    default: scalarSchema.optional(),
    /** List fields: the characters that separate items, e.g. ";" or ";,". Default ";". */
    split: z.string().min(1).optional(),
  })
  .refine(
    (source) =>
      [source.column, source.template, source.constant].filter((part) => part !== undefined).length === 1,
    {
      message: 'give exactly one of column, template or constant',
    },
  );

/** Where a value comes from: a column name as shorthand, or { column | template | constant, default?, split? }. */
type SourceObject = z.output<typeof sourceObjectSchema>;
export const valueSourceSchema = z.union([
  z
    .string()
    .min(1)
    .transform((column): SourceObject => ({ column })),
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
  z
    .string()
    .min(1)
    .transform((column) => ({ source: { column } as SourceObject, type: 'text' as const })),
  z.strictObject({
    source: valueSourceSchema,
    type: z.enum(['text', 'number', 'date', 'boolean']).default('text'),
  }),
]);

const codeSourceSchema = z.strictObject({ codeId: z.string().min(1), source: valueSourceSchema });

/** How one product level is read from a row. */
export const levelMappingSchema = z.strictObject({
  externalId: valueSourceSchema,
  fields: z.partialRecord(z.enum(mappedFields), valueSourceSchema).default({}),
  codes: z.array(codeSourceSchema).default([]),
  /** Columns whose header is a code type (PLM_ID, EAN_GTIN_13, OTHER_ID1, ...) become codes. */
  autoCodeColumns: z.boolean().default(false),
  /** Keys of the JSON document stored in customProperties. */
  customProperties: z.record(z.string().min(1), customPropertySchema).default({}),
});
export type LevelMapping = z.output<typeof levelMappingSchema>;

const commonSchema = {
  name: z.string().min(1),
  description: z.string().optional(),
  /** How text dates like 03/04/2025 are read. */
  dateOrder: z.enum(['DMY', 'MDY']).default('DMY'),
};

/** One row per product at any level, linked by externalId / parentExternalId. */
export const nativeProfileSchema = z.strictObject({
  ...commonSchema,
  layout: z.literal('native'),
  parentExternalId: valueSourceSchema,
  /** Optional: when absent or blank the level follows the parent chain (no parent = style). */
  level: valueSourceSchema.optional(),
  mapping: levelMappingSchema,
});

/** One row per SKU carrying its style and variant; continuation rows may leave parent columns blank. */
export const flatProfileSchema = z.strictObject({
  ...commonSchema,
  layout: z.literal('flat'),
  /** Columns that, when blank, repeat the value of the row above (typically the style and colour keys). */
  fillDown: z.array(z.string().min(1)).default([]),
  style: levelMappingSchema,
  variant: levelMappingSchema,
  sku: levelMappingSchema,
});

export const mappingProfileSchema = z.discriminatedUnion('layout', [nativeProfileSchema, flatProfileSchema]);
export type MappingProfile = z.output<typeof mappingProfileSchema>;
export type NativeProfile = z.output<typeof nativeProfileSchema>;
export type FlatProfile = z.output<typeof flatProfileSchema>;
export type MappingProfileInput = z.input<typeof mappingProfileSchema>;

/** Parses a profile (from JSON) and says which path is wrong when it is not valid. */
export function parseMappingProfile(input: unknown): MappingProfile {
  const result = mappingProfileSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
  );
  throw new Error(`invalid mapping profile: ${problems.join('; ')}`);
}
