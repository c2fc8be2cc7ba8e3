import type { DraftFieldName, DraftFields } from '../draft';
import type { ExistingProduct } from './existing';

export interface ProductCode {
  codeId: string;
  codeValue: string;
}

/** Fields compared one to one with the API record (codes, customProperties and composition have their own rules). */
export const comparedFields = [
  'name',
  'description',
  'gender',
  'color',
  'dimension',
  'styleTypeId',
  'styleLevelId',
  'mainSupplier',
  'brands',
  'seasons',
  'collections',
  'departments',
  'suppliers',
  'vendors',
  'claimIntentions',
  'weight',
] as const satisfies readonly DraftFieldName[];
export type ComparedField = (typeof comparedFields)[number];

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

/**
 * The code set to send: the sheet decides the code types it gives; codes of other types that the
 * product already has (an ERP_ID set by another system, say) are kept, because PUT replaces the whole set.
 */
export function desiredCodes(sheet: readonly ProductCode[], current: readonly ProductCode[]): ProductCode[] {
  const sheetTypes = new Set(sheet.map((code) => code.codeId));
  return [
    ...current
      .filter((code) => !sheetTypes.has(code.codeId))
      .map(({ codeId, codeValue }) => ({ codeId, codeValue })),
    ...sheet,
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
