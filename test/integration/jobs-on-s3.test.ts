import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import Papa from 'papaparse';
import * as XLSX from 'xlsx';
import { runKeyOf } from '../../connectors/staging';
import { certificateReport, plmImport, erpPull, erpOrders, bomRepair } from '../../workflows';
import { failureOf, failureText } from '../harness/errors';
import { describeWithS3 } from '../harness/versitygw';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';
import { twoPullsAtOnce } from './erp-pull-overlap';
import { s3JobStack } from './job-stack';

const describeS3 = describeWithS3();

/**
 * Issue 20: the four jobs with TRACE_STORE_URL=s3://… against versitygw: their inputs, staging, journals, run
 * folders, reports and marks are in the bucket, never on the worker's disk. What the CLI shows and uploads with an S3
 * store is in cli-on-s3.test.ts; the shared setup is job-stack.ts.
 */
// Issue 20: "The integration suite runs the four jobs once with TRACE_STORE_URL=s3://… against that server."
describeS3('the four jobs with TRACE_STORE_URL=s3://… (versitygw)', () => {
  const { s3, stack, store, dataDir, text } = s3JobStack('jobs-s3-');

  it('PLM import reads an s3:// sheet; staging, journals, rejects and result land in the bucket', async () => {
    const rows = nativeRows({ prefix: 'S3PLM', styles: 2, coloursPerStyle: 1, sizesPerColour: 2 });
    rows.push({
      externalId: 'S3PLM-BAD',
      level: 'style',
      name: 'Bad',
      styleType: 'Spaceships',
      isComponent: 'no',
    });
    await store().put('inputs/plm/sheet.csv', toCsv(rows));
    const workflowId = stack().workflowId('plm-s3');
    const result = await stack().client.workflow.execute(plmImport, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/plm/sheet.csv` }],
      taskQueue: stack().taskQueue,
      workflowId,
    });
    expect(result.products).toMatchObject({ created: 8, rejected: 1 });
    const run = `runs/${runKeyOf(workflowId)}/`;
    const keys = await store().list(run);
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
    expect(existsSync(path.join(dataDir(), 'runs', runKeyOf(workflowId), 'journal'))).toBe(false);

    // A retry names the rejects file by the path of the worker that wrote it; this worker finds it in the bucket.
    const elsewhere = path.join('/no-such-worker/data/runs', runKeyOf(workflowId), 'rejects.csv');
    const retry = await stack().client.workflow.execute(plmImport, {
      args: [{ file: elsewhere, retryOf: workflowId }],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('plm-s3-retry'),
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
    await store().put('inputs/erp/orders.csv', csv);
    const workflowId = stack().workflowId('erp-s3');
    const result = await stack().client.workflow.execute(erpOrders, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/erp/orders.csv` }],
      taskQueue: stack().taskQueue,
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
    const retry = await stack().client.workflow.execute(erpOrders, {
      args: [
        {
          file: path.join('/no-such-worker/data/runs', runKeyOf(workflowId), 'rejects.csv'),
          retryOf: workflowId,
        },
      ],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('erp-s3-retry'),
    });
    expect(retry).toMatchObject({ retryOf: workflowId, rejectedRows: 1, orders: { created: 0 } });
    expect((await store().list(`${run}outcomes/`)).length).toBeGreaterThan(0);
    expect(await store().list(`${run}batches/`)).toEqual([]);
  });

  // Spec 03, PATCH rule 1: even an empty PATCH "counts as a write (bumps `updatedAt` and records an audit entry)".
  // What the push learned of responsible persons named by e-mail is in the bucket, not on one worker's disk, so a
  // restarted worker (or another one) compares those orders as unchanged instead of patching each once.
  it('ERP orders: responsible persons learned are kept in the bucket; after a worker restart a re-push writes nothing', async () => {
    const csv = [
      'order_number,supplier_code,responsible_persons,line_number,product_external_id,quantity,unit',
      'S3-RP-1,SUP-1001,Ines.Buyer@nordicthreads.example,1,PLM-TEE-001-BLK,5,PIECES',
    ].join('\n');
    await store().put('inputs/erp/persons.csv', csv);
    const push = () =>
      stack().client.workflow.execute(erpOrders, {
        args: [{ file: `s3://${s3().bucket}/trace/inputs/erp/persons.csv` }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('erp-s3-persons'),
      });
    expect((await push()).orders).toMatchObject({ created: 1, rejected: 0 });
    expect(await store().list('erp-orders/')).toEqual([
      'erp-orders/responsible-persons-cmp_brand_nordic_threads.json',
    ]);
    expect(existsSync(path.join(dataDir(), 'erp-orders'))).toBe(false);

    await stack().restartWorker();
    expect((await push()).orders).toMatchObject({ unchanged: 1, patched: 0, rejected: 0 });
  });

  // README: the run-data store is where "a batch retried on another worker finds them"; the approval gate's plan is
  // one of the run's files, so on S3 the run names it in the bucket, where an operator or another worker reads it.
  it('PLM import with approve: plan.html and plan.xlsx are in the bucket, at the s3:// location the run reports', async () => {
    const rows = nativeRows({ prefix: 'S3APV', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 });
    await store().put('inputs/plm/approve.csv', toCsv(rows));
    const workflowId = stack().workflowId('plm-s3-approve');
    const handle = await stack().client.workflow.start(plmImport, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/plm/approve.csv`, approval: true }],
      taskQueue: stack().taskQueue,
      workflowId,
    });
    const run = `runs/${runKeyOf(workflowId)}/`;
    const htmlUrl = `s3://${s3().bucket}/trace/${run}plan.html`;
    const xlsxUrl = `s3://${s3().bucket}/trace/${run}plan.xlsx`;
    let details = '';
    for (let i = 0; i < 240 && !details.includes('Awaiting approval'); i++) {
      const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
      details = metadata.currentDetails ?? '';
      if (!details.includes('Awaiting approval')) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(details).toContain(`Plan: ${htmlUrl} (and ${xlsxUrl})`);
    expect(await text(`${run}plan.html`)).toContain('S3APV-S1');
    const workbook = XLSX.read(await store().get(`${run}plan.xlsx`), { type: 'buffer' });
    expect(workbook.SheetNames).toEqual(['Creates', 'Updates', 'Compositions', 'Deletes', 'Rejects']);

    await handle.signal('approve', { by: 'ops' });
    const result = (await handle.result()) as { approval?: { planHtml: string; planXlsx: string } };
    expect(result.approval).toMatchObject({ planHtml: htmlUrl, planXlsx: xlsxUrl });
  });

  it('a missing s3:// export fails at once, naming the reference', async () => {
    const failure = await failureOf(
      stack().client.workflow.execute(erpOrders, {
        args: [{ file: `s3://${s3().bucket}/trace/inputs/erp/none.csv` }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('erp-s3-missing'),
      }),
    );
    expect(failureText(failure)).toContain(
      `s3://${s3().bucket}/trace/inputs/erp/none.csv was not found in the bucket`,
    );
  });

  it('a missing s3:// sheet is named missing from the bucket, not a path "read on the worker"', async () => {
    const failure = await failureOf(
      stack().client.workflow.execute(plmImport, {
        args: [{ file: `s3://${s3().bucket}/trace/inputs/plm/None.csv` }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('plm-s3-missing'),
      }),
    );
    const text = failureText(failure);
    expect(text).toContain(`s3://${s3().bucket}/trace/inputs/plm/None.csv was not found in the bucket`);
    expect(text).not.toContain('read on the worker');
  });

  it('BOM repair (dry run) stages its candidates in the bucket, not on the disk', async () => {
    const result = await stack().client.workflow.execute(bomRepair, {
      args: [{ all: true, dryRun: true }],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('bom-s3'),
    });
    expect(result).toBeDefined();
    expect(existsSync(path.join(dataDir(), 'staging'))).toBe(false);
  });

  // Issue 19: the BOM repair runs on the batch-job kit, "run folder (on the storage interface)": its run folder,
  // journals and sinceLastRun mark live in the bucket, so the next run on any worker starts from the stored mark.
  it('BOM repair keeps its run folder and its sinceLastRun mark in the bucket, not on the disk', async () => {
    const repair = (name: string) =>
      stack().client.workflow.execute(bomRepair, {
        args: [{ sinceLastRun: true, markName: 's3' }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId(name),
      });
    const first = await repair('bom-s3-mark');
    expect(first.highWaterMark?.stored).toEqual(expect.any(String));
    // Every file a result names is named by its store location on S3, not by a worker's path.
    expect(first.highWaterMark?.file).toBe(`s3://${s3().bucket}/trace/bom-repair/high-water-mark-s3.json`);
    // Beside the mark, the products the run left unsettled (a seeded ambiguous fork): its to-retry list; and the
    // record of the lines it repaired (the seeded OWH-L fork), which a later fork of those lines relies on.
    const kept = await store().list('bom-repair/');
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
    expect(existsSync(path.join(dataDir(), 'bom-repair'))).toBe(false);
    // The run folder (staged candidates, one journal per batch) is dropped from the bucket once the run is done.
    expect((await store().list('runs/')).filter((key) => key.includes('bom-s3-mark'))).toEqual([]);
    const next = await repair('bom-s3-mark-next');
    expect(next.highWaterMark?.from).toBe(first.highWaterMark!.stored);
  });

  it('the certificate report lands in the bucket under reports/, and the next one compares with it from there', async () => {
    const report = (asOf: string) =>
      stack().client.workflow.execute(certificateReport, {
        args: [{ asOf }],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId(`cert-s3-${asOf}`),
      });
    await report('2025-12-15');
    // As if the next report ran on another worker: nothing of the first one on this disk.
    await rm(path.join(dataDir(), 'reports'), { recursive: true, force: true });
    const result = await report('2026-01-15');
    expect(result.changes.previousAsOf).toBe('2025-12-15');
    // Every file a result names is named by its store location on S3, not by a worker's path.
    const folder = `s3://${s3().bucket}/trace/reports/certificate-expiry/2026-01-15`;
    expect(result.files).toEqual({
      folder,
      xlsx: `${folder}/certificate-expiry-2026-01-15.xlsx`,
      csv: `${folder}/certificate-expiry-2026-01-15.csv`,
      html: `${folder}/certificate-expiry-2026-01-15.html`,
      json: `${folder}/summary.json`,
    });
    const keys = await store().list('reports/');
    for (const file of [result.files.xlsx, result.files.csv, result.files.html]) {
      expect(keys.some((key) => file.endsWith(key))).toBe(true);
    }
    expect((await text(keys.find((key) => key.endsWith('.csv'))!)).split('\n').length).toBeGreaterThan(
      result.total > 0 ? 1 : 0,
    );
  });

  it('the order pull exports to the bucket and keeps its high-water mark there, for the next pull on any worker', async () => {
    const pull = () =>
      stack().client.workflow.execute(erpPull, {
        args: [{}],
        taskQueue: stack().taskQueue,
        workflowId: stack().workflowId('pull-s3'),
      });
    const first = await pull(); // the orders the push above created
    expect(first.orders).toBeGreaterThan(0);
    // Every file a result names is named by its store location on S3, not by a worker's path.
    const exports = `s3://${s3().bucket}/trace/exports/orders/`;
    expect(first.markFile).toBe(`${exports}high-water-mark.json`);
    expect(first.files?.ndjson).toMatch(new RegExp(`^${exports}orders-updated-after-.*\\.ndjson$`));
    expect(first.files?.csv).toMatch(new RegExp(`^${exports}orders-updated-after-.*\\.csv$`));
    const exported = await store().list('exports/orders/');
    expect(exported).toEqual(expect.arrayContaining(['exports/orders/high-water-mark.json']));
    expect(exported.filter((key) => key.endsWith('.ndjson'))).toHaveLength(1);
    await rm(path.join(dataDir(), 'exports'), { recursive: true, force: true });
    const second = await pull();
    expect(second).toMatchObject({ orders: 0, files: null });
  });

  it('two pulls at once keep each export in the bucket, the mark only moves forward, and no order is missed', async () => {
    const { a, b } = await twoPullsAtOnce(stack(), ['S3-BOTH-1', 'S3-BOTH-2']);
    expect([a.orders, b.orders]).toEqual([1, 2]);
    const numbers = async (url: string | undefined): Promise<string[]> =>
      (await text(url!.replace(`s3://${s3().bucket}/trace/`, '')))
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { orderNumber: string }).orderNumber);
    expect(a.files!.ndjson).not.toBe(b.files!.ndjson);
    expect(await numbers(b.files?.ndjson)).toEqual(['S3-BOTH-1', 'S3-BOTH-2']);
    expect(await numbers(a.files?.ndjson)).toEqual(['S3-BOTH-1']);
    expect(JSON.parse(await text('exports/orders/high-water-mark.json'))).toEqual(b.to);
    const next = await stack().client.workflow.execute(erpPull, {
      args: [{}],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('pull-s3-after'),
    });
    expect(next.orders).toBe(0);
  }, 60_000);

  // Issue 20: "The CLI, given a local file while the store is S3, uploads it under inputs/<workflowId>/ first and
  // passes the reference; --wait prints where the rejects and reports are (an s3:// URL and a presigned https link
  // valid for a day)."
});
