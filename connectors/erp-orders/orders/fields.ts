import { quoteInput } from '../../input-limits';
import type { MappingProfile, OrderSourceField } from '../profile';
import type { CellValue } from '../read/types';
import {
  cellText,
  fail,
  ok,
  type Parsed,
  parseDate,
  parseEnum,
  parseStatus,
  parseText,
  splitList,
} from '../cell-values';
import { orderSubTypeSchema } from '../../traceability/schemas/orders';
import { DATE_FIELDS, type RejectionCode } from './draft';

/** A party as the export names it: by platform company id, or by the company's own code (looked up later). */
export type CompanyRef = { id: string } | { code: string };
export type HeaderValue = string | readonly string[] | CompanyRef;

export const PARTY_FIELDS = [
  { key: 'buyerCompanyId', idField: 'buyerCompanyId', codeField: 'buyerCompanyCode' },
  { key: 'supplierCompanyId', idField: 'supplierCompanyId', codeField: 'supplierCompanyCode' },
  { key: 'receiverCompanyId', idField: 'receiverCompanyId', codeField: 'receiverCompanyCode' },
  { key: 'vendorCompanyId', idField: 'vendorCompanyId', codeField: 'vendorCompanyCode' },
  { key: 'factory', idField: 'factoryId', codeField: 'factoryCode' },
] as const satisfies ReadonlyArray<{ key: string; idField: OrderSourceField; codeField: OrderSourceField }>;
export type PartyKey = (typeof PARTY_FIELDS)[number]['key'];

/**
 * What a message calls a header field: the profile's key for the column the operator mapped (`supplierCompanyCode`
 * for a party given by its code), never the API's field (`supplierCompanyId`) it becomes.
 */
export function fieldNamed(key: string, value?: HeaderValue): string {
  const party = PARTY_FIELDS.find((candidate) => candidate.key === key);
  if (party === undefined) return key;
  return value !== undefined && typeof value === 'object' && 'code' in value
    ? party.codeField
    : party.idField;
}

export type ScalarHeaderKey =
  | (typeof DATE_FIELDS)[number]
  | 'buyerFacilityProcess'
  | 'supplierFacilityProcess'
  | 'receiverFacilityProcess'
  | 'status'
  | 'orderSubType'
  | 'tags'
  | 'internalResponsiblePersons'
  | 'shipmentReference'
  | 'counterpartyOrderNumberRef';
export type HeaderKey = ScalarHeaderKey | PartyKey;

/** How a header cell becomes a value, and which rejection code a bad one gets. */
interface ScalarHeaderSpec {
  key: ScalarHeaderKey;
  code: RejectionCode;
  parse: (value: CellValue, profile: MappingProfile) => Parsed<string | readonly string[]>;
}

function dateCell(value: CellValue, profile: MappingProfile): Parsed<string> {
  if (typeof value === 'number') return parseDate(value, profile.dateFormat);
  return parseDate(cellText(value), profile.dateFormat);
}

const text255 = (value: CellValue): Parsed<string> => parseText(value, 255);
const trimmed = (value: CellValue): Parsed<string> => ok(cellText(value));

export const SCALAR_HEADER_FIELDS: readonly ScalarHeaderSpec[] = [
  ...DATE_FIELDS.map((key): ScalarHeaderSpec => ({ key, code: 'invalid_date', parse: dateCell })),
  { key: 'buyerFacilityProcess', code: 'invalid_value', parse: trimmed },
  { key: 'supplierFacilityProcess', code: 'invalid_value', parse: trimmed },
  { key: 'receiverFacilityProcess', code: 'invalid_value', parse: trimmed },
  {
    key: 'status',
    code: 'invalid_value',
    parse: (value, profile) => parseStatus(value, profile.statusAliases),
  },
  {
    key: 'orderSubType',
    code: 'invalid_value',
    parse: (value) => parseEnum(value, orderSubTypeSchema.options),
  },
  {
    key: 'tags',
    code: 'invalid_value',
    parse: (value, profile) => ok(splitList(value, [',', ...profile.listSeparators])),
  },
  {
    key: 'internalResponsiblePersons',
    code: 'invalid_value',
    parse: (value, profile) => ok(dedupeFolded(splitList(value, profile.listSeparators))),
  },
  { key: 'shipmentReference', code: 'too_long', parse: text255 },
  // Spec 03 states no length for it (unlike shipmentReference): the API decides.
  { key: 'counterpartyOrderNumberRef', code: 'invalid_value', parse: trimmed },
];

/** Responsible persons match case-insensitively on the server; the first spelling is kept. */
function dedupeFolded(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = entry.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A company reference from its id cell (preferred) or code cell; ids are at most 36 characters. */
export function partyRef(
  idCell: CellValue | undefined,
  codeCell: CellValue | undefined,
): Parsed<CompanyRef> | undefined {
  const id = cellText(idCell);
  if (id !== '')
    return id.length > 36 ? fail(`'${id}' is not a company id (at most 36 characters)`) : ok({ id });
  const code = cellText(codeCell);
  return code === '' ? undefined : ok({ code });
}

/** Canonical text of a header value, so that equal values compare equal across rows. */
export function headerValueKey(value: HeaderValue): string {
  return JSON.stringify(value);
}

export function describeHeaderValue(value: HeaderValue): string {
  if (typeof value === 'string') return `'${quoteInput(value)}'`;
  if (Array.isArray(value)) return `'${quoteInput(value.join(', '))}'`;
  const ref = value as CompanyRef;
  return `'${quoteInput('id' in ref ? ref.id : ref.code)}'`;
}
