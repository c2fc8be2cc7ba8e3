import { ScheduleOverlapPolicy } from '@temporalio/client';
import { scheduleOptions, schedulesFileSchema } from '../../worker/schedules';

/** The overlap policy `schedules apply` gives Temporal for each entry of a schedules file. */
function appliedOverlap(entries: Record<string, unknown>[]) {
  const file = schedulesFileSchema.parse({ schedules: entries });
  return Object.fromEntries(
    file.schedules.map((entry) => [entry.id, scheduleOptions(entry, 'queue').policies?.overlap]),
  );
}

const base = { cron: '*/5 * * * *' };
const inboxInput = { job: 'erp-orders', folder: '/srv/erp/inbox' };

describe('schedules apply: what a tick does while the previous run still runs', () => {
  it('an inbox schedule lets runs overlap, so one slow drop does not hold back new drops; other jobs skip', () => {
    expect(
      appliedOverlap([
        { ...base, id: 'inbox', workflow: 'inbox', input: inboxInput },
        // A schedules file written before the jobs were renamed names the former workflow type.
        { ...base, id: 'inbox-former', workflow: 'processInbox', input: inboxInput },
        { ...base, id: 'report', workflow: 'certificateReport' },
        { ...base, id: 'pull', workflow: 'erpPull' },
      ]),
    ).toEqual({
      inbox: ScheduleOverlapPolicy.ALLOW_ALL,
      'inbox-former': ScheduleOverlapPolicy.ALLOW_ALL,
      report: ScheduleOverlapPolicy.SKIP,
      pull: ScheduleOverlapPolicy.SKIP,
    });
  });

  it('an overlap the file sets is kept, for the inbox and for the others', () => {
    expect(
      appliedOverlap([
        { ...base, id: 'inbox', workflow: 'inbox', input: inboxInput, overlap: 'skip' },
        { ...base, id: 'report', workflow: 'certificateReport', overlap: 'bufferOne' },
      ]),
    ).toEqual({ inbox: ScheduleOverlapPolicy.SKIP, report: ScheduleOverlapPolicy.BUFFER_ONE });
  });
});
