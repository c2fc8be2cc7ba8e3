import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { activityInfo, cancellationSignal, log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import {
  CERTIFICATE_STATUSES,
  changesSince,
  nonBlank,
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
import { ApiCalls, StagingStore, stagingRefSchema, type StagingRef } from '../connectors/staging';
import { publishFolder, storedLocation } from '../connectors/storage';
import type { Certificate } from '../connectors/traceability';
import { openFetchJournal, type CertificatePageFetcher } from './certificate-fetch-journal';
import { readWholeLists } from './certificate-list-read';
import {
  previousBuckets,
  REPORT_FOLDER,
  reportFolderName,
  reportVariant,
  type BucketsFile,
} from './certificate-report-folders';
import { failureMapper, guarded, invalidInput, withHeartbeats } from './batch-kit';
import type { ActivityDeps } from './deps';

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

const mapFailure = failureMapper(invalidInput);

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
