import type { SandboxContext, SandboxDomain } from '../../core/context';
import { catalogueOf } from '../v2-common/catalogue';
import { inheritFromParent } from '../v2-common/links';
import { inheritMaterialLink } from './header-service';
import { MaterialStore, type MaterialState } from './model';
import { presentHeader } from './present';
import { registerMaterialRoutes } from './routes';
import { loadMaterialSection } from './seed';

export type { MaterialSection } from './seed';

/** A new child product inherits its parent's compositions; GET /styles `include=material` shows a product's headers. */
function connectToCatalogue(ctx: SandboxContext): void {
  const store = (): MaterialStore => ctx.store(materialsDomain);
  ctx.events.on('productCreated', ({ productId, parentId }) => {
    if (parentId === null) return;
    inheritFromParent(
      ctx,
      () => store().links,
      (id) => store().headers.has(id),
      productId,
      parentId,
      (source, childId) => inheritMaterialLink({ ctx }, source, childId),
    );
  });
  catalogueOf(ctx).setIncludeProvider('material', (product, callerCompanyId) =>
    store()
      .links.ofProduct(product.id)
      .flatMap((link) => {
        const header = store().header(callerCompanyId, link.headerId);
        return header ? [presentHeader(header, link)] : [];
      }),
  );
}

/** Material compositions: headers, per-product links and line trees. */
export const materialsDomain: SandboxDomain<MaterialStore> = {
  name: 'materials',
  createStore: loadMaterialSection,
  restore: (_ctx, snapshot) => new MaterialStore(snapshot as MaterialState),
  registerRoutes(app, ctx) {
    registerMaterialRoutes(app, ctx, materialsDomain);
    connectToCatalogue(ctx);
  },
  dump: (store) => store.dump(),
};
