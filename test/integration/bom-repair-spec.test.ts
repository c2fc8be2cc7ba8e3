import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ForkSnapshotStore } from '../../connectors/bom-repair/fork-snapshots';
import { safeBomWrite } from '../../connectors/bom-repair/safe-write';
import type { BomLine, TraceabilityClient } from '../../connectors/traceability';
import { DEMO_BOM_IDS, DEMO_FORK_SKUS, DEMO_PLACEMENTS } from '../../sandbox/seed/demo-boms';
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import type { RepairBomForksResult } from '../../workflows/bom-repair';
import { cliEnv, cliProblems, traceSync, waitResult, type TestStack } from '../harness';
import {
  bomRepairRunner,
  buildTree,
  forkThroughSku,
  linesOf,
  startBomRepairStack,
  TEE_LINES,
  type Tree,
} from './bom-trees';

/**
 * The BOM repair against spec 02's copy-on-write rules (issue 18): the demo seed's forks, sources changed after a
 * fork, the safe write's fork-time snapshots, `sinceLastRun`, and a variant's fork renamed back. Each runs the real
 * workflow on a Temporal dev server against the sandbox over HTTP, on a stack of its own (a fresh demo seed).
 */
describe('bomRepair: spec 02 copy-on-write cases', () => {
  let stack: TestStack;
  const run = bomRepairRunner(() => stack);

  beforeAll(async () => {
    stack = await startBomRepairStack();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  describe('spec 02 issue-18 cases', () => {
    const sandboxConfig = (body: Record<string, unknown>) =>
      fetch(`${new URL(stack.sandbox.baseUrl).origin}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    /** The owner changes a source line's component after the fork (kept values unchanged). */
    async function changeSourceComponent(tree: Tree, pick: (l: BomLine) => boolean, component: string) {
      const line = (await linesOf(stack.apiClient, tree.headerId)).find(pick)!;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await stack.apiClient.boms.replaceLine(line.id, {
        entity: { styleId: tree.styleId },
        component: { styleId: component },
        placementId: line.placementId,
        quantity: line.quantity,
        quantityUnit: line.quantityUnit as 'PIECES',
        weight: line.weight,
        weightUnit: line.weightUnit as 'GRAM',
        countryOfOrigin: line.countryOfOrigin,
        isMainComponent: line.isMainComponent ?? false,
      });
      return line;
    }

    // First in this block: the sinceLastRun test below repairs every broken fork it finds, the seeded ones too.
    it('the demo seed holds forks that lost references: `bom-repair --all --dry-run --wait` finds and explains them', async () => {
      const cli = await traceSync(['bom-repair', '--all', '--dry-run', '--wait'], cliEnv(stack), 90_000);
      expect(cliProblems(cli.stderr)).toEqual([]);
      expect(cli.status).toBe(0);
      const result = waitResult<RepairBomForksResult>(cli.stdout);
      const blackM = result.products.find((p) => p.productId === DEMO_FORK_SKUS.blackM)!;
      // Its label's source line changed after the fork: it may be the source of either copy.
      expect(blackM).toMatchObject({ externalId: 'PLM-TEE-001-BLK-M', wouldRepair: 0, ambiguous: 2 });
      expect(blackM.headers[0]).toMatchObject({
        headerId: DEMO_BOM_IDS.teeForkBlackM,
        sourceHeaderId: DEMO_BOM_IDS.tee,
      });
      expect(blackM.lines.find((l) => l.outcome === 'ambiguous')!.reason).toContain('after the fork');
      expect(result.products.find((p) => p.productId === DEMO_FORK_SKUS.offWhiteL)).toMatchObject({
        externalId: 'PLM-TEE-001-OWH-L',
        wouldRepair: 2,
        ambiguous: 0,
      });
    });

    // Spec 02, "Copy fidelity caveat": "lines copied during a BOM fork currently do not keep the component reference
    // (`styleId`) or the `isMainComponent` flag ... Clients re-read the copied lines and re-apply references." The
    // reference to re-apply is the one the line held when it was copied, not whatever the source holds now.
    it('“Clients re-read the copied lines and re-apply references”: a source line changed after the fork is ambiguous, never guessed', async () => {
      const tree = await buildTree(stack.apiClient, 'changed', TEE_LINES);
      const sku = tree.skus[0]!;
      const forkId = await forkThroughSku(stack.apiClient, tree, sku, (l) => l.styleId === DEMO_IDS.button);
      const label = await changeSourceComponent(tree, (l) => l.styleId === DEMO_IDS.label, DEMO_IDS.button);
      const insideNeckCopy = (await linesOf(stack.apiClient, forkId)).find(
        (l) => l.placementId === DEMO_PLACEMENTS.insideNeck,
      )!;

      // Run as an operator would, from the CLI: what it prints names the flag that takes the source as it is now.
      const cli = await traceSync(['bom-repair', '--product', sku, '--wait'], cliEnv(stack), 90_000);
      expect({ status: cli.status, problems: cliProblems(cli.stderr) }).toEqual({ status: 0, problems: [] });
      const result = waitResult<RepairBomForksResult>(cli.stdout);
      // What the label's line held when copied is not known: it may be any copy's source, so none is repaired.
      expect(result).toMatchObject({ linesRepaired: 0, linesAmbiguous: 3 });
      const lines = result.products[0]!.lines;
      for (const copy of lines) expect(copy.reason).toContain(`source line ${label.id} (at `);
      const ambiguous = lines.find((l) => l.lineId === insideNeckCopy.id)!;
      expect(ambiguous.reason).toContain('changed after the fork');
      expect(ambiguous.reason).toContain(
        'run again with --accept-current-source (acceptCurrentSource in the input) to take the source as it stands now',
      );
      expect(ambiguous.candidates).toEqual([
        { basis: 'fork time', component: null, sourceLineId: label.id },
        expect.objectContaining({
          basis: 'current source',
          sourceLineId: label.id,
          component: { styleId: DEMO_IDS.button, isMainComponent: false },
        }),
      ]);
      const insideNeck = () =>
        linesOf(stack.apiClient, forkId).then((fork) =>
          fork.find((l) => l.placementId === DEMO_PLACEMENTS.insideNeck)!,
        );
      expect((await insideNeck()).styleId).toBeNull();

      // Only an explicit option takes the source's current component.
      const accepted = await run({ products: [sku], acceptCurrentSource: true }, 'accept-current');
      expect(accepted).toMatchObject({ linesRepaired: 3, linesAmbiguous: 0 });
      expect(accepted.products[0]!.lines.map((l) => [l.outcome, l.basis])).toEqual(
        Array(3).fill(['repaired', 'current source, accepted']),
      );
      expect((await insideNeck()).styleId).toBe(DEMO_IDS.button);
    });

    it('a fork-time snapshot kept by the safe write path gives the exact component even after the source changed', async () => {
      const tree = await buildTree(stack.apiClient, 'snap', TEE_LINES);
      const sku = tree.skus[1]!;
      const before = await linesOf(stack.apiClient, tree.headerId);
      const button = before.find((l) => l.styleId === DEMO_IDS.button)!;
      // What safeBomWrite stores before a write through an inherited link (a run that died after the write).
      await new ForkSnapshotStore(path.join(stack.config.dataDir, 'bom-repair', 'fork-snapshots')).save({
        productId: sku,
        sourceHeaderId: tree.headerId,
        takenAt: new Date().toISOString(),
        writtenLineIds: [button.id],
        lines: before,
      });
      const forkId = await forkThroughSku(stack.apiClient, tree, sku, (l) => l.id === button.id);
      await changeSourceComponent(tree, (l) => l.styleId === DEMO_IDS.label, DEMO_IDS.button);

      const result = await run({ products: [sku] }, 'snapshot');
      expect(result).toMatchObject({ linesRepaired: 3, linesAmbiguous: 0 });
      expect(result.products[0]!.lines.map((l) => l.basis)).toEqual(['snapshot', 'snapshot', 'snapshot']);
      const fork = await linesOf(stack.apiClient, forkId);
      expect(fork.find((l) => l.placementId === DEMO_PLACEMENTS.insideNeck)!.styleId).toBe(DEMO_IDS.label);
    });

    // Spec 01 lists `include` value `bom` only as "(BOM headers)"; spec 02 shows `link` {styleId, isMainBom, isOwner}
    // on GET /bom-headers. A scan must not silently find nothing when the include leaves the link role out.
    it('“`bom` (BOM headers)”: headers without link.isOwner fall back to GET /bom-headers?styleId= and say so', async () => {
      const tree = await buildTree(stack.apiClient, 'bare', TEE_LINES);
      const sku = tree.skus[2]!;
      await forkThroughSku(stack.apiClient, tree, sku, (l) => l.styleId === DEMO_IDS.zipper);
      await sandboxConfig({ bomIncludeShape: 'bare' });
      try {
        const listed = await stack.apiClient.products.get(sku, { include: ['bom'] });
        expect((listed as Record<string, unknown>)['bom']).toEqual([
          expect.not.objectContaining({ link: expect.anything() }),
        ]);
        const result = await run({ products: [tree.ext[tree.styleId]!], dryRun: true }, 'bare-include');
        expect(result).toMatchObject({ linesWouldRepair: 3, productsWithForks: 1 });
        expect(result.products.map((p) => p.productId)).toEqual([sku]);
        expect(result.detection).toMatchObject({ via: 'GET /bom-headers', headerReads: 6 });
        expect(result.detection.includeProblem).toContain('without link.isOwner');
      } finally {
        await sandboxConfig({ bomIncludeShape: 'full' });
      }
      const full = await run({ products: [tree.ext[tree.styleId]!], dryRun: true }, 'full-include');
      expect(full.detection).toEqual({ via: 'include=bom', headerReads: 0, includeProblem: null });
    });

    // Spec 01, convention 5: "A client stores the largest `updatedAt` it has seen and passes it on the next run" -
    // but it filters "on the update time" of the listed record: a BOM fork need not move the product's updatedAt.
    it('sinceLastRun sees a fork on a product whose own record did not change, and keeps its mark durably', async () => {
      const markName = `test-${Date.now()}`;
      const tree = await buildTree(stack.apiClient, 'mark', TEE_LINES);
      const first = await run({ sinceLastRun: true, markName, dryRun: true }, 'mark-dry');
      expect(first.highWaterMark).toMatchObject({ from: new Date(0).toISOString(), stored: null });

      const since = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const sku = tree.skus[3]!;
      await forkThroughSku(stack.apiClient, tree, sku, (l) => l.styleId === DEMO_IDS.poplin);
      const byUpdatedAfter = await run({ updatedAfter: since, dryRun: true }, 'mark-updated-after');
      expect(byUpdatedAfter.products.map((p) => p.productId)).not.toContain(sku);

      const repaired = await run({ sinceLastRun: true, markName }, 'mark-run');
      expect(repaired.products.find((p) => p.productId === sku)).toMatchObject({ repaired: 3 });
      const markFile = repaired.highWaterMark!.file;
      expect(existsSync(markFile)).toBe(true);
      const stored = JSON.parse(readFileSync(markFile, 'utf8')) as { sinceMs: number };
      expect(new Date(stored.sinceMs).toISOString()).toBe(repaired.highWaterMark!.stored);
      expect(stored.sinceMs).toBeGreaterThan(Date.parse(since) - 10 * 60_000);

      // The next run starts from the stored mark and finds the later fork of another old product.
      const other = tree.skus[2]!;
      await forkThroughSku(stack.apiClient, tree, other, (l) => l.styleId === DEMO_IDS.zipper);
      const next = await run({ sinceLastRun: true, markName }, 'mark-next');
      expect(next.highWaterMark!.from).toBe(repaired.highWaterMark!.stored);
      expect(next.products.find((p) => p.productId === other)).toMatchObject({ repaired: 3 });
      expect(next.products.find((p) => p.productId === sku)).toBeUndefined();
    });

    /** The job's own snapshot folder (where `safeWriteBomLine` keeps them and the repair reads them). */
    const jobSnapshots = () =>
      new ForkSnapshotStore(path.join(stack.config.dataDir, 'bom-repair', 'fork-snapshots'));
    const valuesOf = (l: BomLine) => ({
      component: { styleId: l.styleId! },
      placementId: l.placementId,
      quantity: l.quantity,
      quantityUnit: l.quantityUnit as 'PIECES',
      weight: l.weight,
      weightUnit: l.weightUnit as 'GRAM',
      countryOfOrigin: l.countryOfOrigin,
      isMainComponent: l.isMainComponent ?? false,
    });

    // Spec 02, BOMs table: "PUT /bom-lines/{id} with no change | | No copy | Existing data returned"; a refused write
    // (400/404) copies nothing either. Such a write made no fork, so it has no fork-time record to keep: a snapshot
    // left behind would be read as the record of whatever fork the product makes later.
    it('“PUT /bom-lines/{id} with no change: No copy”: a refused or unchanged safe write keeps no snapshot, and a later fork is repaired from the source as it was then', async () => {
      const tree = await buildTree(stack.apiClient, 'nofork', TEE_LINES);
      const sku = tree.skus[0]!;
      const snapshots = jobSnapshots();
      const lines = await linesOf(stack.apiClient, tree.headerId);
      const poplin = lines.find((l) => l.styleId === DEMO_IDS.poplin)!;
      const write = (values: ReturnType<typeof valuesOf>) =>
        safeBomWrite(
          stack.apiClient,
          {
            entityStyleId: sku,
            bomHeaderId: tree.headerId,
            edit: { kind: 'replace', lineId: poplin.id, values },
          },
          snapshots,
        );

      await expect(write({ ...valuesOf(poplin), placementId: 'bomplc_nope' })).rejects.toMatchObject({
        code: 'bom_placement_not_found',
      });
      expect(await snapshots.find(sku, tree.headerId)).toBeNull();
      expect(await write(valuesOf(poplin))).toMatchObject({ forked: false, bomHeaderId: tree.headerId });
      expect(await snapshots.find(sku, tree.headerId)).toBeNull();

      // The owner then changes the label line, and the SKU forks later by some other way (the platform's UI).
      await changeSourceComponent(tree, (l) => l.styleId === DEMO_IDS.label, DEMO_IDS.button);
      const forkId = await forkThroughSku(stack.apiClient, tree, sku, (l) => l.styleId === DEMO_IDS.zipper);
      const result = await run({ products: [sku] }, 'no-fork-no-snapshot');
      expect(result).toMatchObject({ linesRepaired: 3, linesAmbiguous: 0, linesUnmatched: 0 });
      expect(result.products[0]!.lines.map((l) => l.basis)).toEqual(['source', 'source', 'source']);
      const fork = await linesOf(stack.apiClient, forkId);
      expect(fork.find((l) => l.placementId === DEMO_PLACEMENTS.insideNeck)!.styleId).toBe(DEMO_IDS.button);
      expect(fork.find((l) => l.placementId === DEMO_PLACEMENTS.body)).toMatchObject({
        styleId: DEMO_IDS.poplin,
        isMainComponent: true,
      });
    });

    it('a snapshot left from before a source change that preceded the fork is not this fork’s record: set aside, the current source stands in', async () => {
      const tree = await buildTree(stack.apiClient, 'stale', TEE_LINES);
      const sku = tree.skus[1]!;
      // As an older version left it after an edit that did not fork (or a run that died before knowing).
      await jobSnapshots().save({
        productId: sku,
        sourceHeaderId: tree.headerId,
        takenAt: new Date().toISOString(),
        writtenLineIds: [],
        lines: await linesOf(stack.apiClient, tree.headerId),
      });
      const label = await changeSourceComponent(tree, (l) => l.styleId === DEMO_IDS.label, DEMO_IDS.button);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const forkId = await forkThroughSku(stack.apiClient, tree, sku, (l) => l.styleId === DEMO_IDS.zipper);

      const result = await run({ products: [sku] }, 'stale-snapshot');
      expect(result).toMatchObject({ linesRepaired: 3, linesAmbiguous: 0 });
      const product = result.products[0]!;
      expect(product.lines.map((l) => l.basis)).toEqual(['source', 'source', 'source']);
      expect(product.headers[0]!.snapshotSetAside).toContain(`source line ${label.id} changed at`);
      expect(product.headers[0]!.snapshotSetAside).toContain('between the snapshot');
      const fork = await linesOf(stack.apiClient, forkId);
      expect(fork.find((l) => l.placementId === DEMO_PLACEMENTS.insideNeck)!.styleId).toBe(DEMO_IDS.button);
    });

    // Spec 02, "Copy fidelity caveat": copied lines lose `styleId`; the copy is of the source as it is at the fork,
    // not as the safe write's snapshot saw it. The owner may change a component between the snapshot and the write
    // (a window that grows with retries and 429 waits): the snapshot then names a component the fork never had.
    it('safe write: a source component changed between its snapshot and the fork is never written from the snapshot', async () => {
      const tree = await buildTree(stack.apiClient, 'race', TEE_LINES);
      const sku = tree.skus[3]!;
      const zipper = (await linesOf(stack.apiClient, tree.headerId)).find(
        (l) => l.styleId === DEMO_IDS.zipper,
      )!;
      let changed: BomLine | undefined;
      const boms = new Proxy(stack.apiClient.boms, {
        get(target, property, receiver) {
          const value: unknown = Reflect.get(target, property, receiver);
          if (property !== 'replaceLine' || typeof value !== 'function') return value;
          return async (...args: Parameters<TraceabilityClient['boms']['replaceLine']>) => {
            // The owner's edit lands after the snapshot, just before the safe write's own write.
            changed ??= await changeSourceComponent(
              tree,
              (l) => l.styleId === DEMO_IDS.label,
              DEMO_IDS.button,
            );
            await new Promise((resolve) => setTimeout(resolve, 5));
            return target.replaceLine(...args);
          };
        },
      });
      const racing = new Proxy(stack.apiClient, {
        get: (target, property, receiver) =>
          property === 'boms' ? boms : (Reflect.get(target, property, receiver) as unknown),
      });

      const result = await safeBomWrite(racing, {
        entityStyleId: sku,
        bomHeaderId: tree.headerId,
        edit: { kind: 'replace', lineId: zipper.id, values: { ...valuesOf(zipper), quantity: 2 } },
      });
      expect(result.forked).toBe(true);
      const fork = await linesOf(stack.apiClient, result.bomHeaderId);
      const neck = fork.find((l) => l.placementId === DEMO_PLACEMENTS.insideNeck)!;
      expect(neck.styleId).not.toBe(DEMO_IDS.label);
      expect(result.repairs).toEqual([]);
      expect(result.problems.join('\n')).toContain(`source line ${changed!.id} changed at`);
      expect(result.linesWithoutComponent).toHaveLength(3);

      // The job repairs the copies later from the source as it stood at the fork.
      const job = await run({ products: [sku] }, 'race-after-snapshot');
      expect(job).toMatchObject({ linesRepaired: 3, linesAmbiguous: 0 });
      const repaired = await linesOf(stack.apiClient, result.bomHeaderId);
      expect(repaired.find((l) => l.placementId === DEMO_PLACEMENTS.insideNeck)!.styleId).toBe(
        DEMO_IDS.button,
      );
    });

    // Spec 02, BOMs table, a fork through an inherited link: "Permanent detach; copy creates no child links, so the
    // product's SKUs keep the original." A variant's fork renamed back to the original's name looks, by name, like a
    // BOM its SKUs inherit; nothing the API shows says which of the two a SKU's fork was copied from.
    it('“the product’s SKUs keep the original”: a variant’s fork renamed back to the source’s name leaves the SKU’s copies ambiguous between the two', async () => {
      const tree = await buildTree(stack.apiClient, 'renamed', TEE_LINES);
      const variant = tree.variants[0]!;
      const sku = tree.skus[0]!;
      const variantFork = await forkThroughSku(
        stack.apiClient,
        tree,
        variant,
        (l) => l.styleId === DEMO_IDS.zipper,
      );
      await run({ products: [variant] }, 'renamed-variant');
      await stack.apiClient.boms.updateHeader(variantFork, {
        styleId: variant,
        name: tree.headerName,
        isMainBom: true,
      });
      const variantLabel = (await linesOf(stack.apiClient, variantFork)).find(
        (l) => l.styleId === DEMO_IDS.label,
      )!;
      await stack.apiClient.boms.replaceLine(variantLabel.id, {
        ...valuesOf(variantLabel),
        entity: { styleId: variant },
        component: { styleId: DEMO_IDS.button },
      });
      // The SKU still inherits the style's original, and forks it.
      expect(
        (await stack.apiClient.boms.listHeaders({ styleId: sku, limit: 100 })).items.map((h) => h.id),
      ).toEqual([tree.headerId]);
      const skuFork = await forkThroughSku(stack.apiClient, tree, sku, (l) => l.styleId === DEMO_IDS.zipper);

      const result = await run({ products: [sku] }, 'renamed-sku');
      expect(result).toMatchObject({ linesRepaired: 0, linesAmbiguous: 3 });
      const product = result.products[0]!;
      expect(product.headers[0]).toMatchObject({ headerId: skuFork, sourceHeaderId: null });
      expect(product.headers[0]!.problem).toContain(variantFork);
      expect(product.headers[0]!.problem).toContain(tree.headerId);
      expect(product.headers[0]!.sourceCandidates).toEqual([
        { headerId: variantFork, productId: variant },
        { headerId: tree.headerId, productId: tree.styleId },
      ]);
      const neck = (await linesOf(stack.apiClient, skuFork)).find(
        (l) => l.placementId === DEMO_PLACEMENTS.insideNeck,
      )!;
      const neckOutcome = product.lines.find((l) => l.lineId === neck.id)!;
      expect(neckOutcome.outcome).toBe('ambiguous');
      expect(neckOutcome.candidates).toEqual([
        expect.objectContaining({
          basis: 'current source',
          sourceHeaderId: variantFork,
          component: { styleId: DEMO_IDS.button, isMainComponent: false },
        }),
        expect.objectContaining({
          basis: 'current source',
          sourceHeaderId: tree.headerId,
          component: { styleId: DEMO_IDS.label, isMainComponent: false },
        }),
      ]);
      expect((await linesOf(stack.apiClient, skuFork)).filter((l) => l.styleId === null)).toHaveLength(3);
    });
  });
});
