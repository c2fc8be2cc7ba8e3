/**
 * The five cron fields of a schedules file, read as Temporal reads them, so `schedules apply` refuses a cron the
 * server would (`61 2 * * *`) before it applies anything, and can tell which nightly times a DST change skips.
 */

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 7, names: DAYS },
];

/** Each field's values (day of week 7 read as 0, Sunday). */
export interface ParsedCron {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
}

/** A number, or a name as Temporal reads one: any prefix of the full name, of 3 letters at least for a month, 2 for a day. */
function value(text: string, field: CronField): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (lower.length < (field.name === 'month' ? 3 : 2)) return undefined;
  const named = field.names?.findIndex((name) => name.startsWith(lower)) ?? -1;
  if (named < 0) return undefined;
  return field.name === 'month' ? named + 1 : named;
}

function fieldValues(text: string, field: CronField): Set<number> | string {
  const refused = `${field.name} "${text}" is not in ${field.min}-${field.max}${field.names ? ` (or ${field.names[0]?.slice(0, 3)}-${field.names.at(-1)?.slice(0, 3)})` : ''}`;
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const match = /^([^/]+)(?:\/(\d+))?$/.exec(part);
    if (!match) return refused;
    const [, range = '', stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    let [from, to] = [field.min, field.max];
    if (range !== '*') {
      const [first = '', last, ...rest] = range.split('-');
      const start = value(first, field);
      const end = last === undefined ? (stepText === undefined ? start : field.max) : value(last, field);
      if (start === undefined || end === undefined || rest.length > 0) return refused;
      [from, to] = [start, end];
    }
    if (step < 1 || from < field.min || to > field.max || from > to) return refused;
    for (let at = from; at <= to; at += step) values.add(field.name === 'day of week' ? at % 7 : at);
  }
  return values;
}

/** The cron's values, or one line naming the first field Temporal would refuse. */
export function parseCron(text: string): ParsedCron | string {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== FIELDS.length) return 'expected five cron fields';
  const sets: Set<number>[] = [];
  for (const [index, field] of FIELDS.entries()) {
    const values = fieldValues(parts[index] ?? '', field);
    if (typeof values === 'string') return values;
    sets.push(values);
  }
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  return { minutes, hours, daysOfMonth, months, daysOfWeek };
}

/** The most days each month has (February's 29th comes in leap years: Temporal runs it then). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why a cron Temporal takes can never fire (`0 2 31 2 *`: no February has a 31st; `schedules list` would say "next
 * none" for ever), or undefined. Temporal fires when every field matches, so a day of month no month of the cron has
 * is never reached.
 */
export function neverRuns(cron: ParsedCron): string | undefined {
  const months = [...cron.months];
  const reachable = [...cron.daysOfMonth].some((day) =>
    months.some((month) => day <= (MONTH_DAYS[month - 1] ?? 0)),
  );
  if (reachable) return undefined;
  const named = months.map((month) => MONTHS[month - 1]?.slice(0, 3) ?? String(month)).join(',');
  return `it never runs: no month it names (${named}) has day ${[...cron.daysOfMonth].join(',')}`;
}

const MINUTE = 60_000;
const pad = (n: number) => String(n).padStart(2, '0');

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** Offset of `timeZone` from UTC at `instant`, in minutes (one formatter per zone: a year's scan asks 17,000 times). */
function offsetMinutes(instant: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormats.set(timeZone, format);
  }
  const name = format.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}

/**
 * The first wall-clock tick of `cron` within a year of `from` that does not exist in `timeZone` (the hour the clocks
 * skip when they go forward): Temporal starts no run for it. `{ time: '02:30', date: '2027-03-28' }`, or undefined.
 */
export function skippedTick(
  cron: ParsedCron,
  timeZone: string,
  from: Date,
): { time: string; date: string } | undefined {
  const end = from.getTime() + 366 * 24 * 60 * MINUTE;
  for (let hour = from.getTime(); hour < end; hour += 60 * MINUTE) {
    const before = offsetMinutes(hour, timeZone);
    const after = offsetMinutes(hour + 60 * MINUTE, timeZone);
    if (after <= before) continue;
    // The change is within this hour: find its minute.
    let change = hour;
    while (offsetMinutes(change + MINUTE, timeZone) === before) change += MINUTE;
    change += MINUTE;
    // Wall-clock times from the change read in the old offset, for as many minutes as the clocks jump, do not exist.
    const wall = new Date(change + before * MINUTE);
    for (let skipped = 0; skipped < after - before; skipped++) {
      const at = new Date(wall.getTime() + skipped * MINUTE);
      const [h, m, day, month, weekday] = [
        at.getUTCHours(),
        at.getUTCMinutes(),
        at.getUTCDate(),
        at.getUTCMonth() + 1,
        at.getUTCDay(),
      ];
      if (
        cron.minutes.has(m) &&
        cron.hours.has(h) &&
        cron.months.has(month) &&
        cron.daysOfMonth.has(day) &&
        cron.daysOfWeek.has(weekday)
      )
        return {
          time: `${pad(h)}:${pad(m)}`,
          date: `${String(at.getUTCFullYear())}-${pad(month)}-${pad(day)}`,
        };
    }
    hour = change;
  }
  return undefined;
}
