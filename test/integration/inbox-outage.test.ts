import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { createActivities } from '../../activities';
import { createInboxActivities, DEFAULT_SETTLE_SECONDS } from '../../activities/inbox';
import { erpOrders, inbox, plmImport } from '../../workflows';
import { MAX_OUTSIDE_FAILURES, type ProcessInboxResult } from '../../workflows/inbox';
import { TraceStatus } from '../../worker/search-attributes';
import { S3Store, s3ClientFor } from '../../connectors/storage';
import { sandboxApi, startTestStack, type TestStack } from '../harness';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';

const describeS3 = describeWithS3();

const GOOD = [
  'order_number,supplier_code,line_number,product_external_id,quantity,unit',
  'OUT-1,SUP-1001,1,PLM-TEE-001-BLK,5,PIECES',
  'OUT-2,SUP-1002,1,PLM-JKT-010-NVY,7,PIECES',
].join('\n');
// Not JSON at all: the job refuses it while reading, before it calls the API, so its child fails outage or not.
const BAD = '{"order_number": "OUT-9", ';
// Readable, but without the order number column the default profile requires: the file alone tells that, so it too
// fails before the first API call.
const NO_ORDER_NUMBER = [
  'supplier_code,line_number,product_external_id,quantity,unit',
  'SUP-1001,1,PLM-TEE-001-BLK,5,PIECES',
].join('\n');
const LACKS_ORDER_NUMBER =
  /^the export lacks column 'order_number' \(orderNumber\) required by profile 'default'/;

/** The outage records kept beside an inbox's drops (`.failures/`): one per drop its children failed for an outage. */
const failureRecords = (folder: string): string[] => {
  const records = path.join(folder, '.failures');
  return existsSync(records) ? readdirSync(records) : [];
};

async function drop(file: string, body: string): Promise<void> {
  await writeFile(file, body);
  const past = new Date(Date.now() - 2 * DEFAULT_SETTLE_SECONDS * 1000);
  await utimes(file, past, past);
}

/** The activity's own failure at the bottom of a failed run's chain. */
async function innermostFailure(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const error: unknown = await handle.result().then(
    () => undefined,
    (failed: unknown) => failed,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  let innermost: unknown = error;
  while ((innermost as { cause?: unknown }).cause) innermost = (innermost as { cause: unknown }).cause;
  expect(innermost).toBeInstanceOf(ApplicationFailure);
  return innermost as ApplicationFailure;
}

const activityAttempts = async (handle: WorkflowHandle): Promise<number> =>
  ((await handle.fetchHistory()).events ?? []).filter((event) => event.activityTaskStartedEventAttributes)
    .length;

/** A run that failed in one attempt, non-retryable (the API's outage never retried it): its failure's message. */
async function failedAtOnce(handle: WorkflowHandle): Promise<string> {
  const innermost = await innermostFailure(handle);
  expect(innermost.nonRetryable).toBe(true);
  expect(await activityAttempts(handle)).toBe(1);
  return innermost.message;
}

/**
 * The jobs' activities as they are, each retryable failure retried after 50 ms instead of the steps' backoff: every
 * attempt of the step's retry budget still meets the API, but the budget runs out in seconds, not 8 minutes.
 */
function quickRetries<A extends object>(activities: A): A {
  const quick = (error: unknown): unknown => {
    if (error instanceof ApplicationFailure && error.nonRetryable) return error;
    if (error instanceof TemporalFailure && !(error instanceof ApplicationFailure)) return error;
    const failure = error as Error;
    return ApplicationFailure.create({
      message: failure.message,
      type: (error instanceof ApplicationFailure ? error.type : failure.name) ?? undefined,
      ...(error instanceof ApplicationFailure && error.details ? { details: error.details } : {}),
      nextRetryDelay: 50,
    });
  };
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      typeof activity === 'function'
        ? async (...args: unknown[]): Promise<unknown> => {
            try {
              return (await (activity as (...a: unknown[]) => Promise<unknown>)(...args)) as unknown;
            } catch (error) {
              throw quick(error);
            }
          }
        : activity,
    ]),
  ) as A;
}

describe('inbox during an API outage: a drop whose child failed for a reason outside the file stays for the next run', () => {
  let stack: TestStack;
  let root: string;
  const { api, control } = sandboxApi(() => stack);
  let lastRunId = '';
  const runOn = (folder: string, name: string): Promise<ProcessInboxResult> => {
    lastRunId = stack.workflowId(name);
    return stack.client.workflow.execute(inbox, {
      args: [{ job: 'erp-orders', folder }],
      taskQueue: stack.taskQueue,
      workflowId: lastRunId,
    });
  };
  const statusOfLastRun = async (): Promise<unknown> =>
    (await stack.client.workflow.getHandle(lastRunId).describe()).typedSearchAttributes.get(TraceStatus);
  const outage = async (): Promise<void> => {
    expect((await control('/__sandbox/faults', 'PUT', { serverErrorRate: 1 })).status).toBe(200);
  };
  const apiBack = async (): Promise<void> => {
    expect((await control('/__sandbox/faults', 'DELETE')).status).toBe(200);
  };

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'inbox-outage-it-'));
    stack = await startTestStack({
      config: { dataDir: path.join(root, 'data') },
      activities: (deps) => quickRetries(createActivities(deps)),
    });
  }, 60_000);

  afterEach(apiBack);

  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps the drop in the inbox while the API answers 5xx, files a bad file to failed/ at once, and pushes the drop once the API is back', async () => {
    const folder = path.join(root, 'inbox');
    await mkdir(folder);
    await drop(path.join(folder, 'orders.csv'), GOOD);
    await drop(path.join(folder, 'broken.json'), BAD);

    await outage();
    const during = await runOn(folder, 'inbox-outage');
    const byName = new Map(during.files.map((file) => [file.name, file]));
    expect(byName.get('orders.csv')).toMatchObject({
      outcome: 'left-in-inbox',
      movedTo: null,
      note: `the API could not be reached or kept failing; the next run retries it (try 1 of ${MAX_OUTSIDE_FAILURES})`,
    });
    expect(byName.get('broken.json')).toMatchObject({
      outcome: 'failed',
      movedTo: path.join(folder, 'failed', 'broken.json'),
    });
    expect(byName.get('broken.json')?.error).toContain('not valid JSON');
    expect(readdirSync(folder).filter((name) => !name.startsWith('.'))).toEqual(['failed', 'orders.csv']);
    expect(failureRecords(folder)).toHaveLength(1);
    // The run did not get through every drop it listed: the Web UI's TraceStatus says so.
    expect(await statusOfLastRun()).toBe('done-with-failures');

    await apiBack();
    const after = await runOn(folder, 'inbox-after-outage');
    expect(after.files).toEqual([
      expect.objectContaining({
        name: 'orders.csv',
        outcome: 'processed',
        movedTo: path.join(folder, 'processed', 'orders.csv'),
        workflowId: byName.get('orders.csv')!.workflowId,
      }),
    ]);
    expect(readdirSync(folder).filter((name) => !name.startsWith('.'))).toEqual(['failed', 'processed']);
    // The drop is filed away: its outage record goes with it, not left beside the inbox for ever.
    expect(failureRecords(folder)).toEqual([]);
    expect(await statusOfLastRun()).toBe('done');
    const [order] = await api<{ id: string }[]>('/orders?limit=100&orderNumber=OUT-1');
    expect(order).toBeDefined();
  }, 180_000);

  it('fails a push of an export lacking a required column at once during the outage: one attempt, the column message', async () => {
    const file = path.join(root, 'no-order-number.csv');
    await writeFile(file, NO_ORDER_NUMBER);
    await outage();
    const handle = await stack.client.workflow.start(erpOrders, {
      args: [{ file }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-orders-outage-no-column'),
    });
    expect(await failedAtOnce(handle)).toMatch(LACKS_ORDER_NUMBER);
  }, 120_000);

  it('fails a PLM import of a sheet lacking externalId at once during the outage: one attempt, the column message', async () => {
    const file = path.join(root, 'no-external-id.csv');
    await writeFile(file, ['name,styleType', 'Tee,Shirt'].join('\n'));
    await outage();
    const handle = await stack.client.workflow.start(plmImport, {
      args: [{ file, profile: 'native' }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-import-outage-no-column'),
    });
    expect(await failedAtOnce(handle)).toMatch(
      /^the sheet lacks column\(s\) 'externalId' that profile 'native' needs/,
    );
  }, 120_000);

  it('files a drop lacking a required column to failed/ in the first run during the outage, not left-in-inbox', async () => {
    const folder = path.join(root, 'inbox-no-column');
    await mkdir(folder);
    await drop(path.join(folder, 'no-order-number.csv'), NO_ORDER_NUMBER);

    await outage();
    const result = await runOn(folder, 'inbox-outage-no-column');
    expect(result.files).toEqual([
      expect.objectContaining({
        name: 'no-order-number.csv',
        outcome: 'failed',
        movedTo: path.join(folder, 'failed', 'no-order-number.csv'),
      }),
    ]);
    expect(result.files[0]?.error).toMatch(/the export lacks column 'order_number' \(orderNumber\)/);
    expect(readdirSync(folder).filter((name) => !name.startsWith('.'))).toEqual(['failed']);
    expect(failureRecords(folder)).toEqual([]);
  }, 180_000);

  it(`files the drop to failed/ when its ${MAX_OUTSIDE_FAILURES}th child fails for the outage too`, async () => {
    const folder = path.join(root, 'inbox-long-outage');
    await mkdir(folder);
    await drop(path.join(folder, 'orders.csv'), GOOD.replace(/OUT-/g, 'LNG-'));
    // Earlier runs' children that failed for the outage, as those runs recorded them.
    const inboxActivities = createInboxActivities();
    const [listed] = (await inboxActivities.listInboxDrops({ folder })).files;
    for (let n = 1; n < MAX_OUTSIDE_FAILURES; n++)
      await inboxActivities.recordInboxDropFailure({
        file: listed!,
        runId: `earlier-${n}`,
        reason: 'GET 500',
      });
    expect(failureRecords(folder)).toHaveLength(1);

    await outage();
    const result = await runOn(folder, 'inbox-long-outage');
    expect(result.files).toEqual([
      expect.objectContaining({
        name: 'orders.csv',
        outcome: 'failed',
        movedTo: path.join(folder, 'failed', 'orders.csv'),
        note: `the API could not be reached or kept failing; its child failed so ${MAX_OUTSIDE_FAILURES} times, so it is filed to failed/`,
      }),
    ]);
    expect(readdirSync(folder).filter((name) => !name.startsWith('.'))).toEqual(['failed']);
    expect(failureRecords(folder)).toEqual([]);
  }, 180_000);
  // An operator who rotates the worker's key wrongly: nothing is wrong with the night's drops, so they wait in the
  // inbox (counted like an outage) and go through once the key is fixed, instead of all landing in failed/.
  it.each([
    ['a key the API does not know (401)', 'not-a-valid-key-0123456789', 'KEY'],
    ['a key bound to no company (403 insufficient_rights)', 'sandbox-key-unbound', 'UNB'],
  ])(
    'keeps the drop in the inbox when the API refuses %s, and pushes it once the key is fixed',
    async (_what, apiKey, prefix) => {
      const folder = path.join(root, `inbox-key-${prefix}`);
      await mkdir(folder);
      await drop(path.join(folder, 'orders.csv'), GOOD.replace(/OUT-/g, `${prefix}-`));

      const refused = await startTestStack({
        apiKey,
        config: { dataDir: path.join(root, `data-${prefix}`) },
        logName: `inbox-outage-key-${prefix}`,
      });
      let during: ProcessInboxResult;
      try {
        during = await refused.client.workflow.execute(inbox, {
          args: [{ job: 'erp-orders', folder }],
          taskQueue: refused.taskQueue,
          workflowId: refused.workflowId('inbox-key-refused'),
        });
      } finally {
        await refused.stop();
      }
      expect(during.files).toEqual([
        expect.objectContaining({
          name: 'orders.csv',
          outcome: 'left-in-inbox',
          movedTo: null,
          note: `the API refused the worker's key; the next run retries it (try 1 of ${MAX_OUTSIDE_FAILURES})`,
        }),
      ]);
      expect(during.files[0]?.error).toMatch(/check TRACEABILITY_API_KEY|insufficient_rights/);
      expect(readdirSync(folder).filter((name) => !name.startsWith('.'))).toEqual(['orders.csv']);
      expect(failureRecords(folder)).toHaveLength(1);

      const after = await runOn(folder, 'inbox-key-fixed');
      expect(after.files).toEqual([
        expect.objectContaining({
          name: 'orders.csv',
          outcome: 'processed',
          movedTo: path.join(folder, 'processed', 'orders.csv'),
          workflowId: during.files[0]!.workflowId,
        }),
      ]);
      expect(readdirSync(folder).filter((name) => !name.startsWith('.'))).toEqual(['processed']);
      expect(failureRecords(folder)).toEqual([]);
      const [order] = await api<{ id: string }[]>(`/orders?limit=100&orderNumber=${prefix}-1`);
      expect(order).toBeDefined();
    },
    180_000,
  );
});

// On S3 the run that left a drop still holds its claim: the next run takes it over (that run and the drop's child are
// closed) and starts the child again.
describeS3('inbox on an S3 prefix during an API outage', () => {
  let s3: RunningS3;
  let stack: TestStack;
  let store: S3Store;
  let dataDir: string;
  const { control } = sandboxApi(() => stack);

  beforeAll(async () => {
    s3 = await startS3();
    dataDir = await mkdtemp(path.join(tmpdir(), 'inbox-outage-s3-'));
    const settings = {
      url: s3.storeUrl('trace'),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    };
    stack = await startTestStack({
      config: { dataDir, store: settings },
      activities: (deps) => quickRetries(createActivities(deps)),
    });
    store = new S3Store(s3ClientFor(settings), s3.bucket, '');
  }, 120_000);

  afterAll(async () => {
    await control('/__sandbox/faults', 'DELETE');
    await stack?.stop();
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a drop left in an S3 inbox by an outage is taken by the next run and pushed once the API is back', async () => {
    await store.put('inbox/erp/orders.csv', GOOD.replace(/OUT-/g, 'S3OUT-'));
    const folder = `s3://${s3.bucket}/inbox/erp`;
    const run = (name: string): Promise<ProcessInboxResult> =>
      stack.client.workflow.execute(inbox, {
        args: [{ job: 'erp-orders', folder }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId(name),
      });

    expect((await control('/__sandbox/faults', 'PUT', { serverErrorRate: 1 })).status).toBe(200);
    const during = await run('inbox-s3-outage');
    expect(during.files).toEqual([
      expect.objectContaining({ name: 'orders.csv', outcome: 'left-in-inbox', movedTo: null }),
    ]);
    expect(await store.exists('inbox/erp/orders.csv')).toBe(true);
    expect(await store.list('inbox/erp/.failures/')).toHaveLength(1);

    expect((await control('/__sandbox/faults', 'DELETE')).status).toBe(200);
    const after = await run('inbox-s3-after-outage');
    expect(after.files).toEqual([
      expect.objectContaining({
        name: 'orders.csv',
        outcome: 'processed',
        movedTo: `s3://${s3.bucket}/inbox/erp/processed/orders.csv`,
      }),
    ]);
    expect(await store.exists('inbox/erp/orders.csv')).toBe(false);
    expect(await store.list('inbox/erp/.failures/')).toEqual([]);
  }, 180_000);
});
