import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerCompany, type SandboxContext, type SandboxDomain } from '../../core/context';
import { listBody, sendData } from '../../core/envelope';
import { ApiError, forbidden, notFound } from '../../core/errors';
import { seededRandom } from '../../core/prng';
import {
  pageParams,
  shuffleTies,
  sortBy,
  sortParams,
  type Comparable,
  type RawQuery,
} from '../../core/query';
import { certificateFilters } from './filters';
import { certificateSectionSchema, type CertificateRecord } from './model';
import { DOWNLOAD_PATH, signedDownloadUrl, verifyDownload } from './signing';

export type { CertificateRecord } from './model';
export { CERTIFICATE_STATUSES, CERTIFICATE_TYPES } from './model';

/**
 * Whether the caller can see the certificate at all: DRAFTs only by their creator; otherwise the holder must be the
 * caller or in the caller's network (or the caller created it).
 */
function isVisible(ctx: SandboxContext, companyId: string, certificate: CertificateRecord): boolean {
  if (certificate.status === 'DRAFT') return certificate.createdByCompanyId === companyId;
  return (
    certificate.createdByCompanyId === companyId ||
    certificate.companyId === companyId ||
    ctx.reaches(companyId, certificate.companyId)
  );
}

/** TRANSACTION certificates are restricted to their creator and their owner (the holder). */
function isRestricted(companyId: string, certificate: CertificateRecord): boolean {
  return (
    certificate.type === 'TRANSACTION' &&
    certificate.createdByCompanyId !== companyId &&
    certificate.companyId !== companyId
  );
}

// The spec's sorts; the client's copy (connectors/traceability/schemas/certificates.ts) stays apart on purpose.
const SORTS = [
  'updatedAt',
  'name',
  'companyName',
  'status',
  'expirationDate',
  'type',
  'documentNumber',
  'licenseNumber',
  'issueDate',
  'issuedBy',
] as const;

type CertificateStore = Map<string, CertificateRecord>;

function origin(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? 'localhost'}`;
}

function registerCertificateRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  domain: SandboxDomain<CertificateStore>,
): void {
  const companyName = (certificate: CertificateRecord): string =>
    ctx.companies.get(certificate.companyId)?.name ?? '';
  // Repeatable dice for `certificateTies: 'shuffled'`: a new order on every query, the same run on every start.
  const tieOrder = seededRandom(0x5eed);
  const present = (request: FastifyRequest, certificate: CertificateRecord): Record<string, unknown> => {
    const company = ctx.companies.get(certificate.companyId);
    return {
      id: certificate.id,
      name: certificate.name,
      type: certificate.type,
      companyId: certificate.companyId,
      companyName: company?.name ?? null,
      companyOfficialName: company?.officialName ?? null,
      documentNumber: certificate.documentNumber,
      licenseNumber: certificate.licenseNumber,
      issueDate: certificate.issueDate,
      expirationDate: certificate.expirationDate,
      issuedBy: certificate.issuedBy,
      explanation: certificate.explanation,
      status: certificate.status,
      fileUrl:
        certificate.fileId === null
          ? null
          : signedDownloadUrl(origin(request), certificate.fileId, ctx.now()),
      fileContentType: certificate.fileContentType,
    };
  };

  app.get<{ Querystring: RawQuery }>('/certificates', async (request, reply) => {
    const companyId = callerCompany(request);
    const { page, limit } = pageParams(request.query);
    const { sort, order } = sortParams(request.query, SORTS, 'updatedAt');
    const predicates = certificateFilters(request.query, companyName);
    const matching = [...ctx.store(domain).values()].filter(
      (certificate) =>
        isVisible(ctx, companyId, certificate) &&
        !isRestricted(companyId, certificate) &&
        predicates.every((predicate) => predicate(certificate)),
    );
    const key = (certificate: CertificateRecord): Comparable =>
      sort === 'companyName' ? companyName(certificate) : certificate[sort];
    const byKey = sortBy(matching, key, order);
    const sorted = ctx.settings.certificateTies === 'shuffled' ? shuffleTies(byKey, key, tieOrder) : byKey;
    const start = (page - 1) * limit;
    // Only the page shown is signed; every answer carries fresh addresses.
    const shown = sorted.slice(start, start + limit).map((certificate) => present(request, certificate));
    return reply.send(
      listBody(shown, { page, limit, total: sorted.length, totalPages: Math.ceil(sorted.length / limit) }),
    );
  });

  app.get<{ Params: { id: string } }>('/certificates/:id', async (request, reply) => {
    const companyId = callerCompany(request);
    const certificate = ctx.store(domain).get(request.params.id);
    if (!certificate || !isVisible(ctx, companyId, certificate)) {
      throw notFound(`Certificate '${request.params.id}' not found`, 'certificate_not_found');
    }
    if (isRestricted(companyId, certificate))
      throw forbidden('Transaction certificates are restricted to their creator and owner');
    return sendData(reply, present(request, certificate));
  });
}

/** The signed download address (outside /api/v2, like a storage bucket): 403 once expired or when tampered with. */
function registerCertificateDownloads(
  app: FastifyInstance,
  ctx: SandboxContext,
  domain: SandboxDomain<CertificateStore>,
): void {
  app.get<{ Params: { fileId: string }; Querystring: RawQuery }>(
    `${DOWNLOAD_PATH}/:fileId`,
    async (request, reply) => {
      const { fileId } = request.params;
      const { expires, n, signature } = request.query;
      const verdict =
        typeof expires === 'string' && typeof n === 'string' && typeof signature === 'string'
          ? verifyDownload(fileId, Number(expires), Number(n), signature, ctx.now())
          : 'invalid';
      if (verdict !== 'ok')
        throw new ApiError(
          403,
          'forbidden',
          verdict === 'expired' ? 'Signed address expired' : 'Invalid signature',
        );
      const certificate = [...ctx.store(domain).values()].find((candidate) => candidate.fileId === fileId);
      if (!certificate) throw notFound(`File '${fileId}' not found`);
      return reply
        .type(certificate.fileContentType ?? 'application/octet-stream')
        .send(Buffer.from(`%PDF-1.4\n% sandbox certificate ${certificate.id}: ${certificate.name}\n%%EOF\n`));
    },
  );
}

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
