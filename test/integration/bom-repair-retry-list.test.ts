/**
 * The scheduled repair (`sinceLastRun`) looks at BOM headers created or changed since its mark, and moves the mark
 * once a run finished. A fork it left unrepaired (ambiguous, unmatched or failed lines) does not change again, so
 * without a list of its own it would never be looked at again: spec 02, "Copy fidelity caveat": "Clients re-read the
 * copied lines and re-apply references" - a fork left for later must come back until it is settled.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { bomMarkFile } from '../../connectors/bom-repair/scan';
import { DEMO_IDS } from '../../sandbox/seed/demo-catalogue';
import { TraceJob } from '../../worker/search-attributes';
import { bomRepair } from '../../workflows';
import type { RepairBomForksResult, RepairBomInput } from '../../workflows/bom-repair';
import { startTestStack, type TestStack } from '../harness';
import { buildTree, forkThroughSku, linesOf, TEE_LINES, type LineSpec } from './bom-trees';

const SLEEVE = 'bomplc_demo_sleeve';
/**
 * Two lines a copy cannot tell apart: same placement and values, different components. A fork made by editing one
 * of them leaves the other's copy ambiguous (which of the two was copied is not known).
 */
const LOOKALIKE_LINES: Array<Omit<LineSpec, 'entity' | 'bomHeaderId'>> = [
  { component: { styleId: DEMO_IDS.button }, placementId: SLEEVE, quantity: 2, quantityUnit: 'PIECES' },
  { component: { styleId: DEMO_IDS.zipper }, placementId: SLEEVE, quantity: 2, quantityUnit: 'PIECES' },
];

describe('bomRepair sinceLastRun keeps the forks it left unrepaired for its next run', () => {
  let stack: TestStack;
  const run = (input: RepairBomInput, name: string): Promise<RepairBomForksResult> =>
    stack.client.workflow.execute(bomRepair, {
      args: [input],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId(`bom-repair-retry-list-${name}`),
      typedSearchAttributes: [{ key: TraceJob, value: 'bom-repair' }],
    });

  beforeAll(async () => {
    stack = await startTestStack({ sandbox: { childLinkDelayMs: 300, rateLimitPerMinute: 100_000 } });
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('an ambiguous fork is looked at again by the next sinceLastRun run though the mark moved past it, until it is settled', async () => {
    const markName = `retry-${Date.now()}`;
    const retryEntry = (productId: string) =>
      path.join(
        stack.config.dataDir,
        'bom-repair',
        `to-retry-${markName}`,
        `${encodeURIComponent(productId)}.json`,
      );
    /** The mark moved past every header there is (as a later run's would, once the fork is older than its margin). */
    const markPastEveryHeader = () => {
      const file = bomMarkFile(stack.config.dataDir, markName);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(
        file,
        JSON.stringify({ sinceMs: Date.now() + 3_600_000, storedAt: new Date().toISOString() }),
      );
    };
    const tree = await buildTree(stack.apiClient, 'retrylist', [TEE_LINES[0]!, ...LOOKALIKE_LINES]);
    const sku = tree.skus[1]!;
    const forkId = await forkThroughSku(stack.apiClient, tree, sku, (l) => l.placementId === SLEEVE);

    const first = await run({ sinceLastRun: true, markName }, 'first');
    expect(first.products.find((p) => p.productId === sku)).toMatchObject({ ambiguous: 1 });
    expect(existsSync(retryEntry(sku))).toBe(true);

    markPastEveryHeader();
    const second = await run({ sinceLastRun: true, markName }, 'second');
    expect(second.products.find((p) => p.productId === sku)).toMatchObject({ ambiguous: 1 });
    expect(existsSync(retryEntry(sku))).toBe(true);

    // The operator settles it by hand (the copy given its component): the next run finds nothing left and drops it.
    const copies = (await linesOf(stack.apiClient, forkId)).filter((l) => l.styleId === null);
    expect(copies).toHaveLength(1);
    for (const line of copies)
      await stack.apiClient.boms.replaceLine(line.id, {
        entity: { styleId: sku },
        component: { styleId: DEMO_IDS.zipper },
        placementId: SLEEVE,
        quantity: 2,
        quantityUnit: 'PIECES',
      });
    markPastEveryHeader();
    const third = await run({ sinceLastRun: true, markName }, 'third');
    expect(third.products.find((p) => p.productId === sku)).toBeUndefined();
    expect(existsSync(retryEntry(sku))).toBe(false);
  });

  // Spec 02: a header edit through an inherited link copies every line ("header duplicated ..., lines copied"), so
  // its fork's repair is as sure as a line edit's: it is verified, and nothing is kept for the next run.
  it('a fork made by a header edit is repaired, verified, and not kept for the next run', async () => {
    const markName = `hdr-edit-${Date.now()}`;
    const tree = await buildTree(stack.apiClient, 'hdredit', TEE_LINES);
    const sku = tree.skus[2]!;
    await stack.apiClient.boms.updateHeader(tree.headerId, {
      styleId: sku,
      name: tree.headerName,
      description: 'sample notes',
      isMainBom: true,
    });

    const result = await run({ sinceLastRun: true, markName }, 'hdr-edit');
    expect(result.products.find((p) => p.productId === sku)).toMatchObject({
      repaired: TEE_LINES.length,
      verified: true,
    });
    const entry = path.join(
      stack.config.dataDir,
      'bom-repair',
      `to-retry-${markName}`,
      `${encodeURIComponent(sku)}.json`,
    );
    expect(existsSync(entry)).toBe(false);
  });

  // Spec 01, "Pagination": "list successes add `metadata.pagination` with integer fields `page`, `limit`, `total`,
  // `totalPages`" and "Iterate until `page` reaches `totalPages`": a fork whose pages never list every line its
  // `total` counts cannot be read whole, so it is not repaired; spec 02, "Copy fidelity caveat": "Clients re-read the
  // copied lines and re-apply references", so it is kept for a later run, and the batch's other forks go on.
  it('a fork whose lines are never read whole (`total` counts a line no page lists): that product failed with the reason and kept for retry, promptly; the others repaired', async () => {
    const markName = `never-whole-${Date.now()}`;
    const tree = await buildTree(stack.apiClient, 'neverwhole', TEE_LINES);
    const [good, bad] = [tree.skus[0]!, tree.skus[1]!];
    await forkThroughSku(stack.apiClient, tree, good, (l) => l.styleId === DEMO_IDS.button);
    const badFork = await forkThroughSku(stack.apiClient, tree, bad, (l) => l.styleId === DEMO_IDS.button);
    const neverWhole = (headerIds: string[]) =>
      fetch(`${new URL(stack.sandbox.baseUrl).origin}/__sandbox/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bomLinesNeverWhole: headerIds }),
      });
    await neverWhole([badFork]);
    const started = Date.now();
    let result: RepairBomForksResult;
    try {
      result = await stack.client.workflow.execute(bomRepair, {
        args: [{ sinceLastRun: true, markName }],
        taskQueue: stack.taskQueue,
        workflowId: stack.workflowId('bom-repair-retry-list-never-whole'),
        typedSearchAttributes: [{ key: TraceJob, value: 'bom-repair' }],
        // Before, the batch activity retried the unreadable fork (and its whole batch) for minutes.
        workflowExecutionTimeout: '40 seconds',
      });
    } finally {
      await neverWhole([]);
    }
    expect(Date.now() - started).toBeLessThan(30_000);

    expect(result.products.find((p) => p.productId === good)).toMatchObject({
      repaired: 3,
      failed: 0,
      verified: true,
    });
    const failed = result.products.find((p) => p.productId === bad);
    expect(failed).toMatchObject({ repaired: 0, wouldRepair: 0 });
    expect(failed?.problem).toContain(`${tree.ext[bad]} (${bad})`);
    expect(failed?.problem).toContain(
      `BOM ${badFork}: the API counts 4 lines but 5 reads of its pages listed 3 distinct ones`,
    );
    expect(result.productsFailed).toBe(1);
    expect(result.linesRepaired).toBeGreaterThanOrEqual(3);
    const entry = path.join(
      stack.config.dataDir,
      'bom-repair',
      `to-retry-${markName}`,
      `${encodeURIComponent(bad)}.json`,
    );
    expect(JSON.parse(readFileSync(entry, 'utf8'))).toMatchObject({
      productId: bad,
      externalId: tree.ext[bad],
      reason: failed?.problem,
    });
    expect(existsSync(entry.replace(encodeURIComponent(bad), encodeURIComponent(good)))).toBe(false);
  }, 90_000);
});
