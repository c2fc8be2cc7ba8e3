import type { Page } from '../pagination';
import { bulkDeleteResultSchema, type BulkDeleteResult } from '../schemas/common';
import {
  materialHeaderCreateSchema,
  materialHeaderListQuerySchema,
  materialHeaderSchema,
  materialHeadersDeleteSchema,
  materialHeaderUpdateSchema,
  materialLineListQuerySchema,
  materialLineSchema,
  materialLinesDeleteSchema,
  materialLineWriteSchema,
  type MaterialHeader,
  type MaterialHeaderCreate,
  type MaterialHeaderListQuery,
  type MaterialHeaderUpdate,
  type MaterialLine,
  type MaterialLineListQuery,
  type MaterialLineWrite,
} from '../schemas/materials';
import { Resource, seg, type CallOptions } from './base';

/**
 * Material compositions. Writes through an inherited link fork the composition (new ids), so ids
 * are never cached across writes; the answer of a write carries the ids that now apply.
 */
export class MaterialsResource extends Resource {
  listHeaders(query: MaterialHeaderListQuery, options?: CallOptions): Promise<Page<MaterialHeader>> {
    return this.listPage(
      '/material-headers',
      materialHeaderListQuerySchema,
      query,
      materialHeaderSchema,
      options,
    );
  }

  iterateHeaders(
    query: Omit<MaterialHeaderListQuery, 'page' | 'limit'>,
    options?: CallOptions,
  ): AsyncGenerator<MaterialHeader, void, undefined> {
    return this.iterateList((page, limit) => this.listHeaders({ ...query, page, limit }, options));
  }

  getHeader(id: string, options?: CallOptions): Promise<MaterialHeader> {
    return this.getOne(
      '/material-headers/{id}',
      `/material-headers/${seg(id)}`,
      materialHeaderSchema,
      undefined,
      options,
    );
  }

  createHeader(input: MaterialHeaderCreate, options?: CallOptions): Promise<MaterialHeader> {
    return this.write(
      {
        method: 'POST',
        endpoint: '/material-headers',
        bodySchema: materialHeaderCreateSchema,
        input,
        dataSchema: materialHeaderSchema,
        safety: 'unsafe',
      },
      options,
    );
  }

  /** Through an inherited link every call adds another empty header copy: not retried blindly. */
  updateHeader(id: string, input: MaterialHeaderUpdate, options?: CallOptions): Promise<MaterialHeader> {
    const path = `/material-headers/${seg(id)}`;
    return this.write(
      {
        method: 'PUT',
        endpoint: '/material-headers/{id}',
        path,
        bodySchema: materialHeaderUpdateSchema,
        input,
        dataSchema: materialHeaderSchema,
        safety: 'unsafe',
      },
      options,
    );
  }

  deleteHeaders(
    input: { styleId: string; materialHeaderIds: string[] },
    options?: CallOptions,
  ): Promise<BulkDeleteResult> {
    const endpoint = '/material-headers/delete';
    return this.write(
      {
        method: 'POST',
        endpoint: endpoint,
        bodySchema: materialHeadersDeleteSchema,
        input,
        dataSchema: bulkDeleteResultSchema,
        safety: 'guarded',
      },
      options,
    );
  }

  listLines(query: MaterialLineListQuery = {}, options?: CallOptions): Promise<Page<MaterialLine>> {
    return this.listPage('/material-lines', materialLineListQuerySchema, query, materialLineSchema, options);
  }

  iterateLines(
    query: Omit<MaterialLineListQuery, 'page' | 'limit'>,
    options?: CallOptions,
  ): AsyncGenerator<MaterialLine, void, undefined> {
    return this.iterateList((page, limit) => this.listLines({ ...query, page, limit }, options));
  }

  createLine(input: MaterialLineWrite, options?: CallOptions): Promise<MaterialLine> {
    return this.write(
      {
        method: 'POST',
        endpoint: '/material-lines',
        bodySchema: materialLineWriteSchema,
        input,
        dataSchema: materialLineSchema,
        safety: 'unsafe',
      },
      options,
    );
  }

  /** Full replace: send the complete line including its current `parentId`. */
  replaceLine(id: string, input: MaterialLineWrite, options?: CallOptions): Promise<MaterialLine> {
    const path = `/material-lines/${seg(id)}`;
    return this.write(
      {
        method: 'PUT',
        endpoint: '/material-lines/{id}',
        path,
        bodySchema: materialLineWriteSchema,
        input,
        dataSchema: materialLineSchema,
        safety: 'guarded',
      },
      options,
    );
  }

  /** Cascades one level only: delete deep trees bottom-up. Forks through an inherited link. */
  deleteLines(
    input: { styleId: string; materialLineIds: string[] },
    options?: CallOptions,
  ): Promise<BulkDeleteResult> {
    const endpoint = '/material-lines/delete';
    return this.write(
      {
        method: 'POST',
        endpoint: endpoint,
        bodySchema: materialLinesDeleteSchema,
        input,
        dataSchema: bulkDeleteResultSchema,
        safety: 'unsafe',
      },
      options,
    );
  }
}
