import type { SandboxContext, SandboxDomain } from '../../core/context';
import { catalogueOf } from '../v2-common/catalogue';
import { registerEsgRoutes } from './esg';
import { networkSectionSchema, type NetworkState } from './model';
import { registerReferenceRoutes } from './reference-routes';
import { registerSupplyChainRoutes } from './supply-chains';

export type { NetworkSection } from './model';

/** A product with its own active supply chain has tracing data, which `isStoryActive: true` requires. */
function connectToCatalogue(ctx: SandboxContext): void {
  catalogueOf(ctx).setTracingProvider((product) => {
    const chain = ctx
      .store(networkDomain)
      .supplyChains.find((candidate) => candidate.productId === product.id && candidate.isActive);
    if (!chain) return undefined;
    const at = chain.createdAt ?? product.createdAt;
    return {
      id: `tracing_${chain.id}`,
      tracingType: 'SUPPLY_CHAINS',
      tracingId: chain.id,
      tracingName: chain.name,
      createdAt: at,
      updatedAt: at,
    };
  });
}

/** Company lookup, process reference lists, supply chains and company ESG data (all read-only). */
export const networkDomain: SandboxDomain<NetworkState> = {
  name: 'network',
  createStore: (_ctx, seed) => networkSectionSchema.parse((seed as Record<string, unknown>)['network'] ?? {}),
  restore: (_ctx, snapshot) => networkSectionSchema.parse(snapshot ?? {}),
  registerRoutes(app, ctx) {
    const state = (): NetworkState => ctx.store(networkDomain);
    registerReferenceRoutes(app, ctx);
    registerSupplyChainRoutes(app, ctx, state);
    registerEsgRoutes(app, ctx, state);
    connectToCatalogue(ctx);
  },
  dump: (state) => state,
};
