import type { FastifyInstance } from 'fastify';
import { callerCompany, type SandboxContext } from '../../core/context';
import { sendPage } from '../../core/envelope';
import { badRequest } from '../../core/errors';
import { pageParams, parseJsonFilter, type RawQuery } from '../../core/query';
import type { CompanySeed } from '../../core/seed';
import { FACILITY_PROCESSES, PRODUCTION_PROCESSES, productionProcess } from './processes';

const SUBSTRING_KEYS = ['internalCompanyCode', 'name', 'officialName', 'city'] as const;

function companyFilter(query: RawQuery): (company: CompanySeed) => boolean {
  const filter = parseJsonFilter(query);
  const checks: Array<(company: CompanySeed) => boolean> = [];
  for (const key of SUBSTRING_KEYS) {
    const value = filter[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw badRequest(`filter.${key} must be a string`);
    const needle = value.toLowerCase();
    checks.push((company) => (company[key] ?? '').toLowerCase().includes(needle));
  }
  const country = filter['country'];
  if (country !== undefined) {
    if (typeof country !== 'string')
      throw badRequest('filter.country must be a string of comma-separated ISO codes');
    const codes = country
      .split(',')
      .map((code) => code.trim().toUpperCase())
      .filter((code) => code.length > 0);
    checks.push((company) => company.country !== null && codes.includes(company.country));
  }
  return (company) => checks.every((check) => check(company));
}

/** GET /companies (the caller and its network, by JSON filter) and the two process lists (the same for every account). */
export function registerReferenceRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get<{ Querystring: RawQuery }>('/companies', async (request, reply) => {
    const companyId = callerCompany(request);
    const { page, limit } = pageParams(request.query);
    const matches = companyFilter(request.query);
    const companies = [...ctx.companies.values()]
      .filter((company) => ctx.reaches(companyId, company.id) && matches(company))
      .sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1))
      .map((company) => ({
        id: company.id,
        name: company.name,
        officialName: company.officialName,
        internalCompanyCode: company.internalCompanyCode,
        city: company.city,
        country: company.country,
      }));
    return sendPage(reply, companies, page, limit);
  });

  app.get<{ Querystring: RawQuery }>('/facility-processes', async (request, reply) => {
    const { page, limit } = pageParams(request.query);
    const processes = FACILITY_PROCESSES.map((process) => ({
      id: process.id,
      name: process.name,
      productionProcessId: process.productionProcessId,
      productionProcessName: productionProcess(process.productionProcessId)?.name ?? null,
    }));
    return sendPage(reply, processes, page, limit);
  });

  app.get<{ Querystring: RawQuery }>('/production-processes', async (request, reply) => {
    const { page, limit } = pageParams(request.query);
    return sendPage(reply, PRODUCTION_PROCESSES, page, limit);
  });
}
