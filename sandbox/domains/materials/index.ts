import type { SandboxDomain } from '../../core/context';
import { connectToCatalogue } from '../v2-common/linked-headers';
import { MaterialStore, type MaterialState } from './model';
import { presentHeader } from './present';
import { registerMaterialRoutes } from './routes';
import { loadMaterialSection } from './seed';

export type { MaterialSection } from './seed';

/** Material compositions: headers, per-product links and line trees. */
export const materialsDomain: SandboxDomain<MaterialStore> = {
  name: 'materials',
  createStore: loadMaterialSection,
  restore: (_ctx, snapshot) => new MaterialStore(snapshot as MaterialState),
  registerRoutes(app, ctx) {
    registerMaterialRoutes(app, ctx, materialsDomain);
    // A new child product inherits its parent's compositions; GET /styles `include=material` shows its headers.
    connectToCatalogue(ctx, materialsDomain, {
      include: 'material',
      linkIdPrefix: 'mtriallnk_',
      present: (header, link) => presentHeader(header, link),
    });
  },
  dump: (store) => store.dump(),
};
