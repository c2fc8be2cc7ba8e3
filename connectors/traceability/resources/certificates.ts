import type { Page } from '../pagination';
import {
  certificateListQuerySchema,
  certificateSchema,
  type Certificate,
  type CertificateListQuery,
} from '../schemas/certificates';
import { Resource, seg, type CallOptions } from './base';

/** Certificates held by suppliers. `fileUrl` is signed for an hour: never store it. */
export class CertificatesResource extends Resource {
  list(query: CertificateListQuery = {}, options?: CallOptions): Promise<Page<Certificate>> {
    return this.listPage('/certificates', certificateListQuerySchema, query, certificateSchema, options);
  }

  iterate(
    query: Omit<CertificateListQuery, 'page' | 'limit'> = {},
    options?: CallOptions,
  ): AsyncGenerator<Certificate, void, undefined> {
    return this.iterateList((page, limit) => this.list({ ...query, page, limit }, options));
  }

  get(id: string, options?: CallOptions): Promise<Certificate> {
    return this.getOne(
      '/certificates/{id}',
      `/certificates/${seg(id)}`,
      certificateSchema,
      undefined,
      options,
    );
  }
}
