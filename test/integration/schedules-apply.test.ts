/**
 * `schedules apply` as an operator runs it: a file it refuses applies nothing (README, Schedules: "A file with a bad
 * entry applies nothing and names each bad schedule"), and a nightly tick the clocks skip is said at apply time.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScheduleNotFoundError } from '@temporalio/client';
import { msToTs, tsToMs } from '@temporalio/common';
import { cliEnv, cliProblems, traceSync, type TestStack } from '../harness';
import { startJobStack } from './job-stack';

describe('schedules apply from the shipped CLI', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('schedules-apply-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  async function exists(id: string): Promise<boolean> {
    try {
      await stack.client.schedule.getHandle(id).describe();
      return true;
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) return false;
      throw error;
    }
  }

  /** Writes `schedules` to `<name>.json` and runs `trace-sync schedules apply --file` on it. */
  async function apply(name: string, schedules: unknown[]) {
    const file = path.join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify({ schedules }));
    return traceSync(['schedules', 'apply', '--file', file], cliEnv(stack));
  }

  it('a cron Temporal would refuse (minute 61, a misspelt day) applies nothing and names the schedule and field', async () => {
    const good = `good-${Date.now()}`;
    const run = await apply('bad-cron', [
      { id: good, workflow: 'certificateReport', cron: '0 3 * * *', timeZone: 'Europe/Stockholm' },
      { id: 'minute', workflow: 'certificateReport', cron: '61 2 * * *' },
      { id: 'weekdays', workflow: 'certificateReport', cron: '0 2 * * mon-frii' },
    ]);
    expect(run.status).toBe(2);
    const problems = cliProblems(run.stderr);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(
      'schedule "minute" (entry 2): cron: got "61 2 * * *": minute "61" is not in 0-59',
    );
    expect(problems[0]).toContain(
      'schedule "weekdays" (entry 3): cron: got "0 2 * * mon-frii": day of week "mon-frii" is not in 0-7 (or sun-sat)',
    );
    expect(run.stderr).not.toMatch(/TypeError|\n\s+at /);
    // Nothing applied: not even the good entry before the bad ones.
    expect(await exists(good)).toBe(false);
  });

  it("a catch-up window under Temporal's 10 s minimum is refused, not silently made 10 s", async () => {
    const run = await apply('catchup', [
      { id: `c-${Date.now()}`, workflow: 'certificateReport', cron: '0 3 * * *', catchupWindow: '5s' },
    ]);
    expect(run.status).toBe(2);
    expect(cliProblems(run.stderr).join('\n')).toContain('catchupWindow');
  });

  // Europe/Stockholm's clocks go from 02:00 to 03:00 on the last Sunday of March: Temporal starts no run at a
  // wall-clock time that does not exist, so `0 2 * * *` (the shipped example's time) skips that night's report.
  it('a nightly time the clocks skip on the spring DST night gets a note naming the date; 03:00 gets none; every 30 min loses only that hour', async () => {
    const skipped = `dst-${Date.now()}`;
    const fine = `dst-fine-${Date.now()}`;
    const often = `dst-often-${Date.now()}`;
    const run = await apply('dst', [
      { id: skipped, workflow: 'certificateReport', cron: '30 2 * * *', timeZone: 'Europe/Stockholm' },
      { id: fine, workflow: 'certificateReport', cron: '0 3 * * *', timeZone: 'Europe/Stockholm' },
      { id: often, workflow: 'certificateReport', cron: '*/30 * * * *', timeZone: 'Europe/Stockholm' },
    ]);
    expect(run.status).toBe(0);
    // The server agrees: its matching times skip the spring-forward night.
    const { startTime } = await stack.client.workflowService.listScheduleMatchingTimes({
      namespace: stack.namespace,
      scheduleId: skipped,
      startTime: msToTs(Date.parse('2027-03-27T12:00:00Z')),
      endTime: msToTs(Date.parse('2027-03-29T12:00:00Z')),
    });
    expect(startTime?.map((t) => new Date(tsToMs(t)).toISOString())).toEqual(['2027-03-29T00:30:00.000Z']);
    const notes = run.stderr.split('\n').filter((line) => line.startsWith('note'));
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain(`schedule "${skipped}" (entry 1)`);
    expect(notes[0]).toMatch(/02:30 does not exist in Europe\/Stockholm on \d{4}-03-\d\d/);
    expect(notes[0]).toContain('Temporal starts no run that night');
    // Every 30 minutes: only the skipped hour's runs are lost, the night's others start.
    expect(notes[1]).toContain(`schedule "${often}" (entry 3)`);
    expect(notes[1]).toContain('its runs in the hour the clocks skip do not start that night; the others do');
  });

  it('the cron forms Temporal takes (steps, ranges, lists, names and their prefixes, 7 for Sunday) are applied', async () => {
    const crons = [
      '*/15 * * * *',
      '0 3 * * mon-fri',
      '0 3 1,15 * *',
      '0 3 * * SUN',
      '0 0 1 jan-mar *',
      '0 3 * * 7',
      '5-10/2 4 * * *',
      '0 3/6 * * *',
      // Names as Temporal reads them: any prefix of the full name, 2 letters for a day, 3 for a month.
      '0 3 * * monday-friday',
      '0 3 * * tues',
      '0 3 * * Mo',
      '0 0 1 sept *',
      '0 0 1 January *',
      '0/120 * * * *',
      '003 * * * *',
    ];
    const stamp = Date.now();
    const run = await apply(
      'forms',
      crons.map((cron, index) => ({
        id: `form-${index}-${stamp}`,
        workflow: 'certificateReport',
        cron,
      })),
    );
    expect(cliProblems(run.stderr)).toEqual([]);
    expect(run.status).toBe(0);
    for (const index of crons.keys()) expect(await exists(`form-${index}-${stamp}`)).toBe(true);
  });

  // A cron Temporal takes but whose day of month no month in it has: `schedules list` shows "next none" for ever.
  it('a cron that can never run (31 February, 30-31 in February, 31 in April and June) is refused naming the schedule and the cron', async () => {
    const good = `never-good-${Date.now()}`;
    const run = await apply('never', [
      { id: good, workflow: 'certificateReport', cron: '0 3 * * *' },
      { id: 'feb-31', workflow: 'certificateReport', cron: '0 2 31 2 *' },
      { id: 'feb-end', workflow: 'certificateReport', cron: '0 2 30-31 feb *' },
      { id: 'short-months', workflow: 'certificateReport', cron: '0 2 31 apr,jun *' },
    ]);
    expect(run.status).toBe(2);
    const problems = cliProblems(run.stderr).join('\n');
    expect(problems).toContain('schedule "feb-31" (entry 2): cron: got "0 2 31 2 *": it never runs');
    expect(problems).toContain('schedule "feb-end" (entry 3): cron: got "0 2 30-31 feb *": it never runs');
    expect(problems).toContain(
      'schedule "short-months" (entry 4): cron: got "0 2 31 apr,jun *": it never runs',
    );
    expect(await exists(good)).toBe(false);
  });

  it('a day of month some month in the cron has is applied (29 February, 31 in a list or range, leading zeros)', async () => {
    const stamp = Date.now();
    const crons = ['0 2 29 2 *', '0 2 31 2,3 *', '0 2 31 jan-mar *', '0 02 031 01 *', '0 2 30-31 1-2 *'];
    const run = await apply(
      'sometimes',
      crons.map((cron, index) => ({ id: `some-${index}-${stamp}`, workflow: 'certificateReport', cron })),
    );
    expect(cliProblems(run.stderr)).toEqual([]);
    expect(run.status).toBe(0);
  });

  it('an s3:// input with credentials in it is refused at apply, the secret shown nowhere; one with no key too', async () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzz';
    const run = await apply('userinfo', [
      {
        id: `creds-${Date.now()}`,
        workflow: 'erpOrders',
        cron: '0 3 * * *',
        input: { file: `s3://AKIAIOSFODNN7EXAMPLE:${secret}@exports/orders.csv` },
      },
      { id: 'no-key', workflow: 'plmImport', cron: '0 3 * * *', input: { file: 's3://exports/' } },
    ]);
    expect(run.status).toBe(2);
    const problems = cliProblems(run.stderr).join('\n');
    expect(problems).toMatch(/input: file: .*credentials do not belong in an s3:\/\/ reference/);
    expect(problems).toContain('s3://exports/ names a bucket but no object key');
    expect(run.stderr + run.stdout).not.toContain(secret.slice(0, 13));
    expect(run.stderr + run.stdout).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });
});
