import { companyEsgSchema, esgQuerySchema, type CompanyEsg, type EsgQuery } from '../schemas/network';
import { Resource, seg, toQuery, validateRequest, type CallOptions } from './base';

/** GET /companies/{companyId}/esg, filters combined with AND. */
export class EsgResource extends Resource {
  get(companyId: string, query: EsgQuery = {}, options?: CallOptions): Promise<CompanyEsg> {
    const path = `/companies/${seg(companyId)}/esg`;
    const parsed = validateRequest(esgQuerySchema, query, 'GET', '/companies/{id}/esg', path);
    return this.getOne('/companies/{id}/esg', path, companyEsgSchema, toQuery(parsed), options);
  }
}
