import { forEachBounded, type ApiCalls } from '../staging';
import { readList, type Page, type Product, type ProductListQuery } from '../traceability';
import { planCompositions, readLines, type DetachTarget } from './composition';
import type { CompositionCheck } from './plan';
import { compositionStepSchema, type CompositionStep } from './staged-run';

/**
 * The composition writes of the sheet (spec 02): the lines of the headers the products own and inherit are read,
 * and each product is compared, parents first, with what it will own and inherit once its ancestors' writes land;
 * an unchanged composition gives no step. New products get their headers created unless they inherit the same.
 */
export async function compositionSteps(
  checks: readonly CompositionCheck[],
  api: ApiCalls,
): Promise<{ steps: CompositionStep[]; unchanged: number }> {
  const wantedHeaders = new Set<string>();
  for (const check of checks) {
    const names = new Set(check.desired.map((section) => section.name.trim().toLowerCase()));
    for (const header of check.owned ?? [])
      if (names.has(header.name.trim().toLowerCase())) wantedHeaders.add(header.id);
    for (const header of check.inherited) wantedHeaders.add(header.id);
  }
  const lines = await readLines(api, [...wantedHeaders]);
  const planned = planCompositions(
    checks.map((check) => ({
      externalId: check.externalId,
      ancestors: check.ancestors,
      desired: check.desired,
      scope: check.scope,
      owned: (check.owned ?? []).map((header) => ({ ...header, lines: lines.get(header.id) ?? null })),
      inherited: check.inherited.map((header) => ({ ...header, lines: lines.get(header.id) ?? null })),
    })),
  );
  const steps: CompositionStep[] = [];
  let unchanged = 0;
  for (const [index, check] of checks.entries()) {
    const { ops, inherited } = planned[index] ?? { ops: [], inherited: [] };
    if (ops.length === 0) {
      // A blank cell that leaves the product as it is counts nowhere: the sheet gave no composition to compare.
      if (!check.blank) unchanged += 1;
      continue;
    }
    const names = new Set(check.desired.map((section) => section.name.trim().toLowerCase()));
    const keepsCopy =
      check.sameAs !== null &&
      (check.owned ?? []).some((header) => names.has(header.name.trim().toLowerCase()));
    steps.push(
      compositionStepSchema.parse({
        externalId: check.externalId,
        level: check.level,
        rowNumbers: check.rowNumbers,
        column: check.column,
        id: check.id,
        desired: check.desired,
        scope: check.scope,
        ops,
        inherited,
        ...(keepsCopy
          ? {
              note: `'${check.externalId}' keeps its own composition header, edited to equal the one of its parent row '${check.sameAs}': a product that once differed cannot inherit again (spec 02: "There is no operation to re-attach")`,
            }
          : {}),
      }),
    );
  }
  steps.push(...(await offSheetDetachSteps(steps, new Set(checks.map((check) => check.externalId)), api)));
  return { steps, unchanged };
}

const nameKey = (name: string): string => name.trim().toLowerCase();

/**
 * Spec 02: a header created on a variant is linked "to that variant's SKUs", but a detach through the variant is
 * "Link removed (detach)" for the variant alone ("Shared header untouched"). So each SKU of a variant that detaches
 * an inherited header keeps its own link to it unless it detaches it too; SKUs on the sheet do (planCompositions),
 * these are the catalogue's SKUs that are not: one detach each, else each would hold two main compositions. A SKU
 * that inherits detaches what the variant detaches and it is linked to (or will be: a header an ancestor creates in
 * this run reaches every SKU below it), and ends with the variant's. A SKU that owns its composition (it once
 * differed) stays as it was: it detaches the variant's new header of a name it owns one of. A style inherits
 * nothing: only variants detach. Archived SKUs count too: lists leave them out, but spec 01's "Archiving is reversible
 * and keeps the record", links included, and an unarchived SKU would come back with two main compositions.
 */
async function offSheetDetachSteps(
  steps: readonly CompositionStep[],
  onSheet: ReadonlySet<string>,
  api: ApiCalls,
): Promise<CompositionStep[]> {
  const variants = steps.flatMap((step) => {
    if (step.level !== 'variant' || step.id === null) return [];
    const detached = step.ops.flatMap((op) => (op.op === 'detachInherited' ? op.headers : []));
    const created = step.ops.flatMap((op): DetachTarget[] =>
      op.op === 'createHeader' ? [{ owner: step.externalId, name: op.name }] : [],
    );
    return detached.length === 0 && created.length === 0
      ? []
      : [{ step, variantId: step.id, detached, created }];
  });
  const archived = await archivedSkusOf(
    variants.map(({ variantId }) => variantId),
    api,
  );
  const found: CompositionStep[] = [];
  for (const { step, variantId, detached, created } of variants) {
    const live = await allSkus(api, { level: 'sku', variantId });
    const skus = [...live, ...(archived.get(variantId) ?? [])];
    const offSheet = skus.filter((sku) => !onSheet.has(sku.externalId ?? sku.id));
    await forEachBounded(offSheet, api.lanes(8), async (sku) => {
      const linked = await api.all(`GET /material-headers?styleId=${sku.id}`, (page, limit) =>
        api.client.materials.listHeaders({ styleId: sku.id, page, limit }),
      );
      const inheritedIds = new Set(
        linked.filter((header) => header.link?.isOwner !== true).map((header) => header.id),
      );
      const ownedNames = new Set(
        linked.filter((header) => header.link?.isOwner === true).map((header) => nameKey(header.name)),
      );
      const detach = [
        ...detached.filter((target) => !('id' in target) || inheritedIds.has(target.id)),
        ...created.filter((target) => ownedNames.has(nameKey(target.name))),
      ];
      if (detach.length === 0) return;
      found.push(
        compositionStepSchema.parse({
          externalId: sku.externalId ?? sku.id,
          level: 'sku',
          rowNumbers: step.rowNumbers,
          column: step.column,
          id: sku.id,
          desired: step.desired,
          ops: [{ op: 'detachInherited', headers: detach }],
          detachesWith: step.externalId,
        }),
      );
    });
  }
  return found.sort((a, b) => a.externalId.localeCompare(b.externalId));
}

/** Whole reads of a SKU list before it counts as unreadable; each read after the first uses the next sort. */
const SKU_LIST_SORTS: ReadonlyArray<NonNullable<ProductListQuery['sort']>> = [
  'createdAt',
  'name',
  'updatedAt',
];

type SkuQuery = Omit<ProductListQuery, 'page' | 'limit' | 'sort' | 'order'>;

/**
 * Every SKU of a list, each once by id, counted against its `total`: spec 01 gives no order among equal sort values
 * (seeded SKUs share `createdAt`), so a read by page number may meet one twice and miss another. A short read is read
 * again in another sort, unioned by id while `total` stays, up to `reads` reads; undefined when still short.
 */
async function skuList(
  api: ApiCalls,
  query: SkuQuery,
  options: { first?: Page<Product>; reads?: number } = {},
): Promise<Product[] | undefined> {
  const listed = await readList<Product>(
    (page, limit, read) => {
      const sort = SKU_LIST_SORTS[(read - 1) % SKU_LIST_SORTS.length] ?? 'createdAt';
      return api.one(() => api.client.products.list({ ...query, page, limit, sort, order: 'asc' }));
    },
    {
      ...(options.first ? { first: options.first } : {}),
      countAcross: true,
      reads: options.reads ?? SKU_LIST_SORTS.length,
      schedule: (pages, readPage) => forEachBounded(pages, api.lanes(4), readPage),
    },
  );
  return listed.moved === undefined ? listed.items : undefined;
}

/** {@link skuList}, or an error naming the list when its reads never came to its `total`. */
async function allSkus(api: ApiCalls, query: SkuQuery): Promise<Product[]> {
  const skus = await skuList(api, query);
  if (skus) return skus;
  throw new Error(
    `GET /styles?${new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])).toString()}: ` +
      `${SKU_LIST_SORTS.length} reads of its pages listed fewer SKUs than its total (records with equal sort values ` +
      'in another order per page, or the list changing while read); run the plan again',
  );
}

/**
 * The archived SKUs of the given variants, which the variants' SKU lists leave out (spec 01: "Archived products are
 * excluded from default lists"; `isArchived` "true returns only archived"). One variant: a list of its archived SKUs.
 * More: page 1 of every archived SKU, then the rest of that list or a list per variant, whichever is fewer calls (a
 * list read short is read again while that costs no more than the lists per variant, then read per variant).
 */
export async function archivedSkusOf(
  variantIds: readonly string[],
  api: ApiCalls,
): Promise<Map<string, Product[]>> {
  const byVariant = new Map<string, Product[]>();
  const wanted = new Set(variantIds);
  const keep = (items: readonly Product[]) => {
    for (const sku of items)
      if (sku.variantId && wanted.has(sku.variantId))
        byVariant.set(sku.variantId, [...(byVariant.get(sku.variantId) ?? []), sku]);
  };
  const perVariant = () =>
    forEachBounded(variantIds, api.lanes(8), async (variantId) =>
      keep(await allSkus(api, { level: 'sku', variantId, isArchived: true })),
    );
  if (variantIds.length === 0) return byVariant;
  if (variantIds.length === 1) {
    await perVariant();
    return byVariant;
  }
  const first = await api.one(() =>
    api.client.products.list({
      level: 'sku',
      isArchived: true,
      page: 1,
      limit: 100,
      sort: 'createdAt',
      order: 'asc',
    }),
  );
  const { totalPages } = first.pagination;
  if (totalPages - 1 > variantIds.length) {
    await perVariant();
    return byVariant;
  }
  const all = await skuList(
    api,
    { level: 'sku', isArchived: true },
    { first, reads: totalPages <= variantIds.length ? SKU_LIST_SORTS.length : 1 },
  );
  if (all) keep(all);
  else await perVariant();
  return byVariant;
}
