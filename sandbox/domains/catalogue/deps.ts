import type { SandboxContext } from '../../core/context';
import type { FilesStore } from '../files/store';
import type { CatalogueStore } from './store';

/** What the catalogue's rules and routes reach: the context and the current stores (they change on reset). */
export interface CatalogueDeps {
  ctx: SandboxContext;
  store(): CatalogueStore;
  files(): FilesStore;
}
