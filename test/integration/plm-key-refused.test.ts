/**
 * Spec 01, Errors: 401 `token_or_api_key_invalid` is a "Missing or invalid key" and 403 `insufficient_rights` a
 * "Credential not bound to a company": answers about the worker's key, not about a row. A key revoked or rotated while
 * an import writes must stop the run naming the key, not reject every remaining row into a rejects file the operator
 * would then "fix".
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { PlmImportResult } from '../../activities/plm-import';
import { createActivities } from '../../activities';
import { plmImport } from '../../workflows';
import type { PlmImportInput } from '../../workflows/plm-import';
import { startTestStack, type TestStack } from '../harness';
import { expectKeyRefused, keyRevocation } from './key-revocation';
import { family, toCsv } from './plm-rules-stack';

jest.setTimeout(120_000);

let stack: TestStack | undefined;
let dir = '';

const started = (): TestStack => {
  if (!stack) throw new Error('the stack starts in beforeAll');
  return stack;
};
/** Fired as a batch write begins (as a key rotated on the platform mid-run). */
const revocation = keyRevocation(started);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'plm-key-refused-it-'));
  stack = await startTestStack({
    config: { dataDir: path.join(dir, 'data') },
    sandbox: { rateLimitPerMinute: 100_000 },
    activities: (deps) => {
      const activities = createActivities(deps);
      return {
        ...activities,
        applyPlmBatch: (input: Parameters<typeof activities.applyPlmBatch>[0]) => {
          revocation.fire();
          return activities.applyPlmBatch(input);
        },
      };
    },
  });
}, 60_000);

afterAll(async () => {
  revocation.restore();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const run = (input: PlmImportInput): Promise<PlmImportResult> =>
  started().client.workflow.execute(plmImport, {
    args: [input],
    taskQueue: started().taskQueue,
    workflowId: started().workflowId('plm-key-refused'),
  });

it('"401 token_or_api_key_invalid: Missing or invalid key": a key refused while the import writes fails the run naming the key, rejects no row, and the same sheet imports whole once the key is back', async () => {
  const sheet = path.join(dir, 'key.csv');
  await writeFile(sheet, toCsv(family('KEYREF')));

  const failed = await revocation.during(() => run({ file: sheet, profile: 'native' }));

  // Before: the run completed, every product rejected with token_or_api_key_invalid and listed in a rejects file.
  expect(failed instanceof WorkflowFailedError ? 'run failed' : (failed as PlmImportResult).products).toBe(
    'run failed',
  );
  expectKeyRefused(failed, started().apiKey);

  const again = await run({ file: sheet, profile: 'native' });
  expect(again.products).toMatchObject({ created: 3, rejected: 0 });
  expect(again.rejectsFile ?? null).toBeNull();
});
