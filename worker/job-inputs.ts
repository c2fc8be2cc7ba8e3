import { z } from 'zod';
import { certificateReportInputSchema } from '../connectors/certificate-report/model';
import { repairBomInputSchema } from '../connectors/bom-repair/job-input';
import { pushErpOrdersInputSchema } from '../workflows/erp-orders';
import { pullPlatformOrdersInputSchema } from '../workflows/erp-pull';
import { CHILD_PROFILE_SCHEMAS, processInboxInputSchema } from '../workflows/inbox';
import { plmImportInputSchema } from '../workflows/plm-import';
import type { JobName } from './jobs';

/** Each job's workflow input, as its workflow checks it when it starts. */
const INPUT_SCHEMAS: Record<JobName, z.ZodType> = {
  'plm-import': plmImportInputSchema,
  'erp-orders': pushErpOrdersInputSchema,
  'erp-pull': pullPlatformOrdersInputSchema,
  'bom-repair': repairBomInputSchema,
  'certificate-report': certificateReportInputSchema,
  inbox: processInboxInputSchema,
  'check-connection': z.strictObject({}),
};

/**
 * What the job's workflow would refuse in `input`, before anything starts it (a schedules file, say). The inbox hands
 * its `profile` and `mappingFile` to each file's job, so they are checked as that job's.
 */
export function jobInputIssues(job: JobName, input: unknown): z.core.$ZodIssue[] {
  const parsed = INPUT_SCHEMAS[job].safeParse(input);
  if (!parsed.success) return parsed.error.issues;
  if (job !== 'inbox') return [];
  const { job: childJob, profile, mappingFile } = processInboxInputSchema.parse(input);
  const child = CHILD_PROFILE_SCHEMAS[childJob].safeParse({ profile, mappingFile });
  return child.success ? [] : child.error.issues;
}
