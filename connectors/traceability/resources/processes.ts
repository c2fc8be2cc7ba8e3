import type { Page } from '../pagination';
import { pageQuerySchema } from '../schemas/common';
import {
  facilityProcessSchema,
  productionProcessSchema,
  type FacilityProcess,
  type ProductionProcess,
} from '../schemas/reference';
import { Resource, type CallOptions } from './base';

type PageQuery = { page?: number; limit?: number };

/** Facility and production process reference lists (same for every account, safe to cache). */
export class ProcessesResource extends Resource {
  listFacility(query: PageQuery = {}, options?: CallOptions): Promise<Page<FacilityProcess>> {
    return this.listPage('/facility-processes', pageQuerySchema, query, facilityProcessSchema, options);
  }

  /** More than one page exists: this walks them all. */
  iterateFacility(options?: CallOptions): AsyncGenerator<FacilityProcess, void, undefined> {
    return this.iterateList((page, limit) => this.listFacility({ page, limit }, options));
  }

  listProduction(query: PageQuery = {}, options?: CallOptions): Promise<Page<ProductionProcess>> {
    return this.listPage('/production-processes', pageQuerySchema, query, productionProcessSchema, options);
  }

  iterateProduction(options?: CallOptions): AsyncGenerator<ProductionProcess, void, undefined> {
    return this.iterateList((page, limit) => this.listProduction({ page, limit }, options));
  }
}
