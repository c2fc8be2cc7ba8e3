/**
 * An inbox on a schedule, as `schedules apply` sets it up: one slow drop must not hold back the drops that come
 * after it. An inbox run waits for every child it started, and a tick that finds the schedule's last run still running
 * started nothing (`overlap: skip`), so a PLM import awaiting approval for days kept every new drop in the inbox.
 */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ScheduleHandle } from '@temporalio/client';
import { DEFAULT_SETTLE_SECONDS } from '../../activities/inbox';
import { applySchedules, schedulesFileSchema } from '../../worker/schedules';
import type { ProcessInboxResult } from '../../workflows/inbox';
import type { TestStack } from '../harness';
import { sandboxApi } from '../harness/sandbox-api';
import { nativeRows, toCsv } from '../unit/plm-activities/native-sheet';
import { startJobStack } from './job-stack';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function drop(file: string, prefix: string): Promise<void> {
  await writeFile(file, toCsv(nativeRows({ prefix, styles: 1, coloursPerStyle: 1, sizesPerColour: 1 })));
  const past = new Date(Date.now() - 2 * DEFAULT_SETTLE_SECONDS * 1000);
  await utimes(file, past, past);
}

describe('inbox on a schedule: a slow drop does not hold back new drops', () => {
  let stack: TestStack;
  let dir: string;
  const { control } = sandboxApi(() => stack);

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('inbox-schedule-it-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /** Starts the run of the schedule's tick at `nominal` (a backfill: the schedule's own overlap policy applies). */
  async function tick(handle: ScheduleHandle, nominal: string): Promise<string | undefined> {
    const at = new Date(nominal);
    await handle.backfill({ start: new Date(at.getTime() - 1000), end: new Date(at.getTime() + 1000) });
    for (let i = 0; i < 50; i++) {
      const started = (await handle.describe()).info.recentActions.find(
        (action) => action.scheduledAt.getTime() === at.getTime(),
      );
      if (started) return started.action.workflow.workflowId;
      await sleep(200);
    }
    return undefined;
  }

  it('the next tick processes a new drop while the run before it still waits for its slow drop', async () => {
    const folder = path.join(dir, 'inbox');
    await mkdir(folder);
    // The slow drop: the platform fails every read of its products until the test lets it through.
    await control('/__sandbox/faults', 'PUT', {
      serverErrorRate: 1,
      methods: ['GET'],
      pathPrefix: '/styles/SLOW-',
    });
    await drop(path.join(folder, 'slow.csv'), 'SLOW');

    const scheduleId = `inbox-schedule-${Date.now()}`;
    // No overlap in the file: the default a user gets.
    const file = schedulesFileSchema.parse({
      schedules: [
        {
          id: scheduleId,
          workflow: 'inbox',
          cron: '0 3 1 1 *',
          input: { job: 'plm-import', folder, profile: 'native' },
        },
      ],
    });
    await applySchedules(stack.client, file, stack.taskQueue);
    const handle = stack.client.schedule.getHandle(scheduleId);
    try {
      const firstId = await tick(handle, '2024-01-01T03:00:00Z');
      expect(firstId).toBeDefined();
      const first = stack.client.workflow.getHandle(firstId!);
      // The first run has started the slow drop's child, which keeps failing to read the platform.
      let failedReads = 0;
      for (let i = 0; i < 100 && failedReads === 0; i++) {
        await sleep(200);
        const stats = (await (await control('/__sandbox/stats', 'GET')).json()) as {
          faults: { serverErrors: number };
        };
        failedReads = stats.faults.serverErrors;
      }
      expect(failedReads).toBeGreaterThan(0);

      await drop(path.join(folder, 'fast.csv'), 'FAST');
      // With `overlap: skip` (the default before), this tick started nothing while the first run waited.
      const secondId = await tick(handle, '2025-01-01T03:00:00Z');
      expect(secondId).toBeDefined();
      const second = (await stack.client.workflow.getHandle(secondId!).result()) as ProcessInboxResult;
      expect(second.files.map((f) => [f.name, f.outcome]).sort()).toEqual([
        ['fast.csv', 'processed'],
        ['slow.csv', 'taken'],
      ]);
      const fast = await fetch(`${stack.sandbox.baseUrl}/styles/FAST-S1-C1-Z1`, {
        headers: { companyapikey: stack.apiKey },
      });
      expect(fast.status).toBe(200);
      expect((await first.describe()).status.name).toBe('RUNNING');
      expect(readdirSync(folder).sort()).toEqual(['processed', 'slow.csv']);

      // Once the platform answers, the first run imports the slow drop and files it.
      await control('/__sandbox/faults', 'DELETE');
      const done = (await first.result()) as ProcessInboxResult;
      expect(done.files).toEqual([expect.objectContaining({ name: 'slow.csv', outcome: 'processed' })]);
      expect(readdirSync(path.join(folder, 'processed')).sort()).toEqual(['fast.csv', 'slow.csv']);
    } finally {
      await control('/__sandbox/faults', 'DELETE');
      await handle.delete();
    }
  });
});
