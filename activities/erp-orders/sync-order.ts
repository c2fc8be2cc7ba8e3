import {
  planOrderSync,
  productRefKey,
  type ExistingOrder,
  type OrderDraft,
  type OrderPlan,
  type ProductRef,
} from '../../connectors/erp';
import { isTraceabilityApiError, type TraceabilityApiError } from '../../connectors/traceability/errors';
import type { ApiCallCounter } from './api-calls';
import { resolveProducts } from './lookups';
import type { PersonDirectory } from './persons';
import type { OutcomeLog } from './run-files';
import { toExisting } from './snapshot';
import type { BatchRecord, OrderOutcome } from './types';

export interface OrderSyncContext {
  api: ApiCallCounter;
  log: OutcomeLog;
  complete: boolean;
  dryRun: boolean;
  /** Filled by the run's prepare, and here when an order turns out to exist after all (shared by the batch). */
  resolvedStyleIds: Map<string, string>;
  unresolvedRefs: Set<string>;
  persons: PersonDirectory;
}

/** Comparing with an existing order needs platform product ids: look up the refs the prepare did not. */
async function resolveRefsOf(draft: OrderDraft, ctx: OrderSyncContext): Promise<void> {
  const missing = new Map<string, ProductRef>();
  for (const line of draft.lines) {
    const key = productRefKey(line.productRef);
    if (!ctx.resolvedStyleIds.has(key) && !ctx.unresolvedRefs.has(key)) missing.set(key, line.productRef);
  }
  if (missing.size === 0) return;
  const { resolved, unresolved } = await resolveProducts(ctx.api, missing);
  for (const [key, id] of resolved) ctx.resolvedStyleIds.set(key, id);
  for (const key of unresolved) ctx.unresolvedRefs.add(key);
}

export interface ResumeHint {
  /** A previous attempt logged this write for the order and then died before its outcome. */
  pending?: 'create' | 'patch';
  /** This activity attempt follows a failed one: the snapshot may predate our own writes. */
  retry: boolean;
}

/** Rounds of read → plan → write per order before the batch gives up and lets Temporal retry it. */
const MAX_ROUNDS = 6;

const TRACING_LOCK = 'order_structural_fields_locked_by_tracing';
const NUMBER_TAKEN = 'order_number_already_existing';

interface State {
  existing: ExistingOrder | undefined;
  /** Read during this attempt with its full lines (only such a state may plan a write). */
  fresh: boolean;
}

/**
 * The platform's current order for a draft, by exact number and the type its parties imply: one list call, and one
 * GET for the lines when it has some. `knownId` first tries the id (a 404 falls back to the number).
 */
export async function readOrder(
  api: ApiCallCounter,
  draft: OrderDraft,
  knownId?: string,
): Promise<ExistingOrder | undefined> {
  if (knownId !== undefined) {
    try {
      return toExisting(await api.one(() => api.client.orders.get(knownId)));
    } catch (error) {
      if (!isTraceabilityApiError(error) || error.statusCode !== 404) throw error;
    }
  }
  const page = await api.one(() =>
    api.client.orders.list({ orderNumber: draft.orderNumber, type: draft.orderType, limit: 100 }),
  );
  const match = page.items.find(
    (order) => order.orderNumber === draft.orderNumber && order.orderType === draft.orderType,
  );
  if (match === undefined) return undefined;
  if (match.lineCount === 0) return toExisting(match, []);
  try {
    return toExisting(await api.one(() => api.client.orders.get(match.id)));
  } catch (error) {
    if (isTraceabilityApiError(error) && error.statusCode === 404) return undefined;
    throw error;
  }
}

function outcomeOf(
  draft: OrderDraft,
  fields: Omit<OrderOutcome, 'kind' | 'orderNumber' | 'rows'>,
): OrderOutcome {
  return { kind: 'outcome', orderNumber: draft.orderNumber, rows: draft.rows, ...fields };
}

function apiRejection(draft: OrderDraft, error: TraceabilityApiError): OrderOutcome {
  const message =
    error.code === TRACING_LOCK
      ? `order '${draft.orderNumber}': its parties or facility processes are locked by tracing (the counterparty linked ` +
        `its order), so they cannot change; the API said: ${error.message}`
      : `order '${draft.orderNumber}': ${error.message}`;
  return outcomeOf(draft, {
    outcome: 'rejected',
    code: error.code,
    message,
    problems: [{ code: error.code, message }],
  });
}

function unresolvedProducts(draft: OrderDraft, ctx: OrderSyncContext): OrderOutcome | undefined {
  const missing = draft.lines.filter((line) => ctx.unresolvedRefs.has(productRefKey(line.productRef)));
  if (missing.length === 0) return undefined;
  const problems = missing.map((line) => {
    const ref = line.productRef;
    const what = 'externalId' in ref ? `externalId '${ref.externalId}'` : `${ref.codeId} '${ref.codeValue}'`;
    return {
      code: 'product_not_resolved',
      row: line.rows[0],
      message: `row ${line.rows[0]}: product ${what} was not found in the catalogue`,
    };
  });
  const first = problems[0];
  return outcomeOf(draft, {
    outcome: 'rejected',
    code: 'product_not_resolved',
    message: first?.message ?? 'product not found',
    problems,
  });
}

function lineCounts(plan: Extract<OrderPlan, { kind: 'patch' }>): OrderOutcome['lines'] {
  return { created: plan.lines.created, updated: plan.lines.updated, deleted: plan.lines.deleted };
}

/**
 * Makes the platform's order match the draft and returns what happened. Idempotent: every write is planned on a
 * fresh read, a create whose answer was lost or whose number is taken is re-read and re-planned (never sent again
 * blindly), and writes are journalled (`intent`) so a crashed attempt's create is recognised as ours.
 */
export async function syncOrder(
  record: BatchRecord,
  ctx: OrderSyncContext,
  hint: ResumeHint,
): Promise<OrderOutcome> {
  const { draft } = record;
  const { api } = ctx;
  const refused = unresolvedProducts(draft, ctx);
  if (refused) return refused;

  let recovered: OrderOutcome['recovered'] = hint.pending ? 'resumed' : undefined;
  let wrote: 'create' | 'patch' | undefined = hint.pending;
  let state: State;
  if (
    record.lookup === 'unknown' ||
    hint.pending !== undefined ||
    hint.retry ||
    (record.existing && !record.linesKnown)
  ) {
    state = { existing: await readOrder(api, draft, record.existing?.id), fresh: true };
  } else {
    state = { existing: record.existing ?? undefined, fresh: false };
  }
  const reread = async (): Promise<void> => {
    state = { existing: await readOrder(api, draft, state.existing?.id), fresh: true };
  };
  const settled = (orderId: string | undefined, lines?: OrderOutcome['lines']): OrderOutcome =>
    outcomeOf(draft, {
      outcome: wrote === 'create' ? 'created' : wrote === 'patch' ? 'patched' : 'unchanged',
      ...(orderId ? { orderId } : {}),
      ...(lines ? { lines } : {}),
      ...(recovered ? { recovered } : {}),
    });

  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (state.existing !== undefined) await resolveRefsOf(draft, ctx);
    const plan = planOrderSync({
      draft,
      existing: state.existing,
      resolvedStyleIds: ctx.resolvedStyleIds,
      complete: ctx.complete,
      responsiblePersonIds: ctx.persons.ids,
    });
    if (plan.kind === 'rejected') {
      const { code, message, problems } = plan.rejection;
      return outcomeOf(draft, { outcome: 'rejected', code, message, problems });
    }
    if (plan.kind === 'unchanged') return settled(plan.orderId);

    if (plan.kind === 'create') {
      if (ctx.dryRun) {
        wrote = 'create';
        return settled(undefined, { created: plan.body.lines?.length ?? 0, updated: 0, deleted: 0 });
      }
      await ctx.log.append({ kind: 'intent', orderNumber: draft.orderNumber, write: 'create' });
      try {
        const created = await api.one(() => api.client.orders.create(plan.body));
        ctx.persons.learn(draft.internalResponsiblePersons, created.internalResponsiblePersons);
        wrote = 'create';
        return settled(created.id, { created: created.lines?.length ?? 0, updated: 0, deleted: 0 });
      } catch (error) {
        if (!isTraceabilityApiError(error)) throw error;
        if (error.code === NUMBER_TAKEN) {
          // Someone (perhaps our own earlier attempt) holds the number: it becomes a compare-and-patch.
          recovered ??= 'number_taken';
          await reread();
          if (state.existing === undefined) return apiRejection(draft, error);
          continue;
        }
        if (error.maybeCommitted) {
          // The answer was lost: re-read before any new create.
          recovered = 'lost_answer';
          wrote = 'create';
          await reread();
          if (state.existing === undefined) wrote = undefined;
          continue;
        }
        if (!error.retryable) return apiRejection(draft, error);
        throw error;
      }
    }

    // A patch: only ever computed from a fresh read, so a stale snapshot never drives a write.
    if (!state.fresh) {
      await reread();
      continue;
    }
    if (ctx.dryRun) {
      wrote = 'patch';
      return settled(plan.orderId, lineCounts(plan));
    }
    await ctx.log.append({ kind: 'intent', orderNumber: draft.orderNumber, write: 'patch' });
    try {
      for (const step of plan.steps) {
        const updated = await api.one(() => api.client.orders.update(plan.orderId, step));
        if (step.internalResponsiblePersons !== undefined)
          ctx.persons.learn(step.internalResponsiblePersons, updated.internalResponsiblePersons);
      }
      wrote ??= 'patch';
      return settled(plan.orderId, lineCounts(plan));
    } catch (error) {
      if (!isTraceabilityApiError(error)) throw error;
      if (error.statusCode === 404 || error.maybeCommitted || (error.retryable && error.statusCode === 0)) {
        // Gone, a line vanished, or the answer was lost (a two-step plan may be half done): read and plan again.
        if (error.maybeCommitted) recovered = 'lost_answer';
        wrote ??= 'patch';
        await reread();
        continue;
      }
      if (!error.retryable) return apiRejection(draft, error);
      throw error;
    }
  }
  throw new Error(
    `order '${draft.orderNumber}' did not settle after ${MAX_ROUNDS} read-plan-write rounds; the batch will be retried`,
  );
}
