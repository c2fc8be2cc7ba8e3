import { z } from 'zod';
import { ORDER_SOURCE_FIELDS, bindColumns, type MappingProfile, type OrderSourceField } from './profile';
import { PARTY_FIELDS } from './orders/fields';

/**
 * What a plan calls an order field and its platform ids, in the export's words: the column the mapping reads the
 * field from, and for a party or a facility process the company code or process name the ids stand for.
 */
export const planWordsSchema = z.strictObject({
  /**
   * API field → the export's column (`receiverCompanyId` → `receiver_code`), else where the mapping sets it
   * (`shipmentReference (constant in mapping)`, `buyer (ownCompanyAs buyer)`).
   */
  columns: z.record(z.string(), z.string()),
  /**
   * Platform id → the export's word: a company's code (else its name; the key's own `your company`), a facility
   * process's name.
   */
  names: z.record(z.string(), z.string()),
});
export type PlanWords = z.infer<typeof planWordsSchema>;

/** The fields whose values are platform ids the export names by a code or a name. */
export const NAMED_FIELDS: ReadonlySet<string> = new Set([
  ...PARTY_FIELDS.map((party) => party.key),
  'buyerFacilityProcess',
  'supplierFacilityProcess',
  'receiverFacilityProcess',
]);

export function planWordsOf(
  profile: MappingProfile,
  exportColumns: readonly string[],
  companyCodes: ReadonlyMap<string, string>,
  facilityProcesses: ReadonlyArray<{ id: string; name: string }>,
  referencedIds: ReadonlySet<string>,
  ownCompanyId: string,
): PlanWords {
  const { bound } = bindColumns(profile, exportColumns);
  const constant = (field: OrderSourceField): string | undefined =>
    profile.constants[field] !== undefined ? `${field} (constant in mapping)` : undefined;
  const columns: Record<string, string> = {};
  for (const field of ORDER_SOURCE_FIELDS) {
    // A column the export lacks gives nothing: the mapping's constant, if any, gives the value.
    const label = bound[field] ?? constant(field) ?? profile.columns[field];
    if (label !== undefined) columns[field] = label;
  }
  for (const party of PARTY_FIELDS) {
    delete columns[party.idField];
    delete columns[party.codeField];
    const own =
      profile.ownCompanyAs !== 'none' && party.key === `${profile.ownCompanyAs}CompanyId`
        ? `${profile.ownCompanyAs} (ownCompanyAs ${profile.ownCompanyAs})`
        : undefined;
    const label =
      bound[party.codeField] ??
      bound[party.idField] ??
      constant(party.codeField) ??
      constant(party.idField) ??
      own ??
      profile.columns[party.codeField] ??
      profile.columns[party.idField];
    if (label !== undefined) columns[party.key] = label;
  }
  const names: Record<string, string> = {};
  for (const process of facilityProcesses) names[process.id] = process.name;
  for (const id of referencedIds) {
    const code = companyCodes.get(id);
    if (code !== undefined) names[id] = code;
  }
  // The key's company has no code in its own network: the export names it by a blank cell (ownCompanyAs) or its id.
  names[ownCompanyId] = 'your company';
  return { columns, names };
}
