import type { SandboxDomain } from '../../core/context';
import { certificateSectionSchema, type CertificateRecord } from './model';
import { registerCertificateDownloads, registerCertificateRoutes, type CertificateStore } from './routes';

export type { CertificateRecord } from './model';
export { CERTIFICATE_STATUSES, CERTIFICATE_TYPES } from './model';

const load = (section: unknown): CertificateStore =>
  new Map(certificateSectionSchema.parse(section ?? []).map((certificate) => [certificate.id, certificate]));

/** Certificates held by supplier companies (read-only over the API). */
export const certificatesDomain: SandboxDomain<CertificateStore> = {
  name: 'certificates',
  createStore: (_ctx, seed) => load((seed as Record<string, unknown>)['certificates']),
  restore: (_ctx, snapshot) => load(snapshot),
  registerRoutes: (app, ctx) => registerCertificateRoutes(app, ctx, certificatesDomain),
  registerRootRoutes: (app, ctx) => registerCertificateDownloads(app, ctx, certificatesDomain),
  dump: (store): CertificateRecord[] => [...store.values()],
};
