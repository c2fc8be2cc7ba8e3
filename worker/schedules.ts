import { readFile, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import { z } from 'zod';
import { isKnownTimeZone, unknownTimeZone } from '../connectors/certificate-report/model';
import { ConfigFileError } from './config';
import { configProblems, inputProblems } from '../connectors/config-problems';
import { counted } from '../connectors/counted';
import { mappingFileProblem } from '../connectors/mapping-file';
import { isS3Url } from '../connectors/storage';
import { jobInputProblems } from './job-inputs';
import { JOBS, WORKFLOW_TYPES, jobOfWorkflowType } from './jobs';
import { neverRuns, parseCron, skippedTick } from './schedule-cron';
import { TraceJob } from './search-attributes';

const OVERLAP = {
  skip: ScheduleOverlapPolicy.SKIP,
  bufferOne: ScheduleOverlapPolicy.BUFFER_ONE,
  bufferAll: ScheduleOverlapPolicy.BUFFER_ALL,
  cancelOther: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminateOther: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allowAll: ScheduleOverlapPolicy.ALLOW_ALL,
} as const;

const DURATION = /^(\d+)\s*(ms|s|m|h|d)$|^(\d+)\s+(second|minute|hour|day)s?$/;
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  second: 1000,
  m: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

function durationMs(text: string): number {
  const [, count = '0', unit = '', longCount = '0', longUnit = ''] = DURATION.exec(text) ?? [];
  return unit ? Number(count) * (UNIT_MS[unit] ?? 0) : Number(longCount) * (UNIT_MS[longUnit] ?? 0);
}

/** Temporal raises a shorter catch-up window to 10 s without a word. */
const MIN_CATCHUP_MS = 10_000;

const duration = z
  .string()
  .regex(DURATION, { message: "expected a duration such as '30m', '6h', '1d' or '2 days'" })
  .refine((text) => durationMs(text) >= MIN_CATCHUP_MS, "at least 10s (Temporal's shortest catch-up window)");

const SCHEDULE_ID = /^[a-z0-9][a-z0-9-]*$/;

const scheduleEntryShape = z.strictObject({
  /** Schedule id in Temporal; also the prefix of the workflow ids it starts. */
  id: z.string().regex(SCHEDULE_ID, 'use lower-case letters, digits and dashes'),
  /** The job's workflow type (`plmImport`, ...; a type's former name is read as the job it names). */
  workflow: z.enum(WORKFLOW_TYPES),
  /** Standard five-field cron, for example `0 3 * * *` (03:00 every night). */
  cron: z.string().superRefine((text, context) => {
    const parsed = parseCron(text);
    const problem = typeof parsed === 'string' ? parsed : neverRuns(parsed);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  }),
  /** IANA time zone the cron is read in (and, for the certificate report, the zone its dates are read in). */
  timeZone: z
    .string()
    .default('UTC')
    .refine(isKnownTimeZone, { error: (issue) => unknownTimeZone(issue.input) }),
  /** The workflow's single input object (plain JSON, as in the Web UI). */
  input: z.record(z.string(), z.unknown()).default({}),
  /** What a tick does while the schedule's previous run still runs; default `defaultOverlap(workflow)`. */
  overlap: z.enum(Object.keys(OVERLAP) as [keyof typeof OVERLAP, ...(keyof typeof OVERLAP)[]]).optional(),
  /** How late a missed run (worker or server down) may still start. */
  catchupWindow: duration.default('1d'),
  pauseOnFailure: z.boolean().default(false),
  paused: z.boolean().default(false),
  note: z.string().optional(),
});

/** A schedule entry whose `input` its job would take: a bad one is refused at `apply`, not at its first run. */
export const scheduleEntrySchema = scheduleEntryShape
  .superRefine((entry, context) => {
    const problems = jobInputProblems(jobOfWorkflowType(entry.workflow), runInput(entry));
    if (problems !== undefined)
      context.addIssue({ code: 'custom', path: ['input'], message: problems, params: { jobInput: true } });
  })
  .transform((entry) => ({ ...entry, overlap: entry.overlap ?? defaultOverlap(entry.workflow) }));
export type ScheduleEntry = z.infer<typeof scheduleEntrySchema>;

/**
 * `skip` (a tick while the last run still runs starts nothing), except for the inbox: its run waits for every child
 * it started, so one slow drop (a huge export, a child waiting out an API outage) would hold back every new drop.
 * Overlapping inbox runs are safe: each drop is claimed once, and one whose child still runs is `taken` by the later
 * run and filed by the run that started the child.
 */
export function defaultOverlap(
  workflow: z.infer<typeof scheduleEntryShape>['workflow'],
): keyof typeof OVERLAP {
  return jobOfWorkflowType(workflow) === 'inbox' ? 'allowAll' : 'skip';
}

/** The input a run of the schedule gets: a dated report reads its nominal time in the schedule's own zone. */
function runInput(entry: z.infer<typeof scheduleEntryShape>): Record<string, unknown> {
  return jobOfWorkflowType(entry.workflow) === 'certificate-report' && entry.input['timeZone'] === undefined
    ? { ...entry.input, timeZone: entry.timeZone }
    : entry.input;
}

export const schedulesFileSchema = z.strictObject({
  schedules: z.array(scheduleEntrySchema).superRefine((entries, context) => {
    const duplicated = duplicateIds(entries.map((entry) => entry.id));
    if (duplicated !== undefined)
      context.addIssue({ code: 'custom', message: `schedule ids must be unique: ${duplicated}` });
  }),
});

/** `"nightly" is at entries 1 and 3; "bom" is at entries 2 and 4` (the first few), or undefined when none is. */
function duplicateIds(ids: readonly string[]): string | undefined {
  const places = new Map<string, number[]>();
  ids.forEach((id, index) => places.set(id, [...(places.get(id) ?? []), index + 1]));
  const repeated = [...places].filter(([, at]) => at.length > 1);
  if (repeated.length === 0) return undefined;
  const shown = repeated.slice(0, MAX_ENTRIES_SHOWN).map(([id, at]) => {
    const entries = at.length > 5 ? `${at.slice(0, 5).join(', ')} and ${at.length - 5} more` : inWords(at);
    return `"${id}" is at entries ${entries}`;
  });
  const more = repeated.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${counted(more, 'more id')} given twice or more` : '');
}

function inWords(numbers: readonly number[]): string {
  return numbers.length > 1
    ? `${numbers.slice(0, -1).join(', ')} and ${String(numbers.at(-1))}`
    : numbers.join('');
}
export type SchedulesFile = z.infer<typeof schedulesFileSchema>;

/** A schedules file as `apply` reads it, with what it could not check here (`notes`, one line each). */
export type LoadedSchedules = SchedulesFile & { notes: string[] };

export async function loadSchedulesFile(path: string): Promise<LoadedSchedules> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ConfigFileError(
      missing
        ? `Cannot read schedules file ${path}: there is no such file. Copy schedules.example.json (the nightly certificate report) to it and edit it, or name another with --file`
        : `Cannot read schedules file ${path}: ${(error as Error).message}`,
    );
  }
  const parsed = schedulesFileSchema.safeParse(raw, { reportInput: true });
  const mapping = await checkMappingFiles(raw);
  const issues = [...(parsed.error?.issues ?? []), ...mapping.issues];
  if (!parsed.success || issues.length > 0)
    throw new ConfigFileError(
      `Schedules file ${path}: ${schedulesFileProblems(raw, new z.ZodError(issues))}`,
    );
  return { ...parsed.data, notes: [...mapping.notes, ...dstNotes(parsed.data, new Date())] };
}

/**
 * A tick at a wall-clock time the clocks skip when they go forward (02:30 in Europe/Stockholm on the last Sunday of
 * March) starts no run that night: said at apply, with the date, rather than found out by a missing report.
 */
function dstNotes(file: SchedulesFile, now: Date): string[] {
  return file.schedules.flatMap((entry, index) => {
    const cron = parseCron(entry.cron);
    const skipped = typeof cron === 'string' ? undefined : skippedTick(cron, entry.timeZone, now);
    if (!skipped || typeof cron === 'string') return [];
    const said = `${entryLabel(entry, index)}: cron: ${skipped.time} does not exist in ${entry.timeZone} on ${skipped.date} (the clocks go forward)`;
    // A schedule with runs in other hours (every 5 minutes, every hour) loses only the skipped hour's.
    return [
      cron.hours.size === 1
        ? `${said}: Temporal starts no run that night; a time outside the hour the clocks skip runs every night`
        : `${said}: its runs in the hour the clocks skip do not start that night; the others do`,
    ];
  });
}

/**
 * Each schedule's mapping file loaded by its job's own loader, as its runs would load it, when it is on this machine
 * (an absolute path to a file here): one that does not load would fail every run. One that is not here is the
 * workers' to read (they may have their own copy, or a bucket): not refused, and named in `notes` as not checked.
 * An entry refused for its own fields is not read.
 */
async function checkMappingFiles(raw: unknown): Promise<{ issues: z.core.$ZodIssue[]; notes: string[] }> {
  const issues: z.core.$ZodIssue[] = [];
  const notes: string[] = [];
  for (const [index, given] of listedEntries(raw).entries()) {
    const entry = scheduleEntrySchema.safeParse(given);
    if (!entry.success) continue;
    const { input } = entry.data;
    const job = jobOfWorkflowType(entry.data.workflow);
    const mappingJob = job === 'inbox' ? input['job'] : job;
    const mappingFile = input['mappingFile'];
    if (typeof mappingFile !== 'string' || (mappingJob !== 'plm-import' && mappingJob !== 'erp-orders'))
      continue;
    const label = `${entryLabel(given, index)}: mappingFile`;
    if (isS3Url(mappingFile)) {
      notes.push(`${label} is in a bucket: not checked here (the workers read it at each run)`);
      continue;
    }
    const here = isAbsolute(mappingFile) ? await stat(mappingFile).catch(() => undefined) : undefined;
    if (!here?.isFile()) {
      const where = isAbsolute(mappingFile) ? 'is not on this machine' : "is relative to the workers' folder";
      notes.push(`${label} ${mappingFile} ${where}: not checked here (the workers read it at each run)`);
      continue;
    }
    const problem = await mappingFileProblem(mappingJob, mappingFile);
    if (problem !== undefined)
      issues.push({
        code: 'custom',
        path: ['schedules', index, 'input'],
        message: `mappingFile: ${problem} (read on this machine)`,
        params: { jobInput: true },
        input: mappingFile,
      });
  }
  return { issues, notes };
}

function listedEntries(raw: unknown): unknown[] {
  const schedules = (raw as { schedules?: unknown } | null)?.schedules;
  return Array.isArray(schedules) ? (schedules as unknown[]) : [];
}

/** `schedule "nightly-plm" (entry 2)`; without a usable id (pasted text, say, not echoed) `schedule entry 2`. */
function entryLabel(given: unknown, index: number): string {
  const id = (given as { id?: unknown } | null)?.id;
  return typeof id === 'string' && SCHEDULE_ID.test(id) && id.length <= 80
    ? `schedule "${id}" (entry ${index + 1})`
    : `schedule entry ${index + 1}`;
}

const MAX_ENTRIES_SHOWN = 5;

/**
 * One line naming each refused schedule by its id and place in the file, its own fields read as configProblems reads
 * them and its job input as the job's run would refuse it: `schedule "nightly-plm" (entry 2), plmImport input:
 * unknown key "fiel" (did you mean "file"?) | schedule "bom" (entry 3): cron: got "0 2 * *", expected five cron fields`.
 */
function schedulesFileProblems(raw: unknown, error: z.ZodError): string {
  const entries = new Map<number, z.core.$ZodIssue[]>();
  const rest: z.core.$ZodIssue[] = [];
  for (const issue of error.issues) {
    const [key, index] = issue.path;
    if (key !== 'schedules' || typeof index !== 'number') {
      rest.push(issue);
      continue;
    }
    entries.set(index, [...(entries.get(index) ?? []), { ...issue, path: issue.path.slice(2) }]);
  }
  const lines = rest.length > 0 ? [configProblems(schedulesFileSchema, new z.ZodError(rest))] : [];
  const listed = listedEntries(raw);
  for (const [index, issues] of [...entries].sort(([a], [b]) => a - b).slice(0, MAX_ENTRIES_SHOWN)) {
    const given = listed[index] as { workflow?: unknown } | undefined;
    const jobInput = issues.find((issue) => issue.code === 'custom' && issue.params?.['jobInput'] === true);
    const own = issues.filter((issue) => issue !== jobInput);
    // As an input reads: an entry that is not an object is `got a list of 3, expected an object {…}`.
    const parts = own.length > 0 ? [inputProblems(scheduleEntryShape, new z.ZodError(own))] : [];
    if (jobInput) parts.push(`${String(given?.workflow)} input: ${jobInput.message}`);
    lines.push(`${entryLabel(given, index)}${own.length > 0 ? ': ' : ', '}${parts.join('; ')}`);
  }
  const more = entries.size - MAX_ENTRIES_SHOWN;
  if (more > 0) lines.push(`and ${counted(more, 'more schedule')} with problems`);
  return lines.join(' | ');
}

export function scheduleOptions(entry: ScheduleEntry, taskQueue: string): ScheduleOptions {
  const job = jobOfWorkflowType(entry.workflow);
  const input = runInput(entry);
  return {
    scheduleId: entry.id,
    spec: { cronExpressions: [entry.cron], timezone: entry.timeZone },
    action: {
      type: 'startWorkflow',
      workflowType: JOBS[job].workflow,
      args: [input],
      taskQueue,
      workflowId: entry.id,
      // (No TraceSource: the job sets it to its data source as it starts; `TemporalScheduledById` names the schedule.)
      typedSearchAttributes: [{ key: TraceJob, value: job }],
    },
    policies: {
      overlap: OVERLAP[entry.overlap],
      catchupWindow: entry.catchupWindow,
      pauseOnFailure: entry.pauseOnFailure,
    },
    state: { paused: entry.paused, note: entry.note ?? `Managed by trace-sync schedules apply` },
    memo: { managedBy: 'trace-sync' },
  };
}

/** `2026-11-23T02:00:00+01:00 Europe/Stockholm (2026-11-23T01:00:00Z UTC)`: the next run in the schedule's zone and UTC. */
export function describeNextRun(next: Date | undefined, timeZone: string | undefined): string {
  if (!next) return 'none';
  const utc = `${next.toISOString().replace(/\.\d{3}Z$/, 'Z')} UTC`;
  if (!timeZone || timeZone === 'UTC') return utc;
  return `${localTime(next, timeZone)} ${timeZone} (${utc})`;
}

/** ISO 8601 local time with its offset in `timeZone`, e.g. `2026-11-23T02:00:00+01:00`. */
export function localTime(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const offset = part('timeZoneName').replace(/^GMT/, '') || '+00:00';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}${offset}`;
}

export interface AppliedSchedule {
  id: string;
  action: 'created' | 'updated';
}

/**
 * Creates each schedule, or updates it in place when the id exists (Temporal refuses a second create),
 * so running `apply` twice is harmless. Schedules not in the file are left alone.
 */
export async function applySchedules(
  client: Client,
  file: SchedulesFile,
  taskQueue: string,
): Promise<AppliedSchedule[]> {
  const applied: AppliedSchedule[] = [];
  for (const entry of file.schedules) {
    const options = scheduleOptions(entry, taskQueue);
    try {
      await client.schedule.create(options);
      applied.push({ id: entry.id, action: 'created' });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      const handle = client.schedule.getHandle(entry.id);
      await handle.update((previous): ScheduleUpdateOptions => ({
        ...previous,
        spec: options.spec,
        action: options.action,
        policies: options.policies,
        state: { ...previous.state, paused: entry.paused, note: options.state?.note },
      }));
      applied.push({ id: entry.id, action: 'updated' });
    }
  }
  return applied;
}
