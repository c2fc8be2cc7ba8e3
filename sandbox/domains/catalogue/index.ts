import type { SandboxContext, SandboxDomain } from '../../core/context';
import type { SeedDocument } from '../../core/seed';
import { filesDomain } from '../files';
import type { CatalogueDeps } from './store';
import { registerReferenceRoutes } from './reference-routes';
import { parseCatalogueSection } from './seed-schema';
import { CatalogueStore, type CatalogueHooks } from './store';
import { newQrCodeUrl, registerStyleRoutes, scheduleQrCode } from './style-routes';

export { CatalogueStore } from './store';
export type { IncludeProvider, TracingProvider, ProvidedInclude } from './store';
export type {
  ProductRecord,
  ProductLevel,
  ProductCode,
  StyleTypeRecord,
  StylePropertyRecord,
  TracingLink,
} from './types';
export type { CatalogueSection } from './seed-schema';
export { UNIT_ENUM, PLATFORM_QUANTITY_UNITS, PLATFORM_WEIGHT_UNITS, isUnit, type Unit } from './units';
export { SINGLE_USE_CODE_TYPES, isKnownCodeType } from './codes';

const hooksByContext = new WeakMap<SandboxContext, CatalogueHooks>();
function hooksFor(ctx: SandboxContext): CatalogueHooks {
  let hooks = hooksByContext.get(ctx);
  if (!hooks) hooksByContext.set(ctx, (hooks = { include: new Map(), tracing: new Map() }));
  return hooks;
}

function depsFor(ctx: SandboxContext): CatalogueDeps {
  return { ctx, store: () => ctx.store(catalogueDomain), files: () => ctx.store(filesDomain) };
}

function load(ctx: SandboxContext, section: unknown): CatalogueStore {
  const loaded = parseCatalogueSection(section, ctx.nowIso(), newQrCodeUrl);
  const store = new CatalogueStore(hooksFor(ctx), loaded.styleTypes, loaded.properties, loaded.products);
  // At least 1 ms: the server registers this store only after it is returned.
  for (const id of loaded.pendingQr) scheduleQrCode(depsFor(ctx), id, 1);
  return store;
}

/** Products behind /styles, plus the style-type and style-property reference lists. Needs the files domain. */
export const catalogueDomain: SandboxDomain<CatalogueStore> = {
  name: 'catalogue',
  createStore: (ctx: SandboxContext, seed: SeedDocument) =>
    load(ctx, (seed as Record<string, unknown>)['catalogue']),
  restore: (ctx, snapshot) => load(ctx, snapshot),
  registerRoutes(app, ctx) {
    const deps = depsFor(ctx);
    registerStyleRoutes(app, deps);
    registerReferenceRoutes(app, deps);
  },
  dump: (store) => ({
    styleTypes: store.dumpStyleTypes(),
    styleProperties: store.dumpProperties(),
    products: store.all(),
  }),
};
