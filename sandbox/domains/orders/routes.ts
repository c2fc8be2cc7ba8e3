import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { callerCompany, type SandboxContext, type SandboxDomain } from '../../core/context';
import { sendData, sendPage } from '../../core/envelope';
import { notFound } from '../../core/errors';
import { bool, pageParams, sortBy, sortParams, str, updatedWindow, type RawQuery } from '../../core/query';
import { parseBody } from '../v2-common/body';
import type { OrderRecord } from './model';
import { presentLine, presentOrder } from './present';
import { splitTags } from './rules';
import { createOrder, patchOrder } from './service';
import type { OrdersStore } from './store';

const ORDER_SORTS = ['updatedAt', 'createdAt', 'orderNumber', 'orderDate', 'status'] as const;

type IdParams = { Params: { id: string }; Querystring: RawQuery };

/** Sandbox-only switch for the tracing coupling rules (see sandbox/README.md). */
const tracingControlSchema = z
  .object({ linesSentToTracing: z.boolean().optional(), structuralFieldsLocked: z.boolean().optional() })
  .strict();

function listOrders(orders: OrderRecord[], query: RawQuery): OrderRecord[] {
  const type = str(query, 'type');
  const supplier = str(query, 'supplier');
  const buyer = str(query, 'buyer');
  const status = str(query, 'status');
  const tag = str(query, 'tag')?.toLowerCase();
  const orderNumber = str(query, 'orderNumber');
  const isArchived = bool(query, 'isArchived');
  const inWindow = updatedWindow(query);
  return orders.filter(
    (order) =>
      (type === undefined || order.orderType === type) &&
      (supplier === undefined || order.supplierCompanyId === supplier) &&
      (buyer === undefined || order.buyerCompanyId === buyer) &&
      (status === undefined || order.status === status) &&
      (orderNumber === undefined || order.orderNumber === orderNumber) &&
      (isArchived === undefined || order.isArchived === isArchived) &&
      (tag === undefined || splitTags(order.tags).some((candidate) => candidate.toLowerCase() === tag)) &&
      inWindow(order.updatedAt),
  );
}

/** The page size answered: the limit asked, or less under the sandbox's `orderPageSizeCap`. */
function cappedPage(ctx: SandboxContext, query: RawQuery): { page: number; limit: number } {
  const { page, limit } = pageParams(query, { rejectAboveMax: true });
  const cap = ctx.settings.orderPageSizeCap;
  return { page, limit: cap ? Math.min(limit, cap) : limit };
}

export function registerOrderRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  domain: SandboxDomain<OrdersStore>,
): void {
  const store = (): OrdersStore => ctx.store(domain);

  app.post('/orders', async (request, reply) => {
    const companyId = callerCompany(request);
    const order = createOrder(ctx, store(), request.caller, companyId, request.body);
    return sendData(reply, presentOrder(order, true), 201);
  });

  app.get<{ Querystring: RawQuery }>('/orders', async (request, reply) => {
    const companyId = callerCompany(request);
    const { page, limit } = cappedPage(ctx, request.query);
    const { sort, order } = sortParams(request.query, ORDER_SORTS, 'updatedAt');
    const matching = sortBy(
      listOrders(store().ownedBy(companyId), request.query),
      (record) => record[sort],
      order,
    );
    return sendPage(
      reply,
      matching.map((record) => presentOrder(record, false)),
      page,
      limit,
    );
  });

  app.get<IdParams>('/orders/:id', async (request, reply) => {
    const companyId = callerCompany(request);
    const order = store().owned(companyId, request.params.id);
    if (!order) throw notFound(`Order '${request.params.id}' not found`);
    return sendData(reply, presentOrder(order, true));
  });

  app.patch<IdParams>('/orders/:id', async (request, reply) => {
    const companyId = callerCompany(request);
    const order = patchOrder(ctx, store(), request.caller, companyId, request.params.id, request.body);
    return sendData(reply, presentOrder(order, true));
  });

  app.delete<IdParams>('/orders/:id', async (request, reply) => {
    const companyId = callerCompany(request);
    if (!store().owned(companyId, request.params.id))
      throw notFound(`Order '${request.params.id}' not found`);
    store().delete(request.params.id);
    return reply.code(204).send();
  });

  app.get<{ Querystring: RawQuery }>('/order-lines', async (request, reply) => {
    const companyId = callerCompany(request);
    const { page, limit } = cappedPage(ctx, request.query);
    const orderId = str(request.query, 'orderId');
    const orders = orderId === undefined ? store().ownedBy(companyId) : [store().owned(companyId, orderId)];
    // Spec: "Always ordered by ascending `lineNo`", across orders: many lines share a lineNo, and the spec gives no
    // order among them (here: the orders' creation, then ids, so pages are stable; a client must not count on it).
    const lines = orders
      .filter((order): order is OrderRecord => order !== undefined)
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
      .flatMap((order) => order.lines.map((line) => ({ order, line })))
      .sort((a, b) => a.line.lineNo - b.line.lineNo)
      .map(({ order, line }) => presentLine(order, line));
    return sendPage(reply, lines, page, limit);
  });

  app.get<IdParams>('/order-lines/:id', async (request, reply) => {
    const companyId = callerCompany(request);
    const line = store().line(companyId, request.params.id);
    const order = line ? store().owned(companyId, line.orderId) : undefined;
    if (!line || !order) throw notFound(`Order line '${request.params.id}' not found`);
    return sendData(reply, presentLine(order, line));
  });
}

/**
 * Sandbox control (outside /api/v2, no key): models the tracing coupling of an order. `linesSentToTracing` marks
 * every line as reflected into a tracing order; `structuralFieldsLocked` stands for "the counterparty linked its
 * own order", after which structural fields give 409 `order_structural_fields_locked_by_tracing`.
 */
export function registerOrderControlRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  domain: SandboxDomain<OrdersStore>,
): void {
  app.put<{ Params: { id: string } }>('/__sandbox/orders/:id/tracing', async (request, reply) => {
    const order = ctx
      .store(domain)
      .all()
      .find((candidate) => candidate.id === request.params.id);
    if (!order) throw notFound(`Order '${request.params.id}' not found`);
    const body = parseBody(tracingControlSchema, request.body);
    if (body.structuralFieldsLocked !== undefined) order.structuralFieldsLocked = body.structuralFieldsLocked;
    if (body.linesSentToTracing) markLinesTraced(ctx, order, ctx.nowIso());
    return sendData(reply, presentOrder(order, true));
  });
}

/** Lines reflected into tracing orders: what tracing rules 1 and 2 apply to. */
export function markLinesTraced(ctx: SandboxContext, order: OrderRecord, at: string): void {
  for (const line of order.lines) {
    line.tracingReflectionOrderId ??= ctx.newId('trcord_');
    line.tracingOrderRequestedAt ??= at;
  }
  order.tracingStatus = 'REQUESTED';
}
