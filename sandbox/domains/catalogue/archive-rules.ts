import type { Caller } from '../../core/context';
import { badRequest, notFound } from '../../core/errors';
import type { CatalogueDeps } from './store';
import type { ProductRecord } from './types';
import { auditOf } from './write-rules';

/** The products named by archive/unarchive ids: unknown ids are skipped, none found is 404, mixed levels 400. */
function targets(deps: CatalogueDeps, callerId: string, ids: readonly string[]): ProductRecord[] {
  const found = new Map<string, ProductRecord>();
  for (const id of ids) {
    const product = deps.store().resolve(callerId, id);
    if (product) found.set(product.id, product);
  }
  if (found.size === 0) throw notFound('None of the ids name a product');
  const levels = new Set([...found.values()].map((product) => product.level));
  if (levels.size > 1)
    throw badRequest(`ids: all products must share one level, got ${[...levels].join(', ')}`, 'mixed_levels');
  return [...found.values()];
}

function setArchived(
  deps: CatalogueDeps,
  caller: Caller,
  callerId: string,
  products: Iterable<ProductRecord>,
  archived: boolean,
): void {
  const now = deps.ctx.nowIso();
  const audit = auditOf(caller, callerId);
  for (const product of products) {
    if (product.isArchived === archived) continue;
    product.isArchived = archived;
    product.updatedAt = now;
    product.updated = audit;
    deps.store().touched(product);
  }
}

/** Archiving always cascades: a style's variants and SKUs, a variant's SKUs. */
export function archiveProducts(
  deps: CatalogueDeps,
  caller: Caller,
  callerId: string,
  ids: readonly string[],
): void {
  for (const product of targets(deps, callerId, ids)) {
    setArchived(deps, caller, callerId, [product, ...deps.store().descendants(product.id)], true);
  }
}

export function unarchiveProducts(
  deps: CatalogueDeps,
  caller: Caller,
  callerId: string,
  ids: readonly string[],
  withChildren: boolean,
): void {
  for (const product of targets(deps, callerId, ids)) {
    const affected = withChildren ? [product, ...deps.store().descendants(product.id)] : [product];
    setArchived(deps, caller, callerId, affected, false);
  }
}
