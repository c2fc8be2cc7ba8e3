/**
 * Two ERP pulls at once from the same mark, in one order every time: pull A reads its one changed order (answered
 * after 6 s), meanwhile another order changes and pull B runs to its end; then A writes. As an operator's pull
 * started while the scheduled one runs. Used on a data folder (erp-pull.test.ts) and on S3 (jobs-on-s3.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PullOrdersResult } from '../../activities/erp-pull';
import { erpPull } from '../../workflows';
import { sandboxApi, type TestStack } from '../harness';

const BRAND = 'cmp_brand_nordic_threads';

export async function twoPullsAtOnce(
  stack: TestStack,
  orderNumbers: readonly [string, string],
): Promise<{ a: PullOrdersResult; b: PullOrdersResult }> {
  const { control } = sandboxApi(() => stack);
  const createOrder = (orderNumber: string) =>
    stack.apiClient.orders.create({
      orderNumber,
      buyerCompanyId: BRAND,
      supplierCompanyId: 'cmp_sup_anatolia_garments',
      lines: [{ orderLineNumber: '1', styleId: 'PLM-TEE-001-BLK', quantity: 1, unit: 'PIECES' as const }],
    });
  const delayed = async (): Promise<number> =>
    ((await (await control('/__sandbox/faults', 'GET')).json()) as { counters: { delayed: number } }).counters
      .delayed;
  const start = (name: string) =>
    stack.client.workflow.start(erpPull, {
      args: [{}],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId(name),
    });

  await createOrder(orderNumbers[0]);
  const delayedBefore = await delayed();
  // A's read of its one order (GET /orders/{id}) is answered after 6 s; B's, made once the fault is cleared, at once.
  await control('/__sandbox/faults', 'PUT', { latencyMs: 6000, methods: ['GET'], pathPrefix: '/orders/' });
  try {
    const pullA = await start('erp-pull-a');
    while ((await delayed()) === delayedBefore) await sleep(100);
    await control('/__sandbox/faults', 'DELETE');
    await createOrder(orderNumbers[1]);
    const b = await (await start('erp-pull-b')).result();
    return { a: await pullA.result(), b };
  } finally {
    await control('/__sandbox/faults', 'DELETE');
  }
}
