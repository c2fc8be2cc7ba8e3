import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

/** Set by global-setup; names the JSON file below. */
export const HARNESS_FILE_ENV = 'TRACE_TEST_HARNESS_FILE';

/** What global-setup publishes to test files about the run's shared Temporal dev server. */
export const harnessInfoSchema = z.object({
  address: z.string(),
  namespace: z.string(),
  uiUrl: z.string(),
  serverPid: z.number().int(),
  workflowBundlePath: z.string(),
  /** Temporary folder of this run (dev-server data, bundle); removed by teardown. */
  tempDir: z.string(),
  /** Where this run's logs go (kept after the run, grepped by .ci/run for API keys). */
  logDir: z.string(),
});
export type HarnessInfo = z.infer<typeof harnessInfoSchema>;

export function writeHarnessInfo(file: string, info: HarnessInfo): void {
  writeFileSync(file, JSON.stringify(info, null, 2));
}

/** The running harness; throws when a test runs outside the `integration` jest project. */
export function readHarnessInfo(): HarnessInfo {
  const file = process.env[HARNESS_FILE_ENV];
  if (!file) {
    throw new Error(
      `${HARNESS_FILE_ENV} is not set: run integration tests with \`npx jest --selectProjects integration\``,
    );
  }
  return harnessInfoSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}
