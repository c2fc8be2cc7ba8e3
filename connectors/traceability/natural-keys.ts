import { isTraceabilityApiError } from './errors';
import type { CompaniesResource } from './resources/companies';
import type { CallOptions } from './resources/base';
import type { OrdersResource } from './resources/orders';
import type { ProductsResource } from './resources/products';
import type { Order, OrderType } from './schemas/orders';
import type { Product, ProductLevel } from './schemas/products';

export type CompanyCodeMatch =
  { status: 'found'; id: string } | { status: 'not_found' } | { status: 'ambiguous'; ids: string[] };

/** Lookups by the keys jobs hold (externalId, product code, orderNumber, company code). */
export class NaturalKeys {
  private readonly companyCodes = new Map<string, Promise<CompanyCodeMatch>>();

  constructor(
    private readonly products: ProductsResource,
    private readonly orders: OrdersResource,
    private readonly companies: CompaniesResource,
  ) {}

  /** GET /styles/{externalId}; 404 gives undefined. Archived products are found too. */
  async findProductByExternalId(externalId: string, options?: CallOptions): Promise<Product | undefined> {
    try {
      const product = await this.products.get(externalId, {}, options);
      // The path also accepts platform ids: only an exact externalId match counts.
      return product.externalId === externalId ? product : undefined;
    } catch (error) {
      if (isTraceabilityApiError(error) && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  /**
   * The product holding code `codeId`=`codeValue` (codes are unique per type in a catalogue), looked
   * up level by level with the codeId/codeValue filter and matched exactly client-side. Archived
   * products still hold their codes, so they are searched too unless `includeArchived` is false.
   */
  async findProductByCode(
    codeId: string,
    codeValue: string,
    opts: { levels?: ProductLevel[]; includeArchived?: boolean } = {},
    options?: CallOptions,
  ): Promise<Product | undefined> {
    const levels = opts.levels ?? ['style', 'variant', 'sku'];
    const archivedStates = opts.includeArchived === false ? [false] : [false, true];
    for (const isArchived of archivedStates) {
      for (const level of levels) {
        for await (const product of this.products.iterate(
          { level, codeId, codeValue, isArchived },
          options,
        )) {
          if (product.codes.some((code) => code.codeId === codeId && code.codeValue === codeValue))
            return product;
        }
      }
    }
    return undefined;
  }

  /** Orders with exactly this number (one per order type at most), archived included. */
  findOrdersByNumber(
    orderNumber: string,
    opts: { type?: OrderType } = {},
    options?: CallOptions,
  ): Promise<Order[]> {
    return this.orders.findByOrderNumber(orderNumber, opts, options);
  }

  /** Maps internal company codes to platform ids (exact match; results cached for the client's life). */
  async mapCompanyCodes(
    codes: readonly string[],
    options?: CallOptions,
  ): Promise<Map<string, CompanyCodeMatch>> {
    const unique = [...new Set(codes)];
    const results = await Promise.all(unique.map((code) => this.companyCode(code, options)));
    return new Map(unique.map((code, i) => [code, results[i] as CompanyCodeMatch]));
  }

  private companyCode(code: string, options?: CallOptions): Promise<CompanyCodeMatch> {
    let pending = this.companyCodes.get(code);
    if (!pending) {
      pending = this.companies.findByInternalCode(code, options).then((companies): CompanyCodeMatch => {
        const ids = [...new Set(companies.map((company) => company.id))];
        if (ids.length === 0) return { status: 'not_found' };
        if (ids.length > 1) return { status: 'ambiguous', ids };
        return { status: 'found', id: ids[0] as string };
      });
      pending.catch(() => this.companyCodes.delete(code));
      this.companyCodes.set(code, pending);
    }
    return pending;
  }
}
