import { Command, InvalidArgumentError } from 'commander';
import { isKnownTimeZone } from '../../connectors/certificate-report/model';
import { certificateReport } from '../../workflows';
import { runAction } from '../run-action';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

function isoDate(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw new InvalidArgumentError('expected a date in the form YYYY-MM-DD');
  }
  return value;
}

/** Checked here, before any workflow starts, against the zones this Node's Intl knows. */
function timeZone(value: string): string {
  if (!isKnownTimeZone(value)) {
    throw new InvalidArgumentError(
      `'${value}' is not a known IANA time zone (for example Europe/Stockholm or UTC)`,
    );
  }
  return value;
}

function thresholds(value: string): number[] {
  const days = value.split(',').map((part) => Number(part.trim()));
  if (days.some((day, i) => !Number.isInteger(day) || day <= 0 || (i > 0 && day <= (days[i - 1] ?? 0)))) {
    throw new InvalidArgumentError('expected ascending whole numbers of days, for example 30,60,90');
  }
  return days;
}

export function certificateReportCommand(): Command {
  return new Command('certificate-report')
    .description(
      'Start the certificate expiry report (xlsx, csv, html under TRACE_DATA_DIR/reports/certificate-expiry)',
    )
    .option(
      '--as-of <date>',
      'report as of this date (YYYY-MM-DD), e.g. to backfill a missed night; default today',
      isoDate,
    )
    .option(
      '--time-zone <zone>',
      'IANA time zone the report reads dates in: "today" and the day each certificate expires',
      timeZone,
      'UTC',
    )
    .option('--thresholds <days>', 'expiring-within buckets, comma-separated', thresholds)
    .option('--wait', 'wait for the result and print it')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 600)
    .action(
      (flags: { asOf?: string; timeZone: string; thresholds?: number[]; wait?: boolean; timeout: number }) =>
        runAction(() =>
          startJob({
            workflow: certificateReport,
            args: [{ asOf: flags.asOf, timeZone: flags.timeZone, thresholdsDays: flags.thresholds }],
            workflowId: timestampedId(`cert-report-${flags.asOf ?? 'today'}`),
            job: 'certificate-report',
            source: 'api',
            summary: `Certificate expiry report as of ${flags.asOf ?? 'today'}`,
            wait: Boolean(flags.wait),
            timeoutSeconds: flags.timeout,
          }),
        ),
    );
}
