import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { Command, InvalidArgumentError } from 'commander';
import type { z } from 'zod';
import {
  certificateReportInputSchema,
  isoDateSchema,
  thresholdsSchema,
  timeZoneSchema,
  type CertificateReportInput,
} from '../../connectors/certificate-report/model';
import { certificateReport } from '../../workflows';
import { jobOfWorkflowType } from '../../worker/jobs';
import { runAction } from '../run-action';
import { positiveSeconds, startJobOn, timestampedId, withTemporalClient } from '../workflow-runner';

/** An option checked here, before any workflow starts, by the schema the workflow checks its input with. */
function checked<T>(schema: z.ZodType<T>, from: (value: string) => unknown = (value) => value) {
  return (value: string): T => {
    const parsed = schema.safeParse(from(value));
    if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'invalid value');
    return parsed.data;
  };
}

/** The input a schedule's runs get (its zone, ranges and statuses), to backfill a night as that schedule would. */
async function scheduleInput(client: Client, scheduleId: string): Promise<CertificateReportInput> {
  const described = await client.schedule
    .getHandle(scheduleId)
    .describe()
    .catch((error: unknown) => {
      if (error instanceof ScheduleNotFoundError) throw new Error(`No schedule '${scheduleId}'`);
      throw error;
    });
  const { action } = described;
  if (action.type !== 'startWorkflow' || jobOfWorkflowType(action.workflowType) !== 'certificate-report')
    throw new Error(`Schedule '${scheduleId}' does not start the certificate report`);
  const parsed = certificateReportInputSchema.safeParse(action.args?.[0] ?? {});
  if (!parsed.success)
    throw new Error(`Schedule '${scheduleId}': its input is not a certificate report input`);
  return parsed.data;
}

interface CertificateReportFlags {
  asOf?: string;
  timeZone?: string;
  thresholds?: number[];
  schedule?: string;
  wait?: boolean;
  timeout: number;
}

/** The run's input: the flags given, over the schedule's input when one is named; `UTC` when neither names a zone. */
async function reportInput(client: Client, flags: CertificateReportFlags): Promise<CertificateReportInput> {
  const base = flags.schedule !== undefined ? await scheduleInput(client, flags.schedule) : {};
  return {
    ...base,
    asOf: flags.asOf,
    timeZone: flags.timeZone ?? base.timeZone ?? 'UTC',
    thresholdsDays: flags.thresholds ?? base.thresholdsDays,
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
      'IANA time zone the report reads dates in: "today" and the day each certificate expires (default: the --schedule\'s, else UTC)',
      checked(timeZoneSchema),
    )
    .option(
      '--thresholds <days>',
      'expiring-within buckets, comma-separated, ascending',
      checked(thresholdsSchema, (days) => days.split(',').map((day) => Number(day.trim()))),
    )
    .option(
      '--schedule <id>',
      "report as that schedule's runs do (its zone, thresholds and statuses; flags given here win), e.g. to backfill its missed night",
    )
    .option('--wait', 'wait for the result and print it')
    .option('--timeout <seconds>', 'with --wait: give up after this long', positiveSeconds, 600)
    .action((flags: CertificateReportFlags) =>
      runAction(() =>
        withTemporalClient(async (client, config) =>
          startJobOn(client, config, {
            workflow: certificateReport,
            args: [await reportInput(client, flags)],
            workflowId: timestampedId(`cert-report-${flags.asOf ?? 'today'}`),
            job: 'certificate-report',
            source: 'api',
            summary: `Certificate expiry report as of ${flags.asOf ?? 'today'}`,
            wait: Boolean(flags.wait),
            timeoutSeconds: flags.timeout,
          }),
        ),
      ),
    );
}
