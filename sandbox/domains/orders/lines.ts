import type { SandboxContext } from '../../core/context';
import { badRequest, conflict, notFound } from '../../core/errors';
import type { AuditSide } from '../v2-common/audit';
import { parseBody } from '../v2-common/body';
import { ownedProduct } from '../v2-common/catalogue';
import { autoLineNumber, type OrderLineRecord, type OrderRecord } from './model';
import { lineUpdateSchema, newLineSchema, type LineUpdateInput, type NewLineInput } from './schemas';
import type { OrdersStore } from './store';
import { storedQuantity } from './rules';

/** What line writes need: the working copy of the order (committed only when the whole request succeeds). */
export interface LineWrite {
  ctx: SandboxContext;
  store: OrdersStore;
  companyId: string;
  order: OrderRecord;
  audit: AuditSide;
  at: string;
}

/** A nested `styleId` must be a non-archived product the caller owns, by platform id or externalId. */
export function lineStyleId(ctx: SandboxContext, companyId: string, styleId: string): string {
  const product = ownedProduct(ctx, companyId, styleId);
  if (!product || product.isArchived) {
    throw notFound(`Style '${styleId}' does not exist, is archived or is not yours`, 'style_not_found');
  }
  return product.id;
}

function assertLineNumberFree(write: LineWrite, orderLineNumber: string, lineId: string): void {
  if (write.order.lines.some((line) => line.id !== lineId && line.orderLineNumber === orderLineNumber)) {
    throw conflict('order_not_unique', `orderLineNumber '${orderLineNumber}' is already used in this order`);
  }
}

function insertLine(write: LineWrite, input: NewLineInput, path: string): OrderLineRecord {
  const { order } = write;
  const lineNo = order.lines.reduce((max, line) => Math.max(max, line.lineNo), 0) + 1;
  const secondaryQuantity =
    input.secondaryQuantity === undefined || input.secondaryQuantity === null
      ? null
      : storedQuantity(input.secondaryQuantity, `${path}.secondaryQuantity`);
  const line: OrderLineRecord = {
    id: write.ctx.newId('ordline_'),
    orderId: order.id,
    orderLineNumber: input.orderLineNumber ?? autoLineNumber(order.orderNumber, order.orderType, lineNo),
    lineNo,
    styleId: lineStyleId(write.ctx, write.companyId, input.styleId),
    quantity: storedQuantity(input.quantity, `${path}.quantity`),
    unit: input.unit,
    secondaryQuantity,
    secondaryUnit: secondaryQuantity === null ? null : 'KILOGRAM',
    tracingReflectionOrderId: null,
    tracingOrderRequestedAt: null,
    createdAt: write.at,
    updatedAt: write.at,
    created: write.audit,
    updated: write.audit,
  };
  assertLineNumberFree(write, line.orderLineNumber, line.id);
  order.lines.push(line);
  return line;
}

/** Creates the lines of a new order, numbered 1, 2, 3... in the order sent. */
export function createLines(write: LineWrite, inputs: readonly NewLineInput[]): void {
  inputs.forEach((input, index) => insertLine(write, input, `lines[${index}]`));
}

const LINE_FIELDS = ['orderLineNumber', 'styleId', 'quantity', 'unit', 'secondaryQuantity'] as const;

function updateLine(write: LineWrite, line: OrderLineRecord, input: LineUpdateInput, path: string): void {
  // A bare id (or only read-only/ineffective fields) keeps the line as it is, audit fields included.
  if (!LINE_FIELDS.some((field) => input[field] !== undefined)) return;
  if (input.orderLineNumber !== undefined && input.orderLineNumber !== line.orderLineNumber) {
    assertLineNumberFree(write, input.orderLineNumber, line.id);
    if (
      line.tracingReflectionOrderId !== null &&
      write.store.tracingReferenceTaken(write.companyId, input.orderLineNumber, line.id)
    ) {
      throw badRequest(
        `orderLineNumber '${input.orderLineNumber}' collides with another tracing order reference`,
        'order_number_already_existing',
      );
    }
    line.orderLineNumber = input.orderLineNumber;
  }
  if (input.styleId !== undefined) line.styleId = lineStyleId(write.ctx, write.companyId, input.styleId);
  if (input.quantity !== undefined) line.quantity = storedQuantity(input.quantity, `${path}.quantity`);
  if (input.unit !== undefined) line.unit = input.unit;
  if (input.secondaryQuantity === null) {
    line.secondaryQuantity = null;
    line.secondaryUnit = null;
  } else if (input.secondaryQuantity !== undefined) {
    line.secondaryQuantity = storedQuantity(input.secondaryQuantity, `${path}.secondaryQuantity`);
    line.secondaryUnit = 'KILOGRAM';
  }
  line.updatedAt = write.at;
  line.updated = write.audit;
}

/**
 * Full synchronisation of an order's lines from a PATCH `lines` array: delete the lines left out, then update the
 * ones named by id (in array order, so swapping two numbers collides), then insert the new ones after the highest
 * lineNo kept.
 */
export function reconcileLines(write: LineWrite, entries: ReadonlyArray<Record<string, unknown>>): void {
  const updates: Array<{ input: LineUpdateInput; path: string }> = [];
  const inserts: Array<{ input: NewLineInput; path: string }> = [];
  entries.forEach((entry, index) => {
    const path = `lines[${index}]`;
    if (entry['id'] !== undefined)
      updates.push({ input: parseBody(lineUpdateSchema, entry, ['lines', index]), path });
    else inserts.push({ input: parseBody(newLineSchema, entry, ['lines', index]), path });
  });
  const keptIds = new Set<string>();
  for (const { input } of updates) {
    if (keptIds.has(input.id)) throw badRequest(`Line id '${input.id}' appears more than once in lines`);
    keptIds.add(input.id);
    if (!write.order.lines.some((line) => line.id === input.id)) {
      throw notFound(`Line '${input.id}' is not a line of this order`, 'order_line_not_found');
    }
  }
  write.order.lines = write.order.lines.filter((line) => keptIds.has(line.id));
  for (const { input, path } of updates) {
    const line = write.order.lines.find((candidate) => candidate.id === input.id) as OrderLineRecord;
    updateLine(write, line, input, path);
  }
  for (const { input, path } of inserts) insertLine(write, input, path);
  write.order.lines.sort((a, b) => a.lineNo - b.lineNo);
}
