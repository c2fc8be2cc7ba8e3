/**
 * The certificate report test files' shared setup (certificate-report*.test.ts): a stack on the sandbox's demo seed,
 * or on that seed with its certificates replaced, and the workflow run on it.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CertificateReportResult } from '../../activities/certificate-report';
import type { CertificateReportInput } from '../../connectors/certificate-report/model';
import { buildDemoSeed } from '../../sandbox/seed/demo';
import { TraceJob } from '../../worker/search-attributes';
import { certificateReport } from '../../workflows';
import { startTestStack, type TestStack, type TestStackOptions } from '../harness';

/**
 * A stack in a fresh data folder named after `prefix`. Without `certificates`, its sandbox holds the demo seed; with
 * it, the demo seed with its certificates replaced by `certificates(template)`, the template being the seed's approved
 * SCOPE certificate. `activities` replaces the worker's activities, as startTestStack's option does.
 */
export async function startCertificateReportStack(
  prefix: string,
  certificates?: (template: Record<string, unknown>) => Array<Record<string, unknown>>,
  { activities }: Pick<TestStackOptions, 'activities'> = {},
): Promise<TestStack> {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  if (certificates === undefined) return startTestStack({ config: { dataDir }, activities });
  const seedFile = writeCertificateSeed(dataDir, certificates);
  return startTestStack({ config: { dataDir }, sandbox: { seedFile }, activities });
}

/**
 * Writes `dir/seed.json`, the demo seed with its certificates replaced by `certificates(template)` (see
 * startCertificateReportStack), for a sandbox's `seedFile`; returns its path.
 */
export function writeCertificateSeed(
  dir: string,
  certificates: (template: Record<string, unknown>) => Array<Record<string, unknown>>,
): string {
  const seed = buildDemoSeed(Date.now()) as Record<string, unknown>;
  const template = (seed['certificates'] as Array<Record<string, unknown>>).find(
    (c) => c['status'] === 'APPROVED' && c['type'] === 'SCOPE',
  )!;
  seed['certificates'] = certificates(template);
  const seedFile = path.join(dir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(seed));
  return seedFile;
}

/** Runs the certificateReport workflow on the stack's task queue to its result, as `cert-report-<name>-…`. */
export const certificateReportRunner =
  (stack: () => TestStack) =>
  (input: CertificateReportInput, name: string): Promise<CertificateReportResult> =>
    stack().client.workflow.execute(certificateReport, {
      args: [input],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId(`cert-report-${name}`),
      typedSearchAttributes: [{ key: TraceJob, value: 'certificate-report' }],
    });
