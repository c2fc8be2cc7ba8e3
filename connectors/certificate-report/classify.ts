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

const formatters = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD` of an instant in `timeZone` (the en-CA locale formats dates that way). */
export function dateInZone(instant: number, timeZone: string): string {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format.format(instant);
}

/**
 * The calendar date a timestamp falls on in `timeZone`, or null when it is not a date. A bare `YYYY-MM-DD` is
 * already a calendar date and is kept as it is. `2026-11-01T23:00:00Z` is 2026-11-02 in Europe/Stockholm.
 */
export function calendarDate(value: string | null, timeZone = 'UTC'): string | null {
  if (!value) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? null : value;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : dateInZone(time, timeZone);
}

export function daysBetween(fromDate: string, toDate: string): number {
  return Math.round((Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / DAY_MS);
}

export function bucketOrder(thresholdsDays: readonly number[]): BucketId[] {
  return [EXPIRED, ...thresholdsDays.map(withinBucket), NOT_EXPIRING, NO_EXPIRATION_DATE];
}

/**
 * Labels that say the exact range of days to expiry: `Expiring in 0–30 days`, `Expiring in 31–60 days`, ...,
 * `Expiring after 90 days` (the largest threshold). Without the thresholds a `within_N` bucket says `0–N`.
 */
export function bucketLabel(bucket: BucketId, thresholdsDays: readonly number[] = []): string {
  if (bucket === EXPIRED) return 'Expired';
  if (bucket === NO_EXPIRATION_DATE) return 'No expiration date';
  if (bucket === NOT_EXPIRING) {
    const last = thresholdsDays[thresholdsDays.length - 1];
    return last === undefined ? 'Not expiring soon' : `Expiring after ${last} days`;
  }
  const days = Number(bucket.slice('within_'.length));
  const index = thresholdsDays.indexOf(days);
  const from = index > 0 ? (thresholdsDays[index - 1] ?? -1) + 1 : 0;
  return `Expiring in ${from}–${days} days`;
}

/**
 * Every date is read in one zone, `options.timeZone`: the as-of date is a calendar date there, and each expiry
 * timestamp counts on the calendar date it falls on there. A certificate expiring on the as-of date itself still
 * counts as valid that day (0 days left); it is expired from the next day on. Each certificate lands in the first
 * threshold whose day count it does not exceed.
 */
export function classifyCertificates(
  certificates: readonly ReportCertificate[],
  rawOptions: ReportOptions,
): ClassifiedCertificate[] {
  const options = reportOptionsSchema.parse(rawOptions);
  const excluded: readonly string[] = DEFAULT_EXCLUDED_STATUSES;
  const included = (status: string) =>
    options.includeStatuses
      ? (options.includeStatuses as readonly string[]).includes(status)
      : !excluded.includes(status);
  return certificates
    .filter((certificate) => included(certificate.status))
    .map((certificate) => {
      const expiresOn = calendarDate(certificate.expirationDate, options.timeZone);
      if (expiresOn === null)
        return { ...certificate, bucket: NO_EXPIRATION_DATE, daysToExpiry: null, expiresOn };
      const daysToExpiry = daysBetween(options.asOf, expiresOn);
      const threshold = options.thresholdsDays.find((days) => daysToExpiry <= days);
      const bucket =
        daysToExpiry < 0 ? EXPIRED : threshold !== undefined ? withinBucket(threshold) : NOT_EXPIRING;
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
