import type { SandboxContext } from '../../core/context';
import type { FilesStore } from '../files/store';
import type {
  ProductCode,
  ProductLevel,
  ProductRecord,
  StylePropertyRecord,
  StyleTypeRecord,
  TracingLink,
} from './types';

/** What the catalogue's rules and routes reach: the context and the current stores (they change on reset). */
export interface CatalogueDeps {
  ctx: SandboxContext;
  store(): CatalogueStore;
  files(): FilesStore;
}

/** Supplies an `include` value another domain owns (`bom`, `material`): the array shown for one product. */
export type IncludeProvider = (product: ProductRecord, callerCompanyId: string) => unknown[];
/** Tells whether a product has tracing data (for example a supply chain) attached. */
export type TracingProvider = (product: ProductRecord) => TracingLink | undefined;
export type ProvidedInclude = 'bom' | 'material';

/** Hooks outlive a store (they are kept per sandbox context), so registering once survives `/__sandbox/reset`. */
export interface CatalogueHooks {
  include: Map<ProvidedInclude, IncludeProvider>;
  tracing: Map<string, TracingProvider>;
}

type LevelLists = Record<ProductLevel, ProductRecord[]>;

const compareCreated = (a: ProductRecord, b: ProductRecord): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * The product catalogue with the indexes lists and rules need: products visible to a company per level (in
 * creation order), externalIds and code values per company, and children per parent.
 */
export class CatalogueStore {
  private readonly products = new Map<string, ProductRecord>();
  private readonly visible = new Map<string, LevelLists>();
  private readonly externalIds = new Map<string, Map<string, string>>();
  private readonly codeValues = new Map<string, Map<string, Map<string, string>>>();
  private readonly childIds = new Map<string, string[]>();
  private readonly versions = new Map<string, number>();
  private readonly styleTypes = new Map<string, StyleTypeRecord>();
  private readonly properties = new Map<string, StylePropertyRecord>();

  constructor(
    readonly hooks: CatalogueHooks,
    styleTypes: StyleTypeRecord[] = [],
    properties: StylePropertyRecord[] = [],
    products: ProductRecord[] = [],
  ) {
    for (const type of styleTypes) this.styleTypes.set(type.id, type);
    for (const property of properties) this.properties.set(property.id, property);
    // Parents first, then creation order, so every index list starts sorted by createdAt.
    const rank: Record<ProductLevel, number> = { style: 0, variant: 1, sku: 2 };
    const ordered = [...products].sort((a, b) => rank[a.level] - rank[b.level] || compareCreated(a, b));
    for (const product of ordered) this.insert(product);
  }

  // ---- reads other domains use -------------------------------------------------------------------

  get(id: string): ProductRecord | undefined {
    return this.products.get(id);
  }

  /** A product by platform id (visible to the company) or by the company's own externalId. */
  resolve(companyId: string, idOrExternalId: string): ProductRecord | undefined {
    const byId = this.products.get(idOrExternalId);
    if (byId && this.isVisibleTo(companyId, byId)) return byId;
    const id = this.externalIds.get(companyId)?.get(idOrExternalId);
    return id === undefined ? undefined : this.products.get(id);
  }

  /** The company owns the product's catalogue, or created the product on another company's behalf. */
  isVisibleTo(companyId: string, product: ProductRecord): boolean {
    return product.forCompanyId === companyId || product.created.companyId === companyId;
  }

  /** Direct children in creation order, archived or not. */
  children(productId: string): ProductRecord[] {
    return (this.childIds.get(productId) ?? []).map((id) => this.products.get(id)).filter(isDefined);
  }

  /** Every product below, variants before their SKUs. */
  descendants(productId: string): ProductRecord[] {
    const result: ProductRecord[] = [];
    for (const child of this.children(productId)) result.push(child, ...this.descendants(child.id));
    return result;
  }

  /** Parent first, then its parent. */
  ancestors(productId: string): ProductRecord[] {
    const result: ProductRecord[] = [];
    let current = this.products.get(productId);
    while (current?.parentId) {
      const parent = this.products.get(current.parentId);
      if (!parent) break;
      result.push(parent);
      current = parent;
    }
    return result;
  }

  /** A style type the company's account holds (its own or a platform-wide one). */
  styleType(companyId: string, styleTypeId: string): StyleTypeRecord | undefined {
    const type = this.styleTypes.get(styleTypeId);
    return type && (type.forCompanyId === null || type.forCompanyId === companyId) ? type : undefined;
  }

  styleTypesFor(companyId: string): StyleTypeRecord[] {
    return [...this.styleTypes.values()].filter(
      (type) => type.forCompanyId === null || type.forCompanyId === companyId,
    );
  }

  /** The style level ids a company may use: the `parentId` values of its style types. */
  styleLevelIds(companyId: string): Set<string> {
    const ids = new Set<string>();
    for (const type of this.styleTypesFor(companyId)) if (type.parentId) ids.add(type.parentId);
    return ids;
  }

  property(companyId: string, propertyId: string): StylePropertyRecord | undefined {
    const property = this.properties.get(propertyId);
    return property && property.forCompanyId === companyId ? property : undefined;
  }

  propertiesFor(companyId: string): StylePropertyRecord[] {
    return [...this.properties.values()].filter((property) => property.forCompanyId === companyId);
  }

  /** The company's products at one level (its own catalogue and those it created for others), oldest first. */
  productsAt(companyId: string, level: ProductLevel): readonly ProductRecord[] {
    return this.visible.get(companyId)?.[level] ?? [];
  }

  /** Bumped on every write that touches a company's products; list caches key on it. */
  version(companyId: string): number {
    return this.versions.get(companyId) ?? 0;
  }

  /** The product already holding `codeValue` under `codeId` in the company's catalogue. */
  codeOwner(companyId: string, code: ProductCode): string | undefined {
    return this.codeValues.get(companyId)?.get(code.codeId)?.get(code.codeValue);
  }

  externalIdOwner(companyId: string, externalId: string): string | undefined {
    return this.externalIds.get(companyId)?.get(externalId);
  }

  tracingOf(product: ProductRecord): TracingLink | undefined {
    if (product.tracing) return product.tracing;
    for (const provider of this.hooks.tracing.values()) {
      const link = provider(product);
      if (link) return link;
    }
    return undefined;
  }

  /** Registers the source of `include=bom` or `include=material` (Sandbox II). Kept across resets. */
  setIncludeProvider(name: ProvidedInclude, provider: IncludeProvider): void {
    this.hooks.include.set(name, provider);
  }

  /**
   * Registers a source of tracing data (for example supply chains), which `isStoryActive: true` requires.
   * Registering again under the same `source` replaces the earlier provider (safe to call on every reset).
   */
  setTracingProvider(provider: TracingProvider, source = 'default'): void {
    this.hooks.tracing.set(source, provider);
  }

  all(): ProductRecord[] {
    return [...this.products.values()];
  }

  dumpStyleTypes(): StyleTypeRecord[] {
    return [...this.styleTypes.values()];
  }

  dumpProperties(): StylePropertyRecord[] {
    return [...this.properties.values()];
  }

  // ---- writes (the catalogue's rules call these after validating) --------------------------------

  insert(product: ProductRecord): void {
    this.products.set(product.id, product);
    for (const companyId of this.viewers(product)) {
      const list = this.listsOf(companyId)[product.level];
      const last = list[list.length - 1];
      list.push(product);
      if (last && compareCreated(last, product) > 0) list.sort(compareCreated);
      this.bump(companyId);
    }
    if (product.parentId) {
      const siblings = this.childIds.get(product.parentId) ?? [];
      siblings.push(product.id);
      this.childIds.set(product.parentId, siblings);
    }
    this.indexKeys(product);
  }

  /** Call before changing `codes` or `externalId`; pair with `reindex` after. */
  unindex(product: ProductRecord): void {
    const external = this.externalIds.get(product.forCompanyId);
    if (product.externalId !== null && external?.get(product.externalId) === product.id)
      external.delete(product.externalId);
    const codes = this.codeValues.get(product.forCompanyId);
    for (const code of product.codes) {
      const values = codes?.get(code.codeId);
      if (values?.get(code.codeValue) === product.id) values.delete(code.codeValue);
    }
  }

  reindex(product: ProductRecord): void {
    this.indexKeys(product);
    this.touched(product);
  }

  /** Marks a product changed for list caches. */
  touched(product: ProductRecord): void {
    for (const companyId of this.viewers(product)) this.bump(companyId);
  }

  private indexKeys(product: ProductRecord): void {
    if (product.externalId !== null) {
      let external = this.externalIds.get(product.forCompanyId);
      if (!external) this.externalIds.set(product.forCompanyId, (external = new Map()));
      external.set(product.externalId, product.id);
    }
    let codes = this.codeValues.get(product.forCompanyId);
    if (!codes) this.codeValues.set(product.forCompanyId, (codes = new Map()));
    for (const code of product.codes) {
      let values = codes.get(code.codeId);
      if (!values) codes.set(code.codeId, (values = new Map()));
      values.set(code.codeValue, product.id);
    }
  }

  private viewers(product: ProductRecord): string[] {
    const creator = product.created.companyId;
    return creator && creator !== product.forCompanyId
      ? [product.forCompanyId, creator]
      : [product.forCompanyId];
  }

  private listsOf(companyId: string): LevelLists {
    let lists = this.visible.get(companyId);
    if (!lists) this.visible.set(companyId, (lists = { style: [], variant: [], sku: [] }));
    return lists;
  }

  private bump(companyId: string): void {
    this.versions.set(companyId, this.version(companyId) + 1);
  }
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
