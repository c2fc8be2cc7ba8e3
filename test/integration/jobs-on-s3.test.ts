import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import * as XLSX from 'xlsx';
import { runKeyOf } from '../../connectors/staging';
import { S3Store, type ObjectStore } from '../../connectors/storage';
import { s3ClientFor } from '../../connectors/storage';
import { certificateReport, plmImport, erpPull, erpOrders, bomRepair } from '../../workflows';
import { repoRoot } from '../../worker/paths';
import { readHarnessInfo, startTestStack, traceSync, type TestStack } from '../harness';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';

const describeS3 = describeWithS3();

// Issue 20: "The integration suite runs the four jobs once with TRACE_STORE_URL=s3://… against that server."
describeS3('the four jobs with TRACE_STORE_URL=s3://… (versitygw)', () => {
  let s3: RunningS3;
  let stack: TestStack;
  let store: ObjectStore;
  let dataDir: string;
  const cli = (...args: string[]) => runCli(stack, s3, args);
  const text = async (key: string): Promise<string> =>
    ((await store.get(key)) ?? Buffer.from('')).toString('utf8');

  beforeAll(async () => {
    s3 = await startS3();
    dataDir = await mkdtemp(path.join(tmpdir(), 'jobs-s3-'));
    const settings = {
      url: s3.storeUrl('trace'),
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
    };
    stack = await startTestStack({
      config: { dataDir, store: settings },
      sandbox: { rateLimitPerMinute: 100_000 },
    });
    store = new S3Store(s3ClientFor(settings), s3.bucket, 'trace');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('PLM import reads an s3:// sheet; staging, journals, rejects and result land in the bucket', async () => {
    const rows = nativeRows({ prefix: 'S3PLM', styles: 2, coloursPerStyle: 1, sizesPerColour: 2 });
    rows.push({
      externalId: 'S3PLM-BAD',
      level: 'style',
      name: 'Bad',
      styleType: 'Spaceships',
      isComponent: 'no',
    });
    await store.put('inputs/plm/sheet.csv', toCsv(rows));
    const workflowId = stack.workflowId('plm-s3');
    const result = await stack.client.workflow.execute(plmImport, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/plm/sheet.csv` }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result.products).toMatchObject({ created: 8, rejected: 1 });
    const run = `runs/${runKeyOf(workflowId)}/`;
    const keys = await store.list(run);
    expect(keys).toEqual(
      expect.arrayContaining([
        `${run}source.csv`,
        `${run}result.json`,
        `${run}rejects.csv`,
        `${run}plan.json`,
      ]),
    );
    expect(keys.some((key) => key.startsWith(`${run}journal/`) && key.includes('.ndjson.d/'))).toBe(true);
    expect(await text(`${run}rejects.csv`)).toContain('S3PLM-BAD');
    // Nothing of the journal on the worker's disk: another worker resumes from the bucket alone.
    expect(existsSync(path.join(dataDir, 'runs', runKeyOf(workflowId), 'journal'))).toBe(false);

    // A retry names the rejects file by the path of the worker that wrote it; this worker finds it in the bucket.
    const elsewhere = path.join('/no-such-worker/data/runs', runKeyOf(workflowId), 'rejects.csv');
    const retry = await stack.client.workflow.execute(plmImport, {
      args: [{ file: elsewhere, retryOf: workflowId }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-s3-retry'),
    });
    expect(retry).toMatchObject({ rows: 1, products: { rejected: 1 } });
  });

  it('ERP orders push an s3:// export; one order refused lands in the rejects file in the bucket', async () => {
    const csv = [
      'order_number,supplier_code,line_number,product_external_id,quantity,unit',
      'S3-1,SUP-1001,1,PLM-TEE-001-BLK,5,PIECES',
      'S3-1,SUP-1001,2,PLM-TEE-001-OWH,6,PIECES',
      'S3-2,SUP-9999,1,PLM-JKT-010-NVY,7,PIECES',
    ].join('\n');
    await store.put('inputs/erp/orders.csv', csv);
    const workflowId = stack.workflowId('erp-s3');
    const result = await stack.client.workflow.execute(erpOrders, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/erp/orders.csv` }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result.orders.created).toBe(1);
    expect(result.rejectedRows).toBe(1);
    const run = `runs/${runKeyOf(workflowId)}/`;
    const rejects = Papa.parse<Record<string, string>>(
      (await text(`${run}rejects.csv`)).replace(/^\uFEFF/, ''),
      {
        header: true,
        skipEmptyLines: true,
      },
    ).data;
    expect(rejects.map((row) => row.order_number)).toEqual(['S3-2']);
    const retry = await stack.client.workflow.execute(erpOrders, {
      args: [
        {
          file: path.join('/no-such-worker/data/runs', runKeyOf(workflowId), 'rejects.csv'),
          retryOf: workflowId,
        },
      ],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('erp-s3-retry'),
    });
    expect(retry).toMatchObject({ retryOf: workflowId, rejectedRows: 1, orders: { created: 0 } });
    expect((await store.list(`${run}outcomes/`)).length).toBeGreaterThan(0);
    expect(await store.list(`${run}batches/`)).toEqual([]);
  });

  // README: the run-data store is where "a batch retried on another worker finds them"; the approval gate's plan is
  // one of the run's files, so on S3 the run names it in the bucket, where an operator or another worker reads it.
  it('PLM import with approve: plan.html and plan.xlsx are in the bucket, at the s3:// location the run reports', async () => {
    const rows = nativeRows({ prefix: 'S3APV', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 });
    await store.put('inputs/plm/approve.csv', toCsv(rows));
    const workflowId = stack.workflowId('plm-s3-approve');
    const handle = await stack.client.workflow.start(plmImport, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/plm/approve.csv`, approval: true }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    const run = `runs/${runKeyOf(workflowId)}/`;
    const htmlUrl = `s3://${s3.bucket}/trace/${run}plan.html`;
    const xlsxUrl = `s3://${s3.bucket}/trace/${run}plan.xlsx`;
    let details = '';
    for (let i = 0; i < 240 && !details.includes('Awaiting approval'); i++) {
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      details = metadata.currentDetails ?? '';
      if (!details.includes('Awaiting approval')) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(details).toContain(`Plan: ${htmlUrl} (and ${xlsxUrl})`);
    expect(await text(`${run}plan.html`)).toContain('S3APV-S1');
    const workbook = XLSX.read(await store.get(`${run}plan.xlsx`), { type: 'buffer' });
    expect(workbook.SheetNames).toEqual(['Creates', 'Updates', 'Compositions', 'Deletes', 'Rejects']);

    await handle.signal('approve', { by: 'ops' });
    const result = (await handle.result()) as { approval?: { planHtml: string; planXlsx: string } };
    expect(result.approval).toMatchObject({ planHtml: htmlUrl, planXlsx: xlsxUrl });
  });

  it('a missing s3:// export fails at once, naming the reference', async () => {
    const failure = await stack.client.workflow
      .execute(erpOrders, {
        args: [{ file: `s3://${s3.bucket}/trace/inputs/erp/none.csv` }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('erp-s3-missing'),
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const messages: string[] = [];
    for (
      let at = failure as { message?: string; cause?: unknown } | undefined;
      at;
      at = at.cause as typeof at
    )
      messages.push(at.message ?? '');
    expect(messages.join(' | ')).toContain(
      `s3://${s3.bucket}/trace/inputs/erp/none.csv was not found in the bucket`,
    );
  });

  it('BOM repair (dry run) stages its candidates in the bucket, not on the disk', async () => {
    const result = await stack.client.workflow.execute(bomRepair, {
      args: [{ all: true, dryRun: true }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('bom-s3'),
    });
    expect(result).toBeDefined();
    expect(existsSync(path.join(dataDir, 'staging'))).toBe(false);
  });

  // Issue 19: the BOM repair runs on the batch-job kit, "run folder (on the storage interface)": its run folder,
  // journals and sinceLastRun mark live in the bucket, so the next run on any worker starts from the stored mark.
  it('BOM repair keeps its run folder and its sinceLastRun mark in the bucket, not on the disk', async () => {
    const repair = (name: string) =>
      stack.client.workflow.execute(bomRepair, {
        args: [{ sinceLastRun: true, markName: 's3' }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId(name),
      });
    const first = await repair('bom-s3-mark');
    expect(first.highWaterMark?.stored).toEqual(expect.any(String));
    // Every file a result names is named by its store location on S3, not by a worker's path.
    expect(first.highWaterMark?.file).toBe(`s3://${s3.bucket}/trace/bom-repair/high-water-mark-s3.json`);
    // Beside the mark, the products the run left unsettled (a seeded ambiguous fork): its to-retry list; and the
    // record of the lines it repaired (the seeded OWH-L fork), which a later fork of those lines relies on.
    const kept = await store.list('bom-repair/');
    expect(kept).toContain('bom-repair/high-water-mark-s3.json');
    expect(kept.some((key) => key.startsWith('bom-repair/repaired-lines/'))).toBe(true);
    expect(
      kept.filter(
        (key) => !key.startsWith('bom-repair/to-retry-s3/') && !key.startsWith('bom-repair/repaired-lines/'),
      ),
    ).toEqual(['bom-repair/high-water-mark-s3.json']);
    expect(JSON.parse(await text('bom-repair/high-water-mark-s3.json'))).toMatchObject({
      sinceMs: Date.parse(first.highWaterMark!.stored!),
    });
    expect(existsSync(path.join(dataDir, 'bom-repair'))).toBe(false);
    // The run folder (staged candidates, one journal per batch) is dropped from the bucket once the run is done.
    expect((await store.list('runs/')).filter((key) => key.includes('bom-s3-mark'))).toEqual([]);
    const next = await repair('bom-s3-mark-next');
    expect(next.highWaterMark?.from).toBe(first.highWaterMark!.stored);
  });

  it('the certificate report lands in the bucket under reports/, and the next one compares with it from there', async () => {
    const report = (asOf: string) =>
      stack.client.workflow.execute(certificateReport, {
        args: [{ asOf }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId(`cert-s3-${asOf}`),
      });
    await report('2025-12-15');
    // As if the next report ran on another worker: nothing of the first one on this disk.
    await rm(path.join(dataDir, 'reports'), { recursive: true, force: true });
    const result = await report('2026-01-15');
    expect(result.changes.previousAsOf).toBe('2025-12-15');
    // Every file a result names is named by its store location on S3, not by a worker's path.
    const folder = `s3://${s3.bucket}/trace/reports/certificate-expiry/2026-01-15`;
    expect(result.files).toEqual({
      folder,
      xlsx: `${folder}/certificate-expiry-2026-01-15.xlsx`,
      csv: `${folder}/certificate-expiry-2026-01-15.csv`,
      html: `${folder}/certificate-expiry-2026-01-15.html`,
      json: `${folder}/summary.json`,
    });
    const keys = await store.list('reports/');
    for (const file of [result.files.xlsx, result.files.csv, result.files.html]) {
      expect(keys.some((key) => file.endsWith(key))).toBe(true);
    }
    expect((await text(keys.find((key) => key.endsWith('.csv'))!)).split('\n').length).toBeGreaterThan(
      result.total > 0 ? 1 : 0,
    );
  });

  it('the order pull exports to the bucket and keeps its high-water mark there, for the next pull on any worker', async () => {
    const pull = () =>
      stack.client.workflow.execute(erpPull, {
        args: [{}],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('pull-s3'),
      });
    const first = await pull(); // the orders the push above created
    expect(first.orders).toBeGreaterThan(0);
    // Every file a result names is named by its store location on S3, not by a worker's path.
    const exports = `s3://${s3.bucket}/trace/exports/orders/`;
    expect(first.markFile).toBe(`${exports}high-water-mark.json`);
    expect(first.files?.ndjson).toMatch(new RegExp(`^${exports}orders-updated-after-.*\\.ndjson$`));
    expect(first.files?.csv).toMatch(new RegExp(`^${exports}orders-updated-after-.*\\.csv$`));
    const exported = await store.list('exports/orders/');
    expect(exported).toEqual(expect.arrayContaining(['exports/orders/high-water-mark.json']));
    expect(exported.filter((key) => key.endsWith('.ndjson'))).toHaveLength(1);
    await rm(path.join(dataDir, 'exports'), { recursive: true, force: true });
    const second = await pull();
    expect(second).toMatchObject({ orders: 0, files: null });
  });

  // Issue 20: "The CLI, given a local file while the store is S3, uploads it under inputs/<workflowId>/ first and
  // passes the reference; --wait prints where the rejects and reports are (an s3:// URL and a presigned https link
  // valid for a day)."
  it('the CLI uploads a local sheet under inputs/<workflowId>/ and prints the rejects as s3:// and a working link', async () => {
    const rows = nativeRows({ prefix: 'S3CLI', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 });
    rows.push({
      externalId: 'S3CLI-BAD',
      level: 'style',
      name: 'Bad',
      styleType: 'Spaceships',
      isComponent: 'no',
    });
    const local = path.join(dataDir, '..', `cli-sheet-${Date.now()}.csv`);
    await writeFile(local, toCsv(rows));
    const out = await cli('plm-import', local, '--wait');
    await rm(local, { force: true });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const workflowId = /Started workflow (\S+)/.exec(out.stdout)?.[1] ?? '';
    const uploaded = `s3://${s3.bucket}/trace/inputs/${workflowId}/${path.basename(local)}`;
    expect(out.stdout).toContain(`Uploaded ${local} to ${uploaded}`);
    expect((await stack.client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');
    const rejectsUrl = `s3://${s3.bucket}/trace/runs/${runKeyOf(workflowId)}/rejects.csv`;
    expect(out.stdout).toContain(`rejectsFile: ${rejectsUrl}`);
    const lines = out.stdout.split('\n');
    // The printed result names it too (its s3:// location): the link follows the files list's line.
    const link =
      lines[lines.findIndex((line) => line.trim() === `rejectsFile: ${rejectsUrl}`) + 1]?.trim() ?? '';
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*X-Amz-Expires=86400/);
    const fetched = await fetch(link);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toContain('S3CLI-BAD');
  });

  // The operator's view on S3: "every run file a result or approval status names gets an operator-usable location:
  // on S3 an s3:// URL plus a presigned link printed by the CLI". Plan files, held-back.csv and the rejects file are
  // the approval gate's and the import's; an operator on another host can open none of them by a worker's path.
  it('plm-import --approve --wait on S3: the plan, held-back.csv and the rejects each get an s3:// location and a working link', async () => {
    const shape = { prefix: 'S3LNK', styles: 1, coloursPerStyle: 1, sizesPerColour: 2 };
    await store.put('inputs/plm/links-seed.csv', toCsv(nativeRows(shape)));
    await stack.client.workflow.execute(plmImport, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/plm/links-seed.csv` }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-s3-links-seed'),
    });
    const rows = nativeRows(shape).map((row) =>
      row.externalId === 'S3LNK-S1-C1-Z1' ? { ...row, name: 'Planned name' } : row,
    );
    rows.push({
      externalId: 'S3LNK-BAD',
      level: 'style',
      name: 'Bad',
      styleType: 'Spaceships',
      isComponent: 'no',
    });
    const local = path.join(dataDir, '..', `links-${Date.now()}.csv`);
    await writeFile(local, toCsv(rows));
    const waiting = runCli(stack, s3, ['plm-import', local, '--approve', '--wait'], 240_000);
    let workflowId: string | undefined;
    for (let i = 0; i < 240 && !workflowId; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      for await (const run of stack.client.workflow.list({
        query: `TraceSource = '${path.basename(local)}' AND TraceStatus = 'awaiting-approval'`,
      }))
        workflowId = run.workflowId;
    }
    if (!workflowId) throw new Error('the run never awaited approval');
    // Someone edits Z1 on the platform while the plan waits: it is held back and listed in held-back.csv.
    await stack.apiClient.products.update('S3LNK-S1-C1-Z1', { name: 'Edited on the platform' });
    // The CLI polls progress every second: give it time to see the phase and print the notice.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await runCli(stack, s3, ['approve', workflowId])).status).toBe(0);
    const out = await waiting;
    await rm(local, { force: true });
    expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: '' });

    const run = `s3://${s3.bucket}/trace/runs/${runKeyOf(workflowId)}/`;
    const result = (await stack.client.workflow.getHandle(workflowId).result()) as {
      approval?: { planHtml: string; planXlsx: string; replannedFile?: string | null };
      rejectsFile: string | null;
    };
    expect(result.approval).toMatchObject({
      planHtml: `${run}plan.html`,
      planXlsx: `${run}plan.xlsx`,
      replannedFile: `${run}held-back.csv`,
    });
    const fetched = async (link: string | undefined): Promise<Buffer> => {
      expect(link).toMatch(/^https?:\/\/127\.0\.0\.1:\d+\/.*X-Amz-Expires=86400/);
      const response = await fetch(link as string);
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };
    const expectPlan = async (html: Buffer, xlsx: Buffer) => {
      expect(html.toString('utf8')).toContain('S3LNK-S1-C1-Z1');
      expect(XLSX.read(xlsx, { type: 'buffer' }).SheetNames).toContain('Updates');
    };

    // While the run awaits approval, the notice links the plan an operator must read before approving.
    const notice = JSON.parse(
      out.stdout.split('\n').find((line) => line.startsWith('{"awaitingApproval"')) ?? 'null',
    ) as { awaitingApproval: { files?: { url: string; link: string }[] } } | null;
    const noticed = new Map((notice?.awaitingApproval.files ?? []).map((file) => [file.url, file.link]));
    expect([...noticed.keys()]).toEqual([`${run}plan.html`, `${run}plan.xlsx`]);
    await expectPlan(
      await fetched(noticed.get(`${run}plan.html`)),
      await fetched(noticed.get(`${run}plan.xlsx`)),
    );

    // Once it ends, every run file the result names: its label, its s3:// URL, and a link on the next line.
    const lines = out.stdout.split('\n');
    const linkOf = (label: string, url: string): string | undefined => {
      const at = lines.findIndex((line) => line.trim() === `${label}: ${url}`);
      return at < 0 ? undefined : lines[at + 1]?.trim();
    };
    await expectPlan(
      await fetched(linkOf('approval.planHtml', `${run}plan.html`)),
      await fetched(linkOf('approval.planXlsx', `${run}plan.xlsx`)),
    );
    expect(
      (await fetched(linkOf('approval.replannedFile', `${run}held-back.csv`))).toString('utf8'),
    ).toContain('S3LNK-S1-C1-Z1');
    expect((await fetched(linkOf('rejectsFile', `${run}rejects.csv`))).toString('utf8')).toContain(
      'S3LNK-BAD',
    );
  }, 300_000);

  // An inbox child, a scheduled run or one started from the Web UI is followed with `trace-sync watch`: on S3 its
  // result names the rejects by the worker's path, so "every run file a result … names gets an operator-usable
  // location: on S3 an s3:// URL plus a presigned link printed by the CLI" holds for watch as for --wait.
  it('trace-sync watch <id> on S3 prints the run files as s3:// and a working link, as --wait does', async () => {
    const rows = nativeRows({ prefix: 'S3WCH', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 });
    rows.push({
      externalId: 'S3WCH-BAD',
      level: 'style',
      name: 'Bad',
      styleType: 'Spaceships',
      isComponent: 'no',
    });
    await store.put('inputs/plm/watched.csv', toCsv(rows));
    const handle = await stack.client.workflow.start(plmImport, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/plm/watched.csv` }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('plm-s3-watched'),
    });
    const out = await runCli(stack, s3, ['watch', handle.workflowId]);
    expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: '' });
    const rejectsUrl = `s3://${s3.bucket}/trace/runs/${runKeyOf(handle.workflowId)}/rejects.csv`;
    const lines = out.stdout.split('\n');
    const at = lines.findIndex((line) => line.trim() === `rejectsFile: ${rejectsUrl}`);
    expect(at).toBeGreaterThan(0);
    const link = lines[at + 1]?.trim() ?? '';
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*X-Amz-Expires=86400/);
    expect(await (await fetch(link)).text()).toContain('S3WCH-BAD');
  });

  // DESIGN.md: "When an import has bad rows, the operator gets a rejects file …, fixes it, and re-runs only those
  // rows." On S3 the operator is on another host: the result, the memo and the run's details (the Web UI) name the
  // rejects and result files by their store location, where they can be fetched; `trace-sync retry` runs from there.
  it('PLM import on S3: result, memo and run details name rejects/result by s3:// location; retry imports the fixed row', async () => {
    const rows = nativeRows({ prefix: 'S3RTY', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 });
    rows.push({
      externalId: 'S3RTY-FIX',
      level: 'style',
      name: 'To fix',
      styleType: 'Spaceships',
      isComponent: 'no',
      brands: 'Nordic Threads',
      seasons: 'SS25',
      PLM_ID: 'S3RTY-FIX',
    });
    await store.put('inputs/plm/retry.csv', toCsv(rows));
    const workflowId = stack.workflowId('plm-s3-rejects-url');
    const result = await stack.client.workflow.execute(plmImport, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/plm/retry.csv` }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result.products).toMatchObject({ created: 3, rejected: 1 });
    const runKey = `runs/${runKeyOf(workflowId)}`;
    const run = `s3://${s3.bucket}/trace/${runKey}/`;
    expect({ rejectsFile: result.rejectsFile, resultFile: result.resultFile }).toEqual({
      rejectsFile: `${run}rejects.csv`,
      resultFile: `${run}result.json`,
    });
    expect(JSON.parse(await text(`${runKey}/result.json`))).toMatchObject({
      rejectsFile: `${run}rejects.csv`,
      resultFile: `${run}result.json`,
    });
    const handle = stack.client.workflow.getHandle(workflowId);
    expect((await handle.describe()).memo).toMatchObject({
      rejectsFile: `${run}rejects.csv`,
      resultFile: `${run}result.json`,
    });
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain(`rejects file: ${run}rejects.csv`);

    // As a user would: download the rejects file, fix the style type, upload it back.
    const rejects = await text(`${runKey}/rejects.csv`);
    expect(rejects).toContain('S3RTY-FIX');
    await store.put(`${runKey}/rejects.csv`, rejects.replace(',Spaceships,', ',T-shirts,'));
    const out = await cli('retry', workflowId, '--wait');
    expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: '' });
    const retryId = /Started workflow (\S+)/.exec(out.stdout)?.[1] ?? '';
    const retried = (await stack.client.workflow.getHandle(retryId).result()) as {
      file: string;
      retryOf: string | null;
      rows: number;
      rejectsFile: string | null;
      products: { created: number; rejected: number };
    };
    expect(retried).toMatchObject({
      file: `${run}rejects.csv`,
      retryOf: workflowId,
      rows: 1,
      rejectsFile: null,
      products: { created: 1, rejected: 0 },
    });
    expect(await stack.apiClient.products.get('S3RTY-FIX')).toMatchObject({ name: 'To fix' });
  });

  it('ERP push on S3: the result and run details name the rejects by s3:// location; retry pushes the fixed order', async () => {
    const csv = [
      'order_number,supplier_code,line_number,product_external_id,quantity,unit',
      'S3R-1,SUP-1001,1,PLM-TEE-001-BLK,5,PIECES',
      'S3R-2,SUP-9999,1,PLM-JKT-010-NVY,7,PIECES',
    ].join('\n');
    await store.put('inputs/erp/retry.csv', csv);
    const workflowId = stack.workflowId('erp-s3-rejects-url');
    const result = await stack.client.workflow.execute(erpOrders, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/erp/retry.csv` }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    const runKey = `runs/${runKeyOf(workflowId)}`;
    const rejectsUrl = `s3://${s3.bucket}/trace/${runKey}/rejects.csv`;
    expect(result).toMatchObject({ rejectedRows: 1, rejectsFile: rejectsUrl });
    const metadata = (await stack.client.workflow
      .getHandle(workflowId)
      .query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain(`rejects file: ${rejectsUrl}`);

    const rejects = await text(`${runKey}/rejects.csv`);
    await store.put(`${runKey}/rejects.csv`, rejects.replace(',SUP-9999,', ',SUP-1001,'));
    const out = await cli('retry', workflowId, '--wait');
    expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: '' });
    const retryId = /Started workflow (\S+)/.exec(out.stdout)?.[1] ?? '';
    expect(await stack.client.workflow.getHandle(retryId).result()).toMatchObject({
      file: rejectsUrl,
      retryOf: workflowId,
      rejectsFile: null,
      orders: { created: 1, rejected: 0 },
    });
  });

  it('the CLI uploads the mapping profile too: a push with --mapping runs on the worker from the bucket alone', async () => {
    const examples = path.join(repoRoot(), 'examples', 'erp');
    const out = await cli(
      'erp-orders',
      path.join(examples, 'orders.csv'),
      '--mapping',
      path.join(examples, 'profile-eu.json'),
      '--wait',
    );
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    const workflowId = /Started workflow (\S+)/.exec(out.stdout)?.[1] ?? '';
    for (const name of ['orders.csv', 'profile-eu.json'])
      expect(out.stdout).toContain(`to s3://${s3.bucket}/trace/inputs/${workflowId}/${name}`);
    const result = (await stack.client.workflow.getHandle(workflowId).result()) as {
      profile: string;
      orders: { total: number };
    };
    expect(result.profile).toBe(`s3://${s3.bucket}/trace/inputs/${workflowId}/profile-eu.json`);
    expect(result.orders.total).toBeGreaterThan(0);
  });

  // README, "Run data in object storage": "a job's `file` may be `s3://bucket/key` … a job's `mappingFile` may be an
  // `s3://` reference too." An operator re-running a drop from the inbox's failed/ names it where it lies.
  it('the CLI passes an s3:// export and an s3:// mapping as they are: nothing uploaded, the worker reads them', async () => {
    const examples = path.join(repoRoot(), 'examples', 'erp');
    await store.put('inbox/erp/failed/orders.csv', await readFile(path.join(examples, 'orders.csv'), 'utf8'));
    await store.put('profiles/eu.json', await readFile(path.join(examples, 'profile-eu.json'), 'utf8'));
    const file = `s3://${s3.bucket}/trace/inbox/erp/failed/orders.csv`;
    const mapping = `s3://${s3.bucket}/trace/profiles/eu.json`;
    const out = await cli('erp-orders', file, '--mapping', mapping, '--dry-run', '--wait');
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).not.toContain('Uploaded');
    const workflowId = /Started workflow (\S+)/.exec(out.stdout)?.[1] ?? '';
    expect(workflowId).toMatch(/^erp-orders-orders\.csv-/);
    const result = (await stack.client.workflow.getHandle(workflowId).result()) as {
      profile: string;
      orders: { total: number };
    };
    expect(result.profile).toBe(mapping);
    expect(result.orders.total).toBeGreaterThan(0);

    const plm = await cli('plm-import', `s3://${s3.bucket}/trace/no/such/sheet.csv`, '--wait');
    expect(plm.status).not.toBe(0);
    expect(plm.stderr + plm.stdout).toContain(`s3://${s3.bucket}/trace/no/such/sheet.csv`);
    expect(plm.stderr + plm.stdout).not.toContain('no file at');
    const bad = await cli('erp-orders', 's3://bucket-only');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("'s3://bucket-only' is not an s3://bucket/key reference");
  });
});

/** `trace-sync <args>` with the S3 store of the stack's worker; asynchronous: this process hosts that worker. */
async function runCli(
  stack: TestStack,
  s3: RunningS3,
  args: string[],
  killAfterMs?: number,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const harness = readHarnessInfo();
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: harness.address,
    TEMPORAL_NAMESPACE: harness.namespace,
    TRACE_TASK_QUEUE: stack.taskQueue,
    // The CLI's own data folder: nothing it prints may point there.
    TRACE_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'jobs-s3-cli-')),
    ...s3.env('trace'),
  };
  return traceSync(args, env, killAfterMs);
}
