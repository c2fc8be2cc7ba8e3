import type { Page } from '../pagination';
import type { Transport } from '../http';
import { pageQuerySchema } from '../schemas/common';
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
import { LinkedHeaderResource, type CallOptions, type LinkedHeaderSpec } from './base';

type BomTypes = {
  header: BomHeader;
  headerListQuery: BomHeaderListQuery;
  headerCreate: BomHeaderCreate;
  headerUpdate: BomHeaderUpdate;
  headersDelete: { styleId: string; bomHeaderIds: string[] };
  line: BomLine;
  lineListQuery: BomLineListQuery;
  lineCreate: BomLineCreate;
  lineReplace: BomLineWrite;
  linesDelete: { styleId: string; bomLineIds: string[] };
};

const bomsSpec: LinkedHeaderSpec<BomTypes> = {
  kind: 'bom',
  header: bomHeaderSchema,
  headerListQuery: bomHeaderListQuerySchema,
  headerCreate: bomHeaderCreateSchema,
  headerUpdate: bomHeaderUpdateSchema,
  headersDelete: bomHeadersDeleteSchema,
  line: bomLineSchema,
  lineListQuery: bomLineListQuerySchema,
  lineCreate: bomLineWriteSchema.required({ bomHeaderId: true }),
  // Full replace: omitted optional fields become null (isMainComponent false).
  lineReplace: bomLineWriteSchema,
  // Deleting lines names the owning product as `styleId`, not the component.
  linesDelete: bomLinesDeleteSchema,
  updateHeaderSafety: 'guarded',
  deleteLinesSafety: 'guarded',
};

/**
 * Bills of materials. A write through an inherited link forks the BOM: the answer's `bomHeaderId`
 * is new and copied lines lose `styleId` and `isMainComponent` (re-read and repair them).
 */
export class BomsResource extends LinkedHeaderResource<BomTypes> {
  constructor(transport: Transport) {
    super(transport, bomsSpec);
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
