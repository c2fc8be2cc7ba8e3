import type { Caller, SandboxContext } from '../../core/context';
import { badRequest, conflict, notFound } from '../../core/errors';
import { auditSide } from '../v2-common/audit';
import { parseBody, sent } from '../v2-common/body';
import { createLines, reconcileLines, type LineWrite } from './lines';
import { cloneOrder, computeOrderType, STRUCTURAL_FIELDS, type OrderRecord } from './model';
import {
  checkCompanies,
  checkFacilityProcesses,
  joinTags,
  resolveResponsiblePersons,
  responsibleEntries,
} from './rules';
import { createOrderSchema, DATE_FIELDS, patchOrderSchema, type OrderType } from './schemas';
import type { OrdersStore } from './store';

/** Receiver company and receiver facility process travel together: both keys or neither, both null or both set. */
function checkReceiverPair(
  raw: unknown,
  receiver: string | null | undefined,
  process: string | null | undefined,
): void {
  const sentCompany = sent(raw, 'receiverCompanyId');
  const sentProcess = sent(raw, 'receiverFacilityProcess');
  if (sentCompany !== sentProcess || (receiver === null) !== (process === null)) {
    throw badRequest(
      'receiverCompanyId and receiverFacilityProcess must be sent together (both null to remove the receiver)',
    );
  }
}

function checkOwnerIsParty(companyId: string, buyer: string, supplier: string): void {
  if (buyer !== companyId && supplier !== companyId) {
    throw badRequest('Your company must be the buyer or the supplier of the order', 'order_owner_not_party');
  }
}

function checkNumberFree(
  store: OrdersStore,
  companyId: string,
  type: OrderType,
  orderNumber: string,
  exceptId?: string,
): void {
  if (store.numberTaken(companyId, type, orderNumber, exceptId)) {
    throw badRequest(
      `Order number '${orderNumber}' already exists for ${type}`,
      'order_number_already_existing',
    );
  }
}

export function createOrder(
  ctx: SandboxContext,
  store: OrdersStore,
  caller: Caller,
  companyId: string,
  raw: unknown,
): OrderRecord {
  const body = parseBody(createOrderSchema, raw);
  const persons = responsibleEntries(body);
  checkReceiverPair(raw, body.receiverCompanyId, body.receiverFacilityProcess);
  checkOwnerIsParty(companyId, body.buyerCompanyId, body.supplierCompanyId);
  // Receiver (and its process) default to the buyer's when omitted.
  const defaulted = body.receiverCompanyId === undefined || body.receiverCompanyId === null;
  const receiverCompanyId = defaulted ? body.buyerCompanyId : (body.receiverCompanyId ?? null);
  const receiverFacilityProcess = defaulted
    ? (body.buyerFacilityProcess ?? null)
    : (body.receiverFacilityProcess ?? null);
  checkCompanies(ctx, companyId, [
    body.buyerCompanyId,
    body.supplierCompanyId,
    receiverCompanyId,
    body.vendorCompanyId,
    body.factory,
  ]);
  checkFacilityProcesses([body.buyerFacilityProcess, body.supplierFacilityProcess, receiverFacilityProcess]);
  const responsible = resolveResponsiblePersons(ctx, companyId, persons ?? []);
  const orderType = computeOrderType(companyId, body.buyerCompanyId, body.supplierCompanyId);

  const at = ctx.nowIso();
  const audit = auditSide(ctx, caller);
  const dates = Object.fromEntries(DATE_FIELDS.map((field) => [field, body[field] ?? null])) as Record<
    (typeof DATE_FIELDS)[number],
    string | null
  >;
  if (body.handoverDate === undefined && body.expectedDeliveryDate !== undefined)
    dates.handoverDate = body.expectedDeliveryDate;
  const order: OrderRecord = {
    id: ctx.newId('order_'),
    forCompanyId: companyId,
    orderNumber: body.orderNumber,
    orderType,
    orderSubType: body.orderSubType ?? null,
    status: body.status ?? null,
    tags: joinTags(body.tags ?? []),
    buyerCompanyId: body.buyerCompanyId,
    supplierCompanyId: body.supplierCompanyId,
    receiverCompanyId,
    vendorCompanyId: body.vendorCompanyId ?? null,
    factory: body.factory ?? null,
    buyerFacilityProcess: body.buyerFacilityProcess ?? null,
    supplierFacilityProcess: body.supplierFacilityProcess ?? null,
    receiverFacilityProcess,
    ...dates,
    shipmentReference: body.shipmentReference ?? null,
    internalResponsiblePersons: responsible,
    counterpartyOrderNumberRef: body.counterpartyOrderNumberRef ?? null,
    isArchived: false,
    tracingStatus: null,
    structuralFieldsLocked: false,
    lines: [],
    createdAt: at,
    updatedAt: at,
    created: audit,
    updated: audit,
  };
  createLines({ ctx, store, companyId, order, audit, at }, body.lines ?? []);
  checkNumberFree(store, companyId, orderType, order.orderNumber);
  store.save(order);
  return order;
}

export function patchOrder(
  ctx: SandboxContext,
  store: OrdersStore,
  caller: Caller,
  companyId: string,
  orderId: string,
  raw: unknown,
): OrderRecord {
  const current = store.owned(companyId, orderId);
  if (!current) throw notFound(`Order '${orderId}' not found`);
  const body = parseBody(patchOrderSchema, raw);
  const persons = responsibleEntries(body);
  if (sent(raw, 'receiverCompanyId') || sent(raw, 'receiverFacilityProcess')) {
    checkReceiverPair(raw, body.receiverCompanyId, body.receiverFacilityProcess);
  }
  const order = cloneOrder(current);
  if (order.structuralFieldsLocked) {
    const changed = STRUCTURAL_FIELDS.filter(
      (field) => body[field] !== undefined && body[field] !== current[field],
    );
    if (changed.length > 0) {
      throw conflict(
        'order_structural_fields_locked_by_tracing',
        `The counterparty linked this order in tracing; ${changed.join(', ')} can no longer change`,
      );
    }
  }
  if (body.buyerCompanyId !== undefined) order.buyerCompanyId = body.buyerCompanyId;
  if (body.supplierCompanyId !== undefined) order.supplierCompanyId = body.supplierCompanyId;
  for (const field of ['receiverCompanyId', 'vendorCompanyId', 'factory'] as const) {
    if (body[field] !== undefined) order[field] = body[field];
  }
  for (const field of [
    'buyerFacilityProcess',
    'supplierFacilityProcess',
    'receiverFacilityProcess',
  ] as const) {
    if (body[field] !== undefined) order[field] = body[field];
  }
  checkOwnerIsParty(companyId, order.buyerCompanyId, order.supplierCompanyId);
  checkCompanies(ctx, companyId, [
    body.buyerCompanyId,
    body.supplierCompanyId,
    body.receiverCompanyId,
    body.vendorCompanyId,
    body.factory,
  ]);
  checkFacilityProcesses([
    body.buyerFacilityProcess,
    body.supplierFacilityProcess,
    body.receiverFacilityProcess,
  ]);
  if (persons !== undefined)
    order.internalResponsiblePersons = resolveResponsiblePersons(ctx, companyId, persons);

  order.orderType = computeOrderType(companyId, order.buyerCompanyId, order.supplierCompanyId);
  if (body.orderNumber !== undefined) order.orderNumber = body.orderNumber;
  if (order.orderType !== current.orderType || order.orderNumber !== current.orderNumber) {
    checkNumberFree(store, companyId, order.orderType, order.orderNumber, order.id);
  }
  if (body.orderSubType !== undefined) order.orderSubType = body.orderSubType;
  if (body.status !== undefined) order.status = body.status;
  if (body.tags !== undefined) order.tags = joinTags(body.tags);
  for (const field of DATE_FIELDS) if (body[field] !== undefined) order[field] = body[field];
  if (body.handoverDate === undefined && body.expectedDeliveryDate !== undefined)
    order.handoverDate = body.expectedDeliveryDate;
  if (body.shipmentReference !== undefined) order.shipmentReference = body.shipmentReference;
  if (body.counterpartyOrderNumberRef !== undefined)
    order.counterpartyOrderNumberRef = body.counterpartyOrderNumberRef;
  if (body.isArchived !== undefined) order.isArchived = body.isArchived;

  const at = ctx.nowIso();
  const audit = auditSide(ctx, caller);
  const write: LineWrite = { ctx, store, companyId, order, audit, at };
  if (body.lines !== undefined) reconcileLines(write, body.lines);
  // Even an empty body is a write: it bumps updatedAt and the audit fields.
  order.updatedAt = at;
  order.updated = audit;
  store.save(order);
  return order;
}
