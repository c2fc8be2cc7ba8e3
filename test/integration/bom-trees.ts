// Catalogue trees with a BOM on the style and forks made through SKUs, built over the API: the BOM repair's
// integration tests and its benchmark start from them; and the lines and reads those tests share.
import { waitForBomLink } from '../../connectors/bom-repair/safe-write';
import type { BomLine, TraceabilityClient } from '../../connectors/traceability';
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import { DEMO_PLACEMENTS } from '../../sandbox/seed/demo-boms';
import { TraceJob } from '../../worker/search-attributes';
import { bomRepair } from '../../workflows';
import type { RepairBomForksResult, RepairBomInput } from '../../workflows/bom-repair';
import { startTestStack, type TestStack } from '../harness';

export interface Tree {
  styleId: string;
  variants: string[];
  /** Platform ids of the SKUs, two per variant. */
  skus: string[];
  /** externalId of each product by platform id. */
  ext: Record<string, string>;
  headerId: string;
  headerName: string;
}

export type LineSpec = Parameters<TraceabilityClient['boms']['createLine']>[0];

/** The tee's components: fabric (main), buttons, label, zipper. Units are among each component type's. */
export const TEE_LINES: Array<Omit<LineSpec, 'entity' | 'bomHeaderId'>> = [
  {
    component: { styleId: DEMO_IDS.poplin },
    placementId: DEMO_PLACEMENTS.body,
    quantity: 1.2,
    quantityUnit: 'METRE',
    weight: 0.15,
    weightUnit: 'KILOGRAM',
    countryOfOrigin: 'India',
    isMainComponent: true,
  },
  {
    component: { styleId: DEMO_IDS.button },
    placementId: DEMO_PLACEMENTS.placket,
    quantity: 3,
    quantityUnit: 'PIECES',
    weight: 2,
    weightUnit: 'GRAM',
    countryOfOrigin: 'Portugal',
  },
  {
    component: { styleId: DEMO_IDS.label },
    placementId: DEMO_PLACEMENTS.insideNeck,
    quantity: 1,
    quantityUnit: 'PIECES',
    countryOfOrigin: 'Portugal',
  },
  {
    component: { styleId: DEMO_IDS.zipper },
    placementId: DEMO_PLACEMENTS.frontOpening,
    quantity: 1,
    quantityUnit: 'PIECES',
    weight: 12,
    weightUnit: 'GRAM',
    countryOfOrigin: 'Türkiye',
  },
];

let seq = 0;

/** A style with two variants of two SKUs each and a BOM on the style (the owner), lines added through the style. */
export async function buildTree(
  client: TraceabilityClient,
  tag: string,
  lines: typeof TEE_LINES,
  opts: { waitForLinks?: boolean } = {},
): Promise<Tree> {
  const base = `BR-${tag}-${Date.now().toString(36)}-${++seq}`;
  const ext: Record<string, string> = {};
  const create = async (
    externalId: string,
    extra: { parentId?: string; name: string; color?: string; dimension?: string },
  ) => {
    const product = await client.products.create({
      externalId,
      codes: [{ codeId: 'PLM_ID', codeValue: externalId }],
      ...(extra.parentId ? { parentId: extra.parentId } : { styleTypeId: 'st_tshirts', isComponent: false }),
      name: extra.name,
      ...(extra.color ? { color: extra.color } : {}),
      ...(extra.dimension ? { dimension: extra.dimension } : {}),
    });
    ext[product.id] = externalId;
    return product.id;
  };
  const styleId = await create(base, { name: `Repair tee ${tag}` });
  const variants: string[] = [];
  const skus: string[] = [];
  for (const color of ['BLK', 'WHT']) {
    const variant = await create(`${base}-${color}`, {
      parentId: styleId,
      name: `Repair tee ${tag} ${color}`,
      color,
    });
    variants.push(variant);
    for (const size of ['M', 'L'])
      skus.push(
        await create(`${base}-${color}-${size}`, {
          parentId: variant,
          name: `Repair tee ${tag} ${color} ${size}`,
          dimension: size,
        }),
      );
  }
  const headerName = `Tee BOM ${tag}`;
  const header = await client.boms.createHeader({ name: headerName, link: { styleId, isMainBom: true } });
  for (const line of lines)
    await client.boms.createLine({ ...line, bomHeaderId: header.id, entity: { styleId } });
  if (opts.waitForLinks !== false) {
    for (const product of [...variants, ...skus])
      await waitForBomLink(client, product, header.id, { initialDelayMs: 50 });
  }
  return { styleId, variants, skus, ext, headerId: header.id, headerName };
}

export async function linesOf(client: TraceabilityClient, bomHeaderId: string): Promise<BomLine[]> {
  return (await client.boms.listLines({ bomHeaderId, limit: 100, sort: 'createdAt', order: 'asc' })).items;
}

/** Edits the button line through a SKU (quantity 3 -> 4): the API forks the SKU's BOM. */
export async function forkThroughSku(
  client: TraceabilityClient,
  tree: Tree,
  sku: string,
  pick: (l: BomLine) => boolean,
): Promise<string> {
  const line = (await linesOf(client, tree.headerId)).find(pick)!;
  const edited = await client.boms.replaceLine(line.id, {
    entity: { styleId: sku },
    component: { styleId: line.styleId! },
    placementId: line.placementId,
    quantity: (line.quantity ?? 0) + 1,
    quantityUnit: line.quantityUnit as 'PIECES',
    weight: line.weight,
    weightUnit: line.weightUnit as 'GRAM',
    countryOfOrigin: line.countryOfOrigin,
    isMainComponent: line.isMainComponent ?? false,
  });
  if (edited.bomHeaderId === tree.headerId)
    throw new Error(`editing through ${sku} did not fork ${tree.headerId}`);
  return edited.bomHeaderId;
}

/** A BOM repair test file's stack: child links appear 300 ms after a BOM is created (the setup and the safe write
 * wait for them with backoff), and the allowance is out of the way. */
export const startBomRepairStack = (): Promise<TestStack> =>
  startTestStack({ sandbox: { childLinkDelayMs: 300, rateLimitPerMinute: 100_000 } });

/** Runs the bomRepair workflow on the stack's task queue to its result. */
export const bomRepairRunner =
  (stack: () => TestStack) =>
  (input: RepairBomInput, name: string): Promise<RepairBomForksResult> =>
    stack().client.workflow.execute(bomRepair, {
      args: [input],
      taskQueue: stack().taskQueue,
      workflowId: stack().workflowId(`bom-repair-${name}`),
      typedSearchAttributes: [{ key: TraceJob, value: 'bom-repair' }],
    });

/** The demo catalogue's sleeve placement. */
export const SLEEVE = 'bomplc_demo_sleeve';

/**
 * Two lines a copy cannot tell apart: same placement and values, different components. A fork made by editing one
 * of them leaves the other's copy ambiguous (which of the two was copied is not known).
 */
export const LOOKALIKE_LINES: Array<Omit<LineSpec, 'entity' | 'bomHeaderId'>> = [
  { component: { styleId: DEMO_IDS.button }, placementId: SLEEVE, quantity: 2, quantityUnit: 'PIECES' },
  { component: { styleId: DEMO_IDS.zipper }, placementId: SLEEVE, quantity: 2, quantityUnit: 'PIECES' },
];

/** The BOM header a product owns (its fork, once an edit through it forked the BOM). */
export async function ownedHeader(client: TraceabilityClient, productId: string) {
  const headers = (await client.boms.listHeaders({ styleId: productId, limit: 100 })).items;
  return headers.find((h) => h.link?.isOwner);
}

/** What a BOM copy keeps of a line (all but its component), to pair a copy with its original. */
export const keptOf = (l: BomLine) =>
  JSON.stringify([l.placementId, l.quantity, l.quantityUnit, l.weight, l.weightUnit, l.countryOfOrigin]);
