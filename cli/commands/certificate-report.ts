import { Command, InvalidArgumentError } from 'commander';
import type { z } from 'zod';
import { isoDateSchema, thresholdsSchema, timeZoneSchema } from '../../connectors/certificate-report/model';
import { certificateReport } from '../../workflows';
import { runAction } from '../run-action';
import { positiveSeconds, startJob, timestampedId } from '../workflow-runner';

/** An option checked here, before any workflow starts, by the schema the workflow checks its input with. */
function checked<T>(schema: z.ZodType<T>, from: (value: string) => unknown = (value) => value) {
  return (value: string): T => {
    const parsed = schema.safeParse(from(value));
    if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'invalid value');
    return parsed.data;
  };
}

export function certificateReportCommand(): Command {
  return new Command('certificate-report')
    .description(
      'Start the certificate expiry report (xlsx, csv, html under TRACE_DATA_DIR/reports/certificate-expiry)',
    )
    .option(
      '--as-of <date>',
      'report as of this date (YYYY-MM-DD), e.g. to backfill a missed night; default today',
      checked(isoDateSchema),
    )
    .option(
      '--time-zone <zone>',
      'IANA time zone the report reads dates in: "today" and the day each certificate expires',
      checked(timeZoneSchema),
      'UTC',
    )
    .option(
      '--thresholds <days>',
      'expiring-within buckets, comma-separated, ascending',
      checked(thresholdsSchema, (days) => days.split(',').map((day) => Number(day.trim()))),
    )
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
