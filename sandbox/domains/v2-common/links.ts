import type { SandboxContext } from '../../core/context';
import { catalogueOf } from './catalogue';

/**
 * Link-based storage shared by material compositions and BOMs: a header is stored once and linked to every
 * product that has it, as owner (`isOwner`) or by inheritance from an ancestor.
 */
export interface LinkBase {
  id: string;
  headerId: string;
  productId: string;
  isOwner: boolean;
  createdAt: string;
}

export class LinkTable<L extends LinkBase> {
  private readonly links = new Map<string, L>();
  private readonly byProduct = new Map<string, Set<string>>();
  private readonly byHeader = new Map<string, Set<string>>();

  constructor(links: L[] = []) {
    for (const link of links) this.add(link);
  }

  ofProduct(productId: string): L[] {
    return this.resolve(this.byProduct.get(productId));
  }

  ofHeader(headerId: string): L[] {
    return this.resolve(this.byHeader.get(headerId));
  }

  find(productId: string, headerId: string): L | undefined {
    return this.ofProduct(productId).find((link) => link.headerId === headerId);
  }

  owner(headerId: string): L | undefined {
    return this.ofHeader(headerId).find((link) => link.isOwner);
  }

  add(link: L): void {
    this.links.set(link.id, link);
    index(this.byProduct, link.productId).add(link.id);
    index(this.byHeader, link.headerId).add(link.id);
  }

  remove(linkId: string): void {
    const link = this.links.get(linkId);
    if (!link) return;
    this.links.delete(linkId);
    this.byProduct.get(link.productId)?.delete(linkId);
    this.byHeader.get(link.headerId)?.delete(linkId);
  }

  removeHeader(headerId: string): L[] {
    const removed = this.ofHeader(headerId);
    for (const link of removed) this.remove(link.id);
    return removed;
  }

  all(): L[] {
    return [...this.links.values()];
  }

  private resolve(ids: Set<string> | undefined): L[] {
    const out: L[] = [];
    for (const id of ids ?? []) {
      const link = this.links.get(id);
      if (link) out.push(link);
    }
    return out;
  }
}

function index(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

/**
 * Creates inherited links for every product below `productId`, after the configured delay (child links appear
 * asynchronously). `inherit` builds the child's link from the link it inherits; products already linked to the
 * header, or whose header vanished meanwhile, are skipped.
 */
export function scheduleChildLinks<L extends LinkBase>(
  ctx: SandboxContext,
  table: () => LinkTable<L>,
  headerExists: (headerId: string) => boolean,
  source: L,
  inherit: (source: L, productId: string) => L,
): void {
  ctx.schedule(ctx.settings.childLinkDelayMs, () => {
    if (!headerExists(source.headerId)) return;
    for (const product of catalogueOf(ctx).descendants(source.productId)) {
      if (!table().find(product.id, source.headerId)) table().add(inherit(source, product.id));
    }
  });
}

/** A new child product inherits every header linked to its parent (after the same delay). */
export function inheritFromParent<L extends LinkBase>(
  ctx: SandboxContext,
  table: () => LinkTable<L>,
  headerExists: (headerId: string) => boolean,
  productId: string,
  parentId: string,
  inherit: (source: L, productId: string) => L,
): void {
  ctx.schedule(ctx.settings.childLinkDelayMs, () => {
    for (const source of table().ofProduct(parentId)) {
      if (headerExists(source.headerId) && !table().find(productId, source.headerId)) {
        table().add(inherit(source, productId));
      }
    }
  });
}
