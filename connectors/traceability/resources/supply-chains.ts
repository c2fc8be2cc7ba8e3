import { supplyChainSchema, type SupplyChain } from '../schemas/network';
import { Resource, seg, type CallOptions } from './base';

/** GET /supply-chains/{productId}: the product's chain, or its closest ancestor's active chain. */
export class SupplyChainsResource extends Resource {
  get(productId: string, options?: CallOptions): Promise<SupplyChain> {
    return this.getOne(
      '/supply-chains/{id}',
      `/supply-chains/${seg(productId)}`,
      supplyChainSchema,
      undefined,
      options,
    );
  }
}
