/**
 * Spec 01, Errors: 401 `token_or_api_key_invalid` is a "Missing or invalid key" and 403 `insufficient_rights` a
 * "Credential not bound to a company": answers about the worker's key, not about an order. A key revoked while the
 * push writes must stop the run naming the key, not reject every remaining order into a rejects file; pushing the
 * file again with a good key then creates the rest, none twice (spec 03: order create is not idempotent).
 * Spec 03, Limits: "orderNumber | 1-255 characters": characters, so 255 emoji are a valid number.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { createActivities } from '../../activities';
import type { ActivityDeps } from '../../activities/deps';
import { erpOrders } from '../../workflows';
import type { PushErpOrdersInput, PushErpOrdersResult } from '../../workflows/erp-orders';
import { sandboxApi, startTestStack, type TestStack } from '../harness';

jest.setTimeout(120_000);

let stack: TestStack | undefined;
let dir = '';
/** Set: the worker's key is revoked once this many of the push's order creates have been answered. */
let revokeAfterCreates: number | undefined;
let creates = 0;
let restore: (() => void) | undefined;

const started = (): TestStack => {
  if (!stack) throw new Error('the stack starts in beforeAll');
  return stack;
};
const { api } = sandboxApi(started);

function revokeKey(): () => void {
  const { sandbox, apiKey } = started();
  const record = sandbox.ctx.apiKeys.get(apiKey);
  if (!record) throw new Error('the worker key is not in the sandbox');
  sandbox.ctx.apiKeys.delete(apiKey);
  return () => sandbox.ctx.apiKeys.set(apiKey, record);
}

/** The activities' client, its order creates counted so the key can be revoked between two of them. */
function countingCreates(deps: ActivityDeps): ActivityDeps {
  const orders = deps.client.orders;
  const counted: typeof orders = Object.create(orders) as typeof orders;
  counted.create = async (...args) => {
    const created = await orders.create(...args);
    creates += 1;
    if (revokeAfterCreates !== undefined && creates >= revokeAfterCreates && !restore) restore = revokeKey();
    return created;
  };
  const client: typeof deps.client = Object.create(deps.client) as typeof deps.client;
  Object.defineProperty(client, 'orders', { value: counted });
  return { ...deps, client };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'erp-key-refused-it-'));
  stack = await startTestStack({
    config: { dataDir: path.join(dir, 'data') },
    sandbox: { rateLimitPerMinute: 100_000 },
    activities: (deps) => createActivities(countingCreates(deps)),
  });
}, 60_000);

afterAll(async () => {
  restore?.();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const push = (input: PushErpOrdersInput, workflowId: string): Promise<PushErpOrdersResult> =>
  started().client.workflow.execute(erpOrders, {
    args: [input],
    taskQueue: started().taskQueue,
    workflowId,
  });

/** The ApplicationFailure down a failure's cause chain. */
function applicationFailure(error: unknown): ApplicationFailure | undefined {
  for (let current = error; current instanceof Error; current = current.cause)
    if (current instanceof ApplicationFailure) return current;
  return undefined;
}

async function writeOrders(name: string, numbers: readonly string[]): Promise<string> {
  const file = path.join(dir, name);
  const rows = numbers.flatMap((orderNumber) =>
    [1, 2].map((line) => ({
      order_number: orderNumber,
      supplier_code: 'SUP-1001',
      line_number: String(line),
      product_external_id: line === 1 ? 'PLM-TEE-001-BLK' : 'PLM-JKT-010-NVY',
      quantity: 10 * line,
      unit: 'PIECES',
    })),
  );
  await writeFile(file, Papa.unparse(rows));
  return file;
}

interface Listed {
  id: string;
  orderNumber: string;
  lineCount?: number | null;
}

/** The platform's orders with this number (any type). */
const copiesOf = async (orderNumber: string): Promise<Listed[]> =>
  (await api<Listed[]>(`/orders?limit=100&orderNumber=${encodeURIComponent(orderNumber)}`)).filter(
    (order) => order.orderNumber === orderNumber,
  );

it('"401 token_or_api_key_invalid: Missing or invalid key": a key revoked mid-push fails the run naming the key, rejects no order, and a push with the key back creates the rest without duplicates', async () => {
  const numbers = Array.from({ length: 6 }, (_, n) => `KEYREF-${n + 1}`);
  const file = await writeOrders('orders.csv', numbers);
  const workflowId = started().workflowId('erp-key-refused');

  creates = 0;
  revokeAfterCreates = 2;
  const failed = await push({ file }, workflowId).then(
    (result) => result,
    (error: unknown) => error,
  );
  revokeAfterCreates = undefined;
  restore?.();
  restore = undefined;

  // Before: the run completed, the orders after the revocation rejected with token_or_api_key_invalid.
  expect(failed instanceof WorkflowFailedError ? 'run failed' : (failed as PushErpOrdersResult).orders).toBe(
    'run failed',
  );
  const failure = applicationFailure(failed);
  expect(failure).toMatchObject({
    type: 'TraceabilityApiError:token_or_api_key_invalid',
    nonRetryable: true,
  });
  expect(failure?.message).toContain('TRACEABILITY_API_KEY');
  expect(failure?.message).not.toContain(started().apiKey);
  expect(existsSync(path.join(started().config.dataDir, 'runs', workflowId, 'rejects.csv'))).toBe(false);
  // The creates answered before the revocation (two, and those already sent beside them) are whole orders.
  const landed = (await Promise.all(numbers.map(copiesOf))).flat();
  expect(landed.length).toBeGreaterThanOrEqual(2);
  expect(landed.length).toBeLessThan(numbers.length);
  for (const order of landed) expect(order.lineCount).toBe(2);

  const again = await push({ file }, started().workflowId('erp-key-refused'));
  expect(again.orders).toMatchObject({
    created: numbers.length - landed.length,
    unchanged: landed.length,
    patched: 0,
    rejected: 0,
  });
  expect(again.rejectsFile).toBeNull();
  for (const orderNumber of numbers) expect(await copiesOf(orderNumber)).toHaveLength(1);
});

it('"orderNumber | 1-255 characters": an order number of 255 emoji is pushed, one of 256 rejected naming its length', async () => {
  const file = await writeOrders('emoji.csv', ['📦'.repeat(255), '📦'.repeat(256)]);
  const result = await push({ file }, started().workflowId('erp-emoji'));
  expect(result.orders).toMatchObject({ created: 1, rejected: 1, rejectedAtRead: 1 });
  expect(await copiesOf('📦'.repeat(255))).toHaveLength(1);
  expect(result.rejections[0]?.message).toContain('is 256 characters long; at most 255 are allowed');
});
