import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerCompany, type SandboxContext, type SandboxDomain } from '../../core/context';
import { sendData, sendPage } from '../../core/envelope';
import { badRequest, notFound } from '../../core/errors';
import { bool, list, num, pageParams, sortBy, sortParams, str, type RawQuery } from '../../core/query';
import { createdAudit } from '../v2-common/audit';
import { parseBody } from '../v2-common/body';
import { productInCatalogue } from '../v2-common/catalogue';
import type { BomWrite } from './fork';
import { createHeader, deleteHeaders, updateHeader, type HeaderView } from './header-service';
import { createLine, deleteLines, updateLine } from './line-service';
import type { BomStore, PlacementRecord } from './model';
import { presentCreatedHeader, presentHeader, presentLine, presentPlacement } from './present';
import { createPlacementSchema } from './schemas';

const HEADER_SORTS = [
  'createdAt',
  'updatedAt',
  'name',
  'version',
  'effectiveStartDate',
  'effectiveEndDate',
] as const;
const LINE_SORTS = ['createdAt', 'updatedAt', 'quantity', 'weight'] as const;

type IdRoute = { Params: { id: string }; Querystring: RawQuery };

function headerViews(store: BomStore, companyId: string, productId: string): HeaderView[] {
  return store.links
    .ofProduct(productId)
    .map((link) => ({ link, header: store.header(companyId, link.headerId) }))
    .filter((view): view is HeaderView => view.header !== undefined);
}

function filterHeaders(views: HeaderView[], query: RawQuery): HeaderView[] {
  const ids = list(query, 'ids');
  const name = str(query, 'name')?.toLowerCase();
  const isArchived = bool(query, 'isArchived');
  const isMainBom = bool(query, 'isMainBom');
  const version = num(query, 'version');
  return views.filter(
    ({ header, link }) =>
      (ids === undefined || ids.includes(header.id)) &&
      (name === undefined || header.name.toLowerCase().includes(name)) &&
      (isArchived === undefined || header.isArchived === isArchived) &&
      (isMainBom === undefined || link.isMainBom === isMainBom) &&
      (version === undefined || link.version === version),
  );
}

export function registerBomRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  domain: SandboxDomain<BomStore>,
): void {
  const write = (request: FastifyRequest): BomWrite => ({
    ctx,
    store: ctx.store(domain),
    caller: request.caller,
    companyId: callerCompany(request),
  });

  app.get<{ Querystring: RawQuery }>('/bom-headers', async (request, reply) => {
    const { store, companyId } = write(request);
    const styleId = str(request.query, 'styleId');
    if (!styleId) throw badRequest(`Query parameter 'styleId' is required`);
    const { page, limit } = pageParams(request.query);
    const { sort, order } = sortParams(request.query, HEADER_SORTS, 'createdAt');
    const product = productInCatalogue(ctx, companyId, styleId);
    const views = filterHeaders(product ? headerViews(store, companyId, product.id) : [], request.query);
    const sorted = sortBy(
      views.map((view) => ({ ...view, id: view.header.id })),
      (view) =>
        sort === 'name' || sort === 'createdAt' || sort === 'updatedAt' ? view.header[sort] : view.link[sort],
      order,
    );
    return sendPage(
      reply,
      sorted.map((view) => presentHeader(view.header, view.link)),
      page,
      limit,
    );
  });

  app.get<IdRoute>('/bom-headers/:id', async (request, reply) => {
    const { store, companyId } = write(request);
    const header = store.header(companyId, request.params.id);
    const owner = header ? store.links.owner(header.id) : undefined;
    if (!header || !owner)
      throw notFound(`BOM header '${request.params.id}' not found`, 'bom_header_not_found');
    return sendData(reply, presentHeader(header, owner));
  });

  app.post('/bom-headers', async (request, reply) => {
    const { header, link } = createHeader(write(request), request.body);
    return sendData(reply, presentCreatedHeader(header, link), 201);
  });

  app.put<IdRoute>('/bom-headers/:id', async (request, reply) => {
    const { header, link } = updateHeader(write(request), request.params.id, request.body);
    return sendData(reply, presentHeader(header, link));
  });

  app.post('/bom-headers/delete', async (request, reply) =>
    sendData(reply, deleteHeaders(write(request), request.body)),
  );

  app.get<{ Querystring: RawQuery }>('/bom-lines', async (request, reply) => {
    const { store, companyId } = write(request);
    const { query } = request;
    const { page, limit } = pageParams(query);
    const { sort, order } = sortParams(query, LINE_SORTS, 'createdAt');
    const headerId = str(query, 'bomHeaderId');
    const rawComponent = str(query, 'styleId');
    const component =
      rawComponent === undefined
        ? undefined
        : (productInCatalogue(ctx, companyId, rawComponent)?.id ?? rawComponent);
    const placementId = str(query, 'placementId');
    const country = str(query, 'countryOfOrigin')?.toLowerCase();
    const isMainComponent = bool(query, 'isMainComponent');
    const include = list(query, 'include') ?? [];
    const lines = [...store.lines.values()].filter(
      (line) =>
        store.header(companyId, line.bomHeaderId) !== undefined &&
        (headerId === undefined || line.bomHeaderId === headerId) &&
        (component === undefined || line.styleId === component) &&
        (placementId === undefined || line.placementId === placementId) &&
        (country === undefined || (line.countryOfOrigin ?? '').toLowerCase().includes(country)) &&
        (isMainComponent === undefined || line.isMainComponent === isMainComponent),
    );
    const includes = { entity: include.includes('entity'), placement: include.includes('placement') };
    const sorted = sortBy(lines, (line) => line[sort], order);
    return sendPage(
      reply,
      sorted.map((line) => presentLine(ctx, store, line, includes)),
      page,
      limit,
    );
  });

  app.post('/bom-lines', async (request, reply) => {
    const context = write(request);
    return sendData(reply, presentLine(ctx, context.store, createLine(context, request.body)), 201);
  });

  app.put<IdRoute>('/bom-lines/:id', async (request, reply) => {
    const context = write(request);
    return sendData(
      reply,
      presentLine(ctx, context.store, updateLine(context, request.params.id, request.body)),
    );
  });

  app.post('/bom-lines/delete', async (request, reply) =>
    sendData(reply, deleteLines(write(request), request.body)),
  );

  app.get<{ Querystring: RawQuery }>('/bom-placements', async (request, reply) => {
    const { store, companyId } = write(request);
    const { page, limit } = pageParams(request.query);
    const placements = [...store.placements.values()].filter(
      (placement) => placement.forCompanyId === companyId,
    );
    const sorted = sortBy(placements, (placement) => placement.value.toLowerCase(), 'asc');
    return sendPage(reply, sorted.map(presentPlacement), page, limit);
  });

  app.post('/bom-placements', async (request, reply) => {
    const context = write(request);
    const body = parseBody(createPlacementSchema, request.body);
    // Values are unique per account (case-insensitive): creating an existing one answers it with 200.
    const existing = [...context.store.placements.values()].find(
      (candidate) =>
        candidate.forCompanyId === context.companyId &&
        candidate.value.toLowerCase() === body.value.toLowerCase(),
    );
    if (existing) return sendData(reply, presentPlacement(existing), 200);
    const placement: PlacementRecord = {
      id: ctx.newId('bomplc_'),
      value: body.value,
      forCompanyId: context.companyId,
      ...createdAudit(ctx, request.caller, context.companyId),
    };
    context.store.placements.set(placement.id, placement);
    return sendData(reply, presentPlacement(placement), 201);
  });
}
