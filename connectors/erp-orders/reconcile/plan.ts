import type { OrderCreate, OrderPatch, OrderType } from '../../traceability/schemas/orders';
import {
  productRefKey,
  rejectionOf,
  type OrderDraft,
  type OrderRejection,
  type Problem,
} from '../orders/draft';
import type { ExistingOrder } from './existing';
import { newLineEntry, planLines, productProblem, type LineSummary } from './lines';
import { storedTags } from './normalise';
import { orderFieldChanges } from './order-fields';

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
  /** Lower-cased e-mail → user id, so responsible persons given as e-mails compare with the stored ids. */
  responsiblePersonIds?: ReadonlyMap<string, string>;
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
  'orderDate',
  'deliveryDate',
  'agreedDeliveryDate',
  'expectedShippingDate',
  'shippingDate',
  'handoverDate',
  'actualDeliveryDate',
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
  const fields = orderFieldChanges(draft, existing, input.responsiblePersonIds);
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
  return { ...patch, steps: [{ lines: first }, { ...fields, lines: second }] };
}
