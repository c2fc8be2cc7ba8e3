import { z } from 'zod';
import type { Caller, SandboxContext, SandboxDomain } from '../../core/context';
import type { SeedDocument } from '../../core/seed';
import type { OrderRecord } from './model';
import { markLinesTraced, registerOrderControlRoutes, registerOrderRoutes } from './routes';
import { createOrder } from './service';
import { OrdersStore } from './store';

/**
 * The `orders` seed section: POST /orders bodies replayed as the owning company at load (so seeds obey every
 * rule), plus the sandbox's tracing switches.
 */
const orderSeedSchema = z.object({
  forCompanyId: z.string(),
  body: z.record(z.string(), z.unknown()),
  linesSentToTracing: z.boolean().default(false),
  structuralFieldsLocked: z.boolean().default(false),
});
export type OrderSeed = z.input<typeof orderSeedSchema>;

function load(ctx: SandboxContext, seed: SeedDocument): OrdersStore {
  const section = z
    .array(orderSeedSchema)
    .default([])
    .parse((seed as Record<string, unknown>)['orders']);
  const store = new OrdersStore();
  for (const entry of section) {
    const key = [...ctx.apiKeys.values()].find((candidate) => candidate.companyId === entry.forCompanyId);
    const caller: Caller = {
      companyId: entry.forCompanyId,
      apiKeyId: key?.id ?? null,
      apiKeyLabel: key?.label ?? null,
      userId: null,
    };
    const order = createOrder(ctx, store, caller, entry.forCompanyId, entry.body);
    order.structuralFieldsLocked = entry.structuralFieldsLocked;
    if (entry.linesSentToTracing) markLinesTraced(ctx, order, order.createdAt);
  }
  return store;
}

/** Orders and their lines (/orders, /order-lines). */
export const ordersDomain: SandboxDomain<OrdersStore> = {
  name: 'orders',
  createStore: load,
  restore: (_ctx, snapshot) => new OrdersStore(snapshot as OrderRecord[]),
  registerRoutes: (app, ctx) => registerOrderRoutes(app, ctx, ordersDomain),
  registerRootRoutes: (app, ctx) => registerOrderControlRoutes(app, ctx, ordersDomain),
  dump: (store) => store.all(),
};
