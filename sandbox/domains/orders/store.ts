import type { OrderType } from './schemas';
import type { OrderLineRecord, OrderRecord } from './model';

/** Orders by id. Each order belongs to the company that created it; lines live inside their order. */
export class OrdersStore {
  private readonly orders = new Map<string, OrderRecord>();

  constructor(records: OrderRecord[] = []) {
    for (const record of records) this.orders.set(record.id, record);
  }

  /** The caller's order (foreign and deleted orders are invisible). */
  owned(companyId: string, id: string): OrderRecord | undefined {
    const order = this.orders.get(id);
    return order && order.forCompanyId === companyId ? order : undefined;
  }

  ownedBy(companyId: string): OrderRecord[] {
    return [...this.orders.values()].filter((order) => order.forCompanyId === companyId);
  }

  /** Archived orders still hold their number; deleted ones do not. */
  numberTaken(companyId: string, orderType: OrderType, orderNumber: string, exceptId?: string): boolean {
    for (const order of this.orders.values()) {
      if (order.id === exceptId || order.forCompanyId !== companyId) continue;
      if (order.orderType === orderType && order.orderNumber === orderNumber) return true;
    }
    return false;
  }

  /** Tracing-request references of the company's traced lines (the line numbers they were sent under). */
  tracingReferenceTaken(companyId: string, reference: string, exceptLineId: string): boolean {
    for (const order of this.ownedBy(companyId)) {
      for (const line of order.lines) {
        if (
          line.id !== exceptLineId &&
          line.tracingReflectionOrderId !== null &&
          line.orderLineNumber === reference
        )
          return true;
      }
    }
    return false;
  }

  line(companyId: string, lineId: string): OrderLineRecord | undefined {
    for (const order of this.ownedBy(companyId)) {
      const line = order.lines.find((candidate) => candidate.id === lineId);
      if (line) return line;
    }
    return undefined;
  }

  save(order: OrderRecord): void {
    this.orders.set(order.id, order);
  }

  delete(id: string): void {
    this.orders.delete(id);
  }

  all(): OrderRecord[] {
    return [...this.orders.values()];
  }
}
