import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createInboxActivities,
  dropRecordKey,
  INBOX_RECORD_MAX_AGE_MS,
  MAX_FILES_PER_RUN,
  sweepInboxRecords,
  type InboxFile,
} from '../../activities/inbox';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { S3Store, s3ClientFor } from '../../connectors/storage';
import { inbox } from '../../workflows';
import { inboxChildId, type ProcessInboxResult } from '../../workflows/inbox';
import { cliEnv, cliProblems, startTestStack, traceSync, type TestStack } from '../harness';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';

const describeS3 = describeWithS3();

const GOOD = [
  'order_number,supplier_code,line_number,product_external_id,quantity,unit',
  'S3INB-1,SUP-1001,1,PLM-TEE-001-BLK,5,PIECES',
  'S3INB-2,SUP-1002,1,PLM-JKT-010-NVY,7,PIECES',
].join('\n');
const BAD = [
  'order_number,supplier_code,line_number,product_external_id,unit',
  'S3INB-9,SUP-1001,1,PLM-TEE-001-BLK,PIECES',
].join('\n');
const STUCK = [
  'order_number,supplier_code,line_number,product_external_id,quantity,unit',
  'S3INB-21,SUP-1001,1,PLM-TEE-001-BLK,3,PIECES',
  'S3INB-22,SUP-1002,1,PLM-JKT-010-NVY,4,PIECES',
].join('\n');

// Issue 20: "The inbox job watches an S3 prefix (inbox/plm/, inbox/erp/) and moves each file to processed/ or
// failed/ exactly once, even with several workers polling."
describeS3('inbox on an S3 prefix (versitygw)', () => {
  let s3: RunningS3;
  let stack: TestStack;
  let store: S3Store;
  let dataDir: string;
  const inboxFolder = () => `s3://${s3.bucket}/inbox/erp`;

  beforeAll(async () => {
    s3 = await startS3();
    dataDir = await mkdtemp(path.join(tmpdir(), 'inbox-s3-'));
    const settings = {
      url: s3.storeUrl('trace'),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    };
    stack = await startTestStack({ config: { dataDir, store: settings } });
    store = new S3Store(s3ClientFor(settings), s3.bucket, '');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('two inbox runs polling at once: each file pushed once and filed once, by outcome', async () => {
    await store.put('inbox/erp/orders-march.csv', GOOD);
    await store.put('inbox/erp/broken.csv', BAD);
    await store.put('inbox/erp/.partial-upload.csv', GOOD);
    const run = (name: string): Promise<ProcessInboxResult> =>
      stack.client.workflow.execute(inbox, {
        args: [{ job: 'erp-orders', folder: inboxFolder() }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId(name),
      });
    const results = await Promise.all([run('inbox-a'), run('inbox-b')]);

    const keys = (await store.list('inbox/erp/')).filter(
      (key) => !key.includes('/.moves/') && !key.includes('/.claims/'),
    );
    expect(keys).toEqual([
      'inbox/erp/.partial-upload.csv',
      'inbox/erp/failed/broken.csv',
      'inbox/erp/processed/orders-march.csv',
    ]);
    const outcomes = results.flatMap((result) => result.files);
    const march = outcomes.filter((file) => file.name === 'orders-march.csv');
    expect(march.length).toBeGreaterThanOrEqual(1);
    for (const file of march.filter((f) => f.outcome !== 'taken'))
      expect(file.movedTo).toBe(`s3://${s3.bucket}/inbox/erp/processed/orders-march.csv`);
    // One child for the content, whichever run started it: the orders were created once.
    const child = await stack.client.workflow.getHandle(march[0]!.workflowId).result();
    expect(child).toMatchObject({ orders: { created: 2 } });
    expect(march.filter((file) => file.outcome === 'processed').length).toBe(1);
    expect(march.filter((file) => file.outcome !== 'processed').map((file) => file.outcome)).toEqual(
      march.length > 1 ? ['taken'] : [],
    );
    const broken = outcomes.filter((file) => file.name === 'broken.csv');
    for (const file of broken.filter((f) => f.outcome !== 'taken'))
      expect(file.movedTo).toBe(`s3://${s3.bucket}/inbox/erp/failed/broken.csv`);
    expect(broken[0]?.error ?? broken[1]?.error).toContain('quantity');
  });

  it('movers racing on one file: one copy in processed/, none left in the inbox, all report the same place', async () => {
    await store.put('inbox/erp/race.csv', GOOD);
    const activities = createInboxActivities();
    const [file] = (await activities.listInboxFiles({ folder: inboxFolder() })).filter(
      (f) => f.name === 'race.csv',
    );
    const moves = await Promise.all(
      Array.from({ length: 6 }, () => activities.moveInboxFile({ file: file!, to: 'processed' })),
    );
    expect(new Set(moves.map((move) => move.movedTo))).toEqual(
      new Set([`s3://${s3.bucket}/inbox/erp/processed/race.csv`]),
    );
    expect(await store.exists('inbox/erp/race.csv')).toBe(false);
    expect((await store.list('inbox/erp/processed/')).filter((key) => key.includes('race'))).toEqual([
      'inbox/erp/processed/race.csv',
    ]);
    // The same content dropped again is a new drop: filed beside the first under its hash, not lost. (A drop is
    // told apart by its last-modified time, which S3 keeps to the second.)
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await store.put('inbox/erp/race.csv', GOOD);
    const [again] = (await activities.listInboxFiles({ folder: inboxFolder() })).filter(
      (f) => f.name === 'race.csv',
    );
    const moved = await activities.moveInboxFile({ file: again!, to: 'processed' });
    expect(moved.movedTo).toMatch(/processed\/race-[0-9a-f]{12}\.csv$/);
    expect(await store.exists('inbox/erp/race.csv')).toBe(false);
  });

  // An ERP overwrites its fixed-name export while the inbox files the previous one away: the new export was copied
  // to processed/ (never pushed) and deleted from the inbox.
  it('a drop overwritten while it is filed away: the listed copy is filed, the new one stays for the next run', async () => {
    await store.put('inbox/erp/export.csv', 'order_number\nPO-1 (export of 08:00)\n');
    const activities = createInboxActivities();
    const [file] = (await activities.listInboxFiles({ folder: inboxFolder() })).filter(
      (f) => f.name === 'export.csv',
    );
    // The export is overwritten just before or just after the inbox's CopyObject.
    const overwrite = (name: string, when: 'before' | 'after', body: string) =>
      store.client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName !== 'CopyObjectCommand') return next(args);
          store.client.middlewareStack.remove(name);
          const put = () =>
            store.client.send(
              new PutObjectCommand({ Bucket: s3.bucket, Key: 'inbox/erp/export.csv', Body: body }),
            );
          if (when === 'before') await put();
          const result = await next(args);
          if (when === 'after') await put();
          return result;
        },
        { step: 'initialize', name },
      );
    // Just before the copy: nothing of the new export is filed; the listed one is gone, so nothing is either.
    overwrite('before-copy', 'before', 'order_number\nPO-2 (export of 08:05)\n');
    const moved = await activities.moveInboxFile({ file: file!, to: 'processed' });
    expect(moved.movedTo).toBeNull();
    expect((await store.get('inbox/erp/export.csv'))?.toString()).toContain('PO-2');
    expect(await store.exists('inbox/erp/processed/export.csv')).toBe(false);

    // Just after the copy: the listed export is filed, the new one stays in the inbox.
    const [second] = (await activities.listInboxFiles({ folder: inboxFolder() })).filter(
      (f) => f.name === 'export.csv',
    );
    overwrite('after-copy', 'after', 'order_number\nPO-3 (export of 08:10)\n');
    const filed = await activities.moveInboxFile({ file: second!, to: 'processed' });
    expect(filed.movedTo).toBe(`s3://${s3.bucket}/inbox/erp/processed/export.csv`);
    expect((await store.get('inbox/erp/processed/export.csv'))?.toString()).toContain('PO-2');
    expect((await store.get('inbox/erp/export.csv'))?.toString()).toContain('PO-3');
    await store.remove('inbox/erp/export.csv');
  });

  // The AWS console's "Create folder" writes `inbox/erp/`: it was listed as a drop named "" that failed every run.
  it('a folder marker in the inbox prefix is not a drop', async () => {
    await store.put('inbox/marked/', '');
    await store.put('inbox/marked/orders-marked.csv', GOOD.replace(/S3INB-/g, 'S3MRK-'));
    const result = await stack.client.workflow.execute(inbox, {
      args: [{ job: 'erp-orders', folder: `s3://${s3.bucket}/inbox/marked` }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('inbox-marked'),
    });
    expect(result.files.map((file) => [file.name, file.outcome])).toEqual([
      ['orders-marked.csv', 'processed'],
    ]);
    const keys = (await store.list('inbox/marked/')).filter(
      (key) => !key.includes('/.moves/') && !key.includes('/.claims/'),
    );
    expect(keys).toEqual(['inbox/marked/', 'inbox/marked/processed/orders-marked.csv']);
  });

  // README: "Each drop is claimed by one inbox run (`If-None-Match: *` on `inbox/erp/.claims/…`) and moved to
  // `processed/` or `failed/` exactly once": a run that dies holding a claim must not leave its drop in the inbox.
  it('a drop claimed by an inbox run that was terminated is handled once by a later run', async () => {
    await store.put('inbox/erp/stuck.csv', STUCK);
    const start = (name: string) =>
      stack.client.workflow.start(inbox, {
        args: [{ job: 'erp-orders', folder: inboxFolder() }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId(name),
      });
    const dead = await start('inbox-dead');
    const claimed = async () =>
      (await store.list('inbox/erp/.claims/')).some((key) => key.includes('/stuck.csv-'));
    for (let i = 0; !(await claimed()); i++) {
      if (i > 1500) throw new Error('the first inbox run never claimed stuck.csv');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await dead.terminate('the inbox run dies holding its claim');
    expect(await store.exists('inbox/erp/stuck.csv')).toBe(true);

    // Two later runs race for the abandoned claim: one of them takes it over.
    const later = await Promise.all([start('inbox-later-a'), start('inbox-later-b')]);
    const outcomes = (await Promise.all(later.map((run) => run.result())))
      .flatMap((result) => result.files)
      .filter((file) => file.name === 'stuck.csv');
    const handled = outcomes.filter((file) => file.outcome !== 'taken');
    expect(handled).toHaveLength(1);
    expect(handled[0]).toMatchObject({
      outcome: expect.stringMatching(/^(processed|already-processed)$/),
      movedTo: `s3://${s3.bucket}/inbox/erp/processed/stuck.csv`,
    });
    expect(await store.exists('inbox/erp/stuck.csv')).toBe(false);
    const child = await stack.client.workflow.getHandle(handled[0]!.workflowId).result();
    expect(child).toMatchObject({ orders: { total: 2, rejected: 0 } });
  });

  // A move record binds only its own run: "a run that holds the claim now (took it over) and finds a record of a
  // different, closed run whose copy has not happened (the source still exists, the target does not) replaces it
  // (If-Match on the record's ETag); a record whose copy already happened stays as is (the file is where it is)."
  it("a closed run's move record whose copy never happened does not decide where a later run files the drop", async () => {
    const drops = {
      // The dead run saw its child fail (terminated) and recorded failed/; the later run's child succeeds.
      'revived.csv': GOOD.replace(/S3INB-/g, 'S3REV-'),
      // The reverse: the dead run recorded processed/; the later run's child fails.
      'reversed.csv': BAD.replace(/S3INB-/g, 'S3REW-'),
      // Recorded failed/ and copied there before the dead run died: the file is where it is.
      'copied.csv': GOOD.replace(/S3INB-/g, 'S3CPY-'),
    };
    const folder = `s3://${s3.bucket}/inbox/revive`;
    for (const [name, body] of Object.entries(drops)) await store.put(`inbox/revive/${name}`, body);
    // The dead run: a closed inbox run (here one over an empty folder) that held each drop's claim.
    const dead = await stack.client.workflow.start(inbox, {
      args: [{ job: 'erp-orders', folder: `s3://${s3.bucket}/inbox/empty` }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('inbox-revive-dead'),
    });
    await dead.result();
    const listed = await createInboxActivities().listInboxFiles({ folder });
    const fileNamed = (name: string) => listed.find((file) => file.name === name) as InboxFile;
    const left = async (name: string, to: 'processed' | 'failed') => {
      const file = fileNamed(name);
      const owner = { owner: dead.workflowId, runId: dead.firstExecutionRunId };
      const child = inboxChildId({ job: 'erp-orders' }, file);
      await store.put(dropRecordKey('inbox/revive/', '.claims', file), JSON.stringify({ ...owner, child }));
      const target = `inbox/revive/${to}/${name}`;
      await store.put(
        dropRecordKey('inbox/revive/', '.moves', file),
        JSON.stringify({ target, to, ...owner }),
      );
      return target;
    };
    await left('revived.csv', 'failed');
    await left('reversed.csv', 'processed');
    await store.copy('inbox/revive/copied.csv', await left('copied.csv', 'failed'));

    const laterId = stack.workflowId('inbox-revive-later');
    const later = await stack.client.workflow.execute(inbox, {
      args: [{ job: 'erp-orders', folder }],
      taskQueue: stack.taskQueue,
      workflowId: laterId,
    });
    const outcome = (name: string) => later.files.find((file) => file.name === name);
    expect(outcome('revived.csv')).toMatchObject({
      outcome: 'processed',
      movedTo: `s3://${s3.bucket}/inbox/revive/processed/revived.csv`,
    });
    expect(outcome('reversed.csv')).toMatchObject({
      outcome: 'failed',
      movedTo: `s3://${s3.bucket}/inbox/revive/failed/reversed.csv`,
    });
    expect(outcome('copied.csv')).toMatchObject({
      movedTo: `s3://${s3.bucket}/inbox/revive/failed/copied.csv`,
    });
    const keys = (await store.list('inbox/revive/')).filter(
      (key) => !key.includes('/.moves/') && !key.includes('/.claims/'),
    );
    expect(keys).toEqual([
      'inbox/revive/failed/copied.csv',
      'inbox/revive/failed/reversed.csv',
      'inbox/revive/processed/revived.csv',
    ]);
    // The replaced record names the run that moved the file.
    const record = JSON.parse(
      (
        (await store.get(dropRecordKey('inbox/revive/', '.moves', fileNamed('revived.csv')))) ?? ''
      ).toString(),
    ) as { target: string; owner?: string };
    expect(record).toMatchObject({
      target: 'inbox/revive/processed/revived.csv',
      owner: laterId,
    });
  });

  // A drop is told apart by its last-modified time and ETag: a rollback A -> B -> A dropped under one name was
  // reported already-processed and filed away unpushed, since the child id named the content alone.
  it('an export dropped as A, then B, then A again under one name is pushed each time', async () => {
    const a = GOOD.replace(/S3INB-/g, 'S3RBK-');
    const b = a.replace('PLM-TEE-001-BLK,5,', 'PLM-TEE-001-BLK,9,');
    const runs: ProcessInboxResult[] = [];
    for (const [i, body] of [a, b, a].entries()) {
      await store.put('inbox/rollback/orders.csv', body);
      runs.push(
        await stack.client.workflow.execute(inbox, {
          args: [{ job: 'erp-orders', folder: `s3://${s3.bucket}/inbox/rollback` }],
          taskQueue: stack.taskQueue,
          workflowId: stack.workflowId(`inbox-rollback-${i}`),
        }),
      );
    }
    const files = runs.flatMap((run) => run.files);
    expect(files.map((file) => [file.name, file.outcome])).toEqual([
      ['orders.csv', 'processed'],
      ['orders.csv', 'processed'],
      ['orders.csv', 'processed'],
    ]);
    expect(new Set(files.map((file) => file.workflowId)).size).toBe(3);
    // The third drop set the quantity B changed back to A's.
    const third = await stack.client.workflow.getHandle(files[2]!.workflowId).result();
    expect(third).toMatchObject({ orders: { patched: 1, unchanged: 1 } });
    expect((await store.list('inbox/rollback/processed/')).length).toBe(3);
  });

  // Each poll listed the whole prefix, processed/, failed/, .claims/ and .moves/ included, which grow by a few objects
  // per drop for ever: with thousands of nightly drops filed away, every poll paged through all of them.
  it('an inbox with 1,200 drops filed away lists one page per poll and sees only the new drop', async () => {
    for (let i = 0; i < 1200; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          store.put(`inbox/busy/processed/night-${String(i + j).padStart(4, '0')}.csv`, 'order_number\n'),
        ),
      );
    // And their claims: the run's sweep of old records reads one page of them, however many there are.
    for (let i = 0; i < 1200; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          store.put(`inbox/busy/.claims/night-${String(i + j).padStart(4, '0')}.csv-0-0.json`, '{}'),
        ),
      );
    await store.put('inbox/busy/new.csv', GOOD.replace(/S3INB-/g, 'S3BSY-'));
    const prefixes: string[] = [];
    // The worker's activities run in this process, on the same client (one per endpoint, region and key id).
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ListObjectsV2Command')
          prefixes.push((args.input as { Prefix?: string }).Prefix ?? '');
        return next(args);
      },
      { step: 'initialize', name: 'countInboxLists' },
    );
    try {
      const result = await stack.client.workflow.execute(inbox, {
        args: [{ job: 'erp-orders', folder: `s3://${s3.bucket}/inbox/busy` }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('inbox-busy'),
      });
      expect(result.files).toEqual([
        expect.objectContaining({
          name: 'new.csv',
          outcome: 'processed',
          movedTo: `s3://${s3.bucket}/inbox/busy/processed/new.csv`,
        }),
      ]);
      expect(prefixes.filter((prefix) => prefix.startsWith('inbox/busy'))).toEqual([
        'inbox/busy/.claims/',
        'inbox/busy/.moves/',
        'inbox/busy/',
      ]);
    } finally {
      store.client.middlewareStack.remove('countInboxLists');
    }
  }, 120_000);

  // A run takes at most MAX_FILES_PER_RUN drops, the first by name, and S3 lists by name: with 1,050 drops waiting the
  // listing still fetched every page of 1,000.
  it('an inbox with 1,050 drops waiting: a poll lists one page and takes the first 100 by name', async () => {
    for (let i = 0; i < 1050; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          store.put(`inbox/backlog/drop-${String(i + j).padStart(4, '0')}.csv`, 'order_number\n'),
        ),
      );
    const prefixes: string[] = [];
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ListObjectsV2Command')
          prefixes.push((args.input as { Prefix?: string }).Prefix ?? '');
        return next(args);
      },
      { step: 'initialize', name: 'countBacklogLists' },
    );
    try {
      const { files } = await createInboxActivities().listInboxDrops({
        folder: `s3://${s3.bucket}/inbox/backlog`,
      });
      expect(files.map((file) => file.name)).toEqual(
        Array.from({ length: MAX_FILES_PER_RUN }, (_, i) => `drop-${String(i).padStart(4, '0')}.csv`),
      );
      // Besides the sweep's one page of each kind of record (none here).
      expect(prefixes).toEqual(['inbox/backlog/.claims/', 'inbox/backlog/.moves/', 'inbox/backlog/']);
    } finally {
      store.client.middlewareStack.remove('countBacklogLists');
    }
  }, 120_000);

  // README, Run data in object storage: every file a result names gets "an s3:// URL and a presigned https link
  // valid for 24 hours" from `--wait` and `trace-sync watch`. The inbox (s3://bucket/inbox/…) lies outside the store's
  // prefix (s3://bucket/trace), where only runs/, reports/ and exports/ got links: its filed drops got none, and the
  // run's page in the Web UI said nothing of where they went.
  it("filed drops outside the store's prefix: the run's details name where each went; watch prints a working link", async () => {
    await store.put('inbox/linked/orders-linked.csv', GOOD.replace(/S3INB-/g, 'S3LNKD-'));
    await store.put('inbox/linked/broken-linked.csv', BAD);
    const handle = await stack.client.workflow.start(inbox, {
      args: [{ job: 'erp-orders', folder: `s3://${s3.bucket}/inbox/linked` }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('inbox-linked'),
    });
    await handle.result();
    const processed = `s3://${s3.bucket}/inbox/linked/processed/orders-linked.csv`;
    const failed = `s3://${s3.bucket}/inbox/linked/failed/broken-linked.csv`;

    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain(`1 processed, 1 failed`);
    expect(metadata.currentDetails).toContain(`orders-linked.csv: processed, now at ${processed}`);
    expect(metadata.currentDetails).toContain(`broken-linked.csv: failed, now at ${failed}`);

    const out = await traceSync(['watch', handle.workflowId], cliEnv(stack, s3.env('trace')), 90_000);
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({ status: 0, problems: [] });
    const lines = out.stderr.split('\n').map((line) => line.trim());
    for (const [url, content] of [
      [processed, 'S3LNKD-1'],
      [failed, 'S3INB-9'],
    ] as const) {
      const at = lines.findIndex((line) => line.endsWith(`movedTo: ${url}`));
      expect(at).toBeGreaterThan(0);
      const link = lines[at + 1] ?? '';
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*X-Amz-Expires=86400/);
      expect(await (await fetch(link)).text()).toContain(content);
    }
  });

  // The count that bounds an outage's retries of a drop (see inbox-outage.test.ts, on a folder of the worker's disk).
  it("a drop's children failed for an outage are counted beside it, each run once, and the count is no drop", async () => {
    await store.put('inbox/outage/orders.csv', GOOD);
    const activities = createInboxActivities();
    const folder = `s3://${s3.bucket}/inbox/outage`;
    const [file] = (await activities.listInboxDrops({ folder })).files;
    const record = (runId: string) =>
      activities.recordInboxDropFailure({ file: file!, runId, reason: 'GET 503' });
    expect(await record('run-1')).toBe(1);
    expect(await record('run-1')).toBe(1);
    expect(await record('run-2')).toBe(2);
    expect(await store.exists(dropRecordKey('inbox/outage/', '.failures', file!))).toBe(true);
    expect((await activities.listInboxDrops({ folder })).files.map((f) => f.name)).toEqual(['orders.csv']);
  });

  // The claims and move records of filed drops would otherwise pile up beside the inbox for ever: each run deletes
  // those older than a run's listing can stay relevant (INBOX_RECORD_MAX_AGE_MS), a bounded number at a time.
  it('a run deletes .claims/ and .moves/ records older than the bound, a bounded number per run, and nothing else', async () => {
    const prefix = 'inbox/sweep';
    const folder = `s3://${s3.bucket}/${prefix}`;
    await store.put(`${prefix}/orders.csv`, GOOD);
    const records = ['.claims', '.moves'].flatMap((kind) =>
      [1, 2, 3].map((n) => `${prefix}/${kind}/orders.csv-${n}.json`),
    );
    for (const key of records) await store.put(key, '{}');
    await store.put(`${prefix}/.failures/orders.csv-1.json`, '{"failures":[]}');
    await store.put(`${prefix}/processed/old.csv`, GOOD);
    const kept = async (): Promise<string[]> =>
      [...(await store.list(`${prefix}/.claims/`)), ...(await store.list(`${prefix}/.moves/`))].sort();
    const activities = createInboxActivities();

    // Young records stay: a run that listed their drops may still act on them.
    const now = await activities.listInboxDrops({ folder }, Date.now() + INBOX_RECORD_MAX_AGE_MS - 60_000);
    expect(now.files.map((file) => file.name)).toEqual(['orders.csv']);
    expect(await kept()).toEqual([...records].sort());

    // Past the bound: at most `limit` go per run, the next run takes more.
    const later = Date.now() + INBOX_RECORD_MAX_AGE_MS + 60_000;
    expect(await sweepInboxRecords(store, `${prefix}/`, later, 4)).toBe(4);
    expect(await kept()).toHaveLength(2);
    const listing = await activities.listInboxDrops({ folder }, later);
    expect(listing.files.map((file) => file.name)).toEqual(['orders.csv']);
    expect(await kept()).toEqual([]);
    // The drop, its outage record and the filed drops are no records to sweep.
    expect(await store.exists(`${prefix}/orders.csv`)).toBe(true);
    expect(await store.exists(`${prefix}/.failures/orders.csv-1.json`)).toBe(true);
    expect(await store.exists(`${prefix}/processed/old.csv`)).toBe(true);
  }, 60_000);
});
