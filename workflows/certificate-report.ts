import { defineQuery, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Activities } from '../activities';
import type { CertificateReportResult } from '../activities/certificate-report';
import {
  CERTIFICATE_STATUSES,
  DEFAULT_EXCLUDED_STATUSES,
  isKnownTimeZone,
  type CertificateStatus,
} from '../connectors/certificate-report/model';
import { invalidInput, setStatus, startJob, stepActivityOptions } from './batch-run';

/**
 * Workflow input, plain JSON so operators can start it from the Temporal Web UI, e.g.
 * `{"asOf": "2026-11-01"}` or `{}` (as of the scheduled night, or today).
 */
export interface CertificateExpiryReportInput {
  /** Report date `YYYY-MM-DD`. Default: the schedule's nominal time (so a backfill reports as of that night), else today. */
  asOf?: string;
  /**
   * The one IANA zone the report reads dates in: it turns the nominal time (or now) into the as-of date, and each
   * certificate's `expirationDate` timestamp into the calendar date it expires on. A schedule fills it with its own
   * zone (`trace-sync schedules apply`); started by hand without it, `UTC`.
   */
  timeZone?: string;
  /** Ascending day counts, one bucket each. Default `[30, 60, 90]`. */
  thresholdsDays?: number[];
  /** Statuses to include. Default: all but `DRAFT` and `REJECTED`. */
  includeStatuses?: Array<
    'DRAFT' | 'REQUESTED' | 'APPROVED' | 'REJECTED' | 'ACKNOWLEDGED' | 'NOT_VERIFIABLE'
  >;
}

export interface CertificateReportProgress {
  phase: 'starting' | 'reading certificates' | 'writing report' | 'done';
  asOf: string;
  certificates: number | null;
}

export const certificateReportProgressQuery = defineQuery<CertificateReportProgress>('progress');

const ScheduledStartTime = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

const { fetchCertificatesForReport, writeCertificateExpiryReport } = proxyActivities<Activities>({
  ...stepActivityOptions,
  startToCloseTimeout: '10 minutes',
});

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const badInput = (message: string) => invalidInput('certificate report', message);

/** The calendar date of `instant` in `timeZone`, as `YYYY-MM-DD`. */
function dateIn(instant: Date, timeZone: string): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).formatToParts(instant);
  } catch {
    throw badInput(`timeZone '${timeZone}' is not a known IANA time zone`);
  }
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

function resolveAsOf(input: CertificateExpiryReportInput, timeZone: string): string {
  if (input.asOf !== undefined) {
    if (!DATE.test(input.asOf) || Number.isNaN(Date.parse(`${input.asOf}T00:00:00Z`))) {
      throw badInput(`asOf '${input.asOf}' must be a date in the form YYYY-MM-DD`);
    }
    return input.asOf;
  }
  const scheduled = workflowInfo().typedSearchAttributes.get(ScheduledStartTime);
  return dateIn(scheduled ?? new Date(), timeZone);
}

/** The statuses to read: the ones the report shows (default: all but DRAFT and REJECTED). */
function statusesToRead(input: CertificateExpiryReportInput): CertificateStatus[] {
  const excluded: readonly string[] = DEFAULT_EXCLUDED_STATUSES;
  const wanted = input.includeStatuses ?? CERTIFICATE_STATUSES.filter((status) => !excluded.includes(status));
  const unknown = wanted.filter((status) => !(CERTIFICATE_STATUSES as readonly string[]).includes(status));
  if (unknown.length > 0 || wanted.length === 0) {
    throw badInput(
      `includeStatuses must list some of ${CERTIFICATE_STATUSES.join(', ')} (got ${JSON.stringify(wanted)})`,
    );
  }
  return [...new Set(wanted)];
}

/** Job 4: the nightly certificate expiry report (xlsx, csv, html and a JSON summary, which is also the result). */
export async function certificateReport(
  input: CertificateExpiryReportInput = {},
): Promise<CertificateReportResult> {
  const thresholdsDays = input.thresholdsDays ?? [30, 60, 90];
  if (
    !thresholdsDays.every(
      (days, i) => Number.isInteger(days) && days > 0 && (i === 0 || days > (thresholdsDays[i - 1] ?? 0)),
    )
  ) {
    throw badInput(
      `thresholdsDays ${JSON.stringify(thresholdsDays)} must be ascending whole numbers of days`,
    );
  }
  const timeZone = input.timeZone ?? 'UTC';
  if (!isKnownTimeZone(timeZone)) throw badInput(`timeZone '${timeZone}' is not a known IANA time zone`);
  const statuses = statusesToRead(input);
  const asOf = resolveAsOf(input, timeZone);
  const progress = startJob<CertificateReportProgress>({
    job: 'certificate-report',
    source: 'api',
    status: 'running',
    query: certificateReportProgressQuery,
    progress: { phase: 'starting', asOf, certificates: null },
  });

  progress.phase = 'reading certificates';
  const fetched = await fetchCertificatesForReport({ runKey: `${asOf}-${workflowInfo().runId}`, statuses });
  progress.certificates = fetched.certificates;

  progress.phase = 'writing report';
  const result = await writeCertificateExpiryReport({
    certificates: fetched.ref,
    apiCalls: fetched.apiCalls,
    asOf,
    timeZone,
    thresholdsDays,
    includeStatuses: input.includeStatuses,
  });
  progress.phase = 'done';
  setStatus('done');
  log.info('Certificate expiry report done', {
    asOf,
    total: result.total,
    expired: result.perBucket['expired'] ?? 0,
  });
  return result;
}
