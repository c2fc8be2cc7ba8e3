import { z } from 'zod';
import type { ApiCalls } from '../staging';
import { inheritableFields, type ProductLevel } from './draft';
import { caseFoldedKey } from './issues';
import type { CreateWrite } from './staged-run';

/**
 * What the catalogue holds for a sheet: the API products the planner compares (parsed, with each one's level and
 * parent; `catalogue-read.ts` reads them), and the re-read of a product a create met.
 */

const nullishText = z
  .string()
  .nullish()
  .transform((value) => value ?? null);
const nullishList = z
  .array(z.string())
  .nullish()
  .transform((value) => value ?? null);

/**
 * The part of an API product (GET /styles, any level) the planner compares. Other fields pass through
 * untouched. `level` may be given; otherwise it follows the parent links (variantId = SKU, styleId = variant).
 */
export const existingProductSchema = z
  .looseObject({
    id: z.string().min(1),
    externalId: nullishText,
    level: z.enum(['style', 'variant', 'sku']).optional(),
    parentId: nullishText,
    styleId: nullishText,
    variantId: nullishText,
    name: z.string(),
    codes: z
      .array(z.looseObject({ codeId: z.string(), codeValue: z.string() }))
      .nullish()
      .transform((codes) => codes ?? []),
    description: nullishText,
    gender: nullishText,
    color: nullishText,
    dimension: nullishText,
    styleTypeId: nullishText,
    styleLevelId: nullishText,
    mainSupplier: nullishText,
    customProperties: nullishText,
    brands: nullishList,
    seasons: nullishList,
    collections: nullishList,
    departments: nullishList,
    suppliers: nullishList,
    vendors: nullishList,
    claimIntentions: nullishList,
    weight: z
      .looseObject({ unit: z.string(), value: z.number() })
      .nullish()
      .transform((value) => value ?? null),
    isComponent: z
      .union([z.boolean(), z.number()])
      .nullish()
      .transform((value) => (value === null || value === undefined ? null : Boolean(value))),
    isArchived: z
      .boolean()
      .nullish()
      .transform((value) => value ?? false),
    /** Variant and SKU: inheritable fields the child holds itself (spec 01). */
    overriddenFlag: z.array(z.string()).nullish(),
    /** With `include=material`: the material headers linked to the product (spec 02). */
    material: z
      .array(
        z.looseObject({
          id: z.string(),
          name: z.string(),
          link: z.looseObject({ isOwner: z.boolean().nullish() }).nullish(),
        }),
      )
      .nullish(),
  })
  .transform((product) => {
    const level: ProductLevel =
      product.level ?? (product.variantId ? 'sku' : product.styleId ? 'variant' : 'style');
    const parentPlatformId =
      level === 'sku'
        ? (product.variantId ?? product.parentId)
        : level === 'variant'
          ? (product.styleId ?? product.parentId)
          : null;
    // Spec 01, Inheritance: "these fields take the parent's value whenever the child's own value is null" and reads
    // come back resolved. What the sheet is compared with is the child's own value: an inherited one counts as null.
    // overriddenFlag is "array of string or null": null names no field (overrides nothing); absent says nothing.
    const own: Record<string, null> = {};
    if (level !== 'style' && product.overriddenFlag !== undefined) {
      const held = new Set(product.overriddenFlag ?? []);
      for (const field of inheritableFields) if (!held.has(field)) own[field] = null;
    }
    const linked = product.material ?? null;
    const ownedCompositions =
      linked === null
        ? null
        : linked
            .filter((header) => header.link?.isOwner === true)
            .map(({ id, name }) => ({ id, name, lines: null }));
    // Spec 02, GET /material-headers: "compositions linked to a product (owned and inherited)".
    const inheritedCompositions =
      linked === null
        ? null
        : linked.filter((header) => header.link?.isOwner !== true).map(({ id, name }) => ({ id, name }));
    return { ...product, ...own, level, parentPlatformId, ownedCompositions, inheritedCompositions };
  });
export type ExistingProduct = z.output<typeof existingProductSchema>;

/** Parses API products, naming the index and field of the first bad one. */
export function parseExistingProducts(input: readonly unknown[]): ExistingProduct[] {
  return input.map((item, index) => {
    const result = existingProductSchema.safeParse(item);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    throw new Error(
      `existing product #${index}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}`,
    );
  });
}

/** Lookups over the catalogue: by externalId, by platform id, and by code (type + value). */
export class CatalogueIndex {
  readonly byExternalId = new Map<string, ExistingProduct>();
  readonly byId = new Map<string, ExistingProduct>();
  readonly byCode = new Map<string, ExistingProduct>();
  /** By level and lower-case key (caseFoldedKey), the first product of each. */
  private readonly byFoldedKey = new Map<string, ExistingProduct>();

  constructor(products: readonly ExistingProduct[]) {
    for (const product of products) {
      this.byId.set(product.id, product);
      if (product.externalId) {
        this.byExternalId.set(product.externalId, product);
        const folded = caseFoldedKey(product.level, product.externalId);
        if (!this.byFoldedKey.has(folded)) this.byFoldedKey.set(folded, product);
      }
      for (const code of product.codes) this.byCode.set(codeKey(code.codeId, code.codeValue), product);
    }
  }

  /**
   * A product of `level` whose key differs from `externalId` only in case (`SS26-TEE-01` for `ss26-tee-01`), among
   * those read: every product of a level the catalogue read listed whole, only the sheet's keys of one read by GET.
   */
  caseTwin(externalId: string, level: ProductLevel): ExistingProduct | undefined {
    const twin = this.byFoldedKey.get(caseFoldedKey(level, externalId));
    return twin?.externalId === externalId ? undefined : twin;
  }

  /** externalId -> level, the shape validateDrafts takes as `existing`. */
  levels(): Map<string, ProductLevel> {
    return new Map([...this.byExternalId].map(([externalId, product]) => [externalId, product.level]));
  }

  parentExternalIdOf(product: ExistingProduct): string | null | undefined {
    if (!product.parentPlatformId) return null;
    const parent = this.byId.get(product.parentPlatformId) ?? this.byExternalId.get(product.parentPlatformId);
    return parent ? parent.externalId : undefined;
  }
}

export function codeKey(codeId: string, codeValue: string): string {
  return `${codeId}\u0000${codeValue.trim()}`;
}

const parentRefSchema = z.looseObject({ externalId: z.string().nullish() }).nullish();

export interface ReadBack {
  product: ExistingProduct;
  /** The parent's externalId as the API shows it; undefined when the answer did not say. */
  parentExternalId: string | null | undefined;
}

/**
 * GET by externalId, with the parent included so a product found under another parent is recognised. 404 is
 * "not there". Used when a create meets a product that already exists (409, or a code already taken).
 */
export async function readBack(api: ApiCalls, step: CreateWrite): Promise<ReadBack | undefined> {
  const include =
    step.level === 'variant'
      ? (['style'] as const)
      : step.level === 'sku'
        ? (['variant'] as const)
        : undefined;
  const raw = await api.found(() =>
    api.client.products.get(step.externalId, include ? { include: [...include] } : {}),
  );
  if (raw === undefined || raw.externalId !== step.externalId) return undefined;
  const product = existingProductSchema.parse(raw);
  if (step.level === 'style') return { product, parentExternalId: null };
  const parent = parentRefSchema.safeParse(step.level === 'variant' ? raw['style'] : raw['variant']);
  return {
    product,
    parentExternalId: parent.success && parent.data ? (parent.data.externalId ?? null) : undefined,
  };
}
