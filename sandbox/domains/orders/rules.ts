import type { SandboxContext } from '../../core/context';
import { ApiError, badRequest, notFound } from '../../core/errors';
import { facilityProcess } from '../network/processes';

/** Tags are stored comma-joined: each trimmed, empties dropped; a tag holding a comma reads back as two. */
export function joinTags(tags: readonly string[]): string {
  return tags
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0)
    .join(',');
}

export function splitTags(stored: string): string[] {
  return stored
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

/**
 * Half-up rounding to 2 decimals on the decimal text the client sent (so 1.005 becomes 1.01, which
 * `Math.round(x * 100) / 100` gets wrong). Only positive values reach here.
 */
export function roundQuantity(value: number): number {
  const text = String(value);
  if (text.includes('e')) return Math.round(value * 100) / 100;
  const [whole = '0', fraction = ''] = text.split('.');
  if (fraction.length <= 2) return value;
  const cents = BigInt(whole + fraction.slice(0, 2)) + ((fraction[2] ?? '0') >= '5' ? 1n : 0n);
  return Number(cents) / 100;
}

/** Rounds and re-checks positivity (0.004 rounds to 0, which is not a positive quantity). */
export function storedQuantity(value: number, field: string): number {
  const rounded = roundQuantity(value);
  if (rounded <= 0) throw badRequest(`Field '${field}': must be positive after rounding to 2 decimals`);
  return rounded;
}

/** Buyer, supplier, receiver, vendor and factory must be known companies the caller reaches. */
export function checkCompanies(
  ctx: SandboxContext,
  callerCompanyId: string,
  ids: ReadonlyArray<string | null | undefined>,
): void {
  for (const id of ids) {
    if (id === null || id === undefined) continue;
    if (!ctx.reaches(callerCompanyId, id)) {
      throw notFound(`Company '${id}' does not exist or is not in your network`, 'invalid_company_id');
    }
  }
}

export function checkFacilityProcesses(ids: ReadonlyArray<string | null | undefined>): void {
  const unknown = ids.filter(
    (id): id is string => typeof id === 'string' && facilityProcess(id) === undefined,
  );
  if (unknown.length > 0) {
    throw badRequest(
      `Unknown facility process id(s): ${[...new Set(unknown)].join(', ')}`,
      'invalid_facility_process_ids',
    );
  }
}

/**
 * Resolves responsible persons (e-mails case-insensitively, or user ids) among users whose primary company is the
 * caller's; empty strings are skipped and duplicates removed. Unknown entries: 404 `responsible_person_not_found`.
 */
export function resolveResponsiblePersons(
  ctx: SandboxContext,
  companyId: string,
  entries: readonly string[],
): string[] {
  const users = [...ctx.users.values()].filter((user) => user.companyId === companyId);
  const resolved: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const lower = entry.toLowerCase();
    const user = users.find((candidate) => candidate.id === entry || candidate.email.toLowerCase() === lower);
    if (!user) {
      throw new ApiError(
        404,
        'responsible_person_not_found',
        `Responsible person '${entry}' matches no user of your company`,
      );
    }
    if (!resolved.includes(user.id)) resolved.push(user.id);
  }
  return resolved;
}

/** The two responsible-person forms, reduced to the array form (undefined when neither was sent). */
export function responsibleEntries(body: {
  internalResponsiblePersons?: string[] | null;
  internalResponsiblePerson?: string | null;
}): string[] | undefined {
  const hasArray = body.internalResponsiblePersons !== undefined;
  const hasSingle = body.internalResponsiblePerson !== undefined;
  if (hasArray && hasSingle) {
    throw badRequest('Send either internalResponsiblePersons or internalResponsiblePerson, not both');
  }
  if (hasArray) return body.internalResponsiblePersons ?? [];
  if (hasSingle)
    return body.internalResponsiblePerson === null ? [] : [body.internalResponsiblePerson as string];
  return undefined;
}
