/** A cron Temporal takes but that can never fire: `schedules list` would show "next none" for ever. */
import { neverRuns, parseCron, type ParsedCron } from '../../worker/schedule-cron';

const parsed = (text: string): ParsedCron => {
  const cron = parseCron(text);
  if (typeof cron === 'string') throw new Error(cron);
  return cron;
};

describe('a cron whose day of month no month of it has', () => {
  it.each(['0 2 31 2 *', '0 2 30 feb *', '0 2 30-31 2 *', '0 2 31 apr,jun,sep,nov *', '0 2 31 4-4 *'])(
    '%s never runs',
    (cron) => {
      expect(neverRuns(parsed(cron))).toMatch(/never runs/);
    },
  );

  it.each([
    '0 2 29 2 *',
    '0 2 31 2,3 *',
    '0 2 31 * *',
    '0 2 031 01 *',
    '0 2 1-31 2 *',
    '0 2 */15 2 *',
    '0 2 * 2 *',
  ])('%s runs', (cron) => {
    expect(neverRuns(parsed(cron))).toBeUndefined();
  });
});
