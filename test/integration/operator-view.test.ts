import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import {
  certificateReport,
  checkConnection,
  plmImport,
  erpPull,
  erpOrders,
  bomRepair,
} from '../../workflows';
import { TraceJob, TraceSource, TraceStatus } from '../../worker/search-attributes';
import { cliProblems, readHarnessInfo, startTestStack, traceSync, type TestStack } from '../harness';

/**
 * What an operator sees of each job in the Temporal Web UI: the workflow id the CLI gives it (job, file, date), the
 * search attributes that find it (`TraceJob = '...' AND TraceSource = '...'`), the `progress` query, and the
 * attributes a run sets itself when started without them (from the Web UI or a schedule).
 */

/** `...-2026-11-22T08-15-00-123Z`: the moment the run was asked for. */
const WHEN = '\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z';

interface CliJob {
  name: string;
  args: string[];
  id: RegExp;
  job: string;
  source: string;
  /** Whether the workflow answers the `progress` query (every job does). */
  progress: boolean;
}

function cliJobs(dir: string): CliJob[] {
  return [
    {
      name: 'plm-import',
      args: ['plm-import', path.join(dir, 'ops-sheet.csv')],
      id: new RegExp(`^plm-import-ops-sheet\\.csv-${WHEN}$`),
      job: 'plm-import',
      source: 'ops-sheet.csv',
      progress: true,
    },
    {
      name: 'erp-orders',
      args: ['erp-orders', path.join(dir, 'ops-orders.csv')],
      id: new RegExp(`^erp-orders-ops-orders\\.csv-${WHEN}$`),
      job: 'erp-orders',
      source: 'ops-orders.csv',
      progress: true,
    },
    {
      name: 'erp-pull',
      args: ['erp-pull'],
      id: new RegExp(`^erp-pull-${WHEN}$`),
      job: 'erp-pull',
      source: 'api',
      progress: true,
    },
    {
      name: 'bom-repair',
      args: ['bom-repair', '--all'],
      id: new RegExp(`^bom-repair-all-${WHEN}$`),
      job: 'bom-repair',
      source: 'api',
      progress: true,
    },
    {
      name: 'certificate-report',
      args: ['certificate-report', '--as-of', '2026-11-01'],
      id: new RegExp(`^cert-report-2026-11-01-${WHEN}$`),
      job: 'certificate-report',
      source: 'api',
      progress: true,
    },
    {
      name: 'check',
      args: ['check'],
      id: new RegExp(`^check-connection-${WHEN}$`),
      job: 'check-connection',
      source: 'api',
      progress: true,
    },
  ];
}

/** Visibility is eventually consistent: the ids a list query finds, polled for up to 15 s until `id` shows. */
async function listed(client: Client, query: string, id: string): Promise<string[]> {
  let ids: string[] = [];
  for (let attempt = 0; attempt < 30; attempt++) {
    ids = [];
    for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
    if (ids.includes(id)) return ids;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return ids;
}

describe("the operator's view of every job", () => {
  let stack: TestStack;
  let dir: string;
  let jobs: CliJob[];
  const started = new Map<
    string,
    { status: number | null; stdout: string; stderr: string; workflowId: string | undefined }
  >();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'operator-view-'));
    stack = await startTestStack({
      sandbox: { rateLimitPerMinute: 100_000 },
      config: { dataDir: path.join(dir, 'data') },
    });
    writeFileSync(
      path.join(dir, 'ops-sheet.csv'),
      'externalId,parentExternalId,level,name,styleType,isComponent,PLM_ID\r\nOPS-S1,,style,Ops tee,T-shirts,no,OPS-S1\r\nOPS-S1-C1,OPS-S1,variant,Ops tee black,,,OPS-S1-C1\r\n',
    );
    writeFileSync(
      path.join(dir, 'ops-orders.csv'),
      'order_number,supplier_code,buyer_facility_process,supplier_facility_process,order_date,line_number,product_external_id,quantity,unit\n' +
        'OPS-PO-1,SUP-1001,Warehouse,Cut make trim,2025-03-01,1,PLM-TEE-001-BLK,12,PIECES\n',
    );
    jobs = cliJobs(dir);
    const harness = readHarnessInfo();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: harness.address,
      TEMPORAL_NAMESPACE: harness.namespace,
      TRACE_TASK_QUEUE: stack.taskQueue,
      TRACE_DATA_DIR: stack.config.dataDir,
    };
    delete env.TRACEABILITY_BASE_URL;
    delete env.TRACEABILITY_API_KEY;
    await Promise.all(
      jobs.map(async (job) => {
        const result = await traceSync(job.args, env);
        const workflowId = /Started workflow (\S+) on task queue/.exec(result.stderr)?.[1];
        started.set(job.name, { ...result, workflowId });
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const handleOf = (name: string): WorkflowHandle => {
    const run = started.get(name);
    if (!run?.workflowId)
      throw new Error(`trace-sync ${name} did not start a workflow: ${run?.stdout} ${run?.stderr}`);
    return stack.client.workflow.getHandle(run.workflowId);
  };

  it.each(['plm-import', 'erp-orders', 'erp-pull', 'bom-repair', 'certificate-report', 'check'])(
    'trace-sync %s: an id naming the job (and file) and the date, findable by TraceJob and TraceSource',
    async (name) => {
      const job = jobs.find((j) => j.name === name) as CliJob;
      const run = started.get(name);
      expect({ status: run?.status, problems: cliProblems(run?.stderr ?? '') }).toEqual({
        status: 0,
        problems: [],
      });
      const handle = handleOf(name);
      expect(handle.workflowId).toMatch(job.id);
      await handle.result();
      const found = await listed(
        stack.client,
        `TraceJob = '${job.job}' AND TraceSource = '${job.source}'`,
        handle.workflowId,
      );
      expect(found).toContain(handle.workflowId);
      const described = await handle.describe();
      expect(described.typedSearchAttributes.get(TraceJob)).toBe(job.job);
      expect(described.typedSearchAttributes.get(TraceSource)).toBe(job.source);
    },
  );

  it.each(['plm-import', 'erp-orders', 'erp-pull', 'bom-repair', 'certificate-report', 'check'])(
    'trace-sync %s: the progress query answers, and TraceStatus says how the run ended',
    async (name) => {
      expect((jobs.find((j) => j.name === name) as CliJob).progress).toBe(true);
      const handle = handleOf(name);
      await handle.result();
      const progress: unknown = await handle.query('progress');
      expect(progress).toEqual(expect.objectContaining({ phase: expect.any(String) }));
      const described = await handle.describe();
      // Finished runs say `done` or `done-<how>` (done-with-rejects, done-nothing-new...).
      expect(described.typedSearchAttributes.get(TraceStatus)).toMatch(/^done(-[a-z]+)*$/);
    },
  );

  // `dry-run` is only ever a dry run still running (PLM import, ERP push, BOM repair); a finished one says
  // `dry-run-done`, so `TraceStatus = 'dry-run'` finds running dry runs only.
  it('a finished dry run says dry-run-done, whichever the job', async () => {
    const handle = await stack.client.workflow.start(bomRepair, {
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId('bom-repair-dry-run'),
      args: [{ all: true, dryRun: true }],
    });
    await handle.result();
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('dry-run-done');
  });

  it('trace-sync check-connection: the progress query answers, done once the check is', async () => {
    const handle = handleOf('check');
    await handle.result();
    const progress: unknown = await handle.query('progress');
    expect(progress).toEqual({ phase: 'done' });
    expect((await handle.describe()).typedSearchAttributes.get(TraceStatus)).toBe('done');
  });

  describe('started without search attributes (from the Web UI or a schedule), each job sets its own', () => {
    const start = async (run: (workflowId: string) => Promise<WorkflowHandle>) => {
      const handle = await run(stack.workflowId('ui'));
      await handle.result();
      return (await handle.describe()).typedSearchAttributes;
    };
    const options = (workflowId: string) => ({ taskQueue: stack.taskQueue, workflowId });

    it.each([
      ['plmImport', 'plm-import', 'ops-sheet.csv'],
      ['erpOrders', 'erp-orders', 'ops-orders.csv'],
      ['erpPull', 'erp-pull', 'api'],
      ['bomRepair', 'bom-repair', 'api'],
      ['certificateReport', 'certificate-report', 'api'],
    ])('%s sets TraceJob %s, TraceSource %s and TraceStatus', async (workflow, job, source) => {
      const runs: Record<string, (id: string) => Promise<WorkflowHandle>> = {
        plmImport: (id) =>
          stack.client.workflow.start(plmImport, {
            ...options(id),
            args: [{ file: path.join(dir, 'ops-sheet.csv') }],
          }),
        erpOrders: (id) =>
          stack.client.workflow.start(erpOrders, {
            ...options(id),
            args: [{ file: path.join(dir, 'ops-orders.csv') }],
          }),
        erpPull: (id) => stack.client.workflow.start(erpPull, { ...options(id), args: [{}] }),
        bomRepair: (id) =>
          stack.client.workflow.start(bomRepair, {
            ...options(id),
            args: [{ all: true, dryRun: true }],
          }),
        certificateReport: (id) =>
          stack.client.workflow.start(certificateReport, {
            ...options(id),
            args: [{ asOf: '2026-11-02' }],
          }),
      };
      const attributes = await start(runs[workflow] as (id: string) => Promise<WorkflowHandle>);
      expect([attributes.get(TraceJob), attributes.get(TraceSource)]).toEqual([job, source]);
      expect(attributes.get(TraceStatus)).toEqual(expect.any(String));
    });

    it('checkConnection sets TraceJob, TraceSource and TraceStatus itself', async () => {
      const attributes = await start((id) => stack.client.workflow.start(checkConnection, options(id)));
      expect(attributes.get(TraceJob)).toBe('check-connection');
      expect(attributes.get(TraceSource)).toBe('api');
      expect(attributes.get(TraceStatus)).toBe('done');
    });
  });
});
