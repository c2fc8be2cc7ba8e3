/**
 * Where a certificate expiry report goes and what it is compared with: its folder's name (the date, and the options
 * that set it apart from the nightly's) and the newest earlier report written with the same options.
 */
import { join } from 'node:path';
import { z } from 'zod';
import {
  CERTIFICATE_STATUSES,
  DEFAULT_THRESHOLDS_DAYS,
  statusesShown,
  type CertificateStatus,
} from '../connectors/certificate-report/model';
import { readStoredJson } from '../connectors/staging';
import { locate } from '../connectors/storage';

export const REPORT_FOLDER = join('reports', 'certificate-expiry');

/** What makes two reports comparable: the certificates they hold (statuses), how their dates read, their ranges. */
const reportVariantSchema = z.object({
  statuses: z.array(z.string()),
  timeZone: z.string(),
  thresholdsDays: z.array(z.number()),
});
export type ReportVariant = z.infer<typeof reportVariantSchema>;

/** `options` is absent from files written before it was recorded: taken for the default statuses and ranges. */
const bucketsFileSchema = z.object({
  asOf: z.string(),
  options: reportVariantSchema.optional(),
  buckets: z.record(z.string(), z.string()),
});
export type BucketsFile = z.infer<typeof bucketsFileSchema>;

export function reportVariant(options: {
  timeZone: string;
  thresholdsDays: number[];
  includeStatuses?: CertificateStatus[] | undefined;
}): ReportVariant {
  const shown = statusesShown(options.includeStatuses);
  return {
    statuses: CERTIFICATE_STATUSES.filter((status) => shown.includes(status)),
    timeZone: options.timeZone,
    thresholdsDays: options.thresholdsDays,
  };
}

const sameList = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

const DEFAULT_VARIANT = reportVariant({ timeZone: 'UTC', thresholdsDays: [...DEFAULT_THRESHOLDS_DAYS] });

/** The default statuses and ranges (any zone): the nightly's report, in the folder named by its date alone. */
const isDefaultVariant = (variant: ReportVariant) =>
  sameList(variant.statuses, DEFAULT_VARIANT.statuses) &&
  sameList(variant.thresholdsDays, DEFAULT_VARIANT.thresholdsDays);

/**
 * Whether a report written with `recorded` options is one this run can compare with: the same statuses, ranges and
 * zone. A file without options (written before they were recorded) is taken for the default statuses and ranges in
 * this run's zone: the nightly's, which is what the folder named by its date alone held.
 */
function comparable(recorded: ReportVariant | undefined, variant: ReportVariant): boolean {
  if (recorded === undefined) return isDefaultVariant(variant);
  return (
    recorded.timeZone === variant.timeZone &&
    sameList(recorded.statuses, variant.statuses) &&
    sameList(recorded.thresholdsDays, variant.thresholdsDays)
  );
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/\+/g, '-plus-') // Etc/GMT+5 and Etc/GMT-5 are two zones
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * The report's folder: its date alone for the default statuses and ranges (the nightly's), else the date and what
 * differs (`2026-11-01--approved--utc`, `2026-11-01--days-7-30--europe-stockholm`), so a run with other options never
 * replaces the nightly's files. A default run finding its date's folder written in another zone takes the date and
 * its zone (`2026-11-01--utc`).
 */
function variantFolderName(asOf: string, variant: ReportVariant, zoneToo: boolean): string {
  const parts = [asOf];
  if (!sameList(variant.statuses, DEFAULT_VARIANT.statuses)) parts.push(variant.statuses.map(slug).join('-'));
  if (!sameList(variant.thresholdsDays, DEFAULT_VARIANT.thresholdsDays))
    parts.push(`days-${variant.thresholdsDays.join('-')}`);
  if (zoneToo || parts.length > 1) parts.push(slug(variant.timeZone));
  return parts.join('--');
}

/** A report folder's name: `YYYY-MM-DD`, or that and `--` and what set its options apart. */
const REPORT_FOLDER_NAME = /^(\d{4}-\d{2}-\d{2})(--[a-z0-9-]+)?$/;

const readBuckets = (root: string, folder: string): Promise<BucketsFile | undefined> =>
  // a folder without a readable buckets file is skipped
  readStoredJson(join(root, folder, 'buckets.json'), bucketsFileSchema).catch(() => undefined);
/**
 * The newest earlier report written with the same options (`comparable`) that left its buckets behind, read from the
 * run-data store: another worker may have written it. A report with other statuses, ranges or zone is no baseline:
 * compared with one holding only APPROVED certificates, every other certificate would look newly expiring.
 */
export async function previousBuckets(
  root: string,
  asOf: string,
  variant: ReportVariant,
): Promise<BucketsFile | null> {
  const { store, key } = locate(root);
  const folders = new Set(
    (await store.list(`${key}/`)).map((name) => name.slice(key.length + 1).split('/')[0] ?? ''),
  );
  const earlier = [...folders]
    .map((folder) => ({ folder, date: REPORT_FOLDER_NAME.exec(folder)?.[1] }))
    .filter(
      (entry): entry is { folder: string; date: string } => entry.date !== undefined && entry.date < asOf,
    )
    .sort((a, b) => (a.date === b.date ? a.folder.localeCompare(b.folder) : b.date.localeCompare(a.date)));
  for (const { folder } of earlier) {
    const found = await readBuckets(root, folder);
    if (found && comparable(found.options, variant)) return found;
  }
  return null;
}

/** This run's folder under `root`: see `variantFolderName`. */
export async function reportFolderName(root: string, asOf: string, variant: ReportVariant): Promise<string> {
  const named = variantFolderName(asOf, variant, false);
  if (named !== asOf) return named;
  const there = await readBuckets(root, asOf);
  return there === undefined || comparable(there.options, variant)
    ? asOf
    : variantFolderName(asOf, variant, true);
}
