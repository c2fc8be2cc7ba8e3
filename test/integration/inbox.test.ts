import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rename, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInboxActivities, DEFAULT_SETTLE_SECONDS } from '../../activities/inbox';
import { TraceStatus } from '../../worker/search-attributes';
import { erpOrders, inbox } from '../../workflows';
import { inboxChildId, type ProcessInboxResult } from '../../workflows/inbox';
import { sandboxApi, startTestStack, type TestStack } from '../harness';
import { awaitingApproval } from './job-stack';
import { nativeRows, productCount, toCsv } from '../unit/plm-activities/native-sheet';

const GOOD = [
  'order_number,supplier_code,line_number,product_external_id,quantity,unit',
  'INB-1,SUP-1001,1,PLM-TEE-001-BLK,5,PIECES',
  'INB-1,SUP-1001,2,PLM-TEE-001-OWH,6,PIECES',
  'INB-2,SUP-1002,1,PLM-JKT-010-NVY,7,PIECES',
].join('\n');
// No quantity column: the whole file is refused, so its child fails.
const BAD = [
  'order_number,supplier_code,line_number,product_external_id,unit',
  'INB-9,SUP-1001,1,PLM-TEE-001-BLK,PIECES',
].join('\n');

/** A drop whose copy ended a while ago: files changed within the settle time may still be being copied in. */
async function drop(file: string, body?: string): Promise<void> {
  if (body !== undefined) await writeFile(file, body);
  const past = new Date(Date.now() - 2 * DEFAULT_SETTLE_SECONDS * 1000);
  await utimes(file, past, past);
}

describe('inbox: one child per new file, files moved to processed/ or failed/', () => {
  let stack: TestStack;
  let inboxDir: string;
  const { api } = sandboxApi(() => stack);
  const run = (): Promise<ProcessInboxResult> =>
    stack.client.workflow.execute(inbox, {
      args: [{ job: 'erp-orders', folder: inboxDir }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('inbox'),
    });

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'inbox-it-'));
    inboxDir = path.join(dir, 'inbox');
    await mkdir(inboxDir);
    stack = await startTestStack({ config: { dataDir: path.join(dir, 'data') } });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('pushes each file once and moves it by outcome', async () => {
    await drop(path.join(inboxDir, 'orders-march.csv'), GOOD);
    await drop(path.join(inboxDir, 'broken.csv'), BAD);
    await writeFile(path.join(inboxDir, '.partial-upload.csv'), GOOD);

    const first = await run();
    const byName = new Map(first.files.map((file) => [file.name, file]));
    expect([...byName.keys()].sort()).toEqual(['broken.csv', 'orders-march.csv']);
    expect(byName.get('orders-march.csv')).toMatchObject({
      outcome: 'processed',
      movedTo: path.join(inboxDir, 'processed', 'orders-march.csv'),
    });
    expect(byName.get('broken.csv')).toMatchObject({
      outcome: 'failed',
      movedTo: path.join(inboxDir, 'failed', 'broken.csv'),
    });
    expect(byName.get('broken.csv')?.error).toContain('quantity');
    expect(readdirSync(inboxDir).sort()).toEqual(['.partial-upload.csv', 'failed', 'processed']);
    const child = await stack.client.workflow.getHandle(byName.get('orders-march.csv')!.workflowId).result();
    expect(child).toMatchObject({ orders: { created: 2 } });
  });

  // Each drop is a run of its own: an export that went A -> B -> A (a rollback dropped again under the same name) was
  // reported already-processed and filed away unpushed, since the child id named the content alone.
  it('an export dropped as A, then B, then A again under one name is pushed each time; one drop listed twice is not', async () => {
    const folder = path.join(path.dirname(inboxDir), 'inbox-rollback');
    await mkdir(folder);
    const a = GOOD.replace(/INB-/g, 'RBK-');
    const b = a.replace('PLM-TEE-001-BLK,5,', 'PLM-TEE-001-BLK,9,');
    const file = path.join(folder, 'orders.csv');
    const runOn = (name: string): Promise<ProcessInboxResult> =>
      stack.client.workflow.execute(inbox, {
        args: [{ job: 'erp-orders', folder }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId(name),
      });
    const quantityOnPlatform = async (): Promise<number | undefined> => {
      const [order] = await api<{ id: string }[]>('/orders?limit=100&orderNumber=RBK-1');
      const read = await api<{ lines: { orderLineNumber: string; quantity: number }[] }>(
        `/orders/${order!.id}`,
      );
      return read.lines.find((line) => line.orderLineNumber === '1')?.quantity;
    };
    const processed = expect.objectContaining({ name: 'orders.csv', outcome: 'processed' }) as unknown;

    await drop(file, a);
    const first = await runOn('inbox-rollback-a');
    expect(first.files).toEqual([processed]);
    expect(await quantityOnPlatform()).toBe(5);
    await drop(file, b);
    expect((await runOn('inbox-rollback-b')).files).toEqual([processed]);
    expect(await quantityOnPlatform()).toBe(9);
    await drop(file, a);
    const third = await runOn('inbox-rollback-a-again');
    expect(third.files).toEqual([processed]);
    expect(third.files[0]!.workflowId).not.toBe(first.files[0]!.workflowId);
    expect(await quantityOnPlatform()).toBe(5);
    expect(readdirSync(path.join(folder, 'processed'))).toHaveLength(3);

    // The same drop listed again (moved back by hand, which keeps its mtime; or listed by a second run before the
    // first filed it away): recognised by its child id, not pushed a second time.
    await rename(third.files[0]!.movedTo!, file);
    const before = stack.apiClient.stats().calls;
    const relisted = await runOn('inbox-rollback-relisted');
    expect(relisted.files).toEqual([
      expect.objectContaining({ outcome: 'already-processed', workflowId: third.files[0]!.workflowId }),
    ]);
    expect(stack.apiClient.stats().calls).toBe(before);
    expect(readdirSync(folder)).toEqual(['processed']);
  });

  // Two inbox runs at once over one folder (a schedule and a start from the Web UI) both list a drop; the second to
  // start its child finds the first's still running. It used to file the drop as already processed meanwhile, so the
  // child that was to push it lost its file.
  it('a drop whose child still runs stays in the inbox until it completes, and is pushed and filed once', async () => {
    const folder = path.join(path.dirname(inboxDir), 'inbox-running-child');
    await mkdir(folder);
    const name = `orders-${randomUUID().slice(0, 8)}.csv`;
    const content = GOOD.replace(/INB-/g, 'INR-');
    const file = path.join(folder, name);
    await drop(file, content);
    const [listed] = (await createInboxActivities().listInboxDrops({ folder })).files;
    const childId = inboxChildId({ job: 'erp-orders' }, listed!);
    // The child the other inbox run started: it waits for an approval, so it is still running.
    const child = await awaitingApproval(
      await stack.client.workflow.start(erpOrders, {
        args: [{ file, approval: true }],
        taskQueue: stack.taskQueue,
        workflowId: childId,
      }),
    );
    const inboxRun = () =>
      stack.client.workflow.execute(inbox, {
        args: [{ job: 'erp-orders', folder }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('inbox-running-child'),
      });

    const during = await inboxRun();
    expect(during.files).toEqual([
      expect.objectContaining({
        name,
        workflowId: childId,
        outcome: 'taken',
        movedTo: null,
        note: expect.stringContaining('its child still runs') as unknown,
      }),
    ]);
    expect(readdirSync(folder)).toEqual([name]);

    await child.signal('approve', { by: 'test' });
    expect(await child.result()).toMatchObject({ orders: { created: 2 } });
    const before = stack.apiClient.stats().calls;
    const after = await inboxRun();
    expect(after.files).toEqual([
      expect.objectContaining({
        name,
        outcome: 'already-processed',
        movedTo: path.join(folder, 'processed', name),
      }),
    ]);
    expect(stack.apiClient.stats().calls).toBe(before);
    expect(readdirSync(folder)).toEqual(['processed']);
    expect(readdirSync(path.join(folder, 'processed'))).toEqual([name]);
  });

  // A drop whose child rejected orders read "processed" like a clean one, and the inbox ended `done`: an operator
  // watching the inbox never learnt that orders were left out, nor where the rejects file was.
  it('a drop whose child rejected orders says how many, names its rejects file and the retry command', async () => {
    const folder = path.join(path.dirname(inboxDir), 'inbox-rejects');
    await mkdir(folder);
    await drop(
      path.join(folder, 'orders.csv'),
      [GOOD.replace(/INB-/g, 'REJ-'), 'REJ-3,SUP-1001,1,PLM-TEE-001-BLK,5,boxes'].join('\n'),
    );
    const workflowId = stack.workflowId('inbox-rejects');
    const result = await stack.client.workflow.execute(inbox, {
      args: [{ job: 'erp-orders', folder }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    const [file] = result.files;
    const childId = file!.workflowId;
    const child = (await stack.client.workflow.getHandle(childId).result()) as { rejectsFile: string };
    expect(file).toMatchObject({
      outcome: 'processed',
      rejectsFile: child.rejectsFile,
      note: `1 order rejected (1 export row): fix its rejects file ${child.rejectsFile}, then \`npx trace-sync retry ${childId}\``,
    });
    const handle = stack.client.workflow.getHandle(workflowId);
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain('1 file, 1 processed (1 with rejects)');
    expect(metadata.currentDetails).toContain(
      `- orders.csv: processed, now at ${file!.movedTo}: 1 order rejected`,
    );
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('done-with-rejects');
  });

  it('imports a PLM sheet dropped in a PLM inbox and moves it to processed/', async () => {
    const plmInbox = path.join(path.dirname(inboxDir), 'plm-inbox');
    await mkdir(plmInbox);
    const shape = { prefix: 'INBOX-PLM', styles: 2, coloursPerStyle: 2, sizesPerColour: 2 };
    await drop(path.join(plmInbox, 'ss26.csv'), toCsv(nativeRows(shape)));
    const result = await stack.client.workflow.execute(inbox, {
      args: [{ job: 'plm-import', folder: plmInbox, profile: 'native' }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('inbox-plm'),
    });
    expect(result.files).toEqual([
      expect.objectContaining({
        name: 'ss26.csv',
        outcome: 'processed',
        movedTo: path.join(plmInbox, 'processed', 'ss26.csv'),
      }),
    ]);
    const child = await stack.client.workflow.getHandle(result.files[0]!.workflowId).result();
    expect(child).toMatchObject({ products: { created: productCount(shape), rejected: 0 } });
    const sku = await fetch(`${stack.sandbox.baseUrl}/styles/INBOX-PLM-S2-C2-Z2`, {
      headers: { companyapikey: stack.apiKey },
    });
    expect(sku.status).toBe(200);
  });

  // Each child reads the inbox's `profile` and `mappingFile` as its own input: erp-orders knows the profile `default`
  // only, and a mapping file must load. A bad one used to fail every drop's child and file every drop in failed/.
  const failedRun = async (args: Parameters<typeof inbox>[0], name: string): Promise<string> => {
    const folder = path.join(path.dirname(inboxDir), name);
    await mkdir(folder);
    await drop(path.join(folder, 'orders.csv'), GOOD);
    const workflowId = stack.workflowId(name);
    const failure = await stack.client.workflow
      .execute(inbox, { args: [{ ...args, folder }], taskQueue: stack.taskQueue, workflowId })
      .then(
        () => new Error('the inbox run succeeded'),
        (error: unknown) => error as Error,
      );
    // The drop stays where it was dropped: nothing is claimed, started or moved.
    expect(readdirSync(folder)).toEqual(['orders.csv']);
    const { typedSearchAttributes } = await stack.client.workflow.getHandle(workflowId).describe();
    expect(typedSearchAttributes.get(TraceStatus)).toBe('failed');
    return `${failure.message} ${(failure.cause as Error | undefined)?.message ?? ''}`;
  };

  it('an erp-orders inbox with profile "eu" fails at once naming profile, and leaves the drop in the inbox', async () => {
    const message = await failedRun({ job: 'erp-orders', folder: '', profile: 'eu' }, 'inbox-bad-profile');
    expect(message).toMatch(/Invalid inbox input: profile: .*default/);
  });

  it('an inbox whose mappingFile does not load fails at once naming mappingFile, and leaves the drop in the inbox', async () => {
    const missing = path.join(path.dirname(inboxDir), 'no-such-profile.json');
    const message = await failedRun(
      { job: 'erp-orders', folder: '', mappingFile: missing },
      'inbox-bad-mapping',
    );
    expect(message).toContain('Invalid inbox input: mappingFile:');
    expect(message).toContain(missing);
  });

  // README: "files still being copied in are not picked up". SMB, sftp, scp and FileZilla write to the final name
  // (WinSCP to `.filepart`): a half-written export was pushed as if whole, and filed away in processed/.
  it('leaves a file still being copied in for a later run, and takes it once it has settled', async () => {
    const folder = path.join(path.dirname(inboxDir), 'inbox-copying');
    await mkdir(folder);
    const whole = GOOD.replace(/INB-/g, 'CPY-');
    await drop(path.join(folder, 'settled.csv'), GOOD.replace(/INB-/g, 'STL-'));
    await writeFile(path.join(folder, 'copying.csv'), whole.slice(0, whole.indexOf('PLM-TEE-001-OWH') + 4));
    await drop(path.join(folder, 'winscp.csv.filepart'), whole);
    const firstId = stack.workflowId('inbox-copying');
    const runOn = (workflowId: string) =>
      stack.client.workflow.execute(inbox, {
        args: [{ job: 'erp-orders', folder }],
        taskQueue: stack.taskQueue,
        workflowId,
      });

    const first = await runOn(firstId);
    expect(first.files.map((file) => [file.name, file.outcome])).toEqual([['settled.csv', 'processed']]);
    expect(readdirSync(folder).sort()).toEqual(['copying.csv', 'processed', 'winscp.csv.filepart']);
    // The run says which drop it left for later, and why: in its result and on its page in the Web UI.
    expect(first.skipped).toEqual([
      { name: 'copying.csv', reason: expect.stringContaining('still being written') },
    ]);
    const metadata = (await stack.client.workflow
      .getHandle(firstId)
      .query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toMatch(/- copying\.csv: left for a later run: .*still being written/);

    await drop(path.join(folder, 'copying.csv'), whole);
    const second = await runOn(stack.workflowId('inbox-copied'));
    expect(second.files).toEqual([expect.objectContaining({ name: 'copying.csv', outcome: 'processed' })]);
    const child = await stack.client.workflow.getHandle(second.files[0]!.workflowId).result();
    expect(child).toMatchObject({ orders: { created: 2 } });
  });

  // A file the worker cannot read failed the listing (retried, then every later run too): no drop went anywhere.
  it('a file that cannot be read is named with its reason; the other drops are listed', async () => {
    const folder = path.join(path.dirname(inboxDir), 'inbox-unreadable');
    await mkdir(folder);
    await drop(path.join(folder, 'b-orders.csv'), GOOD);
    // Opens as a file and fails on read (EIO), for root too, which chmod 000 would not stop.
    await symlink('/proc/self/mem', path.join(folder, 'a-locked.csv'));
    const listing = await createInboxActivities().listInboxDrops({ folder, settleSeconds: 0 });
    expect(listing.files.map((file) => file.name)).toEqual(['b-orders.csv']);
    expect(listing.skipped).toEqual([
      { name: 'a-locked.csv', reason: expect.stringMatching(/^cannot be read: .*EIO/) },
    ]);
    expect(listing.skipped[0]!.reason.length).toBeLessThanOrEqual(200);
  });

  // A FIFO or a link to nothing dropped in the inbox was passed over without a word: the operator never learnt why
  // the drop was not taken. Folders (processed/, failed/, the operator's own) are passed over as before.
  it('a drop that is a FIFO or a broken link is named with its reason; a folder is passed over', async () => {
    const folder = path.join(path.dirname(inboxDir), 'inbox-not-files');
    await mkdir(folder);
    await drop(path.join(folder, 'd-orders.csv'), GOOD);
    execFileSync('mkfifo', [path.join(folder, 'a-pipe.csv')]);
    await symlink(path.join(folder, 'gone.csv'), path.join(folder, 'b-link.csv'));
    await mkdir(path.join(folder, 'c-archive'));
    const listing = await createInboxActivities().listInboxDrops({ folder, settleSeconds: 0 });
    expect(listing.files.map((file) => file.name)).toEqual(['d-orders.csv']);
    expect(listing.skipped).toEqual([
      {
        name: 'a-pipe.csv',
        reason: 'not a regular file (a FIFO, socket or device): the inbox takes files only',
      },
      { name: 'b-link.csv', reason: expect.stringMatching(/^cannot be read: .*ENOENT/) },
    ]);
  });

  it('an inbox whose folder is missing (or not mounted) fails naming the folder, with TraceStatus failed', async () => {
    const folder = path.join(path.dirname(inboxDir), 'not-mounted');
    const workflowId = stack.workflowId('inbox-missing-folder');
    const failure = await stack.client.workflow
      .execute(inbox, { args: [{ job: 'erp-orders', folder }], taskQueue: stack.taskQueue, workflowId })
      .then(
        () => new Error('the inbox run succeeded'),
        (error: unknown) => error as Error,
      );
    expect((failure.cause as Error | undefined)?.message).toMatch(
      new RegExp(`^cannot read the inbox folder ${folder}: ENOENT`),
    );
    const { typedSearchAttributes } = await stack.client.workflow.getHandle(workflowId).describe();
    expect(typedSearchAttributes.get(TraceStatus)).toBe('failed');
  });

  it('names a child by the job, the file name and a hash of the drop and of the profile passed on', () => {
    const file = { name: 'a b.csv', sha256: 'f'.repeat(64), version: '1767225600000' };
    const a = inboxChildId({ job: 'erp-orders' }, file);
    expect(a).toMatch(/^erp-orders-a_b\.csv-[0-9a-f]{16}$/);
    expect(inboxChildId({ job: 'erp-orders' }, { ...file })).toBe(a);
    for (const other of [
      inboxChildId({ job: 'plm-import' }, file),
      inboxChildId({ job: 'erp-orders' }, { ...file, sha256: 'e'.repeat(64) }),
      inboxChildId({ job: 'erp-orders' }, { ...file, version: '1767225600001' }),
      inboxChildId({ job: 'erp-orders', mappingFile: '/data/profiles/eu.json' }, file),
      inboxChildId({ job: 'erp-orders', profile: 'default' }, file),
    ])
      expect(other).not.toBe(a);
  });
});
