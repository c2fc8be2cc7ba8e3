/**
 * The BOM repair's safe write (connectors/bom-repair/safe-write.ts) against the sandbox over HTTP: it waits for a
 * SKU's link before writing, and a line delete whose answer was lost after it committed is known to be done. The
 * bomRepair workflow's own runs are in bom-repair.test.ts; the shared trees and lines are in bom-trees.ts.
 */
import path from 'node:path';
import { ForkSnapshotStore } from '../../connectors/bom-repair/fork-snapshots';
import { safeBomWrite } from '../../connectors/bom-repair/safe-write';
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import { DEMO_BOM_IDS, DEMO_PLACEMENTS } from '../../sandbox/seed/demo-boms';
import type { TestStack } from '../harness';
import {
  buildTree,
  keptOf,
  linesOf,
  LOOKALIKE_LINES,
  ownedHeader,
  startBomRepairStack,
  TEE_LINES,
} from './bom-trees';

describe('bomRepair safe write on the sandbox', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startBomRepairStack();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('safe write: waits for the SKU’s link with backoff, then leaves no line without its component', async () => {
    const config = (childLinkDelayMs: number) =>
      fetch(`${new URL(stack.sandbox.baseUrl).origin}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ childLinkDelayMs }),
      });
    await config(1500);
    try {
      const tree = await buildTree(stack.apiClient, 'safe', [...TEE_LINES, ...LOOKALIKE_LINES], {
        waitForLinks: false,
      });
      const sku = tree.skus[2]!;
      expect((await stack.apiClient.boms.listHeaders({ styleId: sku, limit: 100 })).items).toEqual([]);
      const snapshot = await linesOf(stack.apiClient, tree.headerId);
      const label = snapshot.find((l) => l.styleId === DEMO_IDS.label)!;

      const started = Date.now();
      const snapshots = new ForkSnapshotStore(path.join(stack.config.dataDir, 'safe-write-snapshots'));
      const result = await safeBomWrite(
        stack.apiClient,
        {
          entityStyleId: tree.ext[sku]!,
          bomHeaderId: tree.headerId,
          edit: {
            kind: 'replace',
            lineId: label.id,
            values: {
              component: { styleId: DEMO_IDS.label },
              placementId: DEMO_PLACEMENTS.insideNeck,
              quantity: 2,
              quantityUnit: 'PIECES',
              countryOfOrigin: 'Portugal',
            },
          },
          linkWait: { initialDelayMs: 100 },
        },
        snapshots,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      // The pre-fork snapshot is kept for later repairs, marked with the fork it records.
      const kept = await snapshots.find(sku, tree.headerId);
      expect(kept).toMatchObject({
        productId: sku,
        sourceHeaderId: tree.headerId,
        forkHeaderId: result.bomHeaderId,
        writtenLineIds: [label.id],
      });
      expect(kept!.lines.map((l) => [l.id, l.styleId])).toEqual(snapshot.map((l) => [l.id, l.styleId]));
      expect(result).toMatchObject({ forked: true, problems: [], linesWithoutComponent: [] });
      expect(result.repairs).toHaveLength(5);

      const fork = await linesOf(stack.apiClient, result.bomHeaderId);
      expect(fork.every((l) => l.styleId)).toBe(true);
      // Each copy has exactly its source's component and flag, look-alike lines included (paired in creation order).
      const expected = snapshot
        .filter((l) => l.id !== label.id)
        .map((l) => [keptOf(l), l.styleId, l.isMainComponent]);
      const actual = fork
        .filter((l) => l.id !== result.line!.id)
        .map((l) => [keptOf(l), l.styleId, l.isMainComponent]);
      expect(actual).toEqual(expected);
      expect(await linesOf(stack.apiClient, tree.headerId)).toEqual(snapshot);
    } finally {
      await config(300);
    }
  }, 60_000);

  // Spec 02, PUT /bom-lines/{id}: "A unit already stored on the line stays acceptable while `component.styleId` is
  // unchanged" (a copy's component is null, so putting it back is a change), and DESIGN: "4xx answers are row-level,
  // non-retryable outcomes recorded with their code". The write itself landed and forked the BOM: a copy the API will
  // not take back is that copy's problem, not a failed write.
  it('safe write: a copied legacy line the API will not take back is reported on its own; the write landed and the other copies are repaired', async () => {
    const source = await linesOf(stack.apiClient, DEMO_BOM_IDS.jacket);
    const poplin = source.find((l) => l.styleId === DEMO_IDS.poplin)!;
    const result = await safeBomWrite(stack.apiClient, {
      entityStyleId: DEMO_IDS.jacketNavy,
      bomHeaderId: DEMO_BOM_IDS.jacket,
      edit: {
        kind: 'replace',
        lineId: poplin.id,
        values: {
          component: { styleId: DEMO_IDS.poplin },
          placementId: poplin.placementId,
          quantity: 2.5,
          quantityUnit: 'METRE',
        },
      },
    });
    expect(result.forked).toBe(true);
    expect(result.line).toMatchObject({ styleId: DEMO_IDS.poplin, quantity: 2.5 });
    const fork = await linesOf(stack.apiClient, result.bomHeaderId);
    const legacy = fork.find((l) => l.quantityUnit === 'METRE' && l.quantity === 0.6)!;
    const main = fork.find((l) => l.placementId === DEMO_PLACEMENTS.frontOpening)!;
    expect([main.styleId, main.isMainComponent]).toEqual([DEMO_IDS.zipper, true]);
    expect(legacy.styleId ?? null).toBeNull();
    expect(result.linesWithoutComponent).toEqual([legacy.id]);
    expect(result.repairs.map((r) => r.lineId)).toEqual([main.id]);
    expect(result.problems).toEqual([
      expect.stringMatching(new RegExp(`^${legacy.id}: invalid_bom_quantity_unit: `)),
    ]);
  }, 60_000);

  // Spec 02, "POST /bom-lines/delete ... Response 200: `deletedLines`, `duplicatedHeaders`..." and errors: "404
  // `bom_lines_not_found` | POST /bom-lines/delete | At least one requested line missing; nothing deleted". A delete
  // whose answer was lost after it committed is retried, and the retry is that 404: a re-read says whether the lines
  // are gone (through an inherited link: "deletion yields a copy without the deleted lines", the product's new copy).
  describe('safe write: a line delete whose answer was lost after it committed', () => {
    const faults = (body: object | null) =>
      fetch(`${new URL(stack.sandbox.baseUrl).origin}/__sandbox/faults`, {
        method: body ? 'PUT' : 'DELETE',
        headers: body ? { 'content-type': 'application/json' } : {},
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const dropDeleteAnswers = () =>
      faults({ dropAfterCommitRate: 1, methods: ['POST'], pathPrefix: '/bom-lines/delete' });
    const dropped = async () =>
      (
        (await (await fetch(`${new URL(stack.sandbox.baseUrl).origin}/__sandbox/faults`)).json()) as {
          counters: { dropped: number };
        }
      ).counters.dropped;

    afterEach(async () => {
      await faults(null);
    });

    it('through the owner: the retry’s 404 `bom_lines_not_found` and a re-read without the line report it deleted', async () => {
      const tree = await buildTree(stack.apiClient, 'lost-delete-owner', TEE_LINES);
      const before = await linesOf(stack.apiClient, tree.headerId);
      const label = before.find((l) => l.styleId === DEMO_IDS.label)!;
      const droppedBefore = await dropped();
      await dropDeleteAnswers();
      const result = await safeBomWrite(stack.apiClient, {
        entityStyleId: tree.styleId,
        bomHeaderId: tree.headerId,
        edit: { kind: 'delete', lineIds: [label.id] },
      });
      expect((await dropped()) - droppedBefore).toBe(1);
      expect(result).toMatchObject({
        bomHeaderId: tree.headerId,
        forked: false,
        line: null,
        problems: [],
        linesWithoutComponent: [],
      });
      expect((await linesOf(stack.apiClient, tree.headerId)).map((l) => l.id)).toEqual(
        before.filter((l) => l.id !== label.id).map((l) => l.id),
      );
    }, 60_000);

    it('through an inherited link: the product’s new copy, without the line, is found and its copies repaired from the snapshot', async () => {
      const tree = await buildTree(stack.apiClient, 'lost-delete-fork', TEE_LINES);
      const sku = tree.skus[3]!;
      const source = await linesOf(stack.apiClient, tree.headerId);
      const label = source.find((l) => l.styleId === DEMO_IDS.label)!;
      const snapshots = new ForkSnapshotStore(path.join(stack.config.dataDir, 'lost-delete-snapshots'));
      const droppedBefore = await dropped();
      await dropDeleteAnswers();
      const result = await safeBomWrite(
        stack.apiClient,
        { entityStyleId: sku, bomHeaderId: tree.headerId, edit: { kind: 'delete', lineIds: [label.id] } },
        snapshots,
      );
      expect((await dropped()) - droppedBefore).toBe(1);
      const fork = await ownedHeader(stack.apiClient, sku);
      expect(fork?.id).not.toBe(tree.headerId);
      expect(result).toMatchObject({
        bomHeaderId: fork!.id,
        forked: true,
        problems: [],
        linesWithoutComponent: [],
      });
      expect(result.repairs).toHaveLength(3);
      expect(await snapshots.find(sku, tree.headerId)).toMatchObject({ forkHeaderId: fork!.id });
      const expected = source
        .filter((l) => l.id !== label.id)
        .map((l) => [keptOf(l), l.styleId, l.isMainComponent]);
      expect(
        (await linesOf(stack.apiClient, fork!.id)).map((l) => [keptOf(l), l.styleId, l.isMainComponent]),
      ).toEqual(expected);
      expect(await linesOf(stack.apiClient, tree.headerId)).toEqual(source);
    }, 60_000);
  });
});
