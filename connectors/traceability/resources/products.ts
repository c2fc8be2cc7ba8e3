import { IncrementalSync, type IncrementalCheckpoint, type Page } from '../pagination';
import {
  archiveRequestSchema,
  unarchiveRequestSchema,
  productCreateSchema,
  productListQuerySchema,
  productSchema,
  productUpdateSchema,
  type Product,
  type ProductCreate,
  type ProductListQuery,
  type ProductUpdate,
} from '../schemas/products';
import { Resource, seg, validateRequest, type CallOptions } from './base';

type ProductInclude = NonNullable<ProductListQuery['include']>;

/** Styles, variants and SKUs behind `/styles`. Ids may be platform ids or your externalIds. */
export class ProductsResource extends Resource {
  list(query: ProductListQuery = {}, options?: CallOptions): Promise<Page<Product>> {
    return this.listPage('/styles', productListQuerySchema, query, productSchema, options);
  }

  iterate(
    query: Omit<ProductListQuery, 'page' | 'limit'> = {},
    options?: CallOptions,
  ): AsyncGenerator<Product, void, undefined> {
    return this.iterateList((page, limit) => this.list({ ...query, page, limit }, options));
  }

  get(
    idOrExternalId: string,
    query: { include?: ProductInclude } = {},
    options?: CallOptions,
  ): Promise<Product> {
    const q = query.include ? { include: query.include.join(',') } : undefined;
    return this.getOne('/styles/{id}', `/styles/${seg(idOrExternalId)}`, productSchema, q, options);
  }

  /**
   * POST /styles. Retried on a lost answer because a repeat cannot duplicate (externalId 409,
   * codes_not_unique); if that retry then fails, the error says `maybeCommitted`.
   */
  async create(input: ProductCreate, options: CallOptions = {}): Promise<Product> {
    const body = validateRequest(productCreateSchema, input, 'POST', '/styles', '/styles');
    const res = await this.transport.send({
      method: 'POST',
      endpoint: '/styles',
      path: '/styles',
      body,
      dataSchema: productSchema,
      safety: 'guarded',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return res.data;
  }

  /** PUT /styles/{id}: sent fields only; `codes` replaces the set; null re-enables inheritance. */
  async update(idOrExternalId: string, input: ProductUpdate, options: CallOptions = {}): Promise<Product> {
    const path = `/styles/${seg(idOrExternalId)}`;
    const body = validateRequest(productUpdateSchema, input, 'PUT', '/styles/{id}', path);
    const res = await this.transport.send({
      method: 'PUT',
      endpoint: '/styles/{id}',
      path,
      body,
      dataSchema: productSchema,
      safety: 'idempotent',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return res.data;
  }

  /** Archives up to 100 ids of one level (cascades to children). */
  async archive(ids: readonly string[], options: CallOptions = {}): Promise<void> {
    const body = validateRequest(archiveRequestSchema, { ids }, 'POST', '/styles/archive', '/styles/archive');
    await this.archiveCall('/styles/archive', body, options);
  }

  async unarchive(
    ids: readonly string[],
    opts: { shouldUnarchiveChildren?: boolean } = {},
    options: CallOptions = {},
  ): Promise<void> {
    const body = validateRequest(
      unarchiveRequestSchema,
      { ids, ...opts },
      'POST',
      '/styles/unarchive',
      '/styles/unarchive',
    );
    await this.archiveCall('/styles/unarchive', body, options);
  }

  /** Records updated since the checkpoint, oldest first; store `checkpoint()` afterwards. */
  syncUpdated(
    query: Omit<
      ProductListQuery,
      'page' | 'limit' | 'sort' | 'order' | 'updatedAfterUnixMs' | 'updatedBeforeUnixMs'
    >,
    from?: IncrementalCheckpoint,
    options?: CallOptions,
  ): IncrementalSync<Product> {
    return new IncrementalSync(
      (window) => this.list({ ...query, ...window, sort: 'updatedAt', order: 'asc' }, options),
      from,
    );
  }

  private async archiveCall(endpoint: string, body: unknown, options: CallOptions): Promise<void> {
    await this.transport.send({
      method: 'POST',
      endpoint,
      path: endpoint,
      body,
      safety: 'idempotent',
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}
