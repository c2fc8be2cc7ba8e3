import { z } from 'zod';
import { quoteInput } from '../input-limits';
import {
  orderSchema,
  type OrderCreate,
  type OrderPatch,
  type OrderType,
} from '../traceability/schemas/orders';
import {
  DATE_FIELDS,
  productRefKey,
  rejectionOf,
  type OrderDraft,
  type OrderRejection,
  type Problem,
} from './orders/draft';
import {
  newLineEntry,
  planLines,
  productProblem,
  type LineSummary,
  type TemporaryMove,
} from './reconcile-lines';

const nullishString = z.string().nullish();

/** The parts of an order line (GET /orders/{id}) the reconciliation compares. Other fields pass through. */
export const existingOrderLineSchema = z.looseObject({
  id: z.string().min(1),
  orderLineNumber: z.string(),
  lineNo: z.number(),
  /** Always a platform id in responses. */
  styleId: z.string(),
  quantity: z.number(),
  unit: z.string(),
  secondaryQuantity: z.number().nullish(),
  tracingReflectionOrderId: nullishString,
});
export type ExistingOrderLine = z.infer<typeof existingOrderLineSchema>;

/**
 * An order as GET /orders/{id} returns it: the client's order schema, with the lines reduced to what the push
 * compares (and the export writes), and `isArchived` optional so list items and older answers still parse.
 */
export const existingOrderSchema = orderSchema.extend({
  isArchived: z.boolean().optional(),
  lines: z.array(existingOrderLineSchema).default([]),
});
export type ExistingOrder = z.infer<typeof existingOrderSchema>;

/** Tags as the server stores them: split on commas, trimmed, empties dropped; order kept. */
export function storedTags(tags: readonly string[] | null | undefined): string[] {
  return (tags ?? [])
    .flatMap((tag) => tag.split(','))
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

/** A business date as `YYYY-MM-DD` (a stored date-time, should one appear, compares by its date part). */
export function storedDate(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  return value.slice(0, 10);
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** The key of a set of e-mails in `personIds`' groups: lower-cased, sorted, one per line. */
export function personGroupKey(emails: Iterable<string>): string {
  return [...new Set([...emails].map((email) => email.trim().toLowerCase()))].sort().join('\n');
}

/**
 * Responsible persons as user ids: all the e-mails, together, through `groups` (`personGroupKey` → the ids the API
 * resolved exactly those e-mails to, which one answer tells as a set, not one by one) when it knows that set; else
 * each through the given map (lower-cased keys) when it knows it, and the e-mails left, together, through `groups`. Compared as sets, since the server de-duplicates and order
 * carries no meaning.
 */
export function personIds(
  entries: readonly string[],
  ids: ReadonlyMap<string, string> | undefined,
  groups?: ReadonlyMap<string, readonly string[]>,
): Set<string> {
  const resolved = new Set<string>();
  const unknown: string[] = [];
  const given = entries.map((value) => value.trim()).filter((value) => value.length > 0);
  // The whole set as one answer resolved it, even when some of them were since learned one by one.
  const emails = given.filter((entry) => entry.includes('@'));
  const whole = emails.length > 1 ? groups?.get(personGroupKey(emails)) : undefined;
  for (const entry of given) {
    if (whole !== undefined && entry.includes('@')) continue;
    const id = ids?.get(entry.toLowerCase());
    if (id !== undefined) resolved.add(id);
    else if (entry.includes('@')) unknown.push(entry);
    else resolved.add(entry);
  }
  const group = unknown.length > 1 ? groups?.get(personGroupKey(unknown)) : undefined;
  for (const value of [...(whole ?? []), ...(group ?? unknown)]) resolved.add(value);
  return resolved;
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((value) => b.has(value));
}

export type OrderFieldPatch = Omit<OrderPatch, 'lines'>;

/** Plain fields compared as they are: `undefined` in the draft means the export does not manage the field. */
const PLAIN_FIELDS = [
  'buyerCompanyId',
  'supplierCompanyId',
  'vendorCompanyId',
  'factory',
  'buyerFacilityProcess',
  'supplierFacilityProcess',
  'status',
  'orderSubType',
  'shipmentReference',
  'counterpartyOrderNumberRef',
] as const;

/**
 * The receiver pair to send so the order has the receiver it should, or undefined when it has it. Only an export
 * that manages the receiver (a receiver column in the file, or a constant) may change it: its pair, or, when blank,
 * the server's default (the buyer with the buyer's facility process). Without a buyer process that default cannot be
 * written as a pair; spec 03, PATCH rule 3: "to remove the receiver, send both as null", so a receiver other than
 * the default is removed (the default, which a create without receiver leaves, is kept). An export without
 * receiver columns leaves the platform's receiver alone.
 */
function receiverChange(
  draft: OrderDraft,
  existing: ExistingOrder,
): { company: string | null; process: string | null } | undefined {
  const has = {
    company: existing.receiverCompanyId ?? null,
    process: existing.receiverFacilityProcess ?? null,
  };
  const wanted = (company: string, process: string) =>
    company === has.company && process === has.process ? undefined : { company, process };
  if (typeof draft.receiverCompanyId === 'string' && typeof draft.receiverFacilityProcess === 'string') {
    return wanted(draft.receiverCompanyId, draft.receiverFacilityProcess);
  }
  if (draft.receiverCompanyId === undefined && draft.receiverFacilityProcess === undefined) return undefined;
  const buyerProcess =
    draft.buyerFacilityProcess !== undefined ? draft.buyerFacilityProcess : existing.buyerFacilityProcess;
  if (buyerProcess) return wanted(draft.buyerCompanyId, buyerProcess);
  const none = has.company === null || has.company === draft.buyerCompanyId;
  return none && has.process === null ? undefined : { company: null, process: null };
}

/** Only the order fields whose value differs from the platform's, semantically (dates, tags, persons, receiver). */
export function orderFieldChanges(
  draft: OrderDraft,
  existing: ExistingOrder,
  responsiblePersonIds?: ReadonlyMap<string, string>,
  responsiblePersonGroups?: ReadonlyMap<string, readonly string[]>,
): OrderFieldPatch {
  const patch: Record<string, unknown> = {};
  for (const field of PLAIN_FIELDS) {
    const wanted = draft[field];
    if (wanted === undefined) continue;
    if ((wanted ?? null) !== (existing[field] ?? null)) patch[field] = wanted;
  }
  for (const field of DATE_FIELDS) {
    const wanted = draft[field];
    if (wanted === undefined) continue;
    if (storedDate(wanted) !== storedDate(existing[field])) patch[field] = wanted;
  }
  if (draft.tags !== undefined) {
    const wanted = storedTags(draft.tags);
    if (!sameList(wanted, storedTags(existing.tags))) patch['tags'] = wanted;
  }
  if (draft.internalResponsiblePersons !== undefined) {
    const wanted = personIds(draft.internalResponsiblePersons, responsiblePersonIds, responsiblePersonGroups);
    if (!sameSet(wanted, new Set(existing.internalResponsiblePersons ?? []))) {
      patch['internalResponsiblePersons'] = draft.internalResponsiblePersons;
    }
  }
  const receiver = receiverChange(draft, existing);
  if (receiver) {
    // The pair rule: both receiver fields travel together, on update as on create.
    patch['receiverCompanyId'] = receiver.company;
    patch['receiverFacilityProcess'] = receiver.process;
  }
  return patch as OrderFieldPatch;
}

export interface PlanInput {
  draft: OrderDraft;
  /** The platform's order with this number and type (GET /orders/{id}, full lines), or undefined when there is none. */
  existing: ExistingOrder | undefined;
  /** `productRefKey(ref)` → platform product id, for every line product the activity could resolve. */
  resolvedStyleIds: ReadonlyMap<string, string>;
  /** The profile's `complete`: platform lines the export does not list are deleted. */
  complete: boolean;
  /** Lines sent to tracing may be deleted or renamed (off by default: that reaches the counterparty). */
  allowTracedLineRemoval?: boolean;
  /** `productRefKey`s whose product is archived (the API refuses them on new or changed lines). */
  archivedRefs?: ReadonlySet<string>;
  /** An archived order is unarchived (`isArchived: false` with the changes); else it is rejected as `order_archived`. */
  unarchive?: boolean;
  /** Lower-cased e-mail → user id, so responsible persons given as e-mails compare with the stored ids. */
  responsiblePersonIds?: ReadonlyMap<string, string>;
  /** Sets of e-mails → the ids they resolved to together (see `personIds`). */
  responsiblePersonGroups?: ReadonlyMap<string, readonly string[]>;
}

export type OrderPlan =
  | { kind: 'create'; orderNumber: string; orderType: OrderType; body: OrderCreate }
  | { kind: 'unchanged'; orderNumber: string; orderType: OrderType; orderId: string }
  | {
      kind: 'patch';
      orderNumber: string;
      orderType: OrderType;
      orderId: string;
      /** PATCH bodies to send in order: two when line numbers pass through temporary ones. */
      steps: OrderPatch[];
      changedFields: string[];
      lines: LineSummary;
      /**
       * Two steps only: the lines step 1 moves to temporary numbers, and the PATCH that puts them back when step 2
       * is refused (each request is atomic, the pair is not).
       */
      undoFirst?: { moved: TemporaryMove[]; body: OrderPatch };
    }
  | { kind: 'rejected'; orderNumber: string; orderType: OrderType; rejection: OrderRejection };

/** Body fields of a draft, in the order the API documents them; everything else in the draft is bookkeeping. */
const CREATE_FIELDS = [
  'orderNumber',
  'orderSubType',
  'status',
  'buyerCompanyId',
  'supplierCompanyId',
  'receiverCompanyId',
  'vendorCompanyId',
  'factory',
  'buyerFacilityProcess',
  'supplierFacilityProcess',
  'receiverFacilityProcess',
  ...DATE_FIELDS,
  'shipmentReference',
  'counterpartyOrderNumberRef',
] as const;

/** POST /orders body: the draft's fields without nulls (nothing to clear on a new order) and its lines. */
export function createBody(
  draft: OrderDraft,
  resolvedStyleIds: ReadonlyMap<string, string>,
  archivedRefs?: ReadonlySet<string>,
): OrderCreate | { problems: Problem[] } {
  const body: Record<string, unknown> = {};
  for (const field of CREATE_FIELDS) {
    const value = draft[field];
    if (value !== undefined && value !== null) body[field] = value;
  }
  const tags = storedTags(draft.tags);
  if (tags.length > 0) body['tags'] = tags;
  if (draft.internalResponsiblePersons && draft.internalResponsiblePersons.length > 0) {
    body['internalResponsiblePersons'] = draft.internalResponsiblePersons;
  }
  const problems: Problem[] = [];
  body['lines'] = draft.lines.flatMap((line) => {
    const archived = archivedRefs?.has(productRefKey(line.productRef)) ?? false;
    const entry = archived ? undefined : newLineEntry(line, resolvedStyleIds);
    if (entry !== undefined) return [entry];
    problems.push(productProblem(line, archived));
    return [];
  });
  return problems.length > 0 ? { problems } : (body as OrderCreate);
}

/**
 * Spec 03, Order archive flag: an archived order stays readable over the API but is "hidden from order lists and
 * analytics views in the platform UI". Writing the export into it would go unseen, so, as the PLM import does with
 * archived products, it is refused unless the run unarchives it ("PATCH with `isArchived: false`": restored).
 */
function archivedOrder(draft: OrderDraft): Problem {
  return {
    code: 'order_archived',
    field: 'isArchived',
    message:
      `order '${quoteInput(draft.orderNumber)}' is archived on the platform (hidden from order lists in its UI), so the ` +
      'push leaves it as it is; unarchive it there, or push again with --unarchive (workflow input "unarchive": true) ' +
      'to unarchive and update it',
  };
}

/**
 * What to send so the platform's order matches the draft: a create, nothing, one or two PATCH bodies with only what
 * changed, or a rejection (an unresolved product, an unknown line id, a line number another kept line holds).
 */
export function planOrderSync(input: PlanInput): OrderPlan {
  const { draft, existing, resolvedStyleIds } = input;
  const base = { orderNumber: draft.orderNumber, orderType: draft.orderType };
  const reject = (problems: Problem[]): OrderPlan => ({
    kind: 'rejected',
    ...base,
    rejection: rejectionOf(draft.orderNumber, draft.rows, problems),
  });
  if (existing === undefined) {
    const body = createBody(draft, resolvedStyleIds, input.archivedRefs);
    return 'problems' in body ? reject(body.problems) : { kind: 'create', ...base, body };
  }
  if (existing.isArchived === true && !input.unarchive) return reject([archivedOrder(draft)]);
  const fields: OrderFieldPatch = {
    ...orderFieldChanges(draft, existing, input.responsiblePersonIds, input.responsiblePersonGroups),
    ...(existing.isArchived === true ? { isArchived: false } : {}),
  };
  const lines = planLines(draft, existing, resolvedStyleIds, {
    complete: input.complete,
    ...(input.allowTracedLineRemoval !== undefined
      ? { allowTracedLineRemoval: input.allowTracedLineRemoval }
      : {}),
    ...(input.archivedRefs !== undefined ? { archivedRefs: input.archivedRefs } : {}),
  });
  if ('problems' in lines) return reject(lines.problems);
  const changedFields = Object.keys(fields);
  if (changedFields.length === 0 && lines.steps.length === 0)
    return { kind: 'unchanged', ...base, orderId: existing.id };
  const patch = {
    kind: 'patch',
    ...base,
    orderId: existing.id,
    changedFields,
    lines: lines.summary,
  } as const;
  const [first, second] = lines.steps;
  if (first === undefined) return { ...patch, steps: [fields] };
  if (second === undefined) return { ...patch, steps: [{ ...fields, lines: first }] };
  // Renumbering first, alone; the order's own changes go with the final numbers.
  return {
    ...patch,
    steps: [{ lines: first }, { ...fields, lines: second }],
    ...(lines.undo ? { undoFirst: { moved: lines.undo.moved, body: { lines: lines.undo.lines } } } : {}),
  };
}
