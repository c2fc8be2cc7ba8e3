/**
 * What the `sinceLastRun` scan reads when `include=bom` leaves out the headers' `link` (spec 01 shows the include only
 * as "`bom` (BOM headers)"): the link role comes from GET /bom-headers?styleId=, but the include's own `createdAt`
 * and `updatedAt` already show whether any header changed since the mark, so only those products are read again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bomMarkFile } from '../../connectors/bom-repair/scan';
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import type { TestStack } from '../harness';
import { bomRepairRunner, buildTree, forkThroughSku, startBomRepairStack, TEE_LINES } from './bom-trees';

describe('bomRepair sinceLastRun with a bare include=bom', () => {
  let stack: TestStack;
  const run = bomRepairRunner(() => stack);
  const sandboxConfig = (body: Record<string, unknown>) =>
    fetch(`${new URL(stack.sandbox.baseUrl).origin}/__sandbox/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const setMark = (markName: string, sinceMs: number) => {
    const file = bomMarkFile(stack.config.dataDir, markName);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ sinceMs, storedAt: new Date().toISOString() }));
  };

  beforeAll(async () => {
    stack = await startBomRepairStack();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  // Spec 02, GET /bom-headers: "Response 200: array of headers with `link`"; a fork is a new header ("header
  // duplicated ... new owner link"), so a product whose headers all predate the mark holds no fork since then.
  it('reads GET /bom-headers only for products whose included headers were created or changed since the mark', async () => {
    const markName = `bare-${Date.now()}`;
    const tree = await buildTree(stack.apiClient, 'baresince', TEE_LINES);
    const old = tree.skus[0]!;
    await forkThroughSku(stack.apiClient, tree, old, (l) => l.styleId === DEMO_IDS.zipper);
    await new Promise((resolve) => setTimeout(resolve, 20));
    setMark(markName, Date.now());
    await new Promise((resolve) => setTimeout(resolve, 20));
    const recent = tree.skus[3]!;
    await forkThroughSku(stack.apiClient, tree, recent, (l) => l.styleId === DEMO_IDS.button);

    await sandboxConfig({ bomIncludeShape: 'bare' });
    try {
      const result = await run({ sinceLastRun: true, markName, dryRun: true }, 'bare-since');
      expect(result.products.map((p) => p.productId)).toEqual([recent]);
      expect(result).toMatchObject({ linesWouldRepair: 3 });
      expect(result.detection.includeProblem).toContain('without link.isOwner');
      // Only the product whose included header is new since the mark (the recent fork) is read again.
      expect(result.detection.headerReads).toBe(1);

      setMark(markName, Date.now() + 3_600_000);
      const none = await run({ sinceLastRun: true, markName, dryRun: true }, 'bare-none');
      expect(none.products).toEqual([]);
      expect(none.detection.headerReads).toBe(0);
    } finally {
      await sandboxConfig({ bomIncludeShape: 'full' });
    }
  });
});
