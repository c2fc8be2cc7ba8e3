import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerCompany } from '../../core/context';
import { sendData, sendPageOf } from '../../core/envelope';
import { notFound, parseBody } from '../../core/errors';
import type { RawQuery } from '../../core/query';
import { requestOrigin } from '../files/routes';
import { archiveProducts, unarchiveProducts } from './archive-rules';
import type { CatalogueDeps } from './store';
import { parseIncludes, parseStyleListQuery, runStyleList } from './list-query';
import { presentProduct } from './present';
import { archiveSchema, createProductSchema, unarchiveSchema, updateProductSchema } from './schemas';
import { createProduct, updateProduct } from './write-rules';

/** A CDN-like address; the name is random so clients cannot build the destination from it (as the spec warns). */
export const newQrCodeUrl = (): string =>
  `https://qr.trace-sandbox.invalid/v1/${randomBytes(12).toString('hex')}.svg`;

/** Generation is asynchronous: the url appears after `qrDelayMs`, once, and never changes afterwards. */
export function scheduleQrCode(deps: CatalogueDeps, productId: string, minDelayMs = 0): void {
  deps.ctx.schedule(Math.max(minDelayMs, deps.ctx.settings.qrDelayMs), () => {
    const product = deps.store().get(productId);
    if (product && product.qrCodeUrl === null) product.qrCodeUrl = newQrCodeUrl();
  });
}

type IdRequest = FastifyRequest<{ Params: { id: string }; Querystring: RawQuery }>;

export function registerStyleRoutes(app: FastifyInstance, deps: CatalogueDeps): void {
  const single = (request: FastifyRequest, callerId: string, includes: Set<string> = new Set()) => ({
    origin: requestOrigin(request),
    callerId,
    includes,
    list: false,
  });

  app.get<{ Querystring: RawQuery }>('/styles', async (request, reply) => {
    const callerId = callerCompany(request);
    const query = parseStyleListQuery(deps, callerId, request.query);
    const { items, total } = runStyleList(deps, callerId, query);
    const options = { origin: requestOrigin(request), callerId, includes: query.includes, list: true };
    const data = items.map((product) => presentProduct(deps, product, options));
    return sendPageOf(reply, data, query.page.page, query.page.limit, total);
  });

  app.get('/styles/:id', async (request: IdRequest, reply) => {
    const callerId = callerCompany(request);
    const includes = parseIncludes(request.query);
    const product = deps.store().resolve(callerId, request.params.id);
    if (!product) throw notFound(`No product '${request.params.id}'`);
    return sendData(reply, presentProduct(deps, product, single(request, callerId, includes)));
  });

  app.post('/styles', async (request, reply) => {
    const callerId = callerCompany(request);
    const body = parseBody(createProductSchema, request.body);
    const product = createProduct(deps, request.caller, callerId, body);
    // Shown before QR generation can run, so the create answer always has qrCodeUrl null.
    const shown = presentProduct(deps, product, single(request, callerId));
    deps.ctx.events.emit('productCreated', {
      companyId: product.forCompanyId,
      productId: product.id,
      parentId: product.parentId,
    });
    scheduleQrCode(deps, product.id);
    return sendData(reply, shown, 201);
  });

  app.put('/styles/:id', async (request: IdRequest, reply) => {
    const callerId = callerCompany(request);
    const body = parseBody(updateProductSchema, request.body);
    const product = updateProduct(deps, request.caller, callerId, request.params.id, body);
    return sendData(reply, presentProduct(deps, product, single(request, callerId)));
  });

  app.post('/styles/archive', async (request, reply) => {
    const callerId = callerCompany(request);
    const body = parseBody(archiveSchema, request.body);
    archiveProducts(deps, request.caller, callerId, body.ids);
    return reply.code(204).send();
  });

  app.post('/styles/unarchive', async (request, reply) => {
    const callerId = callerCompany(request);
    const body = parseBody(unarchiveSchema, request.body);
    unarchiveProducts(deps, request.caller, callerId, body.ids, body.shouldUnarchiveChildren);
    return reply.code(204).send();
  });
}
