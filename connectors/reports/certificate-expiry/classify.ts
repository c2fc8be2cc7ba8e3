import {
  DEFAULT_EXCLUDED_STATUSES,
  EXPIRED,
  NOT_EXPIRING,
  NO_EXPIRATION_DATE,
  reportOptionsSchema,
  withinBucket,
  type BucketId,
  type ClassifiedCertificate,
  type ReportCertificate,
  type ReportOptions,
} from './model';

const DAY_MS = 86_400_000;

/** The UTC calendar date of an ISO timestamp or date, or null when it is not a date. */
export function calendarDate(value: string | null): string | null {
  if (!value) return null;
  const time = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(time) ? null : new Date(time).toISOString().slice(0, 10);
}

export function daysBetween(fromDate: string, toDate: string): number {
  return Math.round((Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / DAY_MS);
}

export function bucketOrder(thresholdsDays: readonly number[]): BucketId[] {
  return [EXPIRED, ...thresholdsDays.map(withinBucket), NOT_EXPIRING, NO_EXPIRATION_DATE];
}

export function bucketLabel(bucket: BucketId): string {
  if (bucket === EXPIRED) return 'Expired';
  if (bucket === NOT_EXPIRING) return 'Not expiring soon';
  if (bucket === NO_EXPIRATION_DATE) return 'No expiration date';
  return `Expiring within ${bucket.slice('within_'.length)} days`;
}

/**
 * A certificate expiring on the as-of date itself still counts as valid that day (0 days left); it is expired
 * from the next day on. Each certificate lands in the first threshold whose day count it does not exceed.
 */
export function classifyCertificates(
  certificates: readonly ReportCertificate[],
  rawOptions: ReportOptions,
): ClassifiedCertificate[] {
  const options = reportOptionsSchema.parse(rawOptions);
  const excluded: readonly string[] = DEFAULT_EXCLUDED_STATUSES;
  const included = (status: string) =>
    options.includeStatuses ? (options.includeStatuses as readonly string[]).includes(status) : !excluded.includes(status);
  return certificates
    .filter((certificate) => included(certificate.status))
    .map((certificate) => {
      const expiresOn = calendarDate(certificate.expirationDate);
      if (expiresOn === null) return { ...certificate, bucket: NO_EXPIRATION_DATE, daysToExpiry: null, expiresOn };
      const daysToExpiry = daysBetween(options.asOf, expiresOn);
      const threshold = options.thresholdsDays.find((days) => daysToExpiry <= days);
      const bucket = daysToExpiry < 0 ? EXPIRED : threshold !== undefined ? withinBucket(threshold) : NOT_EXPIRING;
      return { ...certificate, bucket, daysToExpiry, expiresOn };
    })
    .sort(
      (a, b) =>
        (a.expiresOn ?? '9999').localeCompare(b.expiresOn ?? '9999') ||
        (a.companyName ?? '').localeCompare(b.companyName ?? '') ||
        a.id.localeCompare(b.id),
    );
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const name = key(item);
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

export interface ExpiryChanges {
  previousAsOf: string | null;
  newlyExpired: ClassifiedCertificate[];
  newlyExpiring: ClassifiedCertificate[];
}

/**
 * Compares with the buckets of the previous report (certificate id -> bucket): newly expired are those expired now
 * but not then; newly expiring are those inside a threshold now that were not expiring soon, or absent, then.
 */
export function changesSince(
  current: readonly ClassifiedCertificate[],
  previous: { asOf: string; buckets: Record<string, BucketId> } | null,
): ExpiryChanges {
  if (!previous) return { previousAsOf: null, newlyExpired: [], newlyExpiring: [] };
  const before = (id: string) => previous.buckets[id];
  return {
    previousAsOf: previous.asOf,
    newlyExpired: current.filter((c) => c.bucket === EXPIRED && before(c.id) !== EXPIRED),
    newlyExpiring: current.filter((c) => {
      if (!c.bucket.startsWith('within_')) return false;
      const was = before(c.id);
      return was === undefined || was === NOT_EXPIRING || was === NO_EXPIRATION_DATE;
    }),
  };
}
