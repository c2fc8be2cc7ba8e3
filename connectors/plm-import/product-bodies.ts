import { draftFieldsSchema, type DraftFieldName, type DraftFields } from './draft';
import type { ExistingProduct } from './catalogue';
import type { ValidDraft } from './validate';

export interface ProductCode {
  codeId: string;
  codeValue: string;
}

/** Fields compared one to one with the API record (codes, customProperties and composition have their own rules). */
const uncompared = ['codes', 'isComponent', 'customProperties', 'composition'] as const;
export type ComparedField = Exclude<DraftFieldName, (typeof uncompared)[number]>;
export const comparedFields = draftFieldsSchema
  .keyof()
  .options.filter((field): field is ComparedField => !(uncompared as readonly string[]).includes(field));

function sameList(a: readonly string[] | null, b: readonly string[]): boolean {
  if (!a || a.length !== b.length) return false;
  const left = [...a].map((item) => item.trim()).sort();
  const right = [...b].map((item) => item.trim()).sort();
  return left.every((item, index) => item === right[index]);
}

/** Whether the sheet's value already holds in the catalogue: trimmed text, lists as sets, numbers by value. */
export function sameValue(
  field: ComparedField,
  wanted: NonNullable<DraftFields[ComparedField]>,
  current: ExistingProduct,
): boolean {
  if (field === 'weight') {
    const weight = wanted as { unit: string; value: number };
    return (
      current.weight !== null &&
      current.weight.unit.toUpperCase() === weight.unit.toUpperCase() &&
      Math.abs(current.weight.value - weight.value) < 1e-9
    );
  }
  const have = current[field];
  if (Array.isArray(wanted)) return sameList(Array.isArray(have) ? have : null, wanted);
  return typeof have === 'string' && have.trim() === String(wanted).trim();
}

/** A code the sheet gives; `givesTypes`: a `byDigits` source's types, all given by its one cell (see DraftCode). */
export type SheetCode = ProductCode & { givesTypes?: readonly string[] | undefined };

/**
 * The code set to send: the sheet decides the code types it gives (a `byDigits` barcode gives every type it can be,
 * so a 12-digit UPC replaces the 13-digit EAN it follows); codes of other types that the product already has (an
 * ERP_ID set by another system, say) are kept, because PUT replaces the whole set.
 * One exception: an EAN_GTIN_13 holding the very value the sheet gives as UPC_GTIN_12 is what an earlier
 * version wrote for a 12-digit barcode, so it is replaced, not kept beside the UPC_GTIN_12.
 */
export function desiredCodes(sheet: readonly SheetCode[], current: readonly ProductCode[]): ProductCode[] {
  const sheetTypes = new Set(sheet.flatMap((code) => [code.codeId, ...(code.givesTypes ?? [])]));
  const upcValues = new Set(
    sheet.filter((code) => code.codeId === 'UPC_GTIN_12').map((code) => code.codeValue.trim()),
  );
  const misfiledUpc = (code: ProductCode): boolean =>
    code.codeId === 'EAN_GTIN_13' && upcValues.has(code.codeValue.trim());
  return [
    ...current
      .filter((code) => !sheetTypes.has(code.codeId) && !misfiledUpc(code))
      .map(({ codeId, codeValue }) => ({ codeId, codeValue })),
    ...sheet.map(({ codeId, codeValue }) => ({ codeId, codeValue })),
  ];
}

export function sameCodes(a: readonly ProductCode[], b: readonly ProductCode[]): boolean {
  const key = (codes: readonly ProductCode[]): string =>
    codes
      .map((code) => `${code.codeId}=${code.codeValue.trim()}`)
      .sort()
      .join('\n');
  return key(a) === key(b);
}

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * customProperties to send, or null when nothing changes: the sheet's keys are merged into the
 * product's JSON document (keys the sheet does not map are kept); a document that is not a JSON object is replaced.
 */
export function desiredCustomProperties(sheet: string, current: string | null): string | null {
  const wanted = parseObject(sheet) ?? {};
  const have = parseObject(current);
  const merged = have === null ? wanted : { ...have, ...wanted };
  return have !== null && canonical(merged) === canonical(have) ? null : JSON.stringify(merged);
}

/** Body for POST /styles; `parentId` is the parent's externalId, which the API accepts in place of its id. */
export type ProductCreateBody = Omit<DraftFields, 'name' | 'codes' | 'composition'> & {
  externalId: string;
  parentId?: string;
  name: string;
  codes: ProductCode[];
};
/** Body for PUT /styles/{id}: only the fields that change (codes, when sent, are the complete set). */
export type ProductUpdateBody = Partial<Omit<ProductCreateBody, 'externalId' | 'parentId' | 'isComponent'>>;

export function apiCodes(fields: DraftFields): ProductCode[] {
  return (fields.codes ?? []).map(({ codeId, codeValue }) => ({ codeId, codeValue }));
}

/** The sheet's codes as desiredCodes takes them: with the types a `byDigits` source gives. */
export function sheetCodes(fields: DraftFields): SheetCode[] {
  return (fields.codes ?? []).map(({ codeId, codeValue, givesTypes }) =>
    givesTypes ? { codeId, codeValue, givesTypes } : { codeId, codeValue },
  );
}

/** Every code type the sheet's `byDigits` sources give (undefined when none): a create that meets the product needs them. */
export function givenCodeTypes(fields: DraftFields): string[] | undefined {
  const types = [...new Set((fields.codes ?? []).flatMap((code) => code.givesTypes ?? []))];
  return types.length > 0 ? types : undefined;
}

export function createBody(draft: ValidDraft): ProductCreateBody {
  const { codes: _codes, composition: _composition, ...rest } = draft.fields;
  const body: ProductCreateBody = {
    externalId: draft.externalId,
    name: draft.fields.name ?? '',
    ...rest,
    codes: apiCodes(draft.fields),
  };
  if (draft.parentExternalId !== null) body.parentId = draft.parentExternalId;
  return body;
}

/**
 * The PUT that makes an existing product hold the wanted values: only the fields that differ (codes as the full set,
 * keeping code types the sheet does not give; customProperties merged by key). A blank (absent) value is left as it
 * is: on a child it keeps inheriting.
 */
export function updateBody(
  wanted: Partial<Record<ComparedField, unknown>> & {
    codes: SheetCode[];
    customProperties?: string | null | undefined;
  },
  current: ExistingProduct,
): { body: ProductUpdateBody; changed: string[] } {
  const body: Record<string, unknown> = {};
  for (const field of comparedFields) {
    const value = wanted[field];
    if (value === undefined || value === null) continue;
    if (!sameValue(field, value as NonNullable<DraftFields[ComparedField]>, current)) body[field] = value;
  }
  const codes = desiredCodes(wanted.codes, current.codes);
  if (!sameCodes(codes, current.codes)) body.codes = codes;
  if (typeof wanted.customProperties === 'string') {
    const properties = desiredCustomProperties(wanted.customProperties, current.customProperties);
    if (properties !== null) body.customProperties = properties;
  }
  return { body: body as ProductUpdateBody, changed: Object.keys(body) };
}
