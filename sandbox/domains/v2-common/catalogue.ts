import type { SandboxContext } from '../../core/context';
import { catalogueDomain, type CatalogueStore, type ProductRecord } from '../catalogue';

/** The catalogue store (Sandbox I); materials, BOMs, orders and supply chains read products through it. */
export function catalogueOf(ctx: SandboxContext): CatalogueStore {
  return ctx.store(catalogueDomain);
}

/** A product in the company's catalogue, by platform id or the company's externalId. */
export function productInCatalogue(
  ctx: SandboxContext,
  companyId: string,
  idOrExternalId: string,
): ProductRecord | undefined {
  return catalogueOf(ctx).resolve(companyId, idOrExternalId);
}

/** A product the company owns (not one it merely created for another company). */
export function ownedProduct(
  ctx: SandboxContext,
  companyId: string,
  idOrExternalId: string,
): ProductRecord | undefined {
  const product = productInCatalogue(ctx, companyId, idOrExternalId);
  return product && product.forCompanyId === companyId ? product : undefined;
}
