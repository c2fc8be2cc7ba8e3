import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { z } from 'zod';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { SANDBOX_API_KEY } from '../../worker/api-target';
import { certificateReport } from '../../workflows';
import { WorkerProcess } from '../chaos/worker-process';
import { readHarnessInfo } from '../harness';
import { writeCertificateSeed } from './certificate-report-stack';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const CERTIFICATES = 2_000;
/**
 * The calls of a read never killed: the 20 pages of the APPROVED list, one (empty) page for each other status the report
 * shows (REQUESTED, ACKNOWLEDGED, NOT_VERIFIABLE), and the newest changes before and after the lists.
 */
const READ_CALLS = CERTIFICATES / 100 + 3 + 2;
/** Each API answer waits this long: the fetch (20 pages and 2 calls) lasts about 10 s, long enough to be killed in. */
const LATENCY_MS = 400;
/**
 * The most a night's fetch reads at 30 calls a minute (a brand key's allowance, which PLM imports and ERP pushes share
 * at night): 20,000 certificates, read whole 3 times (certificates changed under each read): 3 × (200 pages + 2
 * calls). Any fixed limit short of that fails the report every night on such an account.
 */
const LARGEST_NIGHT_MS = (3 * (20_000 / 100 + 2) * 60_000) / 30;

const statsSchema = z.object({ total: z.number() });

/**
 * The fetch's time limit follows its work: it heartbeats all along and has hours to finish, so a slow read of a large
 * account is never cut short, while a worker that dies mid-fetch is noticed within the heartbeat timeout (1 minute), not
 * at the end of those hours. The worker is a separate process, SIGKILLed mid-fetch; the sandbox's latency stands for
 * the allowance's pace (10 minutes of real pacing would not fit the suite).
 */
describe('certificateReport: a fetch that takes long', () => {
  let sandbox: RunningSandbox;
  let connection: Connection;
  let client: Client;
  let dataDir: string;
  let worker: WorkerProcess | undefined;
  /** Terminated in afterAll when a failed test leaves it running on the shared Temporal server. */
  let workflowId: string | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'cert-report-long-fetch-'));
    const seedFile = writeCertificateSeed(dataDir, (template) =>
      Array.from({ length: CERTIFICATES }, (_, i) => ({
        ...template,
        id: `cert_long_${String(i).padStart(4, '0')}`,
        expirationDate: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 86_400_000).toISOString(),
      })),
    );
    sandbox = await startSandbox({
      port: 0,
      childLinkDelayMs: 0,
      seedFile,
      rateLimitPerMinute: 1_000_000,
      faults: { latencyMs: LATENCY_MS },
    });
    const harness = readHarnessInfo();
    connection = await Connection.connect({ address: harness.address });
    client = new Client({ connection, namespace: harness.namespace });
  }, 60_000);

  afterAll(async () => {
    if (workflowId !== undefined) {
      const handle = client.workflow.getHandle(workflowId);
      if ((await handle.describe()).status.name === 'RUNNING') await handle.terminate('test over');
    }
    await worker?.stop();
    await connection?.close();
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a worker killed mid-fetch is noticed within 30 s, the next attempt reads on from where it stopped, the report then holds every certificate; the limit covers the largest night', async () => {
    const harness = readHarnessInfo();
    const taskQueue = `cert-long-fetch-${randomUUID()}`;
    worker = new WorkerProcess({
      logFile: path.join(harness.logDir, 'certificate-report-long-fetch-worker.log'),
      workflowBundlePath: harness.workflowBundlePath,
      env: {
        TEMPORAL_ADDRESS: harness.address,
        TEMPORAL_NAMESPACE: harness.namespace,
        TRACE_TASK_QUEUE: taskQueue,
        TRACEABILITY_BASE_URL: sandbox.baseUrl,
        TRACEABILITY_API_KEY: SANDBOX_API_KEY,
        TRACE_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      },
    });
    await worker.start();
    const calls = async () =>
      statsSchema.parse(await (await fetch(`${sandbox.url}/__sandbox/stats`)).json()).total;
    const callsBefore = await calls();
    workflowId = `cert-report-long-fetch-${randomUUID()}`;
    const handle = await client.workflow.start(certificateReport, {
      args: [{ asOf: '2026-06-01', timeZone: 'UTC' }],
      taskQueue,
      workflowId,
    });

    // Mid-fetch: the call before the lists and a few pages answered, most of the 20 pages still to read.
    const deadline = Date.now() + 30_000;
    while ((await calls()) - callsBefore < 4) {
      if (Date.now() > deadline) throw new Error(`the fetch did not start; worker log:\n${worker.tail()}`);
      await sleep(100);
    }
    await worker.kill();
    const killedAt = Date.now();
    const callsAtKill = (await calls()) - callsBefore;
    await worker.start();

    // The fetch's next attempt starts once Temporal notices the dead worker: within its heartbeat timeout (and the
    // retry's 2 s), not the attempt's whole time limit.
    let retried: { afterMs: number; failure: string } | undefined;
    while (retried === undefined && Date.now() - killedAt < 90_000) {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      const fetchActivity = pending.find((a) => a.activityType?.name === 'fetchCertificatesForReport');
      if (fetchActivity && (fetchActivity.attempt ?? 1) >= 2)
        retried = { afterMs: Date.now() - killedAt, failure: fetchActivity.lastFailure?.message ?? '' };
      await sleep(500);
    }
    expect(retried?.failure).toMatch(/heartbeat/i);
    expect(retried?.afterMs).toBeLessThan(70_000);

    const result = await handle.result();
    expect(result.total).toBe(CERTIFICATES);
    const rows = readFileSync(result.files.csv, 'utf8')
      .split('\r\n')
      .slice(1)
      .filter((line) => line !== '');
    expect(new Set(rows.map((line) => line.split(',').at(-1))).size).toBe(CERTIFICATES);

    // The retried attempt read on from the killed one's pages: every page once (the one in flight at the kill maybe
    // twice), the newest changes once before the lists (the killed attempt's) and once after. Read again from page 1,
    // the pages read before the kill would be paid twice.
    expect(callsAtKill).toBeGreaterThanOrEqual(4);
    expect((await calls()) - callsBefore).toBeGreaterThanOrEqual(READ_CALLS);
    expect((await calls()) - callsBefore).toBeLessThanOrEqual(READ_CALLS + 1);
    expect(result.apiCalls).toBe(READ_CALLS);

    // The time limit Temporal holds each attempt to: enough for the largest night's read.
    const scheduled = ((await handle.fetchHistory()).events ?? [])
      .map((event) => event.activityTaskScheduledEventAttributes)
      .filter((attributes) => attributes?.activityType?.name === 'fetchCertificatesForReport');
    expect(scheduled).toHaveLength(1);
    expect(tsToMs(scheduled[0]!.startToCloseTimeout)).toBeGreaterThanOrEqual(LARGEST_NIGHT_MS);
    expect(worker.unexpectedExits).toEqual([]);
  }, 120_000);
});
