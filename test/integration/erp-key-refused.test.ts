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
import { WorkflowFailedError } from '@temporalio/client';
import { createActivities } from '../../activities';
import type { ActivityDeps } from '../../activities/deps';
import { erpOrders } from '../../workflows';
import type { PushErpOrdersInput, PushErpOrdersResult } from '../../workflows/erp-orders';
import { sandboxApi, startTestStack, type TestStack } from '../harness';
import { expectKeyRefused, keyRevocation } from './key-revocation';

jest.setTimeout(120_000);

let stack: TestStack | undefined;
let dir = '';
/** The push's order creates sent; the key is refused as the third is sent. */
let creates = 0;

const started = (): TestStack => {
  if (!stack) throw new Error('the stack starts in beforeAll');
  return stack;
};
const { api } = sandboxApi(started);
const revocation = keyRevocation(started);
const unbinding = keyRevocation(started, 'unbind');

/**
 * The activities' client, its order creates counted so the key is refused as the third is sent: the creates after it
 * are refused whatever the push's concurrency (refused once two were answered, a push that had sent all six by then
 * met the refusal in no call at all when only the order endpoints check the key's company).
 */
function countingCreates(deps: ActivityDeps): ActivityDeps {
  const orders = deps.client.orders;
  const counted: typeof orders = Object.create(orders) as typeof orders;
  counted.create = async (...args) => {
    creates += 1;
    if (creates === 3) {
      revocation.fire();
      unbinding.fire();
    }
    return orders.create(...args);
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
  revocation.restore();
  unbinding.restore();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const push = (input: PushErpOrdersInput, workflowId: string): Promise<PushErpOrdersResult> =>
  started().client.workflow.execute(erpOrders, {
    args: [input],
    taskQueue: started().taskQueue,
    workflowId,
  });

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

it.each([
  [
    '"401 token_or_api_key_invalid: Missing or invalid key": a key revoked',
    'revoked',
    'token_or_api_key_invalid',
  ],
  [
    '"403 insufficient_rights: Credential not bound to a company": a key unbound',
    'unbound',
    'insufficient_rights',
  ],
] as const)(
  '%s mid-push fails the run naming the key, rejects no order, and a push with the key back creates the rest without duplicates',
  async (_, kind, code) => {
    const numbers = Array.from({ length: 6 }, (_, n) => `KEYREF-${kind}-${n + 1}`);
    const file = await writeOrders(`orders-${kind}.csv`, numbers);
    const workflowId = started().workflowId('erp-key-refused');

    creates = 0;
    const refusal = kind === 'revoked' ? revocation : unbinding;
    const failed = await refusal.during(() => push({ file }, workflowId));

    // Before: the run completed, the orders after the revocation rejected with token_or_api_key_invalid.
    expect(
      failed instanceof WorkflowFailedError ? 'run failed' : (failed as PushErpOrdersResult).orders,
    ).toBe('run failed');
    expectKeyRefused(failed, started().apiKey, code);
    expect(existsSync(path.join(started().config.dataDir, 'runs', workflowId, 'rejects.csv'))).toBe(false);
    // The creates sent before the refusal (two, that may or may not have reached the API before it) are whole orders.
    const landed = (await Promise.all(numbers.map(copiesOf))).flat();
    expect(landed.length).toBeLessThanOrEqual(2);
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
  },
);

it('"orderNumber | 1-255 characters": an order number of 255 emoji is pushed, one of 256 rejected naming its length', async () => {
  const file = await writeOrders('emoji.csv', ['📦'.repeat(255), '📦'.repeat(256)]);
  const result = await push({ file }, started().workflowId('erp-emoji'));
  expect(result.orders).toMatchObject({ created: 1, rejected: 1, rejectedAtRead: 1 });
  expect(await copiesOf('📦'.repeat(255))).toHaveLength(1);
  expect(result.rejections[0]?.message).toContain('is 256 characters long; at most 255 are allowed');
});
