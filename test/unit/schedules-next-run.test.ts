import { describeNextRun, scheduleEntrySchema } from '../../worker/schedules';

describe('schedules list: the next run in the schedule’s own zone and in UTC', () => {
  it('shows local time with its offset, winter and summer, and the same instant in UTC', () => {
    expect(describeNextRun(new Date('2026-11-24T01:00:00Z'), 'Europe/Stockholm')).toBe(
      '2026-11-24T02:00:00+01:00 Europe/Stockholm (2026-11-24T01:00:00Z UTC)',
    );
    expect(describeNextRun(new Date('2026-06-01T00:00:00Z'), 'Europe/Stockholm')).toBe(
      '2026-06-01T02:00:00+02:00 Europe/Stockholm (2026-06-01T00:00:00Z UTC)',
    );
    expect(describeNextRun(new Date('2026-11-24T01:00:00Z'), 'America/New_York')).toBe(
      '2026-11-23T20:00:00-05:00 America/New_York (2026-11-24T01:00:00Z UTC)',
    );
  });

  it('a UTC schedule shows UTC once; no next run says none', () => {
    expect(describeNextRun(new Date('2026-11-24T01:00:00Z'), 'UTC')).toBe('2026-11-24T01:00:00Z UTC');
    expect(describeNextRun(undefined, 'Europe/Stockholm')).toBe('none');
  });

  it('a schedules file with an unknown time zone is refused, naming it and the zone it most likely meant', () => {
    const parsed = scheduleEntrySchema.safeParse({
      id: 'x',
      workflow: 'certificateReport',
      cron: '0 2 * * *',
      timeZone: 'Europe/Stokholm',
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      `'Europe/Stokholm' is not a known IANA time zone (did you mean "Europe/Stockholm"?)`,
    );
  });
});
