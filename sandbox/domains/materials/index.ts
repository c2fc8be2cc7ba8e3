import type { FastifyInstance } from 'fastify';
import type { SandboxContext, SandboxDomain } from '../../core/context';
import { notFound } from '../../core/errors';
import { bool, str } from '../../core/query';
import { connectToCatalogue, registerLinkedHeaderRoutes } from '../v2-common/linked-headers';
import { createHeader, deleteHeaders, updateHeader } from './header-service';
import { createLine, deleteLines, updateLine } from './line-service';
import { MaterialStore, type MaterialState } from './model';
import { presentHeader, presentLine } from './present';
import { loadMaterialSection } from './seed';

export type { MaterialSection } from './seed';

/** /material-headers and /material-lines with the material spec's filters and sorts. */
function registerMaterialRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  registerLinkedHeaderRoutes(app, ctx, {
    kind: 'material',
    domain: materialsDomain,
    headerNotFound: (id) => notFound(`Composition '${id}' not found`, 'material_header_not_found'),
    headerSorts: ['createdAt', 'name', 'styleId', 'updatedAt'],
    headerSortKey: ({ header, link }, sort) => (sort === 'styleId' ? link.productId : header[sort]),
    headerFilter(query) {
      const name = str(query, 'name')?.toLowerCase();
      const description = str(query, 'description')?.toLowerCase();
      const isMainMaterial = bool(query, 'isMainMaterial');
      const isOwner = bool(query, 'isOwner');
      return ({ header, link }) =>
        (name === undefined || header.name.toLowerCase().includes(name)) &&
        (description === undefined || (header.description ?? '').toLowerCase().includes(description)) &&
        (isMainMaterial === undefined || link.isMainMaterial === isMainMaterial) &&
        (isOwner === undefined || link.isOwner === isOwner);
    },
    presentHeader: (header, link) => presentHeader(header, link),
    presentCreatedHeader: (header, link) => presentHeader(header, link, true),
    createHeader,
    updateHeader,
    deleteHeaders,
    // The spec's sorts; the client's copy (connectors/traceability/schemas/materials.ts) stays apart on purpose.
    lineSorts: [
      'createdAt',
      'materialHeaderId',
      'rawMaterialId',
      'percentage',
      'hierarchy',
      'position',
      'updatedAt',
    ],
    lineSortKey: (line, sort) => line[sort],
    shuffledLineTies: () => ctx.settings.materialLineTies === 'shuffled',
    headerIdOf: (line) => line.materialHeaderId,
    lineFilter(_write, query) {
      const rawMaterialId = str(query, 'rawMaterialId');
      const parentId = str(query, 'parentId');
      const countries = str(query, 'countriesOfOrigin')?.toLowerCase();
      return (line) =>
        (rawMaterialId === undefined || line.rawMaterialId === rawMaterialId) &&
        (parentId === undefined || line.parentId === parentId) &&
        (countries === undefined ||
          (line.countriesOfOrigin ?? []).join(',').toLowerCase().includes(countries));
    },
    presentLine: (_write, line, include = []) =>
      presentLine(line, {
        rawMaterials: include.includes('rawMaterials'),
        countriesOfOrigin: include.includes('countriesOfOrigin'),
      }),
    createLine,
    updateLine,
    deleteLines,
  });
}

/** Material compositions: headers, per-product links and line trees. */
export const materialsDomain: SandboxDomain<MaterialStore> = {
  name: 'materials',
  createStore: loadMaterialSection,
  restore: (_ctx, snapshot) => new MaterialStore(snapshot as MaterialState),
  registerRoutes(app, ctx) {
    registerMaterialRoutes(app, ctx);
    // A new child product inherits its parent's compositions; GET /styles `include=material` shows its headers.
    connectToCatalogue(ctx, materialsDomain, {
      include: 'material',
      linkIdPrefix: 'mtriallnk_',
      present(header, link) {
        const shown = presentHeader(header, link);
        if (ctx.settings.materialIncludeShape === 'bare') delete shown['link'];
        return shown;
      },
    });
  },
  dump: (store) => store.dump(),
};
