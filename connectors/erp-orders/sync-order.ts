import { boundMessage, quoteInput } from '../input-limits';
import type { ApiCalls } from '../staging';
import type { BatchJournal } from '../staging';
import {
  isTraceabilityApiError,
  refusesKey,
  refusesRecord,
  type TraceabilityApiError,
} from '../traceability/errors';
import type { Order } from '../traceability';
import type { OrderType } from '../traceability/schemas/orders';
import { productRefKey, type OrderDraft, type ProductRef } from './orders/draft';
import { blockingTypes, resolveProducts, toExisting } from './platform-reads';
import {
  rejectedOutcome,
  type BatchRecord,
  type OrderOutcome,
  type OutcomeEntry,
  type PendingWrite,
} from './push-run';
import { planOrderSync, type ExistingOrder, type OrderPlan } from './reconcile';
import type { PersonDirectory } from './persons';
import { fieldChanges, nameCompaniesOf, type PlanWordsReads } from './plan-words';
import { productProblem } from './reconcile-lines';

/** `words` and `networkNamed` (PlanWordsReads): the export's words for a plan's order fields (the run's manifest). */
export interface OrderSyncContext extends PlanWordsReads {
  log: BatchJournal<OutcomeEntry>;
  complete: boolean;
  dryRun: boolean;
  /** Filled by the run's prepare, and here when an order turns out to exist after all (shared by the batch). */
  resolvedStyleIds: Map<string, string>;
  unresolvedRefs: Set<string>;
  /** Refs whose product is archived (a line may keep one, not take one). */
  archivedRefs: Set<string>;
  allowTracedLineRemoval: boolean;
  /** Archived orders are unarchived and updated (else rejected as `order_archived`). */
  unarchive?: boolean;
  persons: PersonDirectory;
  /** The caller's company: only its own products are a line's product (undefined in runs staged without it). */
  ownCompanyId?: string | undefined;
}

/** Comparing with an existing order needs platform product ids: look up the refs the prepare did not. */
async function resolveRefsOf(draft: OrderDraft, ctx: OrderSyncContext): Promise<void> {
  const missing = new Map<string, ProductRef>();
  for (const line of draft.lines) {
    const key = productRefKey(line.productRef);
    if (!ctx.resolvedStyleIds.has(key) && !ctx.unresolvedRefs.has(key)) missing.set(key, line.productRef);
  }
  if (missing.size === 0) return;
  const { resolved, unresolved, archived } = await resolveProducts(ctx.api, missing, ctx.ownCompanyId);
  for (const [key, id] of resolved) ctx.resolvedStyleIds.set(key, id);
  for (const key of unresolved) ctx.unresolvedRefs.add(key);
  for (const key of archived) ctx.archivedRefs.add(key);
}

export interface ResumeHint {
  /** A previous attempt logged this write for the order and then died before its outcome. */
  pending?: PendingWrite;
  /** This activity attempt follows a failed one: the snapshot may predate our own writes. */
  retry: boolean;
}

/** Rounds of read → plan → write per order before the batch gives up and lets Temporal retry it. */
const MAX_ROUNDS = 6;

const TRACING_LOCK = 'order_structural_fields_locked_by_tracing';
const NUMBER_TAKEN = 'order_number_already_existing';
/** 404s that mean "the platform changed under us" (the order or a line is gone): re-read and plan again. */
const GONE = new Set(['not_found', 'order_line_not_found']);

interface State {
  existing: ExistingOrder | undefined;
  /** Read during this attempt with its full lines (only such a state may plan a write). */
  fresh: boolean;
  /** The order types the platform holds this number under, archived orders aside (undefined: not known). */
  typesOnPlatform?: readonly OrderType[] | undefined;
}

/** Reads by number before giving up: an order renamed (or retyped) between our list and our GET of it, each time. */
const READS_BY_NUMBER = 3;

/**
 * Spec 03: the number and type are the natural key, and a PATCH may change either ("a change of type or of
 * `orderNumber`"): an order read by id is the draft's only while it still holds the draft's number and type.
 */
const isDraftsOrder = (order: Pick<Order, 'orderNumber' | 'orderType'>, draft: OrderDraft): boolean =>
  order.orderNumber === draft.orderNumber && order.orderType === draft.orderType;

/**
 * An order read by id, with every line. Spec 03, line reconciliation: "any existing line absent from the array is
 * deleted": lines missing from a read (`lines` null or short of `lineCount`) would look absent to the plan, and its
 * PATCH would delete them and create them anew. No write is planned on such a read; the batch is retried.
 */
function wholeOrder(order: Order, draft: OrderDraft): ExistingOrder {
  const lines = order.lines?.length ?? 0;
  if (typeof order.lineCount === 'number' && order.lineCount !== lines) {
    throw new Error(
      `order '${quoteInput(draft.orderNumber)}': the platform answered ${lines} of its ${order.lineCount} lines ` +
        `(GET /orders/${order.id}); no change is planned on an incomplete read, the batch will be retried`,
    );
  }
  return toExisting(order);
}

/**
 * The platform's current order for a draft, by exact number and the type its parties imply: one list call by number
 * (which also tells under which other types the number exists), and one GET for the lines when it has some.
 * `knownId` (the snapshot's, or an earlier read's) first tries the id; an order gone (404), or renamed or retyped
 * since, falls back to the number, so the export never writes to an order that no longer holds its number.
 */
async function readOrder(api: ApiCalls, draft: OrderDraft, knownId?: string): Promise<State> {
  const known = knownId === undefined ? undefined : await api.found(() => api.client.orders.get(knownId));
  if (known && isDraftsOrder(known, draft)) return { existing: wholeOrder(known, draft), fresh: true };
  for (let read = 0; read < READS_BY_NUMBER; read++) {
    const page = await api.one(() => api.client.orders.list({ orderNumber: draft.orderNumber, limit: 100 }));
    const sameNumber = page.items.filter((order) => order.orderNumber === draft.orderNumber);
    const typesOnPlatform = blockingTypes(sameNumber);
    const match = sameNumber.find((order) => order.orderType === draft.orderType);
    if (match === undefined) return { existing: undefined, fresh: true, typesOnPlatform };
    if (match.lineCount === 0) return { existing: toExisting(match, []), fresh: true, typesOnPlatform };
    const order = await api.found(() => api.client.orders.get(match.id));
    if (order === undefined) return { existing: undefined, fresh: true, typesOnPlatform };
    if (isDraftsOrder(order, draft))
      return { existing: wholeOrder(order, draft), fresh: true, typesOnPlatform };
  }
  throw new Error(
    `order '${quoteInput(draft.orderNumber)}': the platform's order with this number was renamed or changed type on ` +
      `each of ${READS_BY_NUMBER} reads; the batch will be retried`,
  );
}

/** An audit field of the order as the API answered it (spec 03: `createdByUserName`, `updatedByApiKeyId`...). */
function auditField(existing: ExistingOrder, field: string): string | undefined {
  const value: unknown = existing[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Spec 03's audit fields: "Key-made writes fill the ApiKey pair and leave the User pair null; platform-UI writes do
 * the reverse". An order a platform user made, and whose last write was a user's too, is not one an API key pushed:
 * the push takes it as the export's order of that number (orderNumber is the key), and says so. Once the push has
 * written it, the last write is a key's and the warning stops. Another key's order cannot be told from this one's:
 * the API does not say which key is the caller.
 */
function madeInPlatformUi(draft: OrderDraft, existing: ExistingOrder): string | undefined {
  const maker = auditField(existing, 'createdByUserId');
  if (maker === undefined || auditField(existing, 'updatedByApiKeyId') !== undefined) return undefined;
  const name = auditField(existing, 'createdByUserName');
  const by = name ? `${quoteInput(name, 80)} (${quoteInput(maker, 80)})` : quoteInput(maker, 80);
  return (
    `order '${quoteInput(draft.orderNumber)}' was made in the platform UI by ${by}, not through the API: the push ` +
    "takes it for the export's order with that number and updates it. If they are different orders, give one of " +
    'them another number'
  );
}

function outcomeOf(
  draft: OrderDraft,
  fields: Omit<OrderOutcome, 'kind' | 'orderNumber' | 'orderType' | 'rows'>,
): OrderOutcome {
  return {
    kind: 'outcome',
    orderNumber: draft.orderNumber,
    orderType: draft.orderType,
    rows: draft.rows,
    ...fields,
  };
}

/**
 * Spec: `orderType` is "Re-derived on every update" and numbers are unique per type only, so a file whose parties
 * turn an existing order into another type would create a second order beside it. That is refused: the parties in
 * the file are most likely wrong, and when they are right the user decides what becomes of the old order.
 */
function typeChanged(draft: OrderDraft, others: readonly OrderType[]): OrderOutcome {
  const message =
    `order '${draft.orderNumber}': the platform holds it as ${others.join(' and ')}, but the parties in the file make it a ` +
    `${draft.orderType}; pushing it would create a second order with the same number beside the existing one. Check the ` +
    'buyer and supplier in the file; if the order really changed type, archive or delete the old one on the platform and push again';
  return rejectedOutcome(draft, 'order_type_changed', message);
}

function apiRejectionMessage(draft: OrderDraft, error: TraceabilityApiError): string {
  return error.code === TRACING_LOCK
    ? `order '${draft.orderNumber}': its parties or facility processes are locked by tracing (the counterparty linked ` +
        `its order), so they cannot change; the API said: ${error.message}`
    : `order '${draft.orderNumber}': ${error.message}`;
}

/**
 * The key was refused between a renumbering's two requests: no PATCH can put the numbers back, so the run's failure
 * says which order holds temporary line numbers (a push with a good key renames them by their line ids).
 */
function leftRenumbered(draft: OrderDraft, undo: Undo, refused: TraceabilityApiError): TraceabilityApiError {
  return refused.with({
    message:
      `${refused.message}. Order '${quoteInput(draft.orderNumber)}' was left with ${undo.moved.length} line(s) on ` +
      'temporary numbers (the first of its two renumbering requests went through): pushing the file again with a ' +
      'working key renames them',
  });
}

function apiRejection(draft: OrderDraft, error: TraceabilityApiError): OrderOutcome {
  return rejectedOutcome(draft, error.code, apiRejectionMessage(draft, error));
}

type Undo = NonNullable<Extract<OrderPlan, { kind: 'patch' }>['undoFirst']>;

/**
 * Spec: "Order fields and lines are changed atomically" per request, but a renumbering takes two requests ("use a
 * temporary number in two requests"). When the second is refused, the first has already moved lines to temporary
 * numbers: a compensating PATCH puts them back, and the order is rejected with the API's reason. Should that fail
 * too, the outcome says which lines carry temporary numbers (pushing the file again, with its line ids, renames them).
 */
async function undoRenumbering(
  api: ApiCalls,
  draft: OrderDraft,
  orderId: string,
  undo: Undo,
  refused: TraceabilityApiError,
): Promise<OrderOutcome> {
  const reason = apiRejectionMessage(draft, refused);
  const putBack = (): OrderOutcome =>
    rejectedOutcome(
      draft,
      refused.code,
      `${reason}. Its lines had been moved to temporary numbers for the renumbering (the first of two requests); ` +
        'the line numbers were put back, so the order is as it was',
    );
  let failure: string;
  try {
    await api.one(() => api.client.orders.update(orderId, undo.body));
    return putBack();
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  let left = undo.moved;
  let known = false;
  try {
    const order = await api.found(() => api.client.orders.get(orderId));
    if (order) {
      const now = new Map((order.lines ?? []).map((line) => [line.id, line.orderLineNumber]));
      left = undo.moved.filter((move) => now.get(move.id) === move.temporary);
      known = true;
    }
  } catch {
    // Not readable now: name every line the first request moved.
  }
  // The answer was lost but the request went through.
  if (known && left.length === 0) return putBack();
  const listed = left
    .slice(0, 10)
    .map(
      (move) => `line ${move.id} (was '${quoteInput(move.orderLineNumber, 60)}') carries '${move.temporary}'`,
    )
    .join(', ');
  const more = left.length > 10 ? ` and ${left.length - 10} more` : '';
  const leftOver =
    `putting the line numbers back failed too (${boundMessage(failure, 300)}): on the platform ` +
    `${known ? '' : 'probably '}${listed}${more}. Fix the error and push the file again (its line ids rename them), ` +
    'or rename them on the platform';
  return rejectedOutcome(draft, refused.code, `${reason}. ${leftOver}`, [
    { code: refused.code, message: reason },
    { code: 'temporary_line_numbers_left', message: `order '${draft.orderNumber}': ${leftOver}` },
  ]);
}

function unresolvedProducts(draft: OrderDraft, ctx: OrderSyncContext): OrderOutcome | undefined {
  const missing = draft.lines.filter((line) => ctx.unresolvedRefs.has(productRefKey(line.productRef)));
  if (missing.length === 0) return undefined;
  const problems = missing.map((line) => productProblem(line, false));
  return rejectedOutcome(draft, 'style_not_found', problems[0]?.message ?? 'product not found', problems);
}

function lineCounts(plan: Extract<OrderPlan, { kind: 'patch' }>): OrderOutcome['lines'] {
  return { created: plan.lines.created, updated: plan.lines.updated, deleted: plan.lines.deleted };
}

/**
 * Makes the platform's order match the draft and returns what happened. Idempotent: every write is planned on a
 * fresh read, a create whose answer was lost or whose number is taken is re-read and re-planned (never sent again
 * blindly), and writes are journalled (`intent`, with their line counts) so a crashed attempt's write is recognised
 * as ours and still counted. A 4xx that names bad data is the order's outcome, never a retry.
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
  let wrote: 'create' | 'patch' | undefined = hint.pending?.write;
  /** Line counts of the write this run (or the crashed attempt before it) made. */
  let written: OrderOutcome['lines'] = hint.pending?.lines;
  let state: State;
  if (
    record.lookup === 'unknown' ||
    hint.pending !== undefined ||
    hint.retry ||
    (record.existing && !record.linesKnown)
  ) {
    state = await readOrder(api, draft, record.existing?.id);
  } else {
    state = {
      existing: record.existing ?? undefined,
      fresh: false,
      typesOnPlatform: record.typesOnPlatform ?? undefined,
    };
  }
  const reread = async (): Promise<void> => {
    state = await readOrder(api, draft, state.existing?.id);
  };
  /** A patch's field changes, before → after, kept in its outcome (the approval plan shows and rechecks them). */
  let fields: OrderOutcome['fields'];
  let warning: string | undefined;
  const settled = (orderId: string | undefined, lines?: OrderOutcome['lines']): OrderOutcome => {
    // A create found done (lost answer, crash) made every line the order holds; a patch found done, what it planned.
    const counted =
      lines ??
      written ??
      (wrote === 'create' && state.existing
        ? { created: state.existing.lines.length, updated: 0, deleted: 0 }
        : undefined);
    return outcomeOf(draft, {
      outcome: wrote === 'create' ? 'created' : wrote === 'patch' ? 'patched' : 'unchanged',
      ...(orderId ? { orderId } : {}),
      ...(counted ? { lines: counted } : {}),
      ...(wrote === 'patch' && fields && fields.length > 0 ? { fields } : {}),
      ...(wrote === 'patch' && warning ? { warning } : {}),
      ...(recovered ? { recovered } : {}),
    });
  };

  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (state.existing !== undefined) await resolveRefsOf(draft, ctx);
    const plan = planOrderSync({
      draft,
      existing: state.existing,
      resolvedStyleIds: ctx.resolvedStyleIds,
      complete: ctx.complete,
      allowTracedLineRemoval: ctx.allowTracedLineRemoval,
      unarchive: ctx.unarchive ?? false,
      archivedRefs: ctx.archivedRefs,
      responsiblePersonIds: ctx.persons.ids,
      responsiblePersonGroups: ctx.persons.groupIds,
    });
    if (plan.kind === 'rejected') {
      // A refusal rests on the platform's order as it is now, not as the run's snapshot saw it.
      if (state.existing !== undefined && !state.fresh) {
        await reread();
        continue;
      }
      const { code, message, problems } = plan.rejection;
      return rejectedOutcome(draft, code, message, problems);
    }
    if (plan.kind === 'unchanged') return settled(plan.orderId);

    if (plan.kind === 'create') {
      if (state.typesOnPlatform === undefined) {
        await reread();
        continue;
      }
      const others = state.typesOnPlatform.filter(
        (type) => type !== draft.orderType && !record.typesInFile.includes(type),
      );
      if (others.length > 0 && wrote === undefined) return typeChanged(draft, others);
      const lines = { created: plan.body.lines?.length ?? 0, updated: 0, deleted: 0 };
      if (ctx.dryRun) {
        wrote = 'create';
        return settled(undefined, lines);
      }
      await ctx.log.append({
        kind: 'intent',
        orderNumber: draft.orderNumber,
        orderType: draft.orderType,
        write: 'create',
        lines,
      });
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
          written = lines;
          await reread();
          if (state.existing === undefined) {
            wrote = undefined;
            written = undefined;
          }
          continue;
        }
        if (refusesRecord(error)) return apiRejection(draft, error);
        throw error;
      }
    }

    // A patch: only ever computed from a fresh read, so a stale snapshot never drives a write.
    if (!state.fresh) {
      await reread();
      continue;
    }
    if (state.existing) {
      if (ctx.dryRun) await nameCompaniesOf(plan, state.existing, ctx);
      fields = fieldChanges(plan, state.existing, ctx.words, ctx.persons);
      warning = madeInPlatformUi(draft, state.existing);
    }
    if (ctx.dryRun) {
      wrote = 'patch';
      return settled(plan.orderId, lineCounts(plan));
    }
    const lines = lineCounts(plan);
    await ctx.log.append({
      kind: 'intent',
      orderNumber: draft.orderNumber,
      orderType: draft.orderType,
      write: 'patch',
      ...(lines ? { lines } : {}),
    });
    let sent = 0;
    try {
      for (const step of plan.steps) {
        const updated = await api.one(() => api.client.orders.update(plan.orderId, step));
        sent += 1;
        if (step.internalResponsiblePersons !== undefined)
          ctx.persons.learn(step.internalResponsiblePersons, updated.internalResponsiblePersons);
      }
      const patchedAfterCreate = wrote === 'create';
      wrote ??= 'patch';
      return settled(plan.orderId, patchedAfterCreate && written ? addLines(written, lines) : lines);
    } catch (error) {
      if (!isTraceabilityApiError(error)) throw error;
      const gone = error.statusCode === 404 && GONE.has(error.code);
      if (gone || error.maybeCommitted || (error.retryable && error.statusCode === 0)) {
        // Gone, a line vanished, or the answer was lost (a two-step plan may be half done): read and plan again.
        if (error.maybeCommitted) {
          recovered = 'lost_answer';
          written = lines;
        }
        wrote ??= 'patch';
        await reread();
        continue;
      }
      if (refusesKey(error) && sent > 0 && plan.undoFirst) throw leftRenumbered(draft, plan.undoFirst, error);
      // Every other 4xx names bad data (style_not_found, invalid_company_id, responsible_person_not_found...).
      if (refusesRecord(error)) {
        return sent > 0 && plan.undoFirst
          ? await undoRenumbering(api, draft, plan.orderId, plan.undoFirst, error)
          : apiRejection(draft, error);
      }
      throw error;
    }
  }
  throw new Error(
    `order '${draft.orderNumber}' did not settle after ${MAX_ROUNDS} read-plan-write rounds; the batch will be retried`,
  );
}

function addLines(a: NonNullable<OrderOutcome['lines']>, b: OrderOutcome['lines']): OrderOutcome['lines'] {
  if (b === undefined) return a;
  return { created: a.created + b.created, updated: a.updated + b.updated, deleted: a.deleted + b.deleted };
}
