/**
 * Issue 20, with TRACE_STORE_URL=s3://… (versitygw): what an operator running `trace-sync` sees. The CLI uploads a
 * local sheet or mapping under inputs/<workflowId>/ and passes s3:// references as they are; --wait, watch, the run
 * details and the memo name the run files by s3:// location and a working link; retry reads the fixed rejects file
 * from the bucket. The jobs' own files in the bucket are in jobs-on-s3.test.ts; the shared setup is job-stack.ts.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { runKeyOf } from '../../connectors/staging';
import { erpOrders, plmImport } from '../../workflows';
import { repoRoot } from '../../worker/paths';
import { cliProblems } from '../harness/cli';
import { describeWithS3 } from '../harness/versitygw';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';
import { s3JobStack } from './job-stack';

const describeS3 = describeWithS3();

describeS3('trace-sync with TRACE_STORE_URL=s3://… (versitygw)', () => {
  const { s3, stack, store, dataDir, text, cli, runCli } = s3JobStack('cli-s3-');

  it('the CLI uploads a local sheet under inputs/<workflowId>/ and prints the rejects as s3:// and a working link', async () => {
    const rows = nativeRows({ prefix: 'S3CLI', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 });
    rows.push({
      externalId: 'S3CLI-BAD',
      level: 'style',
      name: 'Bad',
      styleType: 'Spaceships',
      isComponent: 'no',
    });
    const local = path.join(dataDir(), '..', `cli-sheet-${Date.now()}.csv`);
    await writeFile(local, toCsv(rows));
    const out = await cli('plm-import', local, '--wait');
    await rm(local, { force: true });
    expect(cliProblems(out.stderr)).toEqual([]);
    expect(out.status).toBe(0);
    const workflowId = /Started workflow (\S+)/.exec(out.stderr)?.[1] ?? '';
    const uploaded = `s3://${s3().bucket}/trace/inputs/${workflowId}/${path.basename(local)}`;
    // The notes (the upload, the links) are on stderr; stdout is the result JSON alone.
    expect(out.stderr).toContain(`Uploaded ${local} to ${uploaded}`);
    expect((await stack().client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');
    const rejectsUrl = `s3://${s3().bucket}/trace/runs/${runKeyOf(workflowId)}/rejects.csv`;
    expect(JSON.parse(out.stdout)).toMatchObject({ rejectsFile: rejectsUrl });
    expect(out.stderr).toContain(`rejectsFile: ${rejectsUrl}`);
    const lines = out.stderr.split('\n');
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
    await store().put('inputs/plm/links-seed.csv', toCsv(nativeRows(shape)));
    await stack().client.workflow.execute(plmImport, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/plm/links-seed.csv` }],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('plm-s3-links-seed'),
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
    const local = path.join(dataDir(), '..', `links-${Date.now()}.csv`);
    await writeFile(local, toCsv(rows));
    const waiting = runCli(['plm-import', local, '--approve', '--wait'], 240_000);
    let workflowId: string | undefined;
    for (let i = 0; i < 240 && !workflowId; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      for await (const run of stack().client.workflow.list({
        query: `TraceSource = '${path.basename(local)}' AND TraceStatus = 'awaiting-approval'`,
      }))
        workflowId = run.workflowId;
    }
    if (!workflowId) throw new Error('the run never awaited approval');
    // Someone edits Z1 on the platform while the plan waits: it is held back and listed in held-back.csv.
    await stack().apiClient.products.update('S3LNK-S1-C1-Z1', { name: 'Edited on the platform' });
    // The CLI polls progress every second: give it time to see the phase and print the notice.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await runCli(['approve', workflowId])).status).toBe(0);
    const out = await waiting;
    await rm(local, { force: true });
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({ status: 0, problems: [] });

    const run = `s3://${s3().bucket}/trace/runs/${runKeyOf(workflowId)}/`;
    const result = (await stack().client.workflow.getHandle(workflowId).result()) as {
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
      out.stderr.split('\n').find((line) => line.startsWith('{"awaitingApproval"')) ?? 'null',
    ) as { awaitingApproval: { files?: { url: string; link: string }[] } } | null;
    const noticed = new Map((notice?.awaitingApproval.files ?? []).map((file) => [file.url, file.link]));
    expect([...noticed.keys()]).toEqual([`${run}plan.html`, `${run}plan.xlsx`]);
    await expectPlan(
      await fetched(noticed.get(`${run}plan.html`)),
      await fetched(noticed.get(`${run}plan.xlsx`)),
    );

    // Once it ends, every run file the result names: its label, its s3:// URL, and a link on the next line.
    const lines = out.stderr.split('\n');
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
    await store().put('inputs/plm/watched.csv', toCsv(rows));
    const handle = await stack().client.workflow.start(plmImport, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/plm/watched.csv` }],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('plm-s3-watched'),
    });
    const out = await runCli(['watch', handle.workflowId]);
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({ status: 0, problems: [] });
    const rejectsUrl = `s3://${s3().bucket}/trace/runs/${runKeyOf(handle.workflowId)}/rejects.csv`;
    const lines = out.stderr.split('\n');
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
    await store().put('inputs/plm/retry.csv', toCsv(rows));
    const workflowId = stack().workflowId('plm-s3-rejects-url');
    const result = await stack().client.workflow.execute(plmImport, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/plm/retry.csv` }],
      taskQueue: stack().taskQueue,
      workflowId,
    });
    expect(result.products).toMatchObject({ created: 3, rejected: 1 });
    const runKey = `runs/${runKeyOf(workflowId)}`;
    const run = `s3://${s3().bucket}/trace/${runKey}/`;
    expect({ rejectsFile: result.rejectsFile, resultFile: result.resultFile }).toEqual({
      rejectsFile: `${run}rejects.csv`,
      resultFile: `${run}result.json`,
    });
    expect(JSON.parse(await text(`${runKey}/result.json`))).toMatchObject({
      rejectsFile: `${run}rejects.csv`,
      resultFile: `${run}result.json`,
    });
    const handle = stack().client.workflow.getHandle(workflowId);
    expect((await handle.describe()).memo).toMatchObject({
      rejectsFile: `${run}rejects.csv`,
      resultFile: `${run}result.json`,
    });
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain(`rejects file: ${run}rejects.csv`);

    // As a user would: download the rejects file, fix the style type, upload it back.
    const rejects = await text(`${runKey}/rejects.csv`);
    expect(rejects).toContain('S3RTY-FIX');
    await store().put(`${runKey}/rejects.csv`, rejects.replace(',Spaceships,', ',T-shirts,'));
    const out = await cli('retry', workflowId, '--wait');
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({ status: 0, problems: [] });
    const retryId = /Started workflow (\S+)/.exec(out.stderr)?.[1] ?? '';
    const retried = (await stack().client.workflow.getHandle(retryId).result()) as {
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
    expect(await stack().apiClient.products.get('S3RTY-FIX')).toMatchObject({ name: 'To fix' });
  });

  it('ERP push on S3: the result and run details name the rejects by s3:// location; retry pushes the fixed order', async () => {
    const csv = [
      'order_number,supplier_code,line_number,product_external_id,quantity,unit',
      'S3R-1,SUP-1001,1,PLM-TEE-001-BLK,5,PIECES',
      'S3R-2,SUP-9999,1,PLM-JKT-010-NVY,7,PIECES',
    ].join('\n');
    await store().put('inputs/erp/retry.csv', csv);
    const workflowId = stack().workflowId('erp-s3-rejects-url');
    const result = await stack().client.workflow.execute(erpOrders, {
      args: [{ file: `s3://${s3().bucket}/trace/inputs/erp/retry.csv` }],
      taskQueue: stack().taskQueue,
      workflowId,
    });
    const runKey = `runs/${runKeyOf(workflowId)}`;
    const rejectsUrl = `s3://${s3().bucket}/trace/${runKey}/rejects.csv`;
    expect(result).toMatchObject({ rejectedRows: 1, rejectsFile: rejectsUrl });
    const metadata = (await stack()
      .client.workflow.getHandle(workflowId)
      .query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toContain(`rejects file: ${rejectsUrl}`);

    const rejects = await text(`${runKey}/rejects.csv`);
    await store().put(`${runKey}/rejects.csv`, rejects.replace(',SUP-9999,', ',SUP-1001,'));
    const out = await cli('retry', workflowId, '--wait');
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({ status: 0, problems: [] });
    const retryId = /Started workflow (\S+)/.exec(out.stderr)?.[1] ?? '';
    expect(await stack().client.workflow.getHandle(retryId).result()).toMatchObject({
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
    expect(cliProblems(out.stderr)).toEqual([]);
    expect(out.status).toBe(0);
    const workflowId = /Started workflow (\S+)/.exec(out.stderr)?.[1] ?? '';
    for (const name of ['orders.csv', 'profile-eu.json'])
      expect(out.stderr).toContain(`to s3://${s3().bucket}/trace/inputs/${workflowId}/${name}`);
    const result = (await stack().client.workflow.getHandle(workflowId).result()) as {
      profile: string;
      orders: { total: number };
    };
    expect(result.profile).toBe(`s3://${s3().bucket}/trace/inputs/${workflowId}/profile-eu.json`);
    expect(result.orders.total).toBeGreaterThan(0);
  });

  // README, "Run data in object storage": "a job's `file` may be `s3://bucket/key` … a job's `mappingFile` may be an
  // `s3://` reference too." An operator re-running a drop from the inbox's failed/ names it where it lies.
  it('the CLI passes an s3:// export and an s3:// mapping as they are: nothing uploaded, the worker reads them', async () => {
    const examples = path.join(repoRoot(), 'examples', 'erp');
    await store().put(
      'inbox/erp/failed/orders.csv',
      await readFile(path.join(examples, 'orders.csv'), 'utf8'),
    );
    await store().put('profiles/eu.json', await readFile(path.join(examples, 'profile-eu.json'), 'utf8'));
    const file = `s3://${s3().bucket}/trace/inbox/erp/failed/orders.csv`;
    const mapping = `s3://${s3().bucket}/trace/profiles/eu.json`;
    const out = await cli('erp-orders', file, '--mapping', mapping, '--dry-run', '--wait');
    expect(cliProblems(out.stderr)).toEqual([]);
    expect(out.status).toBe(0);
    expect(out.stderr).not.toContain('Uploaded');
    const workflowId = /Started workflow (\S+)/.exec(out.stderr)?.[1] ?? '';
    expect(workflowId).toMatch(/^erp-orders-orders\.csv-/);
    const result = (await stack().client.workflow.getHandle(workflowId).result()) as {
      profile: string;
      orders: { total: number };
    };
    expect(result.profile).toBe(mapping);
    expect(result.orders.total).toBeGreaterThan(0);

    const plm = await cli('plm-import', `s3://${s3().bucket}/trace/no/such/sheet.csv`, '--wait');
    expect(plm.status).not.toBe(0);
    expect(plm.stderr + plm.stdout).toContain(`s3://${s3().bucket}/trace/no/such/sheet.csv`);
    expect(plm.stderr + plm.stdout).not.toContain('no file at');
    // A mapping reference that names an export, not a profile, is refused by its size, not downloaded whole.
    await store().put('profiles/huge.json', `[${'{"order_number":"PO-1"},'.repeat(60_000)}{}]`);
    const huge = await cli(
      'erp-orders',
      file,
      '--mapping',
      `s3://${s3().bucket}/trace/profiles/huge.json`,
      '--wait',
    );
    expect(huge.status).not.toBe(0);
    expect(huge.stderr + huge.stdout).toMatch(/over the limit of 1,048,576 bytes for a mapping file/);
    const bad = await cli('erp-orders', 's3://bucket-only');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('s3://bucket-only names a bucket but no object key');
  });

  // A PLM mapping on S3 the reader refuses is refused with the reader's reason, as a local path or an ERP mapping
  // on S3 is: "cannot be read (the path is read on the worker)" sends the operator looking for a missing file.
  it('plm-import with an s3:// mapping the reader refuses names the reason (too large, a key twice, __proto__, too deep, missing)', async () => {
    await store().put(
      'inputs/plm/refused-sheet.csv',
      toCsv(nativeRows({ prefix: 'S3MAP', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })),
    );
    const sheet = `s3://${s3().bucket}/trace/inputs/plm/refused-sheet.csv`;
    const cases: Array<[string, string | undefined, RegExp]> = [
      [
        'huge.json',
        `[${'{"externalId":"PLM-1"},'.repeat(60_000)}{}]`,
        /over the limit of 1,048,576 bytes for a mapping file/,
      ],
      ['twice.json', '{"layout":"native","layout":"native"}', /layout.*appears twice in the top level/],
      ['proto.json', '{"layout":"native","__proto__":{}}', /__proto__.*names JavaScript's object prototype/],
      ['deep.json', `${'['.repeat(70)}${']'.repeat(70)}`, /nested more than 64 levels deep/],
      // Named once: "mapping file s3://…/plm-missing.json: it was not found in the bucket".
      ['missing.json', undefined, /plm-missing\.json: it was not found in the bucket/],
    ];
    for (const [name, body, reason] of cases) {
      if (body !== undefined) await store().put(`profiles/plm-${name}`, body);
      const mapping = `s3://${s3().bucket}/trace/profiles/plm-${name}`;
      const out = await cli('plm-import', sheet, '--mapping', mapping, '--wait');
      expect({ name, status: out.status === 0 }).toEqual({ name, status: false });
      expect({ name, said: out.stderr + out.stdout }).toEqual({
        name,
        said: expect.stringMatching(reason) as unknown,
      });
      expect(out.stderr + out.stdout).not.toContain('read on the worker');
    }
  });
});
