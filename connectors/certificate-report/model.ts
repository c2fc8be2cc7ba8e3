import { z } from 'zod';
import { likelyMeant } from '../config-problems';
import { certificateStatusSchema } from '../traceability/schemas/certificates';
import { extendedIso, namesItsZone, readIsoDateTime } from '../traceability/timestamps';

export const CERTIFICATE_STATUSES = certificateStatusSchema.options;
export type CertificateStatus = (typeof CERTIFICATE_STATUSES)[number];
export const DEFAULT_EXCLUDED_STATUSES = ['DRAFT', 'REJECTED'] as const;
export const DEFAULT_THRESHOLDS_DAYS = [30, 60, 90] as const;

/** `YYYY-MM-DD` naming a real day (round-tripped: `Date.parse` takes 2026-02-30 as 2 March). */
const isCalendarDate = (date: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const time = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === date;
};
export const isoDateSchema = z.string().refine(isCalendarDate, 'expected a date in the form YYYY-MM-DD');

/** True for a zone this runtime's Intl knows (IANA names such as `Europe/Stockholm`, and `UTC`). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

let knownZones: readonly string[] | undefined;

/** `'Europe/Stokholm' is not a known IANA time zone (did you mean "Europe/Stockholm"?)`: the nearest zone, if any. */
export function unknownTimeZone(zone: unknown): string {
  knownZones ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  const meant = likelyMeant(typeof zone === 'string' ? zone.trim() : zone, knownZones);
  return `'${String(zone)}' is not a known IANA time zone${meant === undefined ? '' : ` (did you mean "${meant}"?)`}`;
}

export const timeZoneSchema = z.string().refine(isKnownTimeZone, {
  error: (issue) => `timeZone ${unknownTimeZone(issue.input)}`,
});

/** The certificate fields a report keeps. Deliberately no `fileUrl`: it is signed for one hour only. */
export const reportCertificateSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  status: z.string(),
  companyId: z.string(),
  companyName: z.string().nullable(),
  expirationDate: z.string().nullable(),
  issueDate: z.string().nullable(),
  issuedBy: z.string().nullable(),
  documentNumber: z.string().nullable(),
  licenseNumber: z.string().nullable(),
});
export type ReportCertificate = z.infer<typeof reportCertificateSchema>;

/** A name that names someone: null for a missing, empty or blank one. */
export const nonBlank = (name: string | null | undefined): string | null =>
  name === null || name === undefined || name.trim() === '' ? null : name;

/** The supplier as the report shows it: its name, or its id when the name is missing, empty or blank. */
export const supplierName = (certificate: Pick<ReportCertificate, 'companyName' | 'companyId'>): string =>
  nonBlank(certificate.companyName) ?? certificate.companyId;

/** Ascending day counts, each a bucket "expiring within N days". */
export const thresholdsSchema = z
  .array(z.number().int().positive())
  .min(1)
  .refine((days) => days.every((day, i) => i === 0 || day > (days[i - 1] ?? 0)), 'thresholds must ascend');

export const reportOptionsSchema = z.object({
  asOf: isoDateSchema,
  /**
   * The one zone the report reads dates in: `asOf` is a calendar date there, and each `expirationDate` timestamp
   * becomes the calendar date it falls on there (spec 03: `expirationDate` is a timestamp string).
   */
  timeZone: timeZoneSchema.default('UTC'),
  thresholdsDays: thresholdsSchema.default([...DEFAULT_THRESHOLDS_DAYS]),
  includeStatuses: z.array(z.enum(CERTIFICATE_STATUSES)).optional(),
});
export type ReportOptions = z.input<typeof reportOptionsSchema>;

/**
 * Input of the `certificateReport` workflow, plain JSON so operators can start it from the Temporal Web UI, e.g.
 * `{"asOf": "2026-11-01"}` or `{}` (as of the scheduled night, or today). The workflow imports this module: it
 * stays free of Node built-ins.
 */
export const certificateReportInputSchema = z.strictObject({
  /** Report date `YYYY-MM-DD`. Default: the schedule's nominal time (so a backfill reports as of that night), else today. */
  asOf: z
    .string()
    .refine(isCalendarDate, {
      error: (issue) => `asOf '${String(issue.input)}' must be a date in the form YYYY-MM-DD`,
    })
    .optional(),
  /**
   * The one IANA zone the report reads dates in: it turns the nominal time (or now) into the as-of date, and each
   * certificate's `expirationDate` timestamp into the calendar date it expires on. A schedule fills it with its own
   * zone (`trace-sync schedules apply`); started by hand without it, `UTC`.
   */
  timeZone: timeZoneSchema.default('UTC'),
  /** Ascending day counts, one bucket each. Default `[30, 60, 90]`. */
  thresholdsDays: thresholdsSchema.default([...DEFAULT_THRESHOLDS_DAYS]),
  /** Statuses to include. Default: all but `DRAFT` and `REJECTED`. */
  includeStatuses: z.array(z.enum(CERTIFICATE_STATUSES)).min(1).optional(),
});
export type CertificateReportInput = z.input<typeof certificateReportInputSchema>;

/** The statuses a report shows: those asked for, else all but DRAFT and REJECTED (each once). */
export function statusesShown(includeStatuses?: readonly CertificateStatus[]): CertificateStatus[] {
  const excluded: readonly string[] = DEFAULT_EXCLUDED_STATUSES;
  return [...new Set(includeStatuses ?? CERTIFICATE_STATUSES.filter((status) => !excluded.includes(status)))];
}

/** `expired`, `within_30`, `within_60`, ..., `not_expiring`, `no_expiration_date` or `unreadable_expiration_date`. */
export type BucketId = string;
export const EXPIRED = 'expired';
export const NOT_EXPIRING = 'not_expiring';
export const NO_EXPIRATION_DATE = 'no_expiration_date';
/** An `expirationDate` is given but is no timestamp the report can read: shown with the value as given. */
export const UNREADABLE_EXPIRATION_DATE = 'unreadable_expiration_date';
export const withinBucket = (days: number): BucketId => `within_${days}`;

export interface ClassifiedCertificate extends ReportCertificate {
  bucket: BucketId;
  /** Whole days from the as-of date to the expiration date; negative once expired. */
  daysToExpiry: number | null;
  /** Calendar date of expiry (`YYYY-MM-DD`) in the report's time zone. */
  expiresOn: string | null;
}

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * `YYYY-MM-DD` of an instant in `timeZone`, the year padded to 4 digits (Intl writes the year 26 as `26`), or longer
 * past 9999 (`10000-01-01`, no calendar date `isCalendarDate` takes).
 */
export function dateInZone(instant: number, timeZone: string): string {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      era: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  const parts = format.formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  // Years before 1 AD count backwards (1 BC is the year 0 of YYYY-MM-DD).
  const year = part('era').startsWith('B') ? 1 - Number(part('year')) : Number(part('year'));
  return `${year < 0 ? '-' : ''}${String(Math.abs(year)).padStart(4, '0')}-${part('month')}-${part('day')}`;
}

/**
 * Unix time in whole seconds (9-10 digits: 1973 to 2286) or milliseconds (12-13 digits: the same years). 11 digits
 * would be seconds past the year 5000 or milliseconds in 1973, so neither is read.
 */
const EPOCH_SECONDS = /^\d{9,10}$/;
const EPOCH_MILLISECONDS = /^\d{12,13}$/;

/**
 * The calendar date a timestamp falls on in `timeZone`, or null when it is not a date. A bare `YYYY-MM-DD` is
 * already a calendar date and is kept as it is; ISO 8601's basic format (`20261101`, `20261101T003000Z`) is read as
 * its extended one. `2026-11-01T23:00:00Z` is 2026-11-02 in Europe/Stockholm. A timestamp without a zone
 * (`2026-11-01T00:00:00`) is a time of day in `timeZone` itself, so its date is its own there: `Date.parse` would
 * read it in this process's zone, which differs from worker to worker. An instant at exactly midnight UTC is its UTC
 * date in every zone (`dateOfInstant`). Spec 03 says only "timestamp string" (not "ISO 8601" as for `issueDate`):
 * Unix seconds and milliseconds are read too (by their digit count), and `... UTC` / `... GMT` as `Z`. A string in
 * another form is read only when it names its zone.
 */
export function calendarDate(value: string | null, timeZone = 'UTC'): string | null {
  if (!value) return null;
  const text = extendedIso(value.trim());
  if (isCalendarDate(text)) return text;
  if (EPOCH_SECONDS.test(text)) return dateOfInstant(Number(text) * 1000, timeZone);
  if (EPOCH_MILLISECONDS.test(text)) return dateOfInstant(Number(text), timeZone);
  const iso = readIsoDateTime(text);
  if (iso) {
    // Without a zone, read as if in UTC and take the UTC date: the wall clock's own date (24:00 is the next day).
    if (Number.isNaN(iso.ms) || !isCalendarDate(iso.date)) return null;
    return calendarDateOrNull(iso.zoned ? dateOfInstant(iso.ms, timeZone) : dateInZone(iso.ms, 'UTC'));
  }
  if (!namesItsZone(text)) return null;
  const instant = Date.parse(text);
  return Number.isNaN(instant) ? null : calendarDateOrNull(dateOfInstant(instant, timeZone));
}

/** An instant falling past 9999-12-31 in the zone has no `YYYY-MM-DD`: the report shows it as given. */
const calendarDateOrNull = (date: string): string | null => (isCalendarDate(date) ? date : null);

/**
 * An instant at exactly midnight UTC is a date as entered (spec 01: "Business dates ... are calendar dates"; a date
 * typed into the platform is stored as `...T00:00:00.000Z`), the same date in every zone: in New York that instant
 * is the evening before. Any other instant falls on its date in `timeZone`.
 */
function dateOfInstant(instant: number, timeZone: string): string {
  return instant % DAY_MS === 0 ? dateInZone(instant, 'UTC') : dateInZone(instant, timeZone);
}

export function daysBetween(fromDate: string, toDate: string): number {
  return Math.round((Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / DAY_MS);
}

export function bucketOrder(thresholdsDays: readonly number[]): BucketId[] {
  return [
    EXPIRED,
    ...thresholdsDays.map(withinBucket),
    NOT_EXPIRING,
    NO_EXPIRATION_DATE,
    UNREADABLE_EXPIRATION_DATE,
  ];
}

/**
 * Labels that say the exact range of days to expiry: `Expiring in 0–30 days`, `Expiring in 31–60 days`, ...,
 * `Expiring after 90 days` (the largest threshold). Without the thresholds a `within_N` bucket says `0–N`.
 */
export function bucketLabel(bucket: BucketId, thresholdsDays: readonly number[] = []): string {
  if (bucket === EXPIRED) return 'Expired';
  if (bucket === NO_EXPIRATION_DATE) return 'No expiration date';
  if (bucket === UNREADABLE_EXPIRATION_DATE) return 'Unreadable expiration date';
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
  const included: readonly string[] = statusesShown(options.includeStatuses);
  return certificates
    .filter((certificate) => included.includes(certificate.status))
    .map((certificate) => {
      const expiresOn = calendarDate(certificate.expirationDate, options.timeZone);
      if (expiresOn === null) {
        const given = (certificate.expirationDate ?? '').trim() !== '';
        const bucket = given ? UNREADABLE_EXPIRATION_DATE : NO_EXPIRATION_DATE;
        return { ...certificate, bucket, daysToExpiry: null, expiresOn };
      }
      const daysToExpiry = daysBetween(options.asOf, expiresOn);
      if (!Number.isFinite(daysToExpiry))
        return { ...certificate, bucket: UNREADABLE_EXPIRATION_DATE, daysToExpiry: null, expiresOn: null };
      const threshold = options.thresholdsDays.find((days) => daysToExpiry <= days);
      const bucket =
        daysToExpiry < 0 ? EXPIRED : threshold !== undefined ? withinBucket(threshold) : NOT_EXPIRING;
      return { ...certificate, bucket, daysToExpiry, expiresOn };
    })
    .sort(
      (a, b) =>
        (a.expiresOn ?? '9999').localeCompare(b.expiresOn ?? '9999') ||
        supplierName(a).localeCompare(supplierName(b)) ||
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
 * that were in a range of days then, or had no readable date or were absent then and expire on or after its as-of
 * (one that expired before it and is dated or listed only now did not expire since); newly expiring are those inside
 * a threshold now that were not expiring soon, had no readable date, were expired (renewed since) or were absent.
 */
export function changesSince(
  current: readonly ClassifiedCertificate[],
  previous: { asOf: string; buckets: Record<string, BucketId> } | null,
): ExpiryChanges {
  if (!previous) return { previousAsOf: null, newlyExpired: [], newlyExpiring: [] };
  const before = (id: string) => previous.buckets[id];
  return {
    previousAsOf: previous.asOf,
    newlyExpired: current.filter((c) => {
      if (c.bucket !== EXPIRED) return false;
      const was = before(c.id);
      if (was === EXPIRED) return false;
      const undatedThen =
        was === undefined || was === NO_EXPIRATION_DATE || was === UNREADABLE_EXPIRATION_DATE;
      return undatedThen ? (c.expiresOn ?? '') >= previous.asOf : true;
    }),
    newlyExpiring: current.filter((c) => {
      if (!c.bucket.startsWith('within_')) return false;
      const was = before(c.id);
      return (
        was === undefined ||
        was === NOT_EXPIRING ||
        was === NO_EXPIRATION_DATE ||
        was === UNREADABLE_EXPIRATION_DATE ||
        was === EXPIRED
      );
    }),
  };
}
