import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerCompany, type SandboxContext, type SandboxDomain } from '../../core/context';
import { sendData, sendPage } from '../../core/envelope';
import { badRequest, notFound } from '../../core/errors';
import { bool, list, pageParams, sortBy, sortParams, str, type RawQuery } from '../../core/query';
import { productInCatalogue } from '../v2-common/catalogue';
import type { MaterialWrite } from './fork';
import { createHeader, deleteHeaders, updateHeader, type MaterialHeaderView } from './header-service';
import { createLine, deleteLines, updateLine } from './line-service';
import type { MaterialStore } from './model';
import { presentHeader, presentLine } from './present';

const HEADER_SORTS = ['createdAt', 'name', 'styleId', 'updatedAt'] as const;
const LINE_SORTS = [
  'createdAt',
  'materialHeaderId',
  'rawMaterialId',
  'percentage',
  'hierarchy',
  'position',
  'updatedAt',
] as const;

type IdRoute = { Params: { id: string }; Querystring: RawQuery };

function listHeaders(
  store: MaterialStore,
  companyId: string,
  productId: string,
  query: RawQuery,
): MaterialHeaderView[] {
  const name = str(query, 'name')?.toLowerCase();
  const description = str(query, 'description')?.toLowerCase();
  const isMainMaterial = bool(query, 'isMainMaterial');
  const isOwner = bool(query, 'isOwner');
  return store.links
    .ofProduct(productId)
    .map((link) => ({ link, header: store.header(companyId, link.headerId) }))
    .filter((view): view is MaterialHeaderView => view.header !== undefined)
    .filter(
      ({ header, link }) =>
        (name === undefined || header.name.toLowerCase().includes(name)) &&
        (description === undefined || (header.description ?? '').toLowerCase().includes(description)) &&
        (isMainMaterial === undefined || link.isMainMaterial === isMainMaterial) &&
        (isOwner === undefined || link.isOwner === isOwner),
    );
}

export function registerMaterialRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  domain: SandboxDomain<MaterialStore>,
): void {
  const write = (request: FastifyRequest): MaterialWrite => ({
    ctx,
    store: ctx.store(domain),
    caller: request.caller,
    companyId: callerCompany(request),
  });

  app.get<{ Querystring: RawQuery }>('/material-headers', async (request, reply) => {
    const { store, companyId } = write(request);
    const styleId = str(request.query, 'styleId');
    if (!styleId) throw badRequest(`Query parameter 'styleId' is required`);
    const { page, limit } = pageParams(request.query);
    const { sort, order } = sortParams(request.query, HEADER_SORTS, 'createdAt');
    const product = productInCatalogue(ctx, companyId, styleId);
    const views = product ? listHeaders(store, companyId, product.id, request.query) : [];
    const sorted = sortBy(
      views.map((view) => ({ ...view, id: view.header.id })),
      (view) => (sort === 'styleId' ? view.link.productId : view.header[sort]),
      order,
    );
    return sendPage(
      reply,
      sorted.map((view) => presentHeader(view.header, view.link)),
      page,
      limit,
    );
  });

  app.get<IdRoute>('/material-headers/:id', async (request, reply) => {
    const { store, companyId } = write(request);
    const header = store.header(companyId, request.params.id);
    const owner = header ? store.links.owner(header.id) : undefined;
    if (!header || !owner)
      throw notFound(`Composition '${request.params.id}' not found`, 'material_header_not_found');
    return sendData(reply, presentHeader(header, owner));
  });

  app.post('/material-headers', async (request, reply) => {
    const { header, link } = createHeader(write(request), request.body);
    return sendData(reply, presentHeader(header, link, true), 201);
  });

  app.put<IdRoute>('/material-headers/:id', async (request, reply) => {
    const { header, link } = updateHeader(write(request), request.params.id, request.body);
    return sendData(reply, presentHeader(header, link));
  });

  app.post('/material-headers/delete', async (request, reply) =>
    sendData(reply, deleteHeaders(write(request), request.body)),
  );

  app.get<{ Querystring: RawQuery }>('/material-lines', async (request, reply) => {
    const { store, companyId } = write(request);
    const { query } = request;
    const { page, limit } = pageParams(query);
    const { sort, order } = sortParams(query, LINE_SORTS, 'createdAt');
    const headerId = str(query, 'materialHeaderId');
    const rawMaterialId = str(query, 'rawMaterialId');
    const parentId = str(query, 'parentId');
    const countries = str(query, 'countriesOfOrigin')?.toLowerCase();
    const include = list(query, 'include') ?? [];
    const lines = [...store.lines.values()].filter(
      (line) =>
        store.header(companyId, line.materialHeaderId) !== undefined &&
        (headerId === undefined || line.materialHeaderId === headerId) &&
        (rawMaterialId === undefined || line.rawMaterialId === rawMaterialId) &&
        (parentId === undefined || line.parentId === parentId) &&
        (countries === undefined ||
          (line.countriesOfOrigin ?? []).join(',').toLowerCase().includes(countries)),
    );
    const includes = {
      rawMaterials: include.includes('rawMaterials'),
      countriesOfOrigin: include.includes('countriesOfOrigin'),
    };
    const sorted = sortBy(lines, (line) => line[sort], order);
    return sendPage(
      reply,
      sorted.map((line) => presentLine(line, includes)),
      page,
      limit,
    );
  });

  app.post('/material-lines', async (request, reply) =>
    sendData(reply, presentLine(createLine(write(request), request.body)), 201),
  );

  app.put<IdRoute>('/material-lines/:id', async (request, reply) =>
    sendData(reply, presentLine(updateLine(write(request), request.params.id, request.body))),
  );

  app.post('/material-lines/delete', async (request, reply) =>
    sendData(reply, deleteLines(write(request), request.body)),
  );
}
