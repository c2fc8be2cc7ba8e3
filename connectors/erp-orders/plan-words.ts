import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { quoteInput } from '../input-limits';
import type { ApiCalls } from '../staging';
import type { PersonDirectory } from './persons';
import { companyDirectory } from './platform-reads';
import type { OrderOutcome } from './push-run';
import type { ExistingOrder, OrderPlan } from './reconcile';
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

const PARTY_KEYS: ReadonlySet<string> = new Set(PARTY_FIELDS.map((party) => party.key));

/** What naming a plan's parties reads with: the run's words and, once a batch needs it, the network read into them. */
export interface PlanWordsReads {
  api: ApiCalls;
  /** The export's words for a plan's order fields (the run's manifest; absent in older runs: the API's). */
  words?: PlanWords;
  /** The whole network's codes, read into `words` once per batch (orders run side by side await the one read). */
  networkNamed?: Promise<void>;
}

/** A field's value as a plan shows it: bounded text, lists comma-joined, nothing as `(none)`. */
function shownValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (Array.isArray(value))
    return value.length === 0 ? '(none)' : quoteInput(value.map(String).join(', '), 120);
  return quoteInput(typeof value === 'object' ? JSON.stringify(value) : String(value), 120);
}

/**
 * Each order field a patch plan changes, the platform's value before and what the patch sends: under the export's
 * column, a company or facility process by the code or name the export gives it, people by their e-mails.
 */
export function fieldChanges(
  plan: Extract<OrderPlan, { kind: 'patch' }>,
  existing: ExistingOrder,
  words: PlanWords | undefined,
  persons: PersonDirectory,
): NonNullable<OrderOutcome['fields']> {
  const sent = new Map<string, unknown>(plan.steps.flatMap((step) => Object.entries(step)));
  const before = new Map<string, unknown>(Object.entries(existing));
  // The platform answers responsible persons as user ids; the export (and the patch) names them by e-mail.
  const stored = before.get('internalResponsiblePersons');
  if (Array.isArray(stored) && stored.every((id): id is string => typeof id === 'string'))
    before.set('internalResponsiblePersons', persons.emailsOf(stored));
  const named = (field: string, value: unknown): unknown =>
    typeof value === 'string' && NAMED_FIELDS.has(field) ? (words?.names[value] ?? value) : value;
  // A field sent along with another (a receiver's facility process with the receiver, spec 03) may not have changed.
  const changed = plan.changedFields.filter((field) => !isDeepStrictEqual(existing[field], sent.get(field)));
  return changed.map((field) => ({
    field: words?.columns[field] ?? field,
    before: shownValue(named(field, before.get(field))),
    after: shownValue(named(field, sent.get(field))),
  }));
}

/**
 * A party the platform's order names and the export does not (the receiver an update replaces): the run read codes
 * by the export's, so the plan would show its id (a company without a code is named by its name). The network is read
 * once per batch, only for such an order and only in a plan's dry pass (the real pass spends no call on words); should
 * that read fail, the plan shows the id.
 */
export async function nameCompaniesOf(
  plan: Extract<OrderPlan, { kind: 'patch' }>,
  existing: ExistingOrder,
  ctx: PlanWordsReads,
): Promise<void> {
  const words = ctx.words;
  if (words === undefined) return;
  const lacking = plan.changedFields.some((field) => {
    const before: unknown = existing[field];
    return PARTY_KEYS.has(field) && typeof before === 'string' && words.names[before] === undefined;
  });
  if (!lacking) return;
  ctx.networkNamed ??= companyDirectory(ctx.api, [], true).then(
    (network) => {
      for (const entry of network.entries) words.names[entry.id] ??= entry.code;
      for (const [id, name] of network.nameless ?? []) words.names[id] ??= name;
    },
    () => undefined,
  );
  await ctx.networkNamed;
}
