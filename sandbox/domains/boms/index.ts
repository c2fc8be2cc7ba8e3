import type { FastifyInstance } from 'fastify';
import type { SandboxContext, SandboxDomain } from '../../core/context';
import { sendData, sendPage } from '../../core/envelope';
import { notFound } from '../../core/errors';
import { bool, list, num, pageParams, sortBy, str, type RawQuery } from '../../core/query';
import { createdAudit } from '../v2-common/audit';
import { parseBody } from '../v2-common/body';
import { productInCatalogue } from '../v2-common/catalogue';
import { connectToCatalogue, registerLinkedHeaderRoutes } from '../v2-common/linked-headers';
import { createHeader, deleteHeaders, updateHeader } from './header-service';
import { createLine, deleteLines, updateLine } from './line-service';
import { BomStore, type BomState, type PlacementRecord } from './model';
import { presentCreatedHeader, presentHeader, presentLine, presentPlacement } from './present';
import { createPlacementSchema } from './schemas';
import { loadBomSection } from './seed';

export type { BomSection } from './seed';

/** /bom-headers and /bom-lines with the BOM spec's filters and sorts, and /bom-placements. */
function registerBomRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const write = registerLinkedHeaderRoutes(app, ctx, {
    kind: 'bom',
    domain: bomsDomain,
    headerNotFound: (id) => notFound(`BOM header '${id}' not found`, 'bom_header_not_found'),
    headerSorts: ['createdAt', 'updatedAt', 'name', 'version', 'effectiveStartDate', 'effectiveEndDate'],
    headerSortKey: ({ header, link }, sort) =>
      sort === 'name' || sort === 'createdAt' || sort === 'updatedAt' ? header[sort] : link[sort],
    headerFilter(query) {
      const ids = list(query, 'ids');
      const name = str(query, 'name')?.toLowerCase();
      const isArchived = bool(query, 'isArchived');
      const isMainBom = bool(query, 'isMainBom');
      const version = num(query, 'version');
      return ({ header, link }) =>
        (ids === undefined || ids.includes(header.id)) &&
        (name === undefined || header.name.toLowerCase().includes(name)) &&
        (isArchived === undefined || header.isArchived === isArchived) &&
        (isMainBom === undefined || link.isMainBom === isMainBom) &&
        (version === undefined || link.version === version);
    },
    presentHeader,
    presentCreatedHeader,
    createHeader,
    updateHeader,
    deleteHeaders,
    lineSorts: ['createdAt', 'updatedAt', 'quantity', 'weight'],
    lineSortKey: (line, sort) => line[sort],
    shuffledLineTies: () => ctx.settings.bomLineTies === 'shuffled',
    lineListNeverWhole: (headerId) => ctx.settings.bomLinesNeverWhole?.includes(headerId) === true,
    headerIdOf: (line) => line.bomHeaderId,
    lineFilter({ companyId }, query) {
      const rawComponent = str(query, 'styleId');
      const component =
        rawComponent === undefined
          ? undefined
          : (productInCatalogue(ctx, companyId, rawComponent)?.id ?? rawComponent);
      const placementId = str(query, 'placementId');
      const country = str(query, 'countryOfOrigin')?.toLowerCase();
      const isMainComponent = bool(query, 'isMainComponent');
      return (line) =>
        (component === undefined || line.styleId === component) &&
        (placementId === undefined || line.placementId === placementId) &&
        (country === undefined || (line.countryOfOrigin ?? '').toLowerCase().includes(country)) &&
        (isMainComponent === undefined || line.isMainComponent === isMainComponent);
    },
    presentLine: ({ store }, line, include = []) =>
      presentLine(ctx, store, line, {
        entity: include.includes('entity'),
        placement: include.includes('placement'),
      }),
    createLine,
    updateLine,
    deleteLines,
  });

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

/** Bills of materials: headers, per-product links, lines and placements. */
export const bomsDomain: SandboxDomain<BomStore> = {
  name: 'boms',
  createStore: loadBomSection,
  restore: (_ctx, snapshot) => new BomStore(snapshot as BomState),
  registerRoutes(app, ctx) {
    registerBomRoutes(app, ctx);
    // A new child product inherits its parent's BOM links; GET /styles `include=bom` shows a product's headers.
    connectToCatalogue(ctx, bomsDomain, {
      include: 'bom',
      linkIdPrefix: 'bomlnk_',
      present(header, link) {
        const shown = presentHeader(header, link);
        if (ctx.settings.bomIncludeShape === 'bare') delete shown['link'];
        return shown;
      },
    });
  },
  dump: (store) => store.dump(),
};
