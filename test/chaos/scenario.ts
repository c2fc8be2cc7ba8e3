import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Client,
  Connection,
  WorkflowFailedError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { z } from 'zod';
import { createActivities } from '../../activities';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { seededRandom } from '../../sandbox/core/prng';
import { createApiClient } from '../../worker/api-client';
import { SANDBOX_API_KEY } from '../../worker/api-target';
import { loadConfig } from '../../worker/config';
import { createLogger } from '../../worker/logger';
import { installTemporalRuntime } from '../../worker/runtime';
import { plmImport, erpOrders } from '../../workflows';
import { readHarnessInfo, type HarnessInfo } from '../harness/harness-info';
import { runWorker } from '../harness/stack';
import { compareState, sandboxStateSchema, totalProblems } from './compare';
import { orderExport, plmSheet, type OrderExport, type PlmSheet } from './inputs';
import { erpFigures, plmFigures, writeFigures, type ChaosFigures } from './figures';
import { phases, shuffled, type Phase } from './fault-phases';
import { NO_SLOW_FAULTS, startSlowProxy, type SlowProxy } from './slow-proxy';
import { retriedActivities, whereJobsWait } from './stall-report';
import { WorkerProcess } from './worker-process';

export interface ChaosOptions {
  /** `short` (in `npm test`) or `full` (`npm run test:chaos`); names ids, logs and the figures file. */
  label: string;
  seed: number;
  /** PLM styles; each brings 50 rows (7 colours × 6 sizes). */
  styles: number;
  orders: number;
  kills: number;
  /**
   * What the kill points are measured in: `writes` puts every kill while writes are flowing (the apply phases,
   * whose activities heartbeat every few seconds); `calls` anywhere in the run, reads and planning included.
   */
  killOn: 'writes' | 'calls';
  /**
   * Kill only while each job is applying (or done), never during reading, planning or finishing: those activities
   * have a 2-minute heartbeat timeout, so a kill there stalls the job that long (the short run's time budget).
   */
  killOnlyWhileApplying: boolean;
  /** The worker's TRACE_API_TIMEOUT_MS; slow faults hold requests well beyond it. */
  apiTimeoutMs: number;
  /** Phases of the fault mix last this many forwarded requests (inclusive range). */
  phaseCalls: [number, number];
  /**
   * The slow-reads phase also ends after this long (the short run's budget: every read it meets waits out the
   * client's timeout); unset, it lasts its requests like the other phases, however slow.
   */
  slowReadsMaxMs?: number;
  /** Length of an injected 429 burst (inclusive range); one beyond ~9 × the client's concurrency exhausts its retries. */
  burst429: [number, number];
  /** Orders per ERP batch and products per PLM batch: smaller ones cross more activity boundaries. */
  erpBatchSize: number;
  plmBatchSize: number;
  /** Whole run (clean + chaos) must finish within this. */
  deadlineMs: number;
  /** The chaos part alone must also finish within this (counted from its start); unset, only `deadlineMs` holds. */
  chaosDeadlineMs?: number;
  /** Filled as the run goes: every worker process and chaos job it started (to check a run leaves none behind). */
  track?: { workerPids: number[]; workflowIds: string[] };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The jobs' write batches (20 s heartbeat timeout); their read, plan and finish steps have 2 minutes
 * (workflows/batch-run.ts), so the short run kills only while nothing but these is pending.
 */
const BATCH_ACTIVITIES = ['applyPlmBatch', 'applyErpOrderBatch'];

const faultsAnswerSchema = z.object({
  counters: z.object({
    serverErrors: z.number(),
    delayed: z.number(),
    dropped: z.number(),
    burst429: z.number(),
  }),
});
const statsSchema = z.object({ total: z.number() });

async function getJson<T>(url: string, schema: z.ZodType<T>): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return schema.parse(await response.json());
}

async function putFaults(sandbox: RunningSandbox, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${sandbox.url}/__sandbox/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`PUT /__sandbox/faults: ${response.status} ${await response.text()}`);
}

/** Waits for `ready()` (polled), or until `stop()` says to give up; false then. Bounded by `deadline`. */
async function waitFor(
  ready: () => Promise<boolean> | boolean,
  stop: () => boolean,
  deadline: number,
): Promise<boolean> {
  while (Date.now() < deadline) {
    if (stop()) return false;
    if (await ready()) return true;
    await sleep(50);
  }
  return false;
}

interface Inputs {
  dir: string;
  prefix: string;
  sheet: PlmSheet;
  sheetFile: string;
  orders: OrderExport;
  ordersFile: string;
}

function makeInputs(options: ChaosOptions, harness: HarnessInfo): Inputs {
  const dir = path.join(
    harness.tempDir,
    `chaos-${options.label}-${options.seed}-${randomUUID().slice(0, 8)}`,
  );
  mkdirSync(dir, { recursive: true });
  const prefix = `CHAOS${options.seed % 100_000}`;
  const sheet = plmSheet(prefix, options.styles);
  const orders = orderExport(prefix, options.orders, seededRandom(options.seed));
  const sheetFile = path.join(dir, `plm-${options.label}-${sheet.rows.length}-rows.csv`);
  const ordersFile = path.join(dir, `erp-${options.label}-${options.orders}-orders.csv`);
  writeFileSync(sheetFile, sheet.csv);
  writeFileSync(ordersFile, orders.csv);
  return { dir, prefix, sheet, sheetFile, orders, ordersFile };
}

interface JobHandles {
  plm: WorkflowHandleWithFirstExecutionRunId<typeof plmImport>;
  erp: WorkflowHandleWithFirstExecutionRunId<typeof erpOrders>;
}

async function startJobs(
  client: Client,
  taskQueue: string,
  inputs: Inputs,
  options: ChaosOptions,
  tag: string,
): Promise<JobHandles> {
  const day = new Date().toISOString().slice(0, 10);
  const plm = await client.workflow.start(plmImport, {
    taskQueue,
    workflowId: `plm-import-${path.basename(inputs.sheetFile)}-${tag}-${day}-${randomUUID().slice(0, 8)}`,
    args: [{ file: inputs.sheetFile, profile: 'native', batchSize: options.plmBatchSize }],
  });
  const erp = await client.workflow.start(erpOrders, {
    taskQueue,
    workflowId: `erp-orders-${path.basename(inputs.ordersFile)}-${tag}-${day}-${randomUUID().slice(0, 8)}`,
    args: [{ file: inputs.ordersFile, batchSize: options.erpBatchSize }],
  });
  return { plm, erp };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: string };

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    const message =
      error instanceof WorkflowFailedError
        ? `${error.message}: ${error.cause?.message ?? ''}`
        : (error as Error).message;
    return { ok: false, error: message };
  }
}

/** Resolves with `promise`, or rejects once `deadline` (epoch ms) passes. */
async function before<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not finish before the deadline`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Terminates the jobs that still run (a run that missed its deadline), so no worker of a later test file meets
 * them; the ones that ended are left as they are.
 */
async function endJobs(jobs: JobHandles): Promise<void> {
  await Promise.all(
    [jobs.plm, jobs.erp].map(async (handle) => {
      const description = await handle.describe();
      if (description.status.name === 'RUNNING') await handle.terminate('the chaos run is over');
    }),
  );
}

/**
 * The message of a chaos run that did not finish: why, then where each job waits (workflow status, phase, each
 * pending activity with its attempt, worker and last failure: see whereJobsWait), the worker's and the faults'
 * state and the end of the worker's log. Also written to `file`, beside the run's logs.
 */
async function stallReport(
  error: unknown,
  run: {
    options: ChaosOptions;
    jobs: JobHandles;
    worker: WorkerProcess;
    proxy: SlowProxy;
    chaosStarted: number;
    currentPhase: string;
    file: string;
  },
): Promise<string> {
  const { options, worker, proxy } = run;
  const chaosSeconds = Math.round((Date.now() - run.chaosStarted) / 1000);
  const jobs = await whereJobsWait({ plm: run.jobs.plm, erp: run.jobs.erp }, worker.killedPids).catch(
    (reason: unknown) => [`(the jobs could not be described: ${(reason as Error).message})`],
  );
  const report = [
    `${(error as Error).message} (${chaosSeconds} s into the chaos part, ${Math.round(options.deadlineMs / 1000)} s ` +
      `for the clean and chaos runs; rerun with CHAOS_SEED=${options.seed})`,
    ...jobs,
    `worker: ${worker.starts} starts, ${worker.kills} SIGKILLs (pids ${worker.killedPids.join(', ') || 'none'}), ` +
      (worker.running ? `pid ${worker.pid} running` : 'not running') +
      ` | proxy: ${proxy.counters.forwarded} requests forwarded, ${proxy.counters.writes} writes | ` +
      `fault phase: ${run.currentPhase}`,
    `worker log (${worker.logFile}), last lines:`,
    ...worker
      .tail(12)
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => `  ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`),
  ].join('\n');
  try {
    writeFileSync(run.file, `${report}\n`);
  } catch {
    // The message carries it anyway.
  }
  return report;
}

/** A clean run of the same inputs on a fresh sandbox (in-process worker, no faults): the reference call count. */
async function cleanRun(
  options: ChaosOptions,
  harness: HarnessInfo,
  inputs: Inputs,
  deadline: number,
): Promise<{ calls: number; writes: number; ms: number; problems: number; examples: string[] }> {
  const started = Date.now();
  const logger = createLogger({
    level: 'info',
    secrets: [SANDBOX_API_KEY],
    destination: path.join(harness.logDir, `chaos-${options.label}-clean.log`),
  });
  installTemporalRuntime(logger);
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const sandbox = await startSandbox({ port: 0, childLinkDelayMs: 0, rateLimitPerMinute: 1_000_000 });
    stops.push(() => sandbox.close());
    const proxy = await startSlowProxy(sandbox.url, seededRandom(options.seed));
    stops.push(() => proxy.close());
    const { client: apiClient, rateLimits } = createApiClient(
      { baseUrl: proxy.baseUrl, apiKey: SANDBOX_API_KEY, sandbox: true },
      logger,
      { timeoutMs: options.apiTimeoutMs },
    );
    stops.push(() => apiClient.close());
    const config = {
      ...loadConfig({ TRACE_DATA_DIR: path.join(inputs.dir, 'clean-data') }),
      traceabilityBaseUrl: proxy.baseUrl,
      traceabilityApiKey: SANDBOX_API_KEY,
    };
    const taskQueue = `chaos-clean-${randomUUID()}`;
    const { client } = await runWorker(harness.address, stops, {
      namespace: harness.namespace,
      taskQueue,
      activities: createActivities({ client: apiClient, rateLimits, baseUrl: proxy.baseUrl, config, logger }),
      workflowBundlePath: harness.workflowBundlePath,
      overrides: { shutdownGraceTime: '2s' },
    });
    const jobs = await startJobs(client, taskQueue, inputs, options, 'clean');
    const waits = [jobs.plm.result(), jobs.erp.result()] as const;
    const results = Promise.all(waits);
    // Out of time: the jobs end, and the calls waiting for their results too, before the connection closes.
    stops.push(async () => {
      await endJobs(jobs);
      await before(Promise.allSettled(waits), Date.now() + 20_000, 'the clean jobs’ results').catch(
        () => undefined,
      );
    });
    const [plm, erp] = await before(results, deadline, 'the clean run');
    if (plm.products.rejected > 0 || erp.orders.rejected > 0) {
      throw new Error(
        `the clean run rejected rows: ${JSON.stringify(plm.rejections)} ${JSON.stringify(erp.rejections)}`,
      );
    }
    const stats = await getJson(`${sandbox.url}/__sandbox/stats`, statsSchema);
    const state = sandboxStateSchema.parse(await getJson(`${sandbox.url}/__sandbox/state`, z.unknown()));
    const outcome = compareState(state, inputs.sheet.expected, inputs.orders.expected, inputs.prefix);
    return {
      calls: stats.total,
      writes: proxy.counters.writes,
      ms: Date.now() - started,
      problems: totalProblems(outcome),
      examples: outcome.examples,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

/**
 * The chaos run: the PLM import and the ERP push at once on one task queue, served by a worker process that is
 * SIGKILLed and restarted at seeded points of the run, while the sandbox (and a proxy in front of it) inject
 * faults in seeded phases. Then the sandbox's state is compared with what the inputs say it must hold.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const harness = readHarnessInfo();
  let deadline = Date.now() + options.deadlineMs;
  const random = seededRandom(options.seed ^ 0x5eed);
  const inputs = makeInputs(options, harness);
  process.stdout.write(
    `chaos ${options.label}: seed ${options.seed} (rerun with CHAOS_SEED=${options.seed}), ${inputs.sheet.rows.length} PLM rows, ` +
      `${options.orders} orders, ${options.kills} kills on ${options.killOn}\n`,
  );

  const stops: (() => Promise<unknown>)[] = [];
  let finished = false;
  try {
    const sandbox = await startSandbox({ port: 0, childLinkDelayMs: 0, rateLimitPerMinute: 1_000_000 });
    stops.push(() => sandbox.close());
    const proxy = await startSlowProxy(sandbox.url, seededRandom(options.seed ^ 0xc0ffee));
    stops.push(() => proxy.close());
    const taskQueue = `chaos-${options.label}-${randomUUID()}`;
    const worker = new WorkerProcess({
      logFile: path.join(harness.logDir, `chaos-${options.label}-worker.log`),
      env: {
        TEMPORAL_ADDRESS: harness.address,
        TEMPORAL_NAMESPACE: harness.namespace,
        TRACE_TASK_QUEUE: taskQueue,
        TRACEABILITY_BASE_URL: proxy.baseUrl,
        TRACEABILITY_API_KEY: SANDBOX_API_KEY,
        TRACE_DATA_DIR: path.join(inputs.dir, 'chaos-data'),
        TRACE_API_TIMEOUT_MS: String(options.apiTimeoutMs),
        LOG_LEVEL: 'info',
      },
      onSpawn: (pid) => options.track?.workerPids.push(pid),
      workflowBundlePath: harness.workflowBundlePath,
    });
    stops.push(() => worker.stop());
    // The worker starts (seconds on a loaded machine, even with the ready bundle): meanwhile, the clean run.
    const firstStart = worker.start();
    firstStart.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    const clean = await cleanRun(options, harness, inputs, deadline);
    if (clean.problems > 0) {
      throw new Error(`the clean run does not reach the expected state: ${clean.examples.join('; ')}`);
    }
    await firstStart;
    const chaosStarted = Date.now();
    if (options.chaosDeadlineMs !== undefined)
      deadline = Math.min(deadline, chaosStarted + options.chaosDeadlineMs);

    const connection = await Connection.connect({ address: harness.address });
    stops.push(() => connection.close());
    const client = new Client({ connection, namespace: harness.namespace });
    const jobs = await startJobs(client, taskQueue, inputs, options, 'chaos');
    options.track?.workflowIds.push(jobs.plm.workflowId, jobs.erp.workflowId);
    const results = Promise.all([settle(jobs.plm.result()), settle(jobs.erp.result())]).finally(() => {
      finished = true;
    });
    // Before the connection closes: the jobs end, and so do the calls waiting for their results. A call still under
    // way when it closes is retried by the client on a timer, which then throws "Channel has been shut down" into
    // whatever test file this jest process runs next.
    stops.push(async () => {
      await endJobs(jobs);
      await before(results, Date.now() + 20_000, 'the jobs’ results').catch(() => undefined);
    });

    // The fault mix: phases in a seeded order (each kind once, then at random with calm stretches), each lasting a
    // seeded number of forwarded requests, so every phase meets traffic even while the worker is down.
    const mix = phases(options, random);
    const calm: Phase = { name: 'calm', sandbox: {}, proxy: NO_SLOW_FAULTS };
    const phaseCounts: Record<string, number> = {};
    let currentPhase = 'none yet';
    const faultDriver = (async () => {
      const order = [...shuffled(mix, random)];
      while (!finished && Date.now() < deadline) {
        const phase =
          order.shift() ?? (random() < 0.25 ? calm : (mix[Math.floor(random() * mix.length)] as Phase));
        phaseCounts[phase.name] = (phaseCounts[phase.name] ?? 0) + 1;
        currentPhase = phase.name;
        await putFaults(sandbox, phase.sandbox);
        proxy.set(phase.proxy);
        const [low, high] = options.phaseCalls;
        const length = low + Math.floor(random() * (high - low + 1));
        const from = proxy.counters.forwarded;
        const phaseEnd =
          phase.name === 'slow reads' && options.slowReadsMaxMs !== undefined
            ? Math.min(deadline, Date.now() + options.slowReadsMaxMs)
            : deadline;
        await waitFor(
          () => proxy.counters.forwarded - from >= length,
          () => finished,
          phaseEnd,
        );
      }
      await putFaults(sandbox, {});
      proxy.set(NO_SLOW_FAULTS);
    })();

    // The kill schedule: seeded points spread over the first 65% of the clean run's calls (or writes); at each, the
    // worker is SIGKILLed, left down for a seeded moment, and started again. (Spread over 85%, one loaded CI run
    // ended both jobs before its second point, at 82%, found them both applying: one kill of two.)
    const reference = options.killOn === 'writes' ? clean.writes : clean.calls;
    const killPoints = Array.from({ length: options.kills }, () =>
      Math.floor((0.05 + random() * 0.6) * reference),
    ).sort((a, b) => a - b);
    const progress = () => (options.killOn === 'writes' ? proxy.counters.writes : proxy.counters.forwarded);
    const phaseSchema = z.object({ phase: z.string() });
    const phaseOf = async (handle: WorkflowHandle): Promise<string> => {
      // (A loaded machine answers a query in seconds; waiting only 3 s, the kill could wait until the jobs ended.)
      // A gRPC deadline, not a race: the call itself ends, so none is left to meet the closed connection.
      const answer = await client.withDeadline(Date.now() + 10_000, () => handle.query('progress'));
      return phaseSchema.parse(answer).phase;
    };
    const applying = async (): Promise<boolean> => {
      if (!options.killOnlyWhileApplying) return true;
      try {
        const phases = await Promise.all([phaseOf(jobs.plm), phaseOf(jobs.erp)]);
        return phases.every((phase) => ['applying', 'pushing orders', 'done'].includes(phase));
      } catch {
        return false;
      }
    };
    // Checked again right before each kill: a job whose last batch ended since the phases were read may already be
    // in its finish step (a kill 0.3 s after the ERP push's finish ended was seen under load). Its pending
    // activities say so at once; the kill then waits until the step is over.
    const onlyBatchesPending = async (): Promise<boolean> => {
      if (!options.killOnlyWhileApplying) return true;
      try {
        const descriptions = await Promise.all(
          [jobs.plm, jobs.erp].map((handle) =>
            client.withDeadline(Date.now() + 10_000, () => handle.describe()),
          ),
        );
        return descriptions.every((description) =>
          (description.raw.pendingActivities ?? []).every((activity) =>
            BATCH_ACTIVITIES.includes(activity.activityType?.name ?? ''),
          ),
        );
      } catch {
        return false;
      }
    };
    const killDriver = (async () => {
      for (const point of killPoints) {
        // At least a few requests of the new worker between two kills, so no kill lands on an idle worker.
        const floor = progress() + 3;
        const reached = await waitFor(
          async () => progress() >= Math.max(point, floor) && (await applying()),
          () => finished,
          deadline,
        );
        if (!reached) return;
        await sleep(Math.floor(random() * 400));
        if (!(await waitFor(onlyBatchesPending, () => finished, deadline))) return;
        await worker.kill();
        await sleep(200 + Math.floor(random() * 1_500));
        await worker.start();
      }
    })();

    // Before anything else is stopped (last in, first out): the worker, so the kill schedule cannot start it again
    // (a start under way is cut short), then both drivers, which end once `finished` is set.
    const drivers = Promise.all([faultDriver, killDriver]);
    drivers.catch(() => undefined); // awaited below, or in this stop; a failure meanwhile is not unhandled
    stops.push(async () => {
      finished = true;
      await worker.stop();
      await before(drivers, Date.now() + 30_000, 'the fault and kill drivers').catch(() => undefined);
    });

    // A kill schedule that could not restart the worker ends the run with its error, not at the deadline.
    const killFailed = killDriver.then(() => new Promise<never>(() => undefined));
    const [plm, erp] = await before(Promise.race([results, killFailed]), deadline, 'the chaos run').catch(
      async (error: unknown) => {
        const report = await stallReport(error, {
          options,
          jobs,
          worker,
          proxy,
          chaosStarted,
          currentPhase,
          file: path.join(harness.logDir, `chaos-${options.label}-stall.txt`),
        });
        throw new Error(report);
      },
    );
    await before(drivers, deadline + 60_000, 'the fault and kill drivers');
    const chaosMs = Date.now() - chaosStarted;
    await worker.stop();

    const faults = await getJson(`${sandbox.url}/__sandbox/faults`, faultsAnswerSchema);
    const stats = await getJson(`${sandbox.url}/__sandbox/stats`, statsSchema);
    const state = sandboxStateSchema.parse(await getJson(`${sandbox.url}/__sandbox/state`, z.unknown()));
    const outcome = compareState(state, inputs.sheet.expected, inputs.orders.expected, inputs.prefix);

    const retriedOf = (handle: WorkflowHandleWithFirstExecutionRunId) =>
      retriedActivities(
        (runId) => client.workflow.getHandle(handle.workflowId, runId),
        handle.firstExecutionRunId,
      );
    const [plmRetried, erpRetried] = await Promise.all([retriedOf(jobs.plm), retriedOf(jobs.erp)]);

    const figuresFile = path.join(tmpdir(), 'chaos-figures.json');
    const figures: ChaosFigures = {
      label: options.label,
      seed: options.seed,
      plmRows: inputs.sheet.rows.length,
      orders: options.orders,
      orderLines: inputs.orders.lineCount,
      kills: worker.kills,
      workerStarts: worker.starts,
      killPoints,
      killOn: options.killOn,
      apiTimeoutMs: options.apiTimeoutMs,
      faults: {
        serverErrors: faults.counters.serverErrors,
        burst429: faults.counters.burst429,
        droppedAfterCommit: faults.counters.dropped,
        slowReadsBeyondTimeout: faults.counters.delayed,
        slowWritesCommittedLate: proxy.counters.commitLate,
        slowAnswersAfterCommit: proxy.counters.answerLate,
        slowClientGaveUp: proxy.counters.clientGaveUp,
      },
      phases: phaseCounts,
      outcome,
      apiCalls: {
        clean: clean.calls,
        chaos: stats.total,
        extra: stats.total - clean.calls,
        extraPct: Math.round(((stats.total - clean.calls) / Math.max(1, clean.calls)) * 1000) / 10,
        cleanWrites: clean.writes,
        chaosWrites: proxy.counters.writes,
      },
      jobs: {
        plm: plm.ok ? plmFigures(plm.value) : { status: `failed: ${plm.error}` },
        erp: erp.ok ? erpFigures(erp.value) : { status: `failed: ${erp.error}` },
      },
      unexpectedWorkerExits: worker.unexpectedExits,
      retried: { plm: plmRetried, erp: erpRetried },
      durationsMs: { clean: clean.ms, chaos: chaosMs },
      cleanOutcome: clean.problems,
      figuresFile,
    };
    writeFigures(figures, harness);
    return figures;
  } finally {
    finished = true;
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

export { formatFigures, type ChaosFigures } from './figures';
