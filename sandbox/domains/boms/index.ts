import type { SandboxContext, SandboxDomain } from '../../core/context';
import { catalogueOf } from '../v2-common/catalogue';
import { inheritFromParent } from '../v2-common/links';
import { inheritBomLink } from './header-service';
import { BomStore, type BomState } from './model';
import { presentHeader } from './present';
import { registerBomRoutes } from './routes';
import { loadBomSection } from './seed';

export type { BomSection } from './seed';

/** A new child product inherits its parent's BOM links; GET /styles `include=bom` shows a product's headers. */
function connectToCatalogue(ctx: SandboxContext): void {
  const store = (): BomStore => ctx.store(bomsDomain);
  ctx.events.on('productCreated', ({ productId, parentId }) => {
    if (parentId === null) return;
    inheritFromParent(
      ctx,
      () => store().links,
      (id) => store().headers.has(id),
      productId,
      parentId,
      (source, childId) => inheritBomLink({ ctx }, source, childId),
    );
  });
  catalogueOf(ctx).setIncludeProvider('bom', (product, callerCompanyId) =>
    store()
      .links.ofProduct(product.id)
      .flatMap((link) => {
        const header = store().header(callerCompanyId, link.headerId);
        if (!header) return [];
        const shown = presentHeader(header, link);
        if (ctx.settings.bomIncludeShape === 'bare') delete shown['link'];
        return [shown];
      }),
  );
}

/** Bills of materials: headers, per-product links, lines and placements. */
export const bomsDomain: SandboxDomain<BomStore> = {
  name: 'boms',
  createStore: loadBomSection,
  restore: (_ctx, snapshot) => new BomStore(snapshot as BomState),
  registerRoutes(app, ctx) {
    registerBomRoutes(app, ctx, bomsDomain);
    connectToCatalogue(ctx);
  },
  dump: (store) => store.dump(),
};
