import { badRequest } from '../../core/errors';
import { parseJsonFilter, str, type RawQuery } from '../../core/query';
import type { CertificateRecord } from './model';

type Predicate = (certificate: CertificateRecord) => boolean;

const SUBSTRING_KEYS = ['name', 'explanation', 'issuedBy', 'documentNumber', 'licenseNumber'] as const;

/** A filter value given as a string, a comma-separated string or an array of strings. */
function values(key: string, value: unknown): string[] {
  if (typeof value === 'string')
    return value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0);
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value as string[];
  throw badRequest(`filter.${key} must be a string or an array of strings`);
}

function text(key: string, value: unknown): string {
  if (typeof value !== 'string') throw badRequest(`filter.${key} must be a string`);
  return value.toLowerCase();
}

/**
 * The query filters (`status`, `type`, `companyId`, `standardId`: exact) and the JSON `filter` object: text keys
 * match case-insensitive substrings, `status`/`type`/`companyId`/`standardIds` match any listed value,
 * `facilityProcesses` matches certificates covering any listed process. Unknown keys are ignored.
 */
export function certificateFilters(
  query: RawQuery,
  companyName: (certificate: CertificateRecord) => string,
): Predicate[] {
  const predicates: Predicate[] = [];
  for (const key of ['status', 'type', 'companyId', 'standardId'] as const) {
    const value = str(query, key);
    if (value !== undefined) predicates.push((certificate) => certificate[key] === value);
  }
  const filter = parseJsonFilter(query);
  for (const key of SUBSTRING_KEYS) {
    if (filter[key] === undefined) continue;
    const needle = text(key, filter[key]);
    predicates.push((certificate) => (certificate[key] ?? '').toLowerCase().includes(needle));
  }
  if (filter['companyName'] !== undefined) {
    const needle = text('companyName', filter['companyName']);
    predicates.push((certificate) => companyName(certificate).toLowerCase().includes(needle));
  }
  for (const [key, field] of [
    ['status', 'status'],
    ['type', 'type'],
    ['companyId', 'companyId'],
    ['standardIds', 'standardId'],
  ] as const) {
    if (filter[key] === undefined) continue;
    const allowed = values(key, filter[key]);
    predicates.push((certificate) => allowed.includes(certificate[field]));
  }
  if (filter['facilityProcesses'] !== undefined) {
    const processes = values('facilityProcesses', filter['facilityProcesses']);
    predicates.push((certificate) =>
      certificate.facilityProcesses.some((process) => processes.includes(process)),
    );
  }
  return predicates;
}
