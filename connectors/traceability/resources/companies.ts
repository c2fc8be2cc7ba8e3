import { z } from 'zod';
import type { Page } from '../pagination';
import { pageQuerySchema } from '../schemas/common';
import { companyFilterSchema, companySchema, type Company, type CompanyFilter } from '../schemas/reference';
import { Resource, type CallOptions } from './base';

const companyListQuerySchema = pageQuerySchema.extend({ filter: companyFilterSchema.optional() });
type CompanyListQuery = z.input<typeof companyListQuerySchema>;

/** GET /companies?filter={...}: every filter key is a case-insensitive substring (country exact). */
export class CompaniesResource extends Resource {
  list(query: CompanyListQuery = {}, options?: CallOptions): Promise<Page<Company>> {
    return this.listPage('/companies', companyListQuerySchema, query, companySchema, options);
  }

  iterate(filter: CompanyFilter = {}, options?: CallOptions): AsyncGenerator<Company, void, undefined> {
    return this.iterateList((page, limit) => this.list({ filter, page, limit }, options));
  }

  /** Companies whose `internalCompanyCode` equals `code` exactly (the API filter is a substring match). */
  async findByInternalCode(code: string, options?: CallOptions): Promise<Company[]> {
    const exact: Company[] = [];
    for await (const company of this.iterate({ internalCompanyCode: code }, options)) {
      if (company.internalCompanyCode === code) exact.push(company);
    }
    return exact;
  }
}
