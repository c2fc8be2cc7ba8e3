import type { Page } from '../pagination';
import { pageQuerySchema } from '../schemas/common';
import { styleTypeSchema, type StyleType } from '../schemas/reference';
import { Resource, type CallOptions } from './base';

/** GET /style-types: the account's product categories (`styleTypeId`), with allowed units. */
export class StyleTypesResource extends Resource {
  list(query: { page?: number; limit?: number } = {}, options?: CallOptions): Promise<Page<StyleType>> {
    return this.listPage('/style-types', pageQuerySchema, query, styleTypeSchema, options);
  }

  iterate(options?: CallOptions): AsyncGenerator<StyleType, void, undefined> {
    return this.iterateList((page, limit) => this.list({ page, limit }, options));
  }
}
