import { isTraceabilityApiError } from '../errors';
import { IncrementalSync, type IncrementalCheckpoint, type Page } from '../pagination';
import {
  orderCreateSchema,
  orderLineListQuerySchema,
  orderLineSchema,
  orderListQuerySchema,
  orderPatchSchema,
  orderSchema,
  type Order,
  type OrderCreate,
  type OrderLine,
  type OrderLineListQuery,
  type OrderListQuery,
  type OrderPatch,
  type OrderType,
} from '../schemas/orders';
import { Resource, seg, validateRequest, type CallOptions } from './base';

export class OrdersResource extends Resource {
  /**
   * POST /orders. Not idempotent and not rate limited: it bypasses the pacer and is never retried
   * once it may have reached the server. A lost answer throws `retryable: true, maybeCommitted: true`:
   * re-read with `findByOrderNumber` before creating again.
   */
  async create(input: OrderCreate, options?: CallOptions): Promise<Order> {
    const body = validateRequest(orderCreateSchema, input, 'POST', '/orders', '/orders');
    return this.call(
      {
        method: 'POST',
        endpoint: '/orders',
        path: '/orders',
        body,
        dataSchema: orderSchema,
        safety: 'unsafe',
        rateExempt: true,
      },
      options,
    );
  }

  list(query: OrderListQuery = {}, options?: CallOptions): Promise<Page<Order>> {
    return this.listPage('/orders', orderListQuerySchema, query, orderSchema, options);
  }

  iterate(
    query: Omit<OrderListQuery, 'page' | 'limit'> = {},
    options?: CallOptions,
  ): AsyncGenerator<Order, void, undefined> {
    return this.iterateList((page, limit) => this.list({ ...query, page, limit }, options));
  }

  get(id: string, options?: CallOptions): Promise<Order> {
    return this.getOne('/orders/{id}', `/orders/${seg(id)}`, orderSchema, undefined, options);
  }

  /** Orders whose number equals `orderNumber` exactly (at most one per order type), archived included. */
  async findByOrderNumber(
    orderNumber: string,
    opts: { type?: OrderType } = {},
    options?: CallOptions,
  ): Promise<Order[]> {
    const found: Order[] = [];
    for await (const order of this.iterate(
      { orderNumber, ...(opts.type ? { type: opts.type } : {}) },
      options,
    )) {
      if (order.orderNumber === orderNumber && (!opts.type || order.orderType === opts.type))
        found.push(order);
    }
    return found;
  }

  /**
   * PATCH /orders/{id}. Idempotent (retried) unless `lines` holds new entries without `id`: a repeat
   * would delete and re-create those lines with new ids, so such a patch is not retried blindly.
   */
  async update(id: string, patch: OrderPatch, options?: CallOptions): Promise<Order> {
    const path = `/orders/${seg(id)}`;
    const body = validateRequest(orderPatchSchema, patch, 'PATCH', '/orders/{id}', path);
    const createsLines = body.lines?.some((line) => line.id === undefined) ?? false;
    return this.call(
      {
        method: 'PATCH',
        endpoint: '/orders/{id}',
        path,
        body,
        dataSchema: orderSchema,
        safety: createsLines ? 'unsafe' : 'idempotent',
      },
      options,
    );
  }

  /** DELETE /orders/{id} (hard delete). A 404 after a lost answer means our first attempt did it. */
  async delete(id: string, options?: CallOptions): Promise<void> {
    const path = `/orders/${seg(id)}`;
    try {
      await this.call({ method: 'DELETE', endpoint: '/orders/{id}', path, safety: 'idempotent' }, options);
    } catch (error) {
      if (
        isTraceabilityApiError(error) &&
        error.statusCode === 404 &&
        error.maybeCommitted &&
        error.attempts > 1
      )
        return;
      throw error;
    }
  }

  syncUpdated(
    query: Omit<
      OrderListQuery,
      'page' | 'limit' | 'sort' | 'order' | 'updatedAfterUnixMs' | 'updatedBeforeUnixMs'
    > = {},
    from?: IncrementalCheckpoint,
    options?: CallOptions,
  ): IncrementalSync<Order> {
    return new IncrementalSync(
      (window) => this.list({ ...query, ...window, sort: 'updatedAt', order: 'ASC' }, options),
      from,
    );
  }
}

/** Order lines are read-only: they change through their order's PATCH. */
export class OrderLinesResource extends Resource {
  list(query: OrderLineListQuery = {}, options?: CallOptions): Promise<Page<OrderLine>> {
    return this.listPage('/order-lines', orderLineListQuerySchema, query, orderLineSchema, options);
  }

  iterate(
    query: { orderId?: string } = {},
    options?: CallOptions,
  ): AsyncGenerator<OrderLine, void, undefined> {
    return this.iterateList((page, limit) => this.list({ ...query, page, limit }, options));
  }

  get(lineId: string, options?: CallOptions): Promise<OrderLine> {
    return this.getOne(
      '/order-lines/{id}',
      `/order-lines/${seg(lineId)}`,
      orderLineSchema,
      undefined,
      options,
    );
  }
}
