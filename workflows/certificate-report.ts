import { defineQuery, log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Activities } from '../activities';
import type { CertificateReportResult } from '../activities/certificate-report';
import {
  certificateReportInputSchema,
  dateInZone,
  statusesShown,
  type CertificateReportInput,
} from '../connectors/certificate-report/model';
import { explainedRun, invalidInput, setStatus, startJob, stepActivityOptions } from './batch-run';

export type { CertificateReportInput as CertificateExpiryReportInput } from '../connectors/certificate-report/model';

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

/**
 * The fetch's time limit follows its work: it only waits on the API and heartbeats every few seconds all along, so a
 * dead worker is noticed within the heartbeat timeout, and a live one has a night to read a large account at a small
 * allowance (20,000 certificates read 3 times at 30 calls a minute take 20 minutes; a fixed 10 minutes timed such a
 * fetch out on every attempt). Its heartbeats come from a timer, so another activity holding the event loop (a large
 * xlsx written on the same worker) delays them: a minute leaves it that margin. Options only: the commands, and
 * replay, stay the same.
 */
const { fetchCertificatesForReport } = proxyActivities<Activities>({
  ...stepActivityOptions,
  startToCloseTimeout: '12 hours',
  heartbeatTimeout: '1 minute',
});

const { writeCertificateExpiryReport } = proxyActivities<Activities>({
  ...stepActivityOptions,
  startToCloseTimeout: '10 minutes',
});

/** Job 4: the nightly certificate expiry report (xlsx, csv, html and a JSON summary, which is also the result). */
export async function certificateReport(
  input: CertificateReportInput = {},
): Promise<CertificateReportResult> {
  return explainedRun('CertificateReportFailed', () => report(input));
}

async function report(input: CertificateReportInput): Promise<CertificateReportResult> {
  // patched: runs started while unknown keys were dropped (as they still are for those) replay as they ran.
  const schema = patched('certificate-input-strict')
    ? certificateReportInputSchema
    : z.object(certificateReportInputSchema.shape);
  const parsed = schema.safeParse(input, { reportInput: true });
  if (!parsed.success) throw invalidInput('certificate report', { schema, error: parsed.error });
  const { timeZone, thresholdsDays, includeStatuses } = parsed.data;
  const scheduled = workflowInfo().typedSearchAttributes.get(ScheduledStartTime);
  const asOf = parsed.data.asOf ?? dateInZone((scheduled ?? new Date()).getTime(), timeZone);
  const progress = startJob<CertificateReportProgress>({
    job: 'certificate-report',
    source: 'api',
    status: 'running',
    query: certificateReportProgressQuery,
    progress: { phase: 'starting', asOf, certificates: null },
  });

  progress.phase = 'reading certificates';
  const fetched = await fetchCertificatesForReport({
    runKey: `${asOf}-${workflowInfo().runId}`,
    statuses: statusesShown(includeStatuses),
  });
  progress.certificates = fetched.certificates;

  progress.phase = 'writing report';
  const result = await writeCertificateExpiryReport({
    certificates: fetched.ref,
    apiCalls: fetched.apiCalls,
    asOf,
    timeZone,
    thresholdsDays,
    includeStatuses,
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
