/**
 * Spec 01, Errors: 401 `token_or_api_key_invalid` is a "Missing or invalid key" and 403 `insufficient_rights` a
 * "Credential not bound to a company": answers about the worker's key, not about a BOM line. A key revoked while the
 * repair writes must fail the run naming the key, not list every remaining line as `failed` for a problem of its own;
 * once the key is back, the same repair puts the remaining references back.
 */
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { createActivities } from '../../activities';
import type { TraceabilityClient } from '../../connectors/traceability';
import type { BomsResource } from '../../connectors/traceability/resources/boms';
import type { RepairBomForksResult } from '../../workflows/bom-repair';
import { startTestStack, type TestStack } from '../harness';
import { bomRepairRunner, buildTree, forkThroughSku, linesOf, TEE_LINES } from './bom-trees';

jest.setTimeout(120_000);

let stack: TestStack | undefined;
/** Set: the worker's key is revoked as the repair sends its first line PUT (as a key rotated on the platform). */
let revokeAtPut = false;
let restore: (() => void) | undefined;

const started = (): TestStack => {
  if (!stack) throw new Error('the stack starts in beforeAll');
  return stack;
};

function revokeKey(): () => void {
  const { sandbox, apiKey } = started();
  const record = sandbox.ctx.apiKeys.get(apiKey);
  if (!record) throw new Error('the worker key is not in the sandbox');
  sandbox.ctx.apiKeys.delete(apiKey);
  return () => sandbox.ctx.apiKeys.set(apiKey, record);
}

function revokingAtPut(client: TraceabilityClient): TraceabilityClient {
  const boms = Object.create(client.boms) as BomsResource;
  boms.replaceLine = (...args: Parameters<BomsResource['replaceLine']>) => {
    if (revokeAtPut && !restore) restore = revokeKey();
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
  restore?.();
  await stack?.stop();
});

const run = bomRepairRunner(started);

/** The ApplicationFailures down a failure's cause chain. */
function applicationFailures(error: unknown): ApplicationFailure[] {
  const found: ApplicationFailure[] = [];
  for (let current = error; current instanceof Error; current = current.cause)
    if (current instanceof ApplicationFailure) found.push(current);
  return found;
}

it('"401 token_or_api_key_invalid: Missing or invalid key": a key revoked mid-repair fails the run naming the key, no line reported failed, and the repair finishes once the key is back', async () => {
  const client = started().apiClient;
  const tree = await buildTree(client, 'keyref', TEE_LINES);
  const sku = tree.skus[0]!;
  const forkId = await forkThroughSku(client, tree, sku, (l) => l.quantityUnit === 'PIECES');
  expect((await linesOf(client, forkId)).filter((l) => l.styleId === null)).toHaveLength(3);

  revokeAtPut = true;
  const failed = await run({ products: [tree.ext[sku]!] }, 'key-refused').then(
    (result) => result,
    (error: unknown) => error,
  );
  revokeAtPut = false;
  restore?.();
  restore = undefined;

  // Before: the run completed `done-with-problems`, the lines after the revocation `failed` with the key's error.
  expect(
    failed instanceof WorkflowFailedError ? 'run failed' : (failed as RepairBomForksResult).linesFailed,
  ).toBe('run failed');
  const failures = applicationFailures(failed);
  expect(failures.map((failure) => failure.type)).toContain('TraceabilityApiError:token_or_api_key_invalid');
  expect(failures.every((failure) => failure.nonRetryable)).toBe(true);
  expect(failures.map((failure) => failure.message).join('\n')).toContain('TRACEABILITY_API_KEY');
  expect(failures.map((failure) => failure.message).join('\n')).not.toContain(started().apiKey);
  expect((await linesOf(client, forkId)).filter((l) => l.styleId === null)).toHaveLength(3);

  const again = await run({ products: [tree.ext[sku]!] }, 'key-back');
  expect(again).toMatchObject({ linesRepaired: 3, linesFailed: 0, linesAmbiguous: 0, linesUnmatched: 0 });
  expect((await linesOf(client, forkId)).filter((l) => l.styleId === null)).toEqual([]);
});
