import type { SandboxDomain } from '../../core/context';
import { connectToCatalogue } from '../v2-common/linked-headers';
import { BomStore, type BomState } from './model';
import { presentHeader } from './present';
import { registerBomRoutes } from './routes';
import { loadBomSection } from './seed';

export type { BomSection } from './seed';

/** Bills of materials: headers, per-product links, lines and placements. */
export const bomsDomain: SandboxDomain<BomStore> = {
  name: 'boms',
  createStore: loadBomSection,
  restore: (_ctx, snapshot) => new BomStore(snapshot as BomState),
  registerRoutes(app, ctx) {
    registerBomRoutes(app, ctx, bomsDomain);
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
