import {
  condition,
  isCancellation,
  defineSignal,
  log,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { z } from 'zod';
import type { Activities } from '../activities';
import type { HoldBackResult, PlanResult, ReadResult } from '../activities/plm-import';
import type { HeldBackList } from '../connectors/held-back';
import type { StagingRef } from '../connectors/staging';
import { inputProblems, shownText } from '../connectors/config-problems';
import { cliCommand } from '../connectors/cli-command';
import { setStatus, stepActivityOptions } from './batch-run';
import { batchSummary, showDetails } from './operator-view';

/**
 * Plan, then approve, inside one durable run: the job plans, writes a plan a person can read, sets TraceStatus
 * `awaiting-approval` and waits for the signal `approve` or `reject` (`trace-sync approve|reject <id>`, or the Web
 * UI's signal form); after a configurable time it rejects by default. Approved, it applies exactly the approved
 * writes: a product the platform changed in between is re-planned, held back and reported, never blindly written.
 */

const DEFAULT_TIMEOUT_SECONDS = 24 * 3600;

const approvalOutcomeSchema = z.strictObject({
  decision: z.enum(['approved', 'rejected']),
  /** Who decided (`timeout` when nobody did in time). */
  by: z.string(),
  reason: z.string().optional(),
  timedOut: z.boolean(),
  /** When nobody decided in time: how long the plan waited (optional: older outcomes lack it). */
  timeoutSeconds: z.number().int().min(1).optional(),
  planHtml: z.string(),
  planXlsx: z.string(),
  /** Approved products (or orders) the platform changed before the apply: not written (the first 100 of them). */
  replanned: z.array(
    z.strictObject({
      externalId: z.string(),
      /** Orders only: a number is unique per order type, so the type tells two orders with one number apart. */
      orderType: z.string().optional(),
      approved: z.string(),
      now: z.string(),
    }),
  ),
  // Optional: an outcome recorded before the list was cut (a continued run's input) lists every one, with neither.
  /** How many were held back in all. */
  replannedCount: z.number().int().min(0).optional(),
  /** The run file that lists every one held back (`held-back.csv`); null when none was. */
  replannedFile: z.string().nullable().optional(),
});
export type ApprovalOutcome = z.infer<typeof approvalOutcomeSchema>;

/** The `approval` field of a job's input: `true`, or when and how an unanswered plan ends. */
export const approvalInputSchema = z.union(
  [
    z.literal(true),
    z.strictObject({
      /** How long the plan waits for a decision (default 24 h). */
      timeoutSeconds: z
        .number()
        .int()
        .min(1)
        .max(30 * 24 * 3600)
        .optional(),
      /** What an unanswered plan becomes (default `reject`: nothing is written). */
      onTimeout: z.enum(['reject', 'approve']).optional(),
      /** Set by the run itself once decided, so a continued-as-new run knows (not meant to be given by hand). */
      decided: approvalOutcomeSchema.optional(),
    }),
  ],
  { error: 'expected true or {"timeoutSeconds": <seconds>, "onTimeout": "reject" or "approve"}' },
);
export type ApprovalInput = z.infer<typeof approvalInputSchema>;

/**
 * What `approve` and `reject` carry (README: "an optional `{"by": "…", "reason": "…"}`"); nothing at all is fine too,
 * as the Web UI's signal form may send nothing.
 */
export const approvalSignalArgsSchema = z
  .strictObject({
    /** Who decides (`unknown` when not given). */
    by: z.string().trim().max(200).optional(),
    reason: z.string().max(2000).optional(),
  })
  .nullish();
export type ApprovalSignalArgs = NonNullable<z.input<typeof approvalSignalArgsSchema>>;

export const approveSignal = defineSignal<[ApprovalSignalArgs?]>('approve');
export const rejectSignal = defineSignal<[ApprovalSignalArgs?]>('reject');

/**
 * patched: runs that reached their gate before the signals were checked listen only once the plan is written (the SDK
 * then hands them any signal sent earlier) and take a payload as it came, so they replay as recorded.
 */
const SIGNALS_CHECKED_PATCH = 'approval-signals-checked';
/** patched: runs cancelled at their gate before the cancel set TraceStatus replay without the upsert. */
const GATE_CANCEL_PATCH = 'approval-cancel-status';
/** patched: runs cancelled at their gate before the memo said so replay without that upsert. */
const GATE_CANCEL_MEMO_PATCH = 'approval-cancel-memo';
const CREDENTIAL_SENDER = 'a sender that looks like a credential (not shown)';
/** Ignored signals the run's details list (the newest). */
const MAX_NOTES = 5;

type Decision = { decision: 'approved' | 'rejected'; by: string; reason?: string };

const approvalActivities = proxyActivities<Activities>(stepActivityOptions);

/** The decision a run started with `approval` waits for (see `listenForDecision`). */
export interface DecisionSignals {
  /** Waits durably for a decision, or the timeout; `details` are the run's details meanwhile. */
  awaitDecision(
    input: ApprovalInput,
    details: string,
  ): Promise<
    Omit<ApprovalOutcome, 'planHtml' | 'planXlsx' | 'replanned' | 'replannedCount' | 'replannedFile'>
  >;
}

/**
 * Listens to `approve` and `reject`; call it when the run starts. A decision counts only while the run awaits it, once
 * the plan files are written: one sent earlier would approve a plan nobody has seen, so it is ignored and the run says
 * so. A payload that is not `{"by": "…", "reason": "…"}` is ignored too, what is wrong with it named in the run's
 * details and its log (not the payload: it may hold a pasted credential), so the operator sends it again.
 */
export function listenForDecision(): DecisionSignals {
  const checked = patched(SIGNALS_CHECKED_PATCH);
  let awaiting = false;
  let decided: Decision | undefined;
  let details = '';
  const notes: string[] = [];

  const ignore = (signal: string, note: string, fields: Record<string, unknown>) => {
    log.warn('Approval signal ignored', { signal, why: note, ...fields });
    notes.push(`\`${signal}\` ${note}`);
    if (notes.length > MAX_NOTES) notes.shift();
    if (awaiting) showDetails(withNotes());
  };
  const withNotes = () =>
    notes.length === 0 ? details : `${details}\n\nIgnored:\n${notes.map((note) => `- ${note}`).join('\n')}`;

  const receive = (decision: Decision['decision']) => (raw?: unknown) => {
    const signal = decision === 'approved' ? 'approve' : 'reject';
    if (decided) return;
    const parsed = approvalSignalArgsSchema.safeParse(raw, { reportInput: true });
    if (!parsed.success) {
      // Not the payload itself: it holds whatever was pasted, a credential too; the problems name the fields.
      const problems = inputProblems(approvalSignalArgsSchema, parsed.error);
      ignore(signal, `was ignored: ${problems}. Send it as {"by": "…", "reason": "…"}`, {
        problems,
      });
      return;
    }
    const by = parsed.data?.by || undefined;
    if (!awaiting) {
      // `by` is free text: a key pasted into it is not shown.
      const from = by === undefined ? undefined : (shownText(by) ?? CREDENTIAL_SENDER);
      ignore(
        signal,
        `${from ? `from ${from} ` : ''}came before the plan was written and was ignored: read the plan, then send it again`,
        { by: from ?? null },
      );
      return;
    }
    decided = {
      decision,
      // Kept in the run's result, details and a continued run's input: a key pasted into it is not.
      by: by === undefined ? 'unknown' : (shownText(by, 200) ?? CREDENTIAL_SENDER),
      ...(parsed.data?.reason ? { reason: parsed.data.reason } : {}),
    };
  };

  // As the signals were taken before they were checked, but for a `by` that is not text: that failed the workflow
  // task, so no run recorded a decision from it, and ignoring it frees a run stuck on one.
  const receiveUnchecked = (decision: Decision['decision']) => (raw?: unknown) => {
    const args = raw as { by?: unknown; reason?: unknown } | null | undefined;
    if (args?.by != null && typeof args.by !== 'string') {
      ignore(decision === 'approved' ? 'approve' : 'reject', 'was ignored: by: not text', {});
      return;
    }
    const reason = args?.reason;
    decided ??= {
      decision,
      by: (typeof args?.by === 'string' ? args.by.trim() : '') || 'unknown',
      // A reason that is not text is kept as its JSON, so the input that carries the decision stays valid.
      ...(reason ? { reason: typeof reason === 'string' ? reason : JSON.stringify(reason) } : {}),
    };
  };

  const listen = () => {
    const take = checked ? receive : receiveUnchecked;
    setHandler(approveSignal, take('approved'));
    setHandler(rejectSignal, take('rejected'));
  };
  if (checked) listen();

  return {
    async awaitDecision(input, shown) {
      const options = input === true ? {} : input;
      details = shown;
      awaiting = true;
      if (!checked) listen();
      setStatus('awaiting-approval');
      showDetails(withNotes());
      let inTime: boolean;
      try {
        inTime = await condition(
          () => decided !== undefined,
          (options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
        );
      } catch (error) {
        // Cancelled at the gate: the run no longer awaits a decision, so it must not keep saying so.
        if (isCancellation(error) && patched(GATE_CANCEL_PATCH)) {
          awaiting = false;
          setStatus('cancelled');
          showDetails('**Cancelled** while awaiting approval: nothing was written.');
          // The CLI's stop lines read it: this run wrote nothing, so a rerun makes a new plan, not "the rest".
          if (patched(GATE_CANCEL_MEMO_PATCH)) upsertMemo({ cancelled: true, cancelledAt: 'approval' });
        }
        throw error;
      }
      if (inTime && decided) return { ...decided, timedOut: false };
      const onTimeout = options.onTimeout ?? 'reject';
      const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
      return {
        decision: onTimeout === 'approve' ? 'approved' : 'rejected',
        by: 'timeout',
        reason: `no decision within ${timeoutSeconds}s`,
        timedOut: true,
        timeoutSeconds,
      };
    },
  };
}

/**
 * Shows the plan's summary (and the first of the warnings the run will give), waits for the decision and sets
 * TraceStatus from it (`rejected`, or `running` again). The outcome lists nothing re-planned yet: the caller checks
 * that once approved.
 */
async function decideOnPlan(
  input: ApprovalInput,
  signals: DecisionSignals,
  summary: string,
  files: { htmlFile: string; xlsxFile: string },
  warnings: readonly string[] = [],
): Promise<ApprovalOutcome> {
  const { workflowId } = workflowInfo();
  const warned = warnings.length > 0 ? `Warnings:\n${warnings.map((w) => `- ${w}`).join('\n')}\n\n` : '';
  const decision = await signals.awaitDecision(
    input,
    `**Awaiting approval**: ${summary}.\n\n${warned}` +
      `Plan: ${files.htmlFile} (and ${files.xlsxFile}).\n\nApprove: \`${cliCommand('approve', workflowId)}\` or the signal \`approve\`; reject: \`${cliCommand('reject', workflowId)}\`.`,
  );
  if (decision.decision === 'rejected') {
    setStatus('rejected');
    showDetails(
      `Plan rejected by ${decision.by}${decision.reason ? `: ${decision.reason}` : ''}. Nothing was written.`,
    );
  } else {
    setStatus('running');
  }
  return {
    ...decision,
    planHtml: files.htmlFile,
    planXlsx: files.xlsxFile,
    replanned: [],
    replannedCount: 0,
    replannedFile: null,
  };
}

type AddedFields = 'replannedCount' | 'replannedFile' | 'heldBack';
/**
 * A hold-back activity's result as a history may hold it: one recorded before the list was cut (a run in flight
 * then) has no count, file or `heldBack`, and lists every one held back.
 */
type AsRecorded<T> = Omit<T, AddedFields> & Partial<Pick<T, Extract<keyof T, AddedFields>>>;
type HeldBackReport = AsRecorded<Pick<ApprovalOutcome, 'replanned'> & HeldBackList<unknown>>;

/** `3 products changed on the platform since the plan were held back (A, B, C; every one in …/held-back.csv)`. */
export function heldBackNote(approval: ApprovalOutcome, noun: 'products' | 'orders'): string | undefined {
  const { replanned } = approval;
  const count = approval.replannedCount ?? replanned.length;
  if (count === 0) return undefined;
  const named = replanned
    .slice(0, 5)
    .map((r) => (r.orderType ? `${r.externalId} (${r.orderType})` : r.externalId))
    .join(', ');
  const where = approval.replannedFile ? `; every one in ${approval.replannedFile}` : '';
  return `${count} ${noun} changed on the platform since the plan were held back (${named}${count > 5 ? ', …' : ''}${where})`;
}

/** Says who approved, and which approved writes were held back because the platform changed them since the plan. */
function showApproved(
  approval: ApprovalOutcome,
  held: HeldBackReport,
  noun: 'products' | 'orders',
): ApprovalOutcome {
  const outcome: ApprovalOutcome = {
    ...approval,
    replanned: held.replanned,
    replannedCount: held.replannedCount ?? held.replanned.length,
    replannedFile: held.replannedFile ?? null,
  };
  const note = heldBackNote(outcome, noun);
  showDetails(`Plan approved by ${approval.by}${note ? `; ${note}` : ''}.`);
  return outcome;
}

export type PlmGate = { approval: ApprovalOutcome; plan: PlanResult | undefined };

/**
 * The PLM import's gate, between plan and apply. Returns the plan to apply (the approved writes only) or, when
 * rejected, no plan: the caller then writes nothing.
 */
export async function approvePlmPlan(
  input: ApprovalInput,
  run: {
    read: ReadResult;
    plan: PlanResult;
    batchSize: number;
    unarchive: boolean;
    signals: DecisionSignals;
    setPhase: (phase: 'awaiting approval' | 'planning') => void;
  },
): Promise<PlmGate> {
  const { workflowId } = workflowInfo();
  const files = await makingPlan(PLM_PLANNING_CANCEL_PATCH, () =>
    approvalActivities.writePlmApprovalPlan({
      runKey: run.read.runKey,
      manifest: run.plan.manifest,
      workflowId,
    }),
  );
  run.setPhase('awaiting approval');
  // A result recorded before `rejected` was added has the count only.
  const rejected = (files as Partial<typeof files>).rejected ?? `${files.rejects} rejected`;
  const approval = await decideOnPlan(
    input,
    run.signals,
    `${files.creates} to create, ${files.updates} to update, ${files.deletes} to delete, ${rejected}`,
    files,
  );
  if (approval.decision === 'rejected') return { approval, plan: undefined };
  // The platform may have changed while the plan waited: plan again, and apply only what is still as approved.
  run.setPhase('planning');
  const fresh = await approvalActivities.planPlmImport({
    runKey: run.read.runKey,
    sheet: run.read.sheet,
    batchSize: run.batchSize,
    unarchive: run.unarchive,
  });
  const held: AsRecorded<HoldBackResult> = await approvalActivities.holdBackChangedPlmSteps({
    runKey: run.read.runKey,
    manifest: fresh.manifest,
    approved: files.approved,
  });
  // A result recorded before it counted them lists every product held back: counted from the list.
  const heldBack = held.heldBack ?? {
    create: held.replanned.filter((r) => r.now === 'create').length,
    update: held.replanned.filter((r) => r.now.startsWith('update')).length,
  };
  const plan: PlanResult = {
    ...fresh,
    manifest: held.manifest,
    batchCount: held.batchCount,
    counts: {
      ...fresh.counts,
      create: fresh.counts.create - heldBack.create,
      update: fresh.counts.update - heldBack.update,
    },
  };
  return { approval: showApproved(approval, held, 'products'), plan };
}

/** The approval input with the decision recorded in it: continue-as-new carries it to the run that finishes. */
export function withDecision(input: ApprovalInput, decided: ApprovalOutcome): ApprovalInput {
  return { ...(input === true ? {} : input), decided };
}

/** The decision recorded in the input (a run continued as new after its approval), if any. */
export function recordedApproval(input: ApprovalInput | undefined): ApprovalOutcome | undefined {
  return input === undefined || input === true ? undefined : input.decided;
}

export type ErpGate = {
  approval: ApprovalOutcome;
  plan: { manifest: StagingRef; batchCount: number } | undefined;
};

/**
 * Where a run continued as new in the middle of the ERP gate picks it up (carried in `resume`, a few fields): the
 * dry pass under way and its next batch; for the recheck, its batches and the decision taken on the plan.
 */
export type ErpGateResume =
  | { pass: 'plan'; nextBatch: number }
  | { pass: 'recheck'; nextBatch: number; manifest: StagingRef; approval: ApprovalOutcome };

/** patched: runs whose dry passes began before they continued as new run them to the end in one history. */
const DRY_PASS_CARRIES_PATCH = 'approval-dry-pass-continues-as-new';
/** patched: runs cancelled in the plan's dry pass before they said so replay without the status and memo upserts. */
const PLANNING_CANCEL_PATCH = 'approval-cancel-planning';
/** patched: PLM imports cancelled while planning (before the wait) before they said so replay without the upserts. */
export const PLM_PLANNING_CANCEL_PATCH = 'plm-approval-cancel-planning';

/**
 * Makes the plan a gate will show (`making`); a cancel meanwhile is said as one at the gate is (TraceStatus
 * `cancelled`, memo `cancelledAt: 'planning'`): the run wrote nothing and a rerun makes a new plan. `patch`: the
 * job's marker, so histories cancelled there before it replay without the upserts.
 */
export async function makingPlan<T>(patch: string, making: () => Promise<T>): Promise<T> {
  try {
    return await making();
  } catch (error) {
    if (isCancellation(error) && patched(patch)) {
      setStatus('cancelled');
      showDetails('**Cancelled** while making its plan: nothing was written.');
      upsertMemo({ cancelled: true, cancelledAt: 'planning' });
    }
    throw error;
  }
}

/**
 * The ERP push's gate, between prepare and push. The plan is a dry pass of every batch (reads only) under a run key
 * of its own; approved, a second dry pass finds the orders whose outcome changed since, which are not written.
 * Each pass continues as new through `carry` when Temporal suggests it (an activity per batch: a long export's two
 * passes would outgrow a history), and the continued run comes back here with `resume`.
 */
export async function approveErpPlan(
  input: ApprovalInput,
  run: {
    runKey: string;
    manifest: StagingRef;
    batchCount: number;
    /** The warnings from reading the export: the plan lists them, as the run's result will. */
    warnings: string[];
    /** How many more the prepare step left out of `warnings`. */
    moreWarnings?: number;
    /** Needed until the decision is taken (a run resumed in the recheck has taken it). */
    signals: DecisionSignals | undefined;
    setPhase: (phase: 'awaiting approval' | 'planning') => void;
    resume: ErpGateResume | undefined;
    carry: (gate: ErpGateResume) => Promise<never>;
  },
): Promise<ErpGate> {
  const { workflowId } = workflowInfo();
  const dryPass = async (
    runKey: string,
    verb: string,
    manifest: StagingRef,
    from: number,
    carry: (nextBatch: number) => Promise<never>,
  ) => {
    for (let batch = from; batch < run.batchCount;) {
      await approvalActivities.applyErpOrderBatch.executeWithOptions(
        { summary: batchSummary(verb, batch, run.batchCount, undefined, 'orders') },
        [{ runKey, manifest, batch, dryRun: true }],
      );
      batch += 1;
      if (
        batch < run.batchCount &&
        workflowInfo().continueAsNewSuggested &&
        patched(DRY_PASS_CARRIES_PATCH)
      ) {
        log.info('Continuing as new', { pass: verb, at: batch, of: run.batchCount });
        await carry(batch);
      }
    }
  };
  const planRunKey = `${run.runKey}--plan`;
  const recheckRunKey = `${run.runKey}--recheck`;
  run.setPhase('planning');
  let approval: ApprovalOutcome;
  let recheck: { manifest: StagingRef; from: number };
  if (run.resume?.pass === 'recheck') {
    approval = run.resume.approval;
    recheck = { manifest: run.resume.manifest, from: run.resume.nextBatch };
  } else {
    const files = await makingPlan(PLANNING_CANCEL_PATCH, async () => {
      await dryPass(planRunKey, 'plan', run.manifest, run.resume?.nextBatch ?? 0, (nextBatch) =>
        run.carry({ pass: 'plan', nextBatch }),
      );
      return approvalActivities.writeErpApprovalPlan({
        runKey: run.runKey,
        planRunKey,
        workflowId,
        readWarnings: run.warnings,
        ...(run.moreWarnings !== undefined ? { moreReadWarnings: run.moreWarnings } : {}),
      });
    });
    run.setPhase('awaiting approval');
    if (!run.signals) throw new Error('the ERP gate awaits a decision without listening for one');
    // A result recorded before `rejected` and `warnings` were added has the count only.
    const recorded = files as Partial<typeof files>;
    approval = await decideOnPlan(
      input,
      run.signals,
      `${files.creates} orders to create, ${files.updates} to update, ${files.deletes} with lines to delete, ${recorded.rejected ?? `${files.rejects} rejected`}`,
      files,
      recorded.warnings ?? [],
    );
    if (approval.decision === 'rejected') return { approval, plan: undefined };
    run.setPhase('planning');
    recheck = {
      manifest: await approvalActivities.freshErpLookupManifest({
        runKey: run.runKey,
        manifest: run.manifest,
      }),
      from: 0,
    };
  }
  const decided = approval;
  await dryPass(recheckRunKey, 'recheck', recheck.manifest, recheck.from, (nextBatch) =>
    run.carry({ pass: 'recheck', nextBatch, manifest: recheck.manifest, approval: decided }),
  );
  const held = await approvalActivities.holdBackChangedErpOrders({
    runKey: run.runKey,
    manifest: run.manifest,
    planRunKey,
    recheckRunKey,
  });
  return {
    approval: showApproved(approval, held, 'orders'),
    plan: { manifest: held.manifest, batchCount: held.batchCount },
  };
}
