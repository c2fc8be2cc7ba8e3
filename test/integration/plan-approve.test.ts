import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import * as XLSX from 'xlsx';
import { isTraceabilityApiError } from '../../connectors/traceability';
import { plmImport } from '../../workflows';
import type { ApprovalOutcome } from '../../workflows/approval';
import type { PlmImportResult } from '../../workflows/plm-import';
import { TraceStatus } from '../../worker/search-attributes';
import { nativeRows, toCsv, type NativeRow } from '../unit/plm-activities/native-sheet';
import { cliEnv, cliProblems, traceSync } from '../harness/cli';
import { sandboxApi } from '../harness/sandbox-api';
import { awaitingApproval, planApproveStack, scheduledActivities } from './job-stack';

/**
 * Issue 21, "Plan, then approve": `plm-import --approve` plans, writes plan.html and plan.xlsx, sets TraceStatus
 * `awaiting-approval` and waits for `approve` or `reject`. "Approve applies exactly the planned changes; if the
 * platform changed in between, the changed products are re-planned and reported, never blindly written."
 * This file: the PLM import; `erp-orders --approve` is in plan-approve-erp.test.ts, the shared setup in job-stack.ts.
 */

type Result = PlmImportResult & { approval?: ApprovalOutcome };

describe('plan, then approve (PLM import)', () => {
  const { stack, dir, cli, startAwaiting, currentDetails, cancelWhilePlanning } =
    planApproveStack('plan-approve-');

  const sheet = (name: string, rows: readonly NativeRow[]) => {
    const file = path.join(dir(), name);
    writeFileSync(file, toCsv(rows));
    return file;
  };

  const importNow = async (file: string) => {
    const handle = await stack().client.workflow.start(plmImport, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('seed'),
      args: [{ file }],
    });
    return handle.result();
  };

  /** Starts a PLM import of `file` that will await approval, through the API (not the CLI, which waits for the plan). */
  const startForApproval = (name: string, file: string, extra: { batchSize?: number } = {}) =>
    stack().client.workflow.start(plmImport, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId(name),
      args: [{ file, approval: true, ...extra }],
    });

  const onPlatform = async (externalId: string) => {
    try {
      return await stack().apiClient.products.get(externalId);
    } catch (error) {
      if (isTraceabilityApiError(error) && error.statusCode === 404) return undefined;
      throw error;
    }
  };

  /** What the run awaiting approval shows: its details (the Web UI's, the CLI's) and its plan.html. */
  const awaitingPlan = async (handle: WorkflowHandle) => ({
    details: await currentDetails(handle, (text) => text.includes('Awaiting approval')),
    html: readFileSync(path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.html'), 'utf8'),
  });

  it('approve applies exactly the plan: html and xlsx list the creates and each update field before → after', async () => {
    const shape = { prefix: 'APV', coloursPerStyle: 1, sizesPerColour: 2 };
    await importNow(sheet('apv-seed.csv', nativeRows({ ...shape, styles: 1 })));
    const rows = nativeRows({ ...shape, styles: 2 }).map((row) =>
      row.externalId === 'APV-S1-C1-Z1' ? { ...row, name: 'Renamed tee' } : row,
    );
    const handle = await startAwaiting(sheet('apv.csv', rows));

    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('awaiting-approval');
    expect(await onPlatform('APV-S2')).toBeUndefined();
    const runFolder = path.join(stack().config.dataDir, 'runs');
    const html = readFileSync(path.join(runFolder, handle.workflowId, 'plan.html'), 'utf8');
    expect(html).toContain('APV-S2');
    // The command the page tells the approver to type works on a fresh clone, as the CLI's hints do.
    expect(html).toContain(`<code>npx trace-sync approve ${handle.workflowId}</code>`);
    expect(html).toMatch(
      /APV-S1-C1-Z1<\/td>\s*<td>sku<\/td>\s*<td>name<\/td>\s*<td>Tee 1 colour 1 size 1<\/td>\s*<td>Renamed tee<\/td>/,
    );
    const workbook = XLSX.readFile(path.join(runFolder, handle.workflowId, 'plan.xlsx'));
    expect(workbook.SheetNames).toEqual(['Creates', 'Updates', 'Compositions', 'Deletes', 'Rejects']);
    expect(XLSX.utils.sheet_to_json(workbook.Sheets.Updates as XLSX.WorkSheet)).toEqual([
      {
        product: 'APV-S1-C1-Z1',
        level: 'sku',
        column: 'name',
        before: 'Tee 1 colour 1 size 1',
        after: 'Renamed tee',
      },
    ]);

    const approved = await cli('approve', handle.workflowId, '--by', 'ops-lead');
    expect(approved.status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.products).toMatchObject({ created: 4, updated: 1, rejected: 0 });
    expect(result.approval).toMatchObject({
      decision: 'approved',
      by: 'ops-lead',
      timedOut: false,
      replanned: [],
    });
    expect((await onPlatform('APV-S1-C1-Z1'))?.name).toBe('Renamed tee');
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('done');
  }, 300_000);

  // plan.html showed each create as the API's JSON ({"name":…,"styleTypeId":"st_tshirts"}) and each update's API field,
  // under two "Creates (N)" headings, the sheet's name and values unescaped, every row of a big import.
  it("plan.html reads in the sheet's columns and names, one heading a section, escaped, the first 500 rows and how many more", async () => {
    const header = 'Style Number,Style Name,Style Type,Season,Brand,Colour Code,Colour,Size,SKU';
    const seed = path.join(dir(), 'wrd-seed.csv');
    writeFileSync(
      seed,
      [header, 'WRD0,Plain tee,T-shirts,SS25,Nordic Threads,BLK,Black,M,WRD0-BLK-M'].join('\r\n'),
    );
    await stack().client.workflow.execute(plmImport, {
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId('seed'),
      args: [{ file: seed, profile: 'flat' }],
    });
    const sizes = Array.from({ length: 520 }, (_, index) => `Z${index + 1}`);
    const file = sheet('plan <words> & co.csv', []);
    writeFileSync(
      file,
      [
        header,
        'WRD0,Plain tee,T-shirts,AW25,Nordic Threads,BLK,Black,M,WRD0-BLK-M',
        ...sizes.map(
          (size) => `WRD1,<b>Tee</b> & co,T-shirts,SS25,Nordic Threads,BLK,Black,${size},WRD1-BLK-${size}`,
        ),
      ].join('\r\n'),
    );
    const handle = await startAwaiting(file, '--profile', 'flat');
    const runDir = path.join(stack().config.dataDir, 'runs', handle.workflowId);
    const html = readFileSync(path.join(runDir, 'plan.html'), 'utf8');

    expect(html.match(/Creates \(/g)).toHaveLength(1);
    expect(html).not.toContain('<caption>');
    expect(html).toContain('<h2>Creates (522)</h2>');
    expect(html).toContain('sheet <code>' + path.join(dir(), 'plan &lt;words&gt; &amp; co.csv') + '</code>');
    const style = /<td>WRD1<\/td>\s*<td>style<\/td>.*<\/tr>/.exec(html)?.[0] ?? '';
    expect(style).toContain('<td>3–522</td>');
    for (const said of [
      'Style Name: &lt;b&gt;Tee&lt;/b&gt; &amp; co',
      'Style Type: T-shirts',
      'Season: SS25',
      'Brand: Nordic Threads',
      'Style Number (PLM_ID): WRD1',
      'component flag (yes or no): no',
    ])
      expect(style).toContain(said);
    expect(html).not.toContain('<b>Tee');
    expect(html).not.toMatch(/styleTypeId|"name"|st_tshirts|prop_/);
    expect(html).toMatch(/WRD0<\/td>\s*<td>style<\/td>\s*<td>Season<\/td>\s*<td>SS25<\/td>\s*<td>AW25<\/td>/);
    expect(html).toContain(
      'The first 500 are shown; 22 more are not: plan.xlsx (sheet Creates) lists every one.',
    );
    expect(html.match(/<td>WRD1-BLK-Z\d+<\/td>/g)).toHaveLength(500 - 2);
    const workbook = XLSX.readFile(path.join(runDir, 'plan.xlsx'));
    expect(XLSX.utils.sheet_to_json(workbook.Sheets.Creates as XLSX.WorkSheet)).toHaveLength(522);
    await cli('reject', handle.workflowId, '--by', 'ops-lead');
    await handle.result();
  }, 300_000);

  // Spec 01, GET /styles/{id}: "Inherited fields come back resolved." The plan's "before" is read so: a variant that
  // inherits its style's description, given the same text by the sheet, showed "Organic tee number 1" → the same, an
  // update that looked like none, though it makes the variant hold its own value (the style's later edits no longer
  // reach it).
  it('an update that makes a child hold the value it inherits says so in the plan', async () => {
    const shape = { prefix: 'INH', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 };
    await importNow(sheet('inh-seed.csv', nativeRows(shape)));
    const rows = nativeRows(shape).map((row) =>
      row.externalId === 'INH-S1-C1' ? { ...row, description: 'Organic tee number 1' } : row,
    );
    const handle = await startAwaiting(sheet('inh.csv', rows));
    const workbook = XLSX.readFile(path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.xlsx'));
    expect(XLSX.utils.sheet_to_json(workbook.Sheets.Updates as XLSX.WorkSheet)).toEqual([
      {
        product: 'INH-S1-C1',
        level: 'variant',
        column: 'description',
        before: 'Organic tee number 1 (inherited from its parent; the update makes it its own)',
        after: 'Organic tee number 1',
      },
    ]);
    await cli('reject', handle.workflowId, '--by', 'ops-lead');
    await handle.result();
  }, 300_000);

  // `trace-sync retry` of a run whose plan was rejected started a retry of its rejects file alone: approved, it would
  // import the rows the plan rejected and none of those it would have written.
  it('retry refuses a run whose plan was rejected, saying nothing was written and to run the file again', async () => {
    const file = path.join(dir(), 'apv-rejected-plan.csv');
    writeFileSync(
      file,
      [
        'Style Number,Style Name,Style Type,Colour Code,Colour,Size,SKU',
        'FRP1,Tee,T-shirt,RED,Red,M,FRP1-RED-M', // unknown style type: rejected in the plan
        'FRP2,Tee,T-shirts,BLU,Blue,M,FRP2-BLU-M',
      ].join('\r\n') + '\r\n',
    );
    const handle = await startAwaiting(file, '--profile', 'flat');
    expect((await cli('reject', handle.workflowId, '--by', 'ops-lead')).status).toBe(0);
    expect(((await handle.result()) as Result).rejectsFile).not.toBeNull();
    const retry = await cli('retry', handle.workflowId);
    expect({ status: retry.status, stdout: retry.stdout, stderr: retry.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `trace-sync: the plan of ${handle.workflowId} was rejected (by ops-lead), so nothing was written; its rejects file holds only the rows the plan rejected, and a retry would import those alone: start the job on ${file} again instead\n`,
    });
  }, 300_000);

  // A flat row of a rejected style names only the style in its issue, though its colour variant and SKUs are rejected
  // with it: the plan's "N rejected" counted the products named by an issue, fewer than the run's result then said.
  it('the plan says as many rejected as the run does: a flat style rejected with its colour and SKUs counts each one', async () => {
    const file = path.join(dir(), 'apv-flat.csv');
    writeFileSync(
      file,
      [
        'Style Number,Style Name,Style Type,Colour Code,Colour,Size,SKU',
        'FRJ1,Tee,T-shirt,RED,Red,M,FRJ1-RED-M', // unknown style type: the style, its colour and both SKUs
        'FRJ1,Tee,T-shirt,RED,Red,L,FRJ1-RED-L',
        'FOK1,Tee,T-shirts,BLU,Blue,M,FOK1-BLU-M',
      ].join('\r\n') + '\r\n',
    );
    const handle = await startAwaiting(file, '--profile', 'flat');
    const { details, html } = await awaitingPlan(handle);
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.products).toMatchObject({ rejected: 4, created: 0 });
    expect(result.rejectedRows).toBe(2);
    expect(details).toContain(
      '3 to create, 0 to update, 0 to delete, 4 rejected; 2 rows rejected (see Rejects)',
    );
    expect(html).toContain(
      '0 to delete (the import never deletes), 4 rejected; 2 rows rejected (see Rejects)',
    );
  }, 300_000);

  // plan.html named the archived products the run leaves alone; the run's details, what the Web UI and `--wait` show
  // the approver, said "0 rejected" and nothing of them.
  it('the details awaiting approval name the archived products left as they are, as plan.html does', async () => {
    const shape = { prefix: 'ARV', coloursPerStyle: 1, sizesPerColour: 1 };
    await importNow(sheet('arv-seed.csv', nativeRows({ ...shape, styles: 1 })));
    const style = await onPlatform('ARV-S1');
    await stack().apiClient.products.archive([style?.id ?? '']);
    const handle = await startAwaiting(sheet('arv.csv', nativeRows({ ...shape, styles: 2 })));
    const { details, html } = await awaitingPlan(handle);
    expect((await cli('reject', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.plan).toMatchObject({ archived: 3, create: 3 });
    expect(html).toContain('0 rejected, 3 archived left as they are; 3 rows rejected (see Rejects)');
    expect(details).toContain(
      '3 to create, 0 to update, 0 to delete, 0 rejected, 3 archived left as they are; 3 rows rejected (see Rejects)',
    );
  }, 300_000);

  // A row with a blank externalId is rejected (rejects file, the result's `rejectedRows`) but is no product: the plan
  // said "0 rejected" above a Rejects table holding it, and nothing of the rows the run then counted.
  it('the plan counts the rows rejected as the result does, those naming no product included', async () => {
    const shape = { prefix: 'KLS', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 };
    const rows: NativeRow[] = [
      ...nativeRows(shape),
      { externalId: '', parentExternalId: 'KLS-S1-C1', level: 'sku', name: 'No key', dimension: 'XL' },
      ...nativeRows({ ...shape, prefix: 'KLB', coloursPerStyle: 0 }).map((row) => ({
        ...row,
        styleType: 'No such type',
      })),
    ];
    const handle = await startAwaiting(sheet('kls.csv', rows));
    const { details, html } = await awaitingPlan(handle);
    expect((await cli('approve', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.products).toMatchObject({ created: 3, rejected: 1 });
    expect(result.rejectedRows).toBe(2);
    const said = '1 rejected; 2 rows rejected, 1 naming no product (see Rejects)';
    expect(html).toContain(`0 to delete (the import never deletes), ${said}`);
    expect(details).toContain(`3 to create, 0 to update, 0 to delete, ${said}`);
  }, 300_000);

  it('a reject writes nothing and the run ends as rejected', async () => {
    const handle = await startAwaiting(
      sheet('rej.csv', nativeRows({ prefix: 'RJT', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })),
    );
    const rejected = await cli('reject', handle.workflowId, '--by', 'ops-lead', '--reason', 'wrong season');
    expect(rejected.status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.approval).toMatchObject({ decision: 'rejected', by: 'ops-lead', reason: 'wrong season' });
    expect(result.products).toMatchObject({ created: 0, updated: 0 });
    expect(await onPlatform('RJT-S1')).toBeUndefined();
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('rejected');
    expect(existsSync(path.join(stack().config.dataDir, 'runs', handle.workflowId, 'plan.html'))).toBe(true);
    const late = await cli('approve', handle.workflowId);
    expect(late.status).toBe(1);
    expect(late.stderr).toContain(
      `Workflow ${handle.workflowId} is completed: there is no plan waiting for a decision`,
    );
  }, 300_000);

  // Without --by, a decision from cron or a service (no $USER) was recorded `"by": "trace-sync"`, naming no one.
  it('without --by, the decision names the operating-system user running the CLI, $USER unset or not', async () => {
    const handle = await startAwaiting(
      sheet('who.csv', nativeRows({ prefix: 'WHO', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })),
    );
    const env = cliEnv(stack(), { USER: undefined, LOGNAME: undefined });
    expect((await traceSync(['reject', handle.workflowId], env, 90_000)).status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.approval).toMatchObject({ decision: 'rejected', by: os.userInfo().username });
  }, 300_000);

  // README: TraceStatus `cancelled` for a cancelled run; `awaiting-approval` only "while a plan waits".
  it('a run cancelled while it awaits approval ends with TraceStatus cancelled, and no longer offers the approve command', async () => {
    const handle = await startAwaiting(
      sheet(
        'cancel-gate.csv',
        nativeRows({ prefix: 'CNG', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 }),
      ),
    );
    expect(await currentDetails(handle, (d) => d.includes('trace-sync approve'))).toContain(
      `npx trace-sync approve ${handle.workflowId}`,
    );
    await handle.cancel();
    await expect(handle.result()).rejects.toThrow();
    const description = await handle.describe();
    expect(description.status.name).toBe('CANCELLED');
    expect(description.typedSearchAttributes.get(TraceStatus)).toBe('cancelled');
    const details = await currentDetails(handle, (d) => !d.includes('trace-sync approve'));
    expect(details).not.toContain('trace-sync approve');
    expect(details).toMatch(/Cancelled\W* while awaiting approval/);
    expect(await onPlatform('CNG-S1')).toBeUndefined();
  }, 300_000);

  // As a cancel during the wait: the run never got to write, so "it stopped before its next write" would mislead.
  it('a run cancelled while it still makes its plan (before the wait): watch says nothing was written, the plan was never approved, run the input again for a new plan', async () => {
    const { control } = sandboxApi(stack);
    const file = sheet(
      'cancel-planning.csv',
      nativeRows({ prefix: 'CPL', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 }),
    );
    // Each read of a product (GET /styles) takes 10 s, so the cancel finds the run making its plan.
    await control('/__sandbox/faults', 'PUT', {
      latencyMs: 10_000,
      methods: ['GET'],
      pathPrefix: '/styles',
    });
    try {
      const handle = await startForApproval('cancel-planning', file);
      await cancelWhilePlanning(handle, 'planPlmImport');
      // It was cancelled in the plan itself: no plan files were written, and no decision was awaited.
      expect(await scheduledActivities(handle)).not.toContain('writePlmApprovalPlan');
      expect((await (await handle.describe()).memo)?.['cancelledAt']).toBe('planning');
    } finally {
      await control('/__sandbox/faults', 'DELETE');
    }
  }, 300_000);

  it('with --wait, the CLI says the run awaits approval (plan files, approve command) and waits for the decision', async () => {
    const waiting = cli(
      'plm-import',
      sheet('wait.csv', nativeRows({ prefix: 'WTA', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })),
      '--approve',
      '--wait',
    );
    let id: string | undefined;
    for (let i = 0; i < 120 && !id; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      for await (const run of stack().client.workflow.list({
        query: `TraceSource = 'wait.csv' AND TraceStatus = 'awaiting-approval'`,
      }))
        id = run.workflowId;
    }
    expect(id).toBeDefined();
    // The CLI polls progress every second: give it time to see the phase and print the notice.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // The command it prints works as written on a fresh clone (no global install), as the README's do.
    expect(await cli('approve', id as string)).toMatchObject({
      status: 0,
      stdout: `Sent approve to ${id} (follow it with \`npx trace-sync watch ${id}\`)\n`,
    });
    const out = await waiting;
    expect({ status: out.status, problems: cliProblems(out.stderr) }).toEqual({ status: 0, problems: [] });
    const notice = out.stderr.split('\n').find((line) => line.startsWith('{"awaitingApproval"'));
    expect(JSON.parse(notice ?? 'null')).toEqual({
      awaitingApproval: {
        workflowId: id,
        details: expect.stringMatching(/plan\.html.*plan\.xlsx[\s\S]*`npx trace-sync approve /),
      },
    });
    const result = JSON.parse(out.stdout) as Result;
    expect(result.products).toMatchObject({ created: 3 });
  }, 300_000);

  it('unanswered, the plan is rejected after its timeout by default', async () => {
    const handle = await startAwaiting(
      sheet('late.csv', nativeRows({ prefix: 'LTE', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })),
      '--approve-timeout',
      '2',
    );
    const result = (await handle.result()) as Result;
    expect(result.approval).toMatchObject({ decision: 'rejected', by: 'timeout', timedOut: true });
    expect(await onPlatform('LTE-S1')).toBeUndefined();
  }, 300_000);

  it('"if the platform changed in between, the changed products are re-planned and reported, never blindly written"', async () => {
    const shape = { prefix: 'CHG', styles: 1, coloursPerStyle: 1, sizesPerColour: 2 };
    await importNow(sheet('chg-seed.csv', nativeRows(shape)));
    const rows = nativeRows(shape).map((row) =>
      row.externalId === 'CHG-S1-C1-Z1'
        ? { ...row, name: 'Planned name 1' }
        : row.externalId === 'CHG-S1-C1-Z2'
          ? { ...row, name: 'Planned name 2' }
          : row,
    );
    const handle = await startAwaiting(sheet('chg.csv', rows));
    // Someone edits Z1 on the platform while the plan waits.
    await stack().apiClient.products.update('CHG-S1-C1-Z1', { name: 'Edited on the platform' });
    expect((await cli('approve', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.approval?.replanned).toEqual([
      {
        externalId: 'CHG-S1-C1-Z1',
        approved: 'update name',
        now: 'update name (changed on the platform since the plan)',
      },
    ]);
    expect(result.products).toMatchObject({ updated: 1 });
    expect((await onPlatform('CHG-S1-C1-Z1'))?.name).toBe('Edited on the platform');
    expect((await onPlatform('CHG-S1-C1-Z2'))?.name).toBe('Planned name 2');
  }, 300_000);

  // Spec 01: code values are unique per type on every write. A swap of barcodes is written in three PUTs, one product
  // twice: the plan shows each write; approved, the swap goes together or not at all.
  it('a barcode swap shows its three writes in plan.html; approved it is written, and held back whole when one product changed', async () => {
    const [G, H] = ['4006381333931', '4006381333948'];
    const withEans = (name: string, rows: readonly NativeRow[], eans: Record<string, string>) => {
      const file = path.join(dir(), name);
      const lines = toCsv(rows).split('\r\n');
      writeFileSync(
        file,
        lines
          .map((line, index) =>
            index === 0
              ? `${line},EAN_GTIN_13`
              : line === ''
                ? line
                : `${line},${eans[line.split(',')[0] ?? ''] ?? ''}`,
          )
          .join('\r\n'),
      );
      return file;
    };
    const ean = async (externalId: string) =>
      (await onPlatform(externalId))?.codes.find((code) => code.codeId === 'EAN_GTIN_13')?.codeValue;
    for (const prefix of ['SWP', 'SWQ']) {
      const rows = nativeRows({ prefix, styles: 1, coloursPerStyle: 1, sizesPerColour: 2 });
      const [z1, z2] = [`${prefix}-S1-C1-Z1`, `${prefix}-S1-C1-Z2`];
      const values = prefix === 'SWP' ? [G, H] : ['5012345678900', '4006381333955'];
      const [a, b] = values as [string, string];
      await importNow(withEans(`${prefix}-seed.csv`, rows, { [z1]: a, [z2]: b }));
      const handle = await startAwaiting(withEans(`${prefix}.csv`, rows, { [z1]: b, [z2]: a }));
      const { html } = await awaitingPlan(handle);
      expect(html).toContain('0 to create, 2 to update (3 field changes)');
      expect(html).toMatch(
        new RegExp(
          `${z1}</td>\\s*<td>sku</td>\\s*<td>code</td>\\s*<td>PLM_ID ${z1}, EAN_GTIN_13 ${a}</td>\\s*<td>PLM_ID ${z1} \\(first of two writes`,
        ),
      );
      if (prefix === 'SWQ')
        // Someone edits the other product of the swap while the plan waits: neither is written.
        await stack().apiClient.products.update(z2, { name: 'Edited on the platform' });
      expect((await cli('approve', handle.workflowId)).status).toBe(0);
      const result = (await handle.result()) as Result;
      if (prefix === 'SWP') {
        expect(result.products).toMatchObject({ updated: 2, rejected: 0 });
        expect(result.approval?.replanned).toEqual([]);
        expect([await ean(z1), await ean(z2)]).toEqual([b, a]);
      } else {
        expect(result.products).toMatchObject({ updated: 0, rejected: 0 });
        // One row a product: the freed one's two writes are one product held back.
        expect(result.approval?.replanned.map((entry) => entry.externalId).sort()).toEqual([z1, z2]);
        expect(result.approval?.replanned.find((entry) => entry.externalId === z1)?.now).toMatch(
          /held back with the other products of its swap/,
        );
        expect([await ean(z1), await ean(z2)]).toEqual([a, b]);
      }
    }
  }, 300_000);

  // TEMPORAL-NOTES: "A payload errors at 2 MB"; DESIGN: "Large data never travels in a payload". A catalogue edited
  // in bulk while the plan waits holds back tens of thousands of products: the result lists 100, the file every one.
  it('more products held back than the result lists: it lists 100, counts every one, and held-back.csv lists all', async () => {
    const shape = { prefix: 'HLD', styles: 1, coloursPerStyle: 1, sizesPerColour: 101 };
    const rows = nativeRows(shape);
    const handle = await startAwaiting(sheet('hld.csv', rows));
    // While the plan waits, another run creates every one of its 103 products.
    await importNow(sheet('hld-other.csv', rows));
    expect((await cli('approve', handle.workflowId)).status).toBe(0);
    const result = (await handle.result()) as Result;
    const file = path.join(stack().config.dataDir, 'runs', handle.workflowId, 'held-back.csv');
    expect(result.approval).toMatchObject({ replannedCount: 103, replannedFile: file });
    expect(result.approval?.replanned).toHaveLength(100);
    expect(result.approval?.replanned[0]).toEqual({ externalId: 'HLD-S1', approved: 'create', now: 'none' });
    expect(result.products).toMatchObject({ created: 0, updated: 0 });
    const listed = readFileSync(file, 'utf8')
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(listed[0]).toBe('externalId,approved,now');
    expect(listed.slice(1).map((line) => line.split(',')[0])).toEqual(rows.map((row) => row.externalId));
    // The run's details, once it ends, still say how many were held back and where the whole list is.
    const details = await currentDetails(handle, (text) => text.includes('held back'));
    expect(details).toContain(
      `103 products changed on the platform since the plan were held back (HLD-S1, HLD-S1-C1, HLD-S1-C1-Z1, HLD-S1-C1-Z2, HLD-S1-C1-Z3, …; every one in ${file})`,
    );
  }, 300_000);

  // README: "the Web UI's "Send a Signal" with name `approve` / `reject` and an optional `{"by": "…", "reason": "…"}`";
  // DESIGN: "Boundaries are validated with zod: … workflow inputs."
  it('a signal payload other than {"by": "…", "reason": "…"} is no decision: the run says why, and a later valid approve decides', async () => {
    const handle = await startForApproval(
      'bad-signal',
      sheet('sig.csv', nativeRows({ prefix: 'SIG', styles: 2, coloursPerStyle: 1, sizesPerColour: 2 })),
      // One product per batch: the run continues as new, carrying the decision in its input.
      { batchSize: 1 },
    );
    await awaitingApproval(handle);
    await handle.signal('approve', { by: 42 } as never);
    await handle.signal('approve', { by: 'alice', reason: 42 } as never);
    // Whatever an operator pasted: the run says what was wrong with it, never the payload itself.
    const secret = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    await handle.signal('reject', {
      by: 'alice',
      reason: 'store at https://ops:hunter2@example.com',
      apiKey: secret,
    } as never);
    const details = await currentDetails(handle, (text) => text.includes('apiKey'));
    expect(details).toMatch(/Awaiting approval/);
    expect(details).toContain('`approve` was ignored: by: got 42, expected text');
    expect(details).toContain('`approve` was ignored: reason: got 42, expected text');
    expect(details).toContain(
      '`reject` was ignored: unknown key "apiKey" (known keys: by, reason). Send it as {"by": "…", "reason": "…"}',
    );
    expect(details).not.toContain('hunter2');
    expect(details).not.toContain(secret);
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('awaiting-approval');
    expect(await onPlatform('SIG-S1')).toBeUndefined();
    // The workflow's logger: the worker writes its lines a moment after the workflow task.
    let ignoredLines: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 40 && ignoredLines.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ignoredLines = readFileSync(stack().logFile, 'utf8')
        .split('\n')
        .filter(
          (line) => line.includes('"msg":"Approval signal ignored"') && line.includes(handle.workflowId),
        )
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    }
    expect(ignoredLines).toContainEqual(
      expect.objectContaining({
        signal: 'approve',
        problems: 'by: got 42, expected text',
      }),
    );
    expect(JSON.stringify(ignoredLines)).not.toContain('hunter2');
    expect(JSON.stringify(ignoredLines)).not.toContain(secret);

    await handle.signal('approve', { by: ' alice ', reason: 'checked the plan' });
    const result = (await handle.result()) as Result;
    expect(result.approval).toMatchObject({ decision: 'approved', by: 'alice', reason: 'checked the plan' });
    expect(result.products).toMatchObject({ created: 8, rejected: 0 });
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
  }, 300_000);

  it('an approve sent before the plan is written approves nothing: the run says so and awaits one sent after', async () => {
    const handle = await startForApproval(
      'early',
      sheet('early.csv', nativeRows({ prefix: 'ERL', styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })),
    );
    await handle.signal('approve', { by: 'bob' });
    // A `by` is free text: a key pasted into it is not shown in the run's details nor its log.
    const secret = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    await handle.signal('reject', { by: secret });
    await handle.signal('reject', { by: 'https://ops:hunter2@example.com' });
    await awaitingApproval(handle);
    const details = await currentDetails(
      handle,
      (text) => (text.match(/before the plan/g) ?? []).length === 3,
    );
    expect(details).toMatch(/Awaiting approval/);
    expect(details).toContain(
      '`approve` from bob came before the plan was written and was ignored: read the plan, then send it again',
    );
    expect(details).toContain(
      '`reject` from a sender that looks like a credential (not shown) came before the plan was written',
    );
    expect(details).not.toContain(secret);
    expect(details).not.toContain('hunter2');
    let ignoredLines: string[] = [];
    for (let i = 0; i < 40 && ignoredLines.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ignoredLines = readFileSync(stack().logFile, 'utf8')
        .split('\n')
        .filter(
          (line) => line.includes('"msg":"Approval signal ignored"') && line.includes(handle.workflowId),
        );
    }
    expect(ignoredLines).toHaveLength(3);
    expect(ignoredLines.join('\n')).not.toContain(secret);
    expect(ignoredLines.join('\n')).not.toContain('hunter2');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('awaiting-approval');
    expect(await onPlatform('ERL-S1')).toBeUndefined();

    // The decision that counts keeps its `by` in the run's result and details: a credential pasted there is not shown.
    const pasted = 'https://carol:hunter3@sso.example.com';
    expect((await cli('approve', handle.workflowId, '--by', pasted)).status).toBe(0);
    const result = (await handle.result()) as Result;
    expect(result.approval).toMatchObject({
      decision: 'approved',
      by: 'a sender that looks like a credential (not shown)',
    });
    expect(result.products).toMatchObject({ created: 3 });
    expect(JSON.stringify(result)).not.toContain('hunter3');
    expect(await currentDetails(handle, (text) => text.includes('Plan approved by'))).not.toContain(
      'hunter3',
    );
  }, 300_000);
});
