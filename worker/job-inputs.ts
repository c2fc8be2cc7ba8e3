import { z } from 'zod';
import { inputProblems } from '../connectors/config-problems';
import { certificateReportInputSchema } from '../connectors/certificate-report/model';
import { repairBomInputSchema } from '../connectors/bom-repair/job-input';
import { pushErpOrdersInputSchema } from '../workflows/erp-orders';
import { pullPlatformOrdersInputSchema } from '../workflows/erp-pull';
import { CHILD_PROFILE_SCHEMAS, processInboxInputSchema } from '../workflows/inbox';
import { plmImportInputSchema } from '../workflows/plm-import';
import { profileChoiceProblem } from '../connectors/profile-choice';
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
 * What the job's workflow would refuse in `input`, before anything starts it (a schedules file, say), in the words
 * its run would fail with (inputProblems); undefined when it would take it. The inbox hands its `profile` and
 * `mappingFile` to each file's job, so they are checked as that job's. A mapping file is the workers' to read: see
 * mappingFileProblem.
 */
export function jobInputProblems(job: JobName, input: unknown): string | undefined {
  const schema = INPUT_SCHEMAS[job];
  const parsed = schema.safeParse(input, { reportInput: true });
  if (!parsed.success) return inputProblems(schema, parsed.error);
  const choice = profileChoiceProblem(parsed.data as { profile?: string; mappingFile?: string });
  if (job !== 'inbox') return choice;
  const { job: childJob, profile, mappingFile } = processInboxInputSchema.parse(input);
  const childSchema = CHILD_PROFILE_SCHEMAS[childJob];
  const child = childSchema.safeParse({ profile, mappingFile }, { reportInput: true });
  return child.success ? choice : `${inputProblems(childSchema, child.error)} (as ${childJob} reads it)`;
}
