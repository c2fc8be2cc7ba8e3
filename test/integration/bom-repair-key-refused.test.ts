/**
 * Spec 01, Errors: 401 `token_or_api_key_invalid` is a "Missing or invalid key" and 403 `insufficient_rights` a
 * "Credential not bound to a company": answers about the worker's key, not about a BOM line. A key revoked while the
 * repair writes must fail the run naming the key, not list every remaining line as `failed` for a problem of its own;
 * once the key is back, the same repair puts the remaining references back.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { createActivities } from '../../activities';
import type { TraceabilityClient } from '../../connectors/traceability';
import type { BomsResource } from '../../connectors/traceability/resources/boms';
import type { RepairBomForksResult } from '../../workflows/bom-repair';
import { startTestStack, type TestStack } from '../harness';
import { bomRepairRunner, buildTree, forkThroughSku, linesOf, TEE_LINES } from './bom-trees';
import { expectKeyRefused, keyRevocation } from './key-revocation';

jest.setTimeout(120_000);

let stack: TestStack | undefined;

const started = (): TestStack => {
  if (!stack) throw new Error('the stack starts in beforeAll');
  return stack;
};
/** Fired as the repair sends its first line PUT (as a key rotated on the platform). */
const revocation = keyRevocation(started);

function revokingAtPut(client: TraceabilityClient): TraceabilityClient {
  const boms = Object.create(client.boms) as BomsResource;
  boms.replaceLine = (...args: Parameters<BomsResource['replaceLine']>) => {
    revocation.fire();
    return client.boms.replaceLine(...args);
  };
  return Object.assign(Object.create(client) as TraceabilityClient, { boms });
}

beforeAll(async () => {
  stack = await startTestStack({
    sandbox: { childLinkDelayMs: 300, rateLimitPerMinute: 100_000 },
    activities: (deps) => createActivities({ ...deps, client: revokingAtPut(deps.client) }),
  });
}, 60_000);

afterAll(async () => {
  revocation.restore();
  await stack?.stop();
});

const run = bomRepairRunner(started);

it('"401 token_or_api_key_invalid: Missing or invalid key": a key revoked mid-repair fails the run naming the key, no line reported failed, and the repair finishes once the key is back', async () => {
  const client = started().apiClient;
  const tree = await buildTree(client, 'keyref', TEE_LINES);
  const sku = tree.skus[0]!;
  const forkId = await forkThroughSku(client, tree, sku, (l) => l.quantityUnit === 'PIECES');
  expect((await linesOf(client, forkId)).filter((l) => l.styleId === null)).toHaveLength(3);

  const failed = await revocation.during(() => run({ products: [tree.ext[sku]!] }, 'key-refused'));

  // Before: the run completed `done-with-problems`, the lines after the revocation `failed` with the key's error.
  expect(
    failed instanceof WorkflowFailedError ? 'run failed' : (failed as RepairBomForksResult).linesFailed,
  ).toBe('run failed');
  expectKeyRefused(failed, started().apiKey);
  expect((await linesOf(client, forkId)).filter((l) => l.styleId === null)).toHaveLength(3);

  const again = await run({ products: [tree.ext[sku]!] }, 'key-back');
  expect(again).toMatchObject({ linesRepaired: 3, linesFailed: 0, linesAmbiguous: 0, linesUnmatched: 0 });
  expect((await linesOf(client, forkId)).filter((l) => l.styleId === null)).toEqual([]);
});
