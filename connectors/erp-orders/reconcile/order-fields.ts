import type { OrderPatch } from '../../traceability/schemas/orders';
import { DATE_FIELDS, type OrderDraft } from '../orders/draft';
import type { ExistingOrder } from './existing';
import { personIds, sameList, sameSet, storedDate, storedTags } from './normalise';

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
 * The receiver the order should have. Only an export that manages the receiver (a receiver column in the file, or a
 * constant) may change it: its pair, or, when blank, the server's default (the buyer with the buyer's facility
 * process; without a buyer process the default cannot be written as a valid pair, so it is not enforced). An
 * export without receiver columns leaves the platform's receiver alone.
 */
function expectedReceiver(
  draft: OrderDraft,
  existing: ExistingOrder,
): { company: string; process: string } | undefined {
  if (typeof draft.receiverCompanyId === 'string' && typeof draft.receiverFacilityProcess === 'string') {
    return { company: draft.receiverCompanyId, process: draft.receiverFacilityProcess };
  }
  if (draft.receiverCompanyId === undefined && draft.receiverFacilityProcess === undefined) return undefined;
  const buyerProcess =
    draft.buyerFacilityProcess !== undefined ? draft.buyerFacilityProcess : existing.buyerFacilityProcess;
  return buyerProcess ? { company: draft.buyerCompanyId, process: buyerProcess } : undefined;
}

/** Only the order fields whose value differs from the platform's, semantically (dates, tags, persons, receiver). */
export function orderFieldChanges(
  draft: OrderDraft,
  existing: ExistingOrder,
  responsiblePersonIds?: ReadonlyMap<string, string>,
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
    const wanted = personIds(draft.internalResponsiblePersons, responsiblePersonIds);
    if (!sameSet(wanted, new Set(existing.internalResponsiblePersons ?? []))) {
      patch['internalResponsiblePersons'] = draft.internalResponsiblePersons;
    }
  }
  const receiver = expectedReceiver(draft, existing);
  if (
    receiver &&
    (receiver.company !== existing.receiverCompanyId || receiver.process !== existing.receiverFacilityProcess)
  ) {
    // The pair rule: both receiver fields travel together, on update as on create.
    patch['receiverCompanyId'] = receiver.company;
    patch['receiverFacilityProcess'] = receiver.process;
  }
  return patch as OrderFieldPatch;
}
