import { z } from 'zod';

// The spec's statuses; the sandbox keeps its own copy on purpose (it is the oracle, sharing no code).
export const CERTIFICATE_STATUSES = [
  'DRAFT',
  'REQUESTED',
  'APPROVED',
  'REJECTED',
  'ACKNOWLEDGED',
  'NOT_VERIFIABLE',
] as const;
export type CertificateStatus = (typeof CERTIFICATE_STATUSES)[number];
export const DEFAULT_EXCLUDED_STATUSES = ['DRAFT', 'REJECTED'] as const;
export const DEFAULT_THRESHOLDS_DAYS = [30, 60, 90] as const;

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date');

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

export const timeZoneSchema = z.string().refine(isKnownTimeZone, {
  error: (issue) => `timeZone '${String(issue.input)}' is not a known IANA time zone`,
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

export const reportOptionsSchema = z.object({
  asOf: isoDate,
  /**
   * The one zone the report reads dates in: `asOf` is a calendar date there, and each `expirationDate` timestamp
   * becomes the calendar date it falls on there (spec 03: `expirationDate` is a timestamp string).
   */
  timeZone: timeZoneSchema.default('UTC'),
  /** Ascending day counts, each a bucket "expiring within N days". */
  thresholdsDays: z
    .array(z.number().int().positive())
    .min(1)
    .default([...DEFAULT_THRESHOLDS_DAYS])
    .refine((days) => days.every((day, i) => i === 0 || day > (days[i - 1] ?? 0)), 'thresholds must ascend'),
  includeStatuses: z.array(z.enum(CERTIFICATE_STATUSES)).optional(),
});
export type ReportOptions = z.input<typeof reportOptionsSchema>;

/** `expired`, `within_30`, `within_60`, ..., `not_expiring`, or `no_expiration_date`. */
export type BucketId = string;
export const EXPIRED = 'expired';
export const NOT_EXPIRING = 'not_expiring';
export const NO_EXPIRATION_DATE = 'no_expiration_date';
export const withinBucket = (days: number): BucketId => `within_${days}`;

export interface ClassifiedCertificate extends ReportCertificate {
  bucket: BucketId;
  /** Whole days from the as-of date to the expiration date; negative once expired. */
  daysToExpiry: number | null;
  /** Calendar date of expiry (`YYYY-MM-DD`) in the report's time zone. */
  expiresOn: string | null;
}
