import type { Page } from '../pagination';
import { bulkDeleteResultSchema, pageQuerySchema, type BulkDeleteResult } from '../schemas/common';
import {
  bomHeaderCreateSchema,
  bomHeaderListQuerySchema,
  bomHeaderSchema,
  bomHeadersDeleteSchema,
  bomHeaderUpdateSchema,
  bomLineListQuerySchema,
  bomLineSchema,
  bomLinesDeleteSchema,
  bomLineWriteSchema,
  type BomHeader,
  type BomHeaderCreate,
  type BomHeaderListQuery,
  type BomHeaderUpdate,
  type BomLine,
  type BomLineCreate,
  type BomLineListQuery,
  type BomLineWrite,
} from '../schemas/boms';
import {
  placementCreateSchema,
  placementSchema,
  type Placement,
  type PlacementCreate,
} from '../schemas/reference';
import { Resource, seg, type CallOptions } from './base';

/**
 * Bills of materials. A write through an inherited link forks the BOM: the answer's `bomHeaderId`
 * is new and copied lines lose `styleId` and `isMainComponent` (re-read and repair them).
 */
export class BomsResource extends Resource {
  listHeaders(query: BomHeaderListQuery, options?: CallOptions): Promise<Page<BomHeader>> {
    return this.listPage('/bom-headers', bomHeaderListQuerySchema, query, bomHeaderSchema, options);
  }

  iterateHeaders(
    query: Omit<BomHeaderListQuery, 'page' | 'limit'>,
    options?: CallOptions,
  ): AsyncGenerator<BomHeader, void, undefined> {
    return this.iterateList((page, limit) => this.listHeaders({ ...query, page, limit }, options));
  }

  getHeader(id: string, options?: CallOptions): Promise<BomHeader> {
    return this.getOne('/bom-headers/{id}', `/bom-headers/${seg(id)}`, bomHeaderSchema, undefined, options);
  }

  createHeader(input: BomHeaderCreate, options?: CallOptions): Promise<BomHeader> {
    return this.write(
      {
        method: 'POST',
        endpoint: '/bom-headers',
        bodySchema: bomHeaderCreateSchema,
        input,
        dataSchema: bomHeaderSchema,
        safety: 'unsafe',
      },
      options,
    );
  }

  updateHeader(id: string, input: BomHeaderUpdate, options?: CallOptions): Promise<BomHeader> {
    const path = `/bom-headers/${seg(id)}`;
    return this.write(
      {
        method: 'PUT',
        endpoint: '/bom-headers/{id}',
        path,
        bodySchema: bomHeaderUpdateSchema,
        input,
        dataSchema: bomHeaderSchema,
        safety: 'guarded',
      },
      options,
    );
  }

  deleteHeaders(
    input: { styleId: string; bomHeaderIds: string[] },
    options?: CallOptions,
  ): Promise<BulkDeleteResult> {
    const endpoint = '/bom-headers/delete';
    return this.write(
      {
        method: 'POST',
        endpoint: endpoint,
        bodySchema: bomHeadersDeleteSchema,
        input,
        dataSchema: bulkDeleteResultSchema,
        safety: 'guarded',
      },
      options,
    );
  }

  listLines(query: BomLineListQuery = {}, options?: CallOptions): Promise<Page<BomLine>> {
    return this.listPage('/bom-lines', bomLineListQuerySchema, query, bomLineSchema, options);
  }

  iterateLines(
    query: Omit<BomLineListQuery, 'page' | 'limit'>,
    options?: CallOptions,
  ): AsyncGenerator<BomLine, void, undefined> {
    return this.iterateList((page, limit) => this.listLines({ ...query, page, limit }, options));
  }

  createLine(input: BomLineCreate, options?: CallOptions): Promise<BomLine> {
    return this.write(
      {
        method: 'POST',
        endpoint: '/bom-lines',
        bodySchema: bomLineWriteSchema.required({ bomHeaderId: true }),
        input,
        dataSchema: bomLineSchema,
        safety: 'unsafe',
      },
      options,
    );
  }

  /** Full replace: omitted optional fields become null (isMainComponent false). */
  replaceLine(id: string, input: BomLineWrite, options?: CallOptions): Promise<BomLine> {
    const path = `/bom-lines/${seg(id)}`;
    return this.write(
      {
        method: 'PUT',
        endpoint: '/bom-lines/{id}',
        path,
        bodySchema: bomLineWriteSchema,
        input,
        dataSchema: bomLineSchema,
        safety: 'guarded',
      },
      options,
    );
  }

  /** `styleId` is the owning product, not the component. */
  deleteLines(
    input: { styleId: string; bomLineIds: string[] },
    options?: CallOptions,
  ): Promise<BulkDeleteResult> {
    const endpoint = '/bom-lines/delete';
    return this.write(
      {
        method: 'POST',
        endpoint: endpoint,
        bodySchema: bomLinesDeleteSchema,
        input,
        dataSchema: bulkDeleteResultSchema,
        safety: 'guarded',
      },
      options,
    );
  }

  listPlacements(
    query: { page?: number; limit?: number } = {},
    options?: CallOptions,
  ): Promise<Page<Placement>> {
    return this.listPage('/bom-placements', pageQuerySchema, query, placementSchema, options);
  }

  iteratePlacements(options?: CallOptions): AsyncGenerator<Placement, void, undefined> {
    return this.iterateList((page, limit) => this.listPlacements({ page, limit }, options));
  }

  createPlacement(input: PlacementCreate, options?: CallOptions): Promise<Placement> {
    return this.write(
      {
        method: 'POST',
        endpoint: '/bom-placements',
        bodySchema: placementCreateSchema,
        input,
        dataSchema: placementSchema,
        safety: 'unsafe',
      },
      options,
    );
  }
}
