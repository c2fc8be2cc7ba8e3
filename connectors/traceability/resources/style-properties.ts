import type { Page } from '../pagination';
import {
  stylePropertyListQuerySchema,
  stylePropertySchema,
  type StyleProperty,
  type StylePropertyCategory,
} from '../schemas/reference';
import { Resource, type CallOptions } from './base';

/** GET /style-properties: brand, department, season and collection ids. */
export class StylePropertiesResource extends Resource {
  list(
    query: { type?: StylePropertyCategory; page?: number; limit?: number } = {},
    options?: CallOptions,
  ): Promise<Page<StyleProperty>> {
    return this.listPage(
      '/style-properties',
      stylePropertyListQuerySchema,
      query,
      stylePropertySchema,
      options,
    );
  }

  iterate(
    type: StylePropertyCategory,
    options?: CallOptions,
  ): AsyncGenerator<StyleProperty, void, undefined> {
    return this.iterateList((page, limit) => this.list({ type, page, limit }, options));
  }
}
