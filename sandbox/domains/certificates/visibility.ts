import type { SandboxContext } from '../../core/context';
import type { CertificateRecord } from './model';

/**
 * Whether the caller can see the certificate at all: DRAFTs only by their creator; otherwise the holder must be the
 * caller or in the caller's network (or the caller created it).
 */
export function isVisible(ctx: SandboxContext, companyId: string, certificate: CertificateRecord): boolean {
  if (certificate.status === 'DRAFT') return certificate.createdByCompanyId === companyId;
  return (
    certificate.createdByCompanyId === companyId ||
    certificate.companyId === companyId ||
    ctx.reaches(companyId, certificate.companyId)
  );
}

/** TRANSACTION certificates are restricted to their creator and their owner (the holder). */
export function isRestricted(companyId: string, certificate: CertificateRecord): boolean {
  return (
    certificate.type === 'TRANSACTION' &&
    certificate.createdByCompanyId !== companyId &&
    certificate.companyId !== companyId
  );
}
