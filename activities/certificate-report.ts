import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { activityInfo, cancellationSignal, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  CERTIFICATE_STATUSES,
  changesSince,
  DEFAULT_THRESHOLDS_DAYS,
  nonBlank,
  statusesShown,
  classifyCertificates,
  reportCertificateSchema,
  reportOptionsSchema,
  type CertificateStatus,
  type ReportCertificate,
} from '../connectors/certificate-report/model';
import {
  renderCsv,
  renderHtml,
  renderXlsx,
  summarise,
  type ExpirySummary,
} from '../connectors/certificate-report/render';
import {
  ApiCalls,
  readStoredJson,
  StagingStore,
  stagingRefSchema,
  type Progress,
  type StagingRef,
} from '../connectors/staging';
import { locate, publishFolder, storedLocation } from '../connectors/storage';
import { readList, type Certificate, type ListRead } from '../connectors/traceability';
import { openFetchJournal, type CertificatePageFetcher } from './certificate-fetch-journal';
import { failureMapper, guarded, invalidInput, withHeartbeats } from './batch-kit';
import type { ActivityDeps } from './deps';

export const REPORT_FOLDER = join('reports', 'certificate-expiry');

/** What makes two reports comparable: the certificates they hold (statuses), how their dates read, their ranges. */
const reportVariantSchema = z.object({
  statuses: z.array(z.string()),
  timeZone: z.string(),
  thresholdsDays: z.array(z.number()),
});
type ReportVariant = z.infer<typeof reportVariantSchema>;

/** `options` is absent from files written before it was recorded: taken for the default statuses and ranges. */
const bucketsFileSchema = z.object({
  asOf: z.string(),
  options: reportVariantSchema.optional(),
  buckets: z.record(z.string(), z.string()),
});
type BucketsFile = z.infer<typeof bucketsFileSchema>;

function reportVariant(options: {
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

export interface FetchedCertificates {
  ref: StagingRef;
  certificates: number;
  apiCalls: number;
}

/** The report's folder and files where they are found: `s3://…` with an S3 run-data store, else their paths. */
export interface CertificateReportFiles {
  folder: string;
  xlsx: string;
  csv: string;
  html: string;
  json: string;
}

export interface CertificateReportResult extends ExpirySummary {
  files: CertificateReportFiles;
  apiCalls: number;
  /** Suppliers with a certificate in the report; `bySupplier` lists the most urgent (every one in summary.json). */
  suppliers: number;
  /** Suppliers beyond the listed ones (0 in summary.json, which lists every one, as the xlsx's By supplier sheet). */
  suppliersOmitted: number;
}

/** Suppliers the workflow result lists: it is a payload (errors at 2 MB), the report files hold every one. */
export const MAX_LISTED_SUPPLIERS = 200;

export const writeReportInputSchema = reportOptionsSchema.extend({
  certificates: stagingRefSchema,
  apiCalls: z.number().int().min(0),
});
export type WriteReportInput = z.input<typeof writeReportInputSchema>;

const fetchInputSchema = z.object({
  runKey: z.string().min(1),
  /** Read one list per status with the spec's `status` filter; absent or every status: one unfiltered list. */
  statuses: z.array(z.enum(CERTIFICATE_STATUSES)).min(1).optional(),
});
export type FetchCertificatesInput = z.input<typeof fetchInputSchema>;

/** Keeps what a report needs; the signed `fileUrl` is dropped here so it is never stored. */
function toReportCertificate(certificate: Certificate): ReportCertificate {
  return {
    id: certificate.id,
    name: certificate.name,
    type: certificate.type,
    status: certificate.status,
    companyId: certificate.companyId,
    companyName: nonBlank(certificate.companyName) ?? nonBlank(certificate.companyOfficialName),
    expirationDate: certificate.expirationDate ?? null,
    issueDate: certificate.issueDate ?? null,
    issuedBy: certificate.issuedBy ?? null,
    documentNumber: certificate.documentNumber ?? null,
    licenseNumber: certificate.licenseNumber ?? null,
  };
}

/**
 * The newest earlier report written with the same options (`comparable`) that left its buckets behind, read from the
 * run-data store: another worker may have written it. A report with other statuses, ranges or zone is no baseline:
 * compared with one holding only APPROVED certificates, every other certificate would look newly expiring.
 */
async function previousBuckets(
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
async function reportFolderName(root: string, asOf: string, variant: ReportVariant): Promise<string> {
  const named = variantFolderName(asOf, variant, false);
  if (named !== asOf) return named;
  const there = await readBuckets(root, asOf);
  return there === undefined || comparable(there.options, variant)
    ? asOf
    : variantFolderName(asOf, variant, true);
}

const mapFailure = failureMapper(invalidInput);

/** Whole reads of every list tried while certificates change under the read. */
const CERTIFICATE_LIST_READS = 3;
/**
 * Reads of one list whose ids are counted together while its `total` stays: a server may answer certificates with
 * equal sort values in another order on each query, each read then meeting some twice and missing others.
 */
const READS_PER_LIST = 8;
const PAGE_SIZE = 100;

interface StatusRead {
  status: CertificateStatus | undefined;
  read: ListRead<Certificate>;
}

const listName = (status: CertificateStatus | undefined) =>
  status ? `certificates with status ${status}` : 'certificates of every status';

/**
 * One list read by offset until the ids read cover its `pagination.total` (spec 01). Spec 03 offers no sort column
 * that is unique (no `id`, no `createdAt`) and promises a stable paging order for equal sort values of GET /orders
 * only: a read may meet a certificate twice and miss another. The ids read are therefore counted across reads while
 * `total` stays (`countAcross`), the latest copy of each kept, and the pages read again only until every certificate
 * counted was met. That count holds only while no certificate leaves the list, which a status list does (a review
 * done): `readWholeLists` checks that none changed while the lists were read. A list whose pages never show a
 * certificate its total counts fails the run, saying so: no report is written short of one.
 */
async function readStatusList(
  status: CertificateStatus | undefined,
  fetchPage: CertificatePageFetcher,
  progress: Progress,
): Promise<StatusRead> {
  const read = await readList(
    (page, limit) => fetchPage({ ...(status ? { status } : {}), order: 'asc', page, limit }),
    {
      limit: PAGE_SIZE,
      keep: 'latest',
      countAcross: true,
      reads: READS_PER_LIST,
      onPage: (_, certificates) => progress({ list: status ?? 'all', certificates }),
    },
  );
  if (read.moved !== undefined) {
    throw ApplicationFailure.nonRetryable(
      `${listName(status)}: the API counts ${read.total} but ${read.reads} reads of its pages listed ` +
        `${read.counted} distinct ones; ${read.total - read.counted} counted certificate(s) were on none of the ` +
        'pages read (the order of certificates with equal sort values may change between queries, but not that ' +
        'often); no report written, so none is short of a certificate: run the report again, and if it fails the ' +
        'same way the API lists fewer certificates than it counts',
      'CertificateListUnsettled',
    );
  }
  return { status, read };
}

/** A certificate as the report compares it: every field the API gave but the `fileUrl`, signed anew on each answer. */
function shownFields(certificate: Certificate): string {
  const entries = Object.entries(certificate).filter(([key]) => key !== 'fileUrl');
  return JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Why the lists read may not hold every certificate as it is now, or undefined. `newest` holds the certificates
 * changed last (`newestChanges`), every one changed since the lists began to be read among them, as they are now: each
 * must be in the lists read exactly so, in the list of its status, or in none when its status is not read. A
 * certificate found in two lists changed status between their reads.
 */
function changedWhileRead(reads: readonly StatusRead[], newest: readonly Certificate[]): string | undefined {
  const read = new Map<string, Certificate>();
  for (const { read: list } of reads) {
    for (const certificate of list.items) {
      const other = read.get(certificate.id);
      if (other)
        return (
          `certificate ${certificate.id} was listed both as ${other.status} and as ${certificate.status} ` +
          '(its status changed while the lists were read)'
        );
      read.set(certificate.id, certificate);
    }
  }
  const statusesRead = new Set(reads.map(({ status }) => status));
  for (const certificate of newest) {
    const listed = statusesRead.has(undefined) || statusesRead.has(certificate.status);
    const found = read.get(certificate.id);
    if (!listed && found)
      return `certificate ${certificate.id} is ${certificate.status} now, read as ${found.status}`;
    if (listed && !found)
      return `certificate ${certificate.id} (${certificate.status}) was in none of the lists read`;
    if (found && shownFields(found) !== shownFields(certificate))
      return `certificate ${certificate.id} changed after it was read`;
  }
  return undefined;
}

/** Pages of the newest changes read once the lists are: 1,000 certificates changed while they were read, at most. */
const CHANGE_PAGES = 10;

/** The newest changes (`sort=updatedAt&order=desc`, every status), from page 1: `page` of them. */
const newestPage = (fetchPage: CertificatePageFetcher, page: number) =>
  fetchPage({ order: 'desc', page, limit: PAGE_SIZE });

type NewestChanges =
  | { settled: true; items: Certificate[]; first: Certificate[] }
  | { settled: false; change: string; first: Certificate[] };

/**
 * The certificates changed last, as they are now, down to every one changed since `before` was read (page 1 of them,
 * read before the lists). A certificate's `updatedAt` orders them but is not in the list's answer (spec 03,
 * Certificate), so no time tells where the changes made while the lists were read end: `before` does. Every
 * certificate changed since comes first, then the ones of `before` not changed since, in its order. So pages are read
 * until one of `before` is met as it was then, with every one ahead of it in `before` met earlier, or followed by one
 * after it in `before`, as it was too (one ahead of it may have left the list: deleted, or its supplier out of the
 * network). One page on a quiet night. A certificate that changed and changed back, or changed no field the API
 * shows, while the lists were read is taken for unchanged. Bounded by `CHANGE_PAGES`: beyond them the lists are taken
 * to have changed.
 */
async function newestChanges(
  before: readonly Certificate[],
  fetchPage: CertificatePageFetcher,
): Promise<NewestChanges> {
  const position = new Map(before.map((certificate, at) => [certificate.id, at]));
  /** Where `certificate` was in `before` when it is as it was then. */
  const unchangedAt = (certificate: Certificate): number | undefined => {
    const at = position.get(certificate.id);
    return at !== undefined && shownFields(certificate) === shownFields(before[at]!) ? at : undefined;
  };
  const met = new Set<string>();
  let firstUnmet = 0;
  const items: Certificate[] = [];
  let first: Certificate[] = [];
  for (let page = 1; page <= CHANGE_PAGES; page++) {
    const answer = await newestPage(fetchPage, page);
    if (page === 1) first = answer.items;
    let unchangedMet = false;
    for (const [index, certificate] of answer.items.entries()) {
      const at = unchangedAt(certificate);
      const next = answer.items[index + 1];
      const nextAt = next && unchangedAt(next);
      if (at !== undefined && (at <= firstUnmet || (nextAt !== undefined && nextAt > at)))
        unchangedMet = true;
      met.add(certificate.id);
      while (firstUnmet < before.length && met.has(before[firstUnmet]!.id)) firstUnmet++;
      items.push(certificate);
    }
    if (unchangedMet || page >= answer.pagination.totalPages || answer.items.length < PAGE_SIZE)
      return { settled: true, items, first };
  }
  return {
    settled: false,
    change: `more than ${CHANGE_PAGES * PAGE_SIZE} certificates changed while the lists were read`,
    first,
  };
}

/**
 * Reads every list whole, each certificate once, as it is once they are read. A certificate whose status changes
 * while the lists are read moves from one list to another, maybe onto a page already read; and a list that lost one
 * certificate and gained another keeps its `total` while one of its certificates slides onto a page already read, the
 * one that left still counted. So the newest changes are asked for before the lists are read (one call) and after
 * (`newestChanges`: one call unless a page or more changed meanwhile), and every certificate changed meanwhile is
 * checked against the lists (`changedWhileRead`): when one changed, all lists are read again (the newest changes
 * read after them serving as the next read's `before`), up to `CERTIFICATE_LIST_READS` times; then the run fails
 * saying what kept changing, and no report is written. A quiet night costs the lists' pages and two calls. It asks
 * the same queries in the same order for the same answers: an attempt after a killed one replays the answers it got
 * (`openFetchJournal`, which says what a resumed read may miss).
 */
async function readWholeLists(
  lists: ReadonlyArray<CertificateStatus | undefined>,
  fetchPage: CertificatePageFetcher,
  progress: Progress,
): Promise<Certificate[]> {
  let change: string | undefined;
  let before = (await newestPage(fetchPage, 1)).items;
  for (let attempt = 1; attempt <= CERTIFICATE_LIST_READS; attempt++) {
    const reads: StatusRead[] = [];
    for (const status of lists) reads.push(await readStatusList(status, fetchPage, progress));
    const newest = await newestChanges(before, fetchPage);
    change = newest.settled ? changedWhileRead(reads, newest.items) : newest.change;
    if (change === undefined) return reads.flatMap(({ read }) => read.items);
    before = newest.first;
    log.warn('Certificates changed while the lists were read', {
      attempt,
      of: CERTIFICATE_LIST_READS,
      change,
    });
  }
  throw ApplicationFailure.nonRetryable(
    `${change}, in each of ${CERTIFICATE_LIST_READS} reads in a row; no report written, so none is short of ` +
      'a certificate or shows one as it was: run the report again once certificates are not being reviewed',
    'CertificateListUnsettled',
  );
}

export function createCertificateReportActivities(deps: Pick<ActivityDeps, 'client' | 'config'>) {
  const staging = new StagingStore(join(deps.config.dataDir, 'staging'));
  const reportsRoot = join(deps.config.dataDir, REPORT_FOLDER);

  return {
    /**
     * Reads the certificates the report includes, 100 a page, sorted by `updatedAt` (the sort column with the
     * fewest ties: few certificates change in the same instant, many share an expiry date or have none), and stages
     * them; the workflow only gets the reference. Only the statuses the report shows are read: one list
     * per status with the spec's `status` query filter (spec 03, GET /certificates), so a certificate the report
     * would drop (a draft, a rejected one) costs no read. The lists are read again until they hold every
     * certificate (`readWholeLists`); the report fails rather than be silently short.
     */
    fetchCertificatesForReport: guarded(
      mapFailure,
      async (raw: FetchCertificatesInput): Promise<FetchedCertificates> => {
        const input = fetchInputSchema.parse(raw);
        const everyStatus = CERTIFICATE_STATUSES.every((status) => input.statuses?.includes(status) ?? true);
        const lists: Array<CertificateStatus | undefined> = everyStatus
          ? [undefined]
          : [...new Set(input.statuses)];
        const api = new ApiCalls(deps.client);
        const live: CertificatePageFetcher = (query) =>
          api.one(() => deps.client.certificates.list({ sort: 'updatedAt', ...query }));
        const info = activityInfo();
        const folder = `certificate-report/${input.runKey}/fetch`;
        const journal = await openFetchJournal({
          staging,
          folder,
          attempt: info.attempt,
          previous: info.heartbeatDetails,
          live,
          stop: cancellationSignal(),
        });
        const ref = await withHeartbeats(
          async (progress) => {
            const certificates = await readWholeLists(lists, journal.fetchPage, (details) =>
              progress({ ...details, ...journal.details() }),
            ).catch(async (error: unknown) => {
              // No attempt follows: nothing will resume the journal.
              if (error instanceof ApplicationFailure && error.nonRetryable) await staging.remove(folder);
              throw error;
            });
            return staging.putNdjson(
              `certificate-report/${input.runKey}/certificates.ndjson`,
              certificates.map(toReportCertificate),
            );
          },
          undefined,
          // The journal named at once: an attempt killed before its next heartbeat is resumed too.
          journal.details(),
        );
        const apiCalls = journal.calls;
        log.info('Certificates staged for the expiry report', {
          certificates: ref.items,
          apiCalls,
          answeredByEarlierAttempts: journal.replayed,
        });
        return { ref, certificates: ref.items, apiCalls };
      },
    ),

    /**
     * Classifies, compares with the previous report and writes xlsx, csv, html and JSON into one dated folder,
     * heartbeating between the files: the step's heartbeat timeout runs from its start, so a large report's writing,
     * longer than that, would otherwise be timed out on every attempt.
     */
    writeCertificateExpiryReport: (rawInput: WriteReportInput): Promise<CertificateReportResult> =>
      withHeartbeats(() => writeReport(rawInput)),
  };

  async function writeReport(rawInput: WriteReportInput): Promise<CertificateReportResult> {
    const input = writeReportInputSchema.parse(rawInput);
    const certificates: ReportCertificate[] = [];
    for await (const certificate of staging.readNdjson(input.certificates, reportCertificateSchema)) {
      certificates.push(certificate);
    }
    const options = {
      asOf: input.asOf,
      timeZone: input.timeZone,
      thresholdsDays: input.thresholdsDays,
      includeStatuses: input.includeStatuses,
    };
    const classified = classifyCertificates(certificates, options);
    const variant = reportVariant(input);
    const changes = changesSince(classified, await previousBuckets(reportsRoot, input.asOf, variant));
    const summary = summarise(classified, changes, options);

    // Written into a temporary folder first and renamed, so a crash never leaves a half report.
    const name = await reportFolderName(reportsRoot, input.asOf, variant);
    const folder = join(reportsRoot, name);
    const temp = join(reportsRoot, `.${name}.${randomUUID()}.tmp`);
    await mkdir(temp, { recursive: true });
    const base = `certificate-expiry-${name}`;
    // Named where they are found once published: on S3 their s3:// location, not this worker's path.
    const files: CertificateReportFiles = {
      folder: storedLocation(folder),
      xlsx: storedLocation(join(folder, `${base}.xlsx`)),
      csv: storedLocation(join(folder, `${base}.csv`)),
      html: storedLocation(join(folder, `${base}.html`)),
      json: storedLocation(join(folder, 'summary.json')),
    };
    const suppliers = summary.bySupplier.length;
    const result: CertificateReportResult = {
      ...summary,
      files,
      apiCalls: input.apiCalls,
      suppliers,
      suppliersOmitted: 0,
    };
    await writeFile(join(temp, `${base}.xlsx`), renderXlsx(classified, changes, summary));
    await writeFile(join(temp, `${base}.csv`), renderCsv(classified, changes, summary), 'utf8');
    await writeFile(join(temp, `${base}.html`), renderHtml(classified, changes, summary), 'utf8');
    await writeFile(join(temp, 'summary.json'), JSON.stringify(result, null, 2), 'utf8');
    const buckets = Object.fromEntries(classified.map((c) => [c.id, c.bucket]));
    const bucketsFile: BucketsFile = { asOf: input.asOf, options: variant, buckets };
    await writeFile(join(temp, 'buckets.json'), JSON.stringify(bucketsFile), 'utf8');
    await rm(folder, { recursive: true, force: true });
    await rename(temp, folder);
    await publishFolder(folder);
    await staging.remove(input.certificates.key.split('/').slice(0, 2).join('/'));
    log.info('Certificate expiry report written', { asOf: input.asOf, total: summary.total, folder });
    return {
      ...result,
      bySupplier: summary.bySupplier.slice(0, MAX_LISTED_SUPPLIERS),
      suppliersOmitted: Math.max(0, suppliers - MAX_LISTED_SUPPLIERS),
    };
  }
}
