import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { runKeyOf } from '../../connectors/staging';
import { S3Store, type ObjectStore } from '../../connectors/storage';
import { s3ClientFor } from '../../connectors/storage';
import { certificateExpiryReport, importPlmSpreadsheet, pushErpOrders, repairBomForks } from '../../workflows';
import { startTestStack, type TestStack } from '../harness';
import { describeWithS3, startS3, type RunningS3 } from '../harness/versitygw';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';

const describeS3 = describeWithS3();

// Issue 20: "The integration suite runs the four jobs once with TRACE_STORE_URL=s3://… against that server."
describeS3('the four jobs with TRACE_STORE_URL=s3://… (versitygw)', () => {
  let s3: RunningS3;
  let stack: TestStack;
  let store: ObjectStore;
  let dataDir: string;
  const text = async (key: string): Promise<string> => ((await store.get(key)) ?? Buffer.from('')).toString('utf8');

  beforeAll(async () => {
    s3 = await startS3();
    dataDir = await mkdtemp(path.join(tmpdir(), 'jobs-s3-'));
    const settings = { url: s3.storeUrl('trace'), endpoint: s3.endpoint, region: s3.region, credentials: s3.credentials };
    stack = await startTestStack({ config: { dataDir, store: settings }, sandbox: { rateLimitPerMinute: 100_000 } });
    store = new S3Store(s3ClientFor(settings), s3.bucket, 'trace');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await s3?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('PLM import reads an s3:// sheet; staging, journals, rejects and result land in the bucket', async () => {
    const rows = nativeRows({ prefix: 'S3PLM', styles: 2, coloursPerStyle: 1, sizesPerColour: 2 });
    rows.push({ externalId: 'S3PLM-BAD', level: 'style', name: 'Bad', styleType: 'Spaceships', isComponent: 'no' });
    await store.put('inputs/plm/sheet.csv', toCsv(rows));
    const workflowId = stack.workflowId('plm-s3');
    const result = await stack.client.workflow.execute(importPlmSpreadsheet, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/plm/sheet.csv` }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result.products).toMatchObject({ created: 8, rejected: 1 });
    const run = `runs/${runKeyOf(workflowId)}/`;
    const keys = await store.list(run);
    expect(keys).toEqual(expect.arrayContaining([`${run}source.csv`, `${run}result.json`, `${run}rejects.csv`, `${run}plan.json`]));
    expect(keys.some((key) => key.startsWith(`${run}journal/`) && key.includes('.ndjson.d/'))).toBe(true);
    expect(await text(`${run}rejects.csv`)).toContain('S3PLM-BAD');
    // Nothing of the journal on the worker's disk: another worker resumes from the bucket alone.
    expect(existsSync(path.join(dataDir, 'runs', runKeyOf(workflowId), 'journal'))).toBe(false);
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
    const result = await stack.client.workflow.execute(pushErpOrders, {
      args: [{ file: `s3://${s3.bucket}/trace/inputs/erp/orders.csv` }],
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result.orders.created).toBe(1);
    expect(result.rejectedRows).toBe(1);
    const run = `runs/${runKeyOf(workflowId)}/`;
    const rejects = Papa.parse<Record<string, string>>((await text(`${run}rejects.csv`)).replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    }).data;
    expect(rejects.map((row) => row.order_number)).toEqual(['S3-2']);
    expect((await store.list(`${run}outcomes/`)).length).toBeGreaterThan(0);
    expect(await store.list(`${run}batches/`)).toEqual([]);
  });

  it('a missing s3:// export fails at once, naming the reference', async () => {
    const failure = await stack.client.workflow
      .execute(pushErpOrders, {
        args: [{ file: `s3://${s3.bucket}/trace/inputs/erp/none.csv` }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('erp-s3-missing'),
      })
      .then(() => undefined, (error: unknown) => error);
    const messages: string[] = [];
    for (let at = failure as { message?: string; cause?: unknown } | undefined; at; at = at.cause as typeof at)
      messages.push(at.message ?? '');
    expect(messages.join(' | ')).toContain(`s3://${s3.bucket}/trace/inputs/erp/none.csv was not found in the bucket`);
  });

  it('BOM repair (dry run) stages its candidates in the bucket, not on the disk', async () => {
    const result = await stack.client.workflow.execute(repairBomForks, {
      args: [{ all: true, dryRun: true }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('bom-s3'),
    });
    expect(result).toBeDefined();
    expect(existsSync(path.join(dataDir, 'staging'))).toBe(false);
  });

  it('the certificate report lands in the bucket under reports/', async () => {
    const result = await stack.client.workflow.execute(certificateExpiryReport, {
      args: [{ asOf: '2026-01-15' }],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('cert-s3'),
    });
    const keys = await store.list('reports/');
    for (const file of [result.files.xlsx, result.files.csv, result.files.html]) {
      expect(keys.some((key) => file.endsWith(key))).toBe(true);
    }
    expect((await text(keys.find((key) => key.endsWith('.csv'))!)).split('\n').length).toBeGreaterThan(result.total > 0 ? 1 : 0);
  });
});
