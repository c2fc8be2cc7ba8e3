/**
 * Job 1 against a large allowance on an API far away: does one worker use the key's allowance while its import
 * has products waiting? A fresh import of a generated native sheet (sized for two minutes of writes) through the
 * job's activities, as the workflow drives them, with one client built as the worker builds it, against a sandbox
 * whose answers come `--latency-ms` (100) each way and 0-`--jitter-ms` (40) more. Prints the use of the allowance
 * in each full sliding 60 s window from the first write to the last (min and median; goal >= 97%, issue 16),
 * the 429s, and the calls in flight the allowance asks for over such round trips. Exits 1 if a goal is missed.
 * Run: node bin/run-ts.cjs bench/plm-import-remote.ts [--limit 3000] [--latency-ms 100] [--jitter-ms 40]
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  createPlmImportActivities,
  type BatchResult,
  type PlanResult,
  type ReadResult,
} from '../activities/plm-import';
import { nativeRows, productCount, toCsv } from '../test/unit/plm-activities/native-sheet';
import { arg, cellFigures, missedGoals, networkArgs, WINDOW_MS } from './client-rate-figures';
import { withRemoteJobStage } from './remote-job-stage';

/** Writes this many minutes long at the allowance: a full window and more after the first. */
const WRITE_MINUTES = 2.2;

async function main(): Promise<void> {
  const limit = z.coerce
    .number()
    .int()
    .positive()
    .parse(arg('limit') ?? '3000');
  const network = networkArgs(100);
  // A style with 3 colours of 5 sizes is 19 products, one write each.
  const shape = {
    prefix: 'REMOTE',
    styles: Math.ceil((limit * WRITE_MINUTES) / 19),
    coloursPerStyle: 3,
    sizesPerColour: 5,
  };
  const line = (label: string, value: string) => console.log(`${label.padEnd(44)}${value}`);
  const sandboxOptions = {
    rateLimitPerMinute: limit,
    jitterMs: network.jitterMs,
    networkDelayMs: network.latencyMs,
    qrDelayMs: 0,
    childLinkDelayMs: 0,
  };
  await withRemoteJobStage('plm-remote', sandboxOptions, async ({ sandbox, client, dir, config, env }) => {
    const { counted, refusedAt } = sandbox;
    const file = path.join(dir, 'remote.csv');
    await writeFile(file, toCsv(nativeRows(shape)));
    line(
      'plm-import-remote:',
      `${productCount(shape)} products, allowance ${limit}/min, API ${network.latencyMs} ms and 0-${network.jitterMs} ms each way`,
    );
    const activities = createPlmImportActivities({ client, config });
    const read: ReadResult = await env.run(activities.readPlmSheet, {
      file,
      workflowId: 'bench-remote',
      profile: 'native' as const,
    });
    const plan: PlanResult = await env.run(activities.planPlmImport, {
      runKey: read.runKey,
      sheet: read.sheet,
      batchSize: 200,
    });
    const from = Date.now();
    const writesFrom = counted.length;
    let written = 0;
    for (let batch = 0; batch < plan.batchCount; batch++) {
      const applied: BatchResult = await env.run(activities.applyPlmBatch, {
        runKey: read.runKey,
        manifest: plan.manifest,
        batch,
      });
      written += applied.counts.created + applied.counts.updated;
    }
    const to = Date.now();
    const writes = counted.slice(writesFrom);
    // The windows run from one window after the first write to the last: the product's work waited throughout.
    const figures = cellFigures(limit, counted, refusedAt.length, [{ from, to, counted: writes }]);
    const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
    line('products written:', `${written} in ${((to - from) / 1000).toFixed(1)} s (${writes.length} calls)`);
    line(
      'calls a minute while writing:',
      `${Math.round((writes.length / (to - from)) * WINDOW_MS)} (${percent(writes.length / ((to - from) / WINDOW_MS) / limit)} of the allowance, the first window's fill included)`,
    );
    line(
      'use of the allowance, full 60 s windows:',
      `min ${percent(figures.useMin)} at ${figures.useMinAtS} s, median ${percent(figures.useMedian)} (${figures.windows} windows; goal >= 97%)`,
    );
    line('429s:', `${figures.refused} of ${figures.calls} calls (goal < 0.5%)`);
    const stats = client.stats();
    line(
      'client:',
      `${stats.calls} calls, ${stats.retries} retries, pacing waits ${Math.round(stats.pacingWaitMs / 1000)} s`,
    );
    const missed = missedGoals(limit, figures, false);
    line('verdict:', missed.length === 0 ? 'met' : `missed: ${missed.join('; ')}`);
    process.exitCode = missed.length === 0 ? 0 : 1;
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
