import {
  defineQuery,
  log,
  patched,
  proxyActivities,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/common';
import { z } from 'zod';
import { inputFileReference, inputFolderReference } from '../connectors/s3-reference';
import type { Activities } from '../activities';
import type { InboxFile, InboxListing, SkippedInboxFile } from '../activities/inbox';
import { cliCommand } from '../connectors/cli-command';
import { inputProblems } from '../connectors/config-problems';
import { counted } from '../connectors/counted';
import { profileChoiceProblem } from '../connectors/profile-choice';
import { shortHash } from '../connectors/short-hash';
import { TraceJob, TraceSource } from '../worker/search-attributes';
import { explainer, failedRun, invalidInput, quickActivityOptions, setStatus, startJob } from './batch-run';
import { showDetails } from './operator-view';
import { JOBS } from '../worker/jobs';
import { pushErpOrdersInputSchema } from './erp-orders';
import { plmImportInputSchema } from './plm-import';

/** Workflow input, e.g. `{"job": "erp-orders", "folder": "/data/inbox/erp", "mappingFile": "/data/profiles/eu.json"}`. */
export const processInboxInputSchema = z.strictObject({
  /** Which job each file feeds. */
  job: z.enum(['erp-orders', 'plm-import']),
  /**
   * The inbox: a folder on the worker's file system, or an S3 prefix (`s3://bucket/inbox/erp`); handled files move
   * to `processed/` or `failed/` inside it, each exactly once even when several inbox runs poll it.
   */
  folder: inputFolderReference,
  /** Passed to each child: a built-in profile name. */
  profile: z.string().min(1).optional(),
  /** Passed to each child: a mapping profile file. */
  mappingFile: inputFileReference.optional(),
});
export type ProcessInboxInput = z.infer<typeof processInboxInputSchema>;

export interface InboxFileOutcome {
  name: string;
  /** The child run; the same drop always gets the same id, so it is never processed twice (see inboxChildId). */
  workflowId: string;
  /**
   * `taken`: another inbox run handles this drop: it polls the same S3 prefix, or it started the drop's child, which
   * still runs (the drop stays in the inbox until that run files it away). `left-in-inbox`: its child failed for a
   * reason outside the file (the API out, the worker's key refused, the worker's trouble); the next run tries it again (see
   * MAX_OUTSIDE_FAILURES).
   */
  outcome: 'processed' | 'failed' | 'already-processed' | 'taken' | 'left-in-inbox';
  movedTo: string | null;
  error?: string;
  /** A processed drop whose child rejected rows or orders: the child's rejects file (`note` says how many). */
  rejectsFile?: string;
  /** Why the drop was not moved (`the file is no longer in the inbox`...), or that another run had moved it already. */
  note?: string;
}

export interface ProcessInboxResult {
  job: ProcessInboxInput['job'];
  folder: string;
  files: InboxFileOutcome[];
  /**
   * Files left where they are for a later run, with the reason: on the worker's disk one changed within the last
   * minute (it may still be being copied in), and anywhere one that cannot be read. Absent from older runs' results.
   */
  skipped?: SkippedInboxFile[];
}

export interface ProcessInboxProgress {
  files: number | null;
  done: number;
}

export const processInboxProgressQuery = defineQuery<ProcessInboxProgress>('progress');

const {
  checkInboxMappingFile,
  claimInboxFile,
  inboxChildRuns,
  listInboxDrops,
  listInboxFiles,
  moveInboxFile,
  recordInboxDropFailure,
} = proxyActivities<Activities>(quickActivityOptions);

/**
 * A drop whose child failed for a reason outside the file stays in the inbox for the next run, up to this many such
 * children; the last one files it to failed/ all the same, so no drop is retried forever.
 */
export const MAX_OUTSIDE_FAILURES = 5;

/**
 * Whether a child failed for a reason outside its file: a step that ran out of retries (the API unreachable, timing
 * out, answering 5xx or 429 throughout; an error of the worker's own) or timed out. What the jobs know to be wrong
 * with a file, its input or its mapping fails at once, not retried (ActivityFailure NON_RETRYABLE_FAILURE, or the
 * workflow's own ApplicationFailure).
 */
function outsideTheFile(failure: unknown): string | undefined {
  let outside = false;
  for (let current = failure; current instanceof Error; current = current.cause) {
    if (current instanceof TimeoutFailure) return 'a step timed out';
    if (
      current instanceof ActivityFailure &&
      (current.retryState === RetryState.MAXIMUM_ATTEMPTS_REACHED ||
        current.retryState === RetryState.TIMEOUT)
    )
      outside = true;
    if (outside && current instanceof ApplicationFailure && current.cause === undefined)
      return current.type?.startsWith('TraceabilityApiError')
        ? 'the API could not be reached or kept failing'
        : 'a step kept failing';
  }
  return outside ? 'a step kept failing' : undefined;
}

/**
 * The API codes that refuse the worker's key (spec 01, Authentication): 401 a missing or invalid key (`http_401` when
 * the answer is not an error envelope), 403 `insufficient_rights` a key bound to no company. A 403 `forbidden` is
 * about a record, so about the file. Rotating the key wrongly must not send every good drop to failed/.
 */
const KEY_REFUSED_TYPES = new Set(
  ['token_or_api_key_invalid', 'http_401', 'insufficient_rights'].map(
    (code) => `TraceabilityApiError:${code}`,
  ),
);

function keyRefused(failure: unknown): boolean {
  for (let current = failure; current instanceof Error; current = current.cause)
    if (current instanceof ApplicationFailure && KEY_REFUSED_TYPES.has(current.type ?? '')) return true;
  return false;
}

/** Children running at once; the rest wait their turn. */
const PARALLEL_CHILDREN = 4;

const safeName = (name: string): string => name.replace(/[^A-Za-z0-9._-]+/g, '_');

/**
 * `erp-orders-orders_2024-03.csv-3fa9c1d2e4b5a6f7`: the job, the file name and a short hash of this drop: its
 * content, when it was dropped (S3: last-modified time and ETag; the worker's disk: mtime) and the profile or mapping
 * file its child is given. The same drop listed again (by an overlapping run, or after a crash before it was moved)
 * gets the same id, so it is pushed once; the same content dropped again (a rollback A -> B -> A) is a new drop.
 */
export function inboxChildId(
  input: Pick<ProcessInboxInput, 'job' | 'profile' | 'mappingFile'>,
  file: Pick<InboxFile, 'name' | 'sha256' | 'version'>,
): string {
  const drop = [file.sha256, file.version ?? '', input.profile ?? '', input.mappingFile ?? ''].join('\n');
  return `${input.job}-${safeName(file.name)}-${shortHash(drop)}`;
}

/** What runs started before a drop had an id of its own name their children: one id per content, ever. */
export function inboxContentChildId(job: string, file: Pick<InboxFile, 'name' | 'sha256'>): string {
  return `${job}-${safeName(file.name)}-${file.sha256.slice(0, 16)}`;
}

function startJobChild(input: ProcessInboxInput, file: InboxFile, workflowId: string) {
  const args = {
    file: file.path,
    ...(input.profile !== undefined ? { profile: input.profile } : {}),
    ...(input.mappingFile !== undefined ? { mappingFile: input.mappingFile } : {}),
  };
  const options = {
    workflowId,
    // A failed run may be re-run with the same id; a completed one may not: that is what "never twice" rests on.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    typedSearchAttributes: [
      { key: TraceJob, value: input.job },
      { key: TraceSource, value: file.name },
    ],
  };
  // Started by type name (both jobs take the same file input). patched: runs started before each job got one name
  // replay with the former type names, which the worker still registers.
  const job = JOBS[input.job];
  const type = patched('one-name-per-job') ? job.workflow : job.formerly;
  return startChild<(arg: typeof args) => Promise<unknown>>(type, { ...options, args: [args] });
}

/** The innermost cause says what went wrong (child failure → activity failure → the activity's own error). */
function rootMessage(failure: unknown): string {
  let current = failure as { message?: string; cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as { message?: string; cause?: unknown };
  return current?.message ?? String(failure);
}

async function handleFile(input: ProcessInboxInput, file: InboxFile): Promise<InboxFileOutcome> {
  // patched: runs started before each drop had a child of its own name the child by the content alone.
  const workflowId = patched('inbox-child-per-drop')
    ? inboxChildId(input, file)
    : inboxContentChildId(input.job, file);
  // patched: inbox runs started before the claims existed replay without them, and those started before a closed
  // run's claim could be taken over send no run id.
  let holder: { owner: string; runId: string } | undefined;
  if (patched('inbox-claims')) {
    const { workflowId: owner, runId } = workflowInfo();
    const takeover = patched('inbox-claim-takeover');
    const claim = takeover ? { file, owner, runId, child: workflowId } : { file, owner };
    if (!(await claimInboxFile(claim)))
      return { name: file.name, workflowId, outcome: 'taken', movedTo: null };
    if (takeover) holder = { owner, runId };
  }
  let outcome: InboxFileOutcome['outcome'];
  let error: string | undefined;
  let note: string | undefined;
  let childRunId: string | undefined;
  let rejects: { file: string; note: string } | undefined;
  try {
    const child = await startJobChild(input, file, workflowId);
    childRunId = child.firstExecutionRunId;
    rejects = childRejects(input.job, await child.result(), workflowId);
    outcome = 'processed';
  } catch (failure) {
    if (failure instanceof WorkflowExecutionAlreadyStartedError) {
      // The child is still running, started by another inbox run over the same folder: that run files the drop away
      // once its child ends; filing it now would take the file from under the child. patched: runs from before this
      // check replay without its activity.
      if (patched('inbox-leaves-running-child') && (await inboxChildRuns({ workflowId })))
        return {
          name: file.name,
          workflowId,
          outcome: 'taken',
          movedTo: null,
          note: 'its child still runs; the run that started it files it away',
        };
      outcome = 'already-processed';
    } else {
      outcome = 'failed';
      error = rootMessage(failure);
      // patched: runs from before a drop was kept for an outage filed every failed child's drop to failed/, and
      // those from before a refused key was outside the file filed its drops there too.
      const outside =
        outsideTheFile(failure) ??
        (keyRefused(failure) && patched('inbox-keeps-drop-on-key-refused')
          ? "the API refused the worker's key"
          : undefined);
      if (childRunId !== undefined && outside !== undefined && patched('inbox-keeps-drop-on-outage')) {
        const failures = await recordInboxDropFailure({ file, runId: childRunId, reason: error });
        if (failures < MAX_OUTSIDE_FAILURES)
          return {
            name: file.name,
            workflowId,
            outcome: 'left-in-inbox',
            movedTo: null,
            error,
            note: `${outside}; the next run retries it (try ${failures} of ${MAX_OUTSIDE_FAILURES})`,
          };
        note = `${outside}; its child failed so ${failures} times, so it is filed to failed/`;
      }
    }
  }
  // patched: runs that filed drops away before a move record named its run replay without naming theirs.
  const by = holder && patched('inbox-move-names-run') ? { by: holder } : {};
  const moved = await moveInboxFile({ file, to: outcome === 'failed' ? 'failed' : 'processed', ...by });
  return {
    name: file.name,
    workflowId,
    outcome,
    movedTo: moved.movedTo,
    ...(error !== undefined ? { error } : {}),
    ...(rejects !== undefined ? { rejectsFile: rejects.file } : {}),
    ...(note !== undefined || moved.note !== undefined || rejects !== undefined
      ? { note: [rejects?.note, note, moved.note].filter((part) => part !== undefined).join('; ') }
      : {}),
  };
}

// Only the fields read here: the children's results are their own jobs' (PushErpOrdersResult, PlmImportResult).
const childRejectsSchema = z.object({
  rejectsFile: z.string().min(1).nullable().optional(),
  rejectedRows: z.number().optional(),
  rejectedExportRows: z.number().optional(),
  orders: z.object({ rejected: z.number() }).optional(),
  products: z.object({ rejected: z.number() }).optional(),
});

/**
 * What a processed drop's child left out, in the words of its own run's details, and the next step: a drop that read
 * "processed" like a clean one hid the rejected orders or rows from whoever watched the inbox.
 */
function childRejects(
  job: ProcessInboxInput['job'],
  result: unknown,
  childId: string,
): { file: string; note: string } | undefined {
  const parsed = childRejectsSchema.safeParse(result);
  if (!parsed.success) return undefined;
  const { rejectsFile, rejectedRows = 0, rejectedExportRows, orders, products } = parsed.data;
  const rejected = (orders ?? products)?.rejected ?? 0;
  if (rejectsFile === undefined || rejectsFile === null || rejected + rejectedRows === 0) return undefined;
  const count =
    job === 'erp-orders'
      ? `${counted(rejected, 'order')} rejected (${counted(rejectedExportRows ?? rejectedRows, 'export row')})`
      : `${counted(rejected, 'product')} rejected (${counted(rejectedRows, 'row')})`;
  return {
    file: rejectsFile,
    note: `${count}: fix its rejects file ${rejectsFile}, then \`${cliCommand('retry', childId)}\``,
  };
}

/** Drops listed one by one in the run's details; the result lists every one. */
const DETAILS_FILES = 20;
/** At most this many characters of a failed drop's reason in the details; the run's result holds all of it. */
const DETAILS_REASON_CHARS = 200;

/** `text` in at most `max` characters, a longer one cut at a word (within its last half) and ending "…". */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = text.slice(0, max - 1);
  // never half a surrogate pair
  if (/[\uD800-\uDBFF]/.test(head.charAt(head.length - 1))) head = head.slice(0, -1);
  if (!/\s/.test(text.charAt(max - 1))) {
    const space = head.search(/\s\S*$/);
    if (space > max / 2) head = head.slice(0, space);
  }
  return `${head.trimEnd()}…`;
}
const OUTCOME_ORDER: readonly InboxFileOutcome['outcome'][] = [
  'processed',
  'failed',
  'left-in-inbox',
  'already-processed',
  'taken',
];

/**
 * The run's details (the Web UI's run page): how many drops went which way and where each one is now, by the location
 * an operator opens it at (`s3://bucket/inbox/erp/processed/orders.csv`, or the worker's path for a local inbox).
 */
export function inboxDetails(
  folder: string,
  outcomes: readonly InboxFileOutcome[],
  skipped: readonly SkippedInboxFile[] = [],
): string {
  const counts = OUTCOME_ORDER.map(
    (outcome) => [outcome, outcomes.filter((o) => o.outcome === outcome).length] as const,
  )
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => {
      const withRejects = outcomes.filter((o) => o.outcome === outcome && o.rejectsFile !== undefined).length;
      return `${n} ${outcome}${withRejects > 0 ? ` (${withRejects} with rejects)` : ''}`;
    });
  const lines = outcomes.slice(0, DETAILS_FILES).map((file) => {
    const where =
      file.movedTo !== null
        ? `now at ${file.movedTo}`
        : file.outcome === 'taken'
          ? 'another inbox run handles it'
          : file.outcome === 'left-in-inbox'
            ? 'still in the inbox'
            : 'not moved';
    const note = file.note !== undefined ? `: ${file.note}` : '';
    const error = file.error !== undefined ? `: ${cutAtWord(file.error, DETAILS_REASON_CHARS)}` : '';
    return `- ${file.name}: ${file.outcome}, ${where}${note} (run ${file.workflowId})${error}`;
  });
  if (outcomes.length > DETAILS_FILES)
    lines.push(`- … and ${outcomes.length - DETAILS_FILES} more (the run's result lists every file)`);
  const left = skipped
    .slice(0, DETAILS_FILES)
    .map((file) => `- ${file.name}: left for a later run: ${file.reason}`);
  if (skipped.length > DETAILS_FILES)
    left.push(`- … and ${skipped.length - DETAILS_FILES} more left (the run's result lists them)`);
  const leftCount = skipped.length > 0 ? `, ${skipped.length} left for a later run` : '';
  const summary = `Inbox ${folder}: ${counted(outcomes.length, 'file')}${counts.length > 0 ? `, ${counts.join(', ')}` : ''}${leftCount}`;
  return [summary, ...lines, ...left].join('\n');
}

/** How each child job reads the `profile` and `mappingFile` an inbox passes on (a schedule's inbox is checked so too). */
export const CHILD_PROFILE_SCHEMAS = {
  'plm-import': plmImportInputSchema.pick({ profile: true, mappingFile: true }),
  'erp-orders': pushErpOrdersInputSchema.pick({ profile: true, mappingFile: true }),
} as const;

/**
 * What each drop's child would refuse, found once before any drop is touched: `profile` and `mappingFile` as the
 * child job's input schema reads them, and the mapping file loaded by the job's own loader. Undefined: all good.
 */
async function childInputProblem(input: ProcessInboxInput): Promise<string | undefined> {
  const schema = CHILD_PROFILE_SCHEMAS[input.job];
  const parsed = schema.safeParse(
    { profile: input.profile, mappingFile: input.mappingFile },
    { reportInput: true },
  );
  if (!parsed.success) return `${inputProblems(schema, parsed.error)} (as ${input.job} reads it)`;
  const choice = profileChoiceProblem(input);
  if (choice !== undefined) return choice;
  if (input.mappingFile === undefined) return undefined;
  try {
    await checkInboxMappingFile({ job: input.job, mappingFile: input.mappingFile });
    return undefined;
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure)
      return `mappingFile: ${error.cause.message}`;
    throw error;
  }
}

/** Starts one child per new file in an inbox folder and files each away when its child ends. */
export async function inbox(rawInput: ProcessInboxInput): Promise<ProcessInboxResult> {
  const parsed = processInboxInputSchema.safeParse(rawInput, { reportInput: true });
  if (!parsed.success) throw invalidInput('inbox', { schema: processInboxInputSchema, error: parsed.error });
  const input = parsed.data;
  const progress = startJob<ProcessInboxProgress>({
    job: 'inbox',
    source: input.folder,
    status: 'running',
    query: processInboxProgressQuery,
    progress: { files: null, done: 0 },
  });
  // patched: inbox runs started before the check replay without its activity.
  if (patched('inbox-checks-child-input')) {
    const problem = await childInputProblem(input);
    if (problem !== undefined) throw failedRun(invalidInput('inbox', problem));
  }
  // A folder that cannot be read (missing, not mounted, a bucket refused) fails the run with the listing's reason and
  // TraceStatus `failed`, not "Activity task failed" with TraceStatus left `running`.
  // patched: inbox runs listed before the listing named the files it left replay with the files alone.
  const listing: InboxListing = patched('inbox-names-skipped-drops')
    ? await explainer('InboxFolderError')(listInboxDrops({ folder: input.folder }))
    : { files: await explainer('InboxFolderError')(listInboxFiles({ folder: input.folder })), skipped: [] };
  const { files, skipped } = listing;
  progress.files = files.length;
  const outcomes: InboxFileOutcome[] = new Array<InboxFileOutcome>(files.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < files.length) {
      const index = next++;
      outcomes[index] = await handleFile(input, files[index] as InboxFile);
      progress.done += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_CHILDREN, files.length) }, lane));
  // A drop left for the next run counts too: the operator sees the run did not get through all it listed.
  const failed = outcomes.filter((o) => o.outcome === 'failed' || o.outcome === 'left-in-inbox').length;
  showDetails(inboxDetails(input.folder, outcomes, skipped));
  // patched: runs from before a child's rejects were shown ended `done` with them.
  const withRejects =
    failed === 0 && outcomes.some((o) => o.rejectsFile !== undefined) && patched('inbox-shows-child-rejects');
  setStatus(failed > 0 ? 'done-with-failures' : withRejects ? 'done-with-rejects' : 'done');
  log.info('Inbox processed', { folder: input.folder, files: files.length, failed, left: skipped.length });
  return {
    job: input.job,
    folder: input.folder,
    files: outcomes,
    ...(skipped.length > 0 ? { skipped } : {}),
  };
}
