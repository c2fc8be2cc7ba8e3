import { collect, type BomHeader, type BomLine, type TraceabilityClient } from '../traceability';
import { waitFor, type BackoffOptions } from './wait';

/** Every line of a header, in creation order (the order a fork copies them in). */
export function readLines(client: TraceabilityClient, bomHeaderId: string): Promise<BomLine[]> {
  return collect(client.boms.iterateLines({ bomHeaderId, sort: 'createdAt', order: 'asc' }));
}

/** Every header linked to a product (owned and inherited), with the product's `link`. */
export function readHeaders(client: TraceabilityClient, productId: string): Promise<BomHeader[]> {
  return collect(client.boms.iterateHeaders({ styleId: productId }));
}

export function ownedHeaders(headers: readonly BomHeader[]): BomHeader[] {
  return headers.filter((header) => header.link?.isOwner === true);
}

/**
 * The product's link to a header. Child links of a new BOM appear seconds after the create, so this polls with
 * backoff until the link shows (or the timeout passes).
 */
export async function waitForBomLink(
  client: TraceabilityClient,
  productId: string,
  bomHeaderId: string,
  backoff: BackoffOptions = {},
): Promise<BomHeader> {
  const { value } = await waitFor(
    `the link of ${productId} to BOM ${bomHeaderId}`,
    async () =>
      (await client.boms.listHeaders({ styleId: productId, ids: [bomHeaderId], limit: 100 })).items.find(
        (h) => h.id === bomHeaderId,
      ),
    backoff,
  );
  return value;
}
