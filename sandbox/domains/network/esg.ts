import type { FastifyInstance } from 'fastify';
import { callerCompany, type SandboxContext } from '../../core/context';
import { sendData } from '../../core/envelope';
import { notFound } from '../../core/errors';
import { str, type RawQuery } from '../../core/query';
import type { EsgDataPoint, NetworkState } from './model';

const SECTIONS = [
  { key: 'environmental', sectionId: '2.1', name: 'Environmental' },
  { key: 'social', sectionId: '2.2', name: 'Social' },
  { key: 'governance', sectionId: '2.3', name: 'Governance' },
] as const;

function filterDataPoints(points: EsgDataPoint[], query: RawQuery): EsgDataPoint[] {
  const templateId = str(query, 'templateId');
  const platformId = str(query, 'platformId');
  const name = str(query, 'name')?.toLowerCase();
  const impactArea = str(query, 'impactArea')?.toLowerCase();
  return points.filter(
    (point) =>
      (templateId === undefined || point.templateId === templateId) &&
      (platformId === undefined || point.platformId === platformId) &&
      (name === undefined || point.name.toLowerCase().includes(name)) &&
      (impactArea === undefined || point.impactArea.toLowerCase().includes(impactArea)),
  );
}

/** GET /companies/{companyId}/esg: filters combine with AND; counts describe the filtered result. */
export function registerEsgRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  state: () => NetworkState,
): void {
  app.get<{ Params: { companyId: string }; Querystring: RawQuery }>(
    '/companies/:companyId/esg',
    async (request, reply) => {
      const callerId = callerCompany(request);
      const { companyId } = request.params;
      const profile = state().esgProfiles.find((candidate) => candidate.companyId === companyId);
      const visible =
        profile && (companyId === callerId || (profile.isShared && ctx.reaches(callerId, companyId)));
      if (!profile || !visible)
        throw notFound(`No ESG profile of '${companyId}' is visible to you`, 'company_not_found');
      const points = filterDataPoints(profile.dataPoints, request.query);
      const data: Record<string, unknown> = { companyId };
      for (const section of SECTIONS) {
        const inSection = points.filter(
          (point) =>
            point.templateId === section.sectionId || point.templateId.startsWith(`${section.sectionId}.`),
        );
        data[section.key] = {
          sectionId: section.sectionId,
          name: section.name,
          totalDataPoints: inSection.length,
          answeredDataPoints: inSection.filter((point) => point.value !== null).length,
          dataPoints: inSection,
        };
      }
      return sendData(reply, data);
    },
  );
}
