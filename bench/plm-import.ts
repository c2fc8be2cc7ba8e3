/**
 * Job 1 at scale: a generated native sheet of ~5,000 products (263 styles x 3 colours x 5 sizes) imported through
 * the job's activities (driven as the workflow drives them) against the sandbox over HTTP. Prints API calls per
 * product on a fresh import (aim <= 1.02), the calls of an unchanged re-import (aim: one list call per 100
 * products plus the reference lists, zero writes), the same sheet with a composition on every style (fresh and
 * unchanged: zero writes), and a small sheet against the grown catalogue.
 * Run: node bin/run-ts.cjs bench/plm-import.ts
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  createPlmImportActivities,
  type BatchResult,
  type PlanResult,
  type PlmImportResult,
  type ReadResult,
} from '../activities/plm-import';
import { builtinProfile } from '../connectors/plm-import/profiles/builtin';
import { TraceabilityClient, type ClientMetricsSnapshot } from '../connectors/traceability';
import { startSandbox } from '../sandbox/server';
import { loadConfig } from '../worker/config';
import { NATIVE_HEADER, nativeRows, productCount, toCsv } from '../test/unit/plm-activities/native-sheet';

const SHAPE = { prefix: 'BENCH', styles: 263, coloursPerStyle: 3, sizesPerColour: 5 };

interface Measured {
  result: PlmImportResult;
  stats: ClientMetricsSnapshot;
  ms: number;
}

const writesOf = (stats: ClientMetricsSnapshot) =>
  Object.entries(stats.byMethodStatus)
    .filter(([key]) => key.startsWith('POST') || key.startsWith('PUT'))
    .reduce((sum, [, n]) => sum + n, 0);
const listCallsOf = (stats: ClientMetricsSnapshot) => stats.byEndpoint['GET /styles'] ?? 0;
const referenceCallsOf = (stats: ClientMetricsSnapshot) =>
  Object.entries(stats.byEndpoint)
    .filter(
      ([endpoint]) => endpoint.startsWith('GET /style-types') || endpoint.startsWith('GET /style-properties'),
    )
    .reduce((sum, [, n]) => sum + n, 0);

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-plm-import-'));
  const sandbox = await startSandbox({
    port: 0,
    rateLimitPerMinute: 1_000_000,
    qrDelayMs: 0,
    childLinkDelayMs: 0,
  });
  const config = loadConfig({ TRACE_DATA_DIR: dir });
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN') });
  const clients: TraceabilityClient[] = [];

  /** One import as the workflow runs it; `client` fresh (cold reference cache) unless one is given. */
  const importFile = async (
    file: string,
    workflowId: string,
    given?: TraceabilityClient,
    mappingFile?: string,
  ): Promise<Measured> => {
    const client = given ?? new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
    if (!given) clients.push(client);
    client.resetStats();
    const activities = createPlmImportActivities({ client, config });
    const started = performance.now();
    const read: ReadResult = await env.run(
      activities.readPlmSheet,
      mappingFile ? { file, workflowId, mappingFile } : { file, workflowId, profile: 'native' as const },
    );
    const plan: PlanResult = await env.run(activities.planPlmImport, {
      runKey: read.runKey,
      sheet: read.sheet,
      batchSize: 200,
    });
    let applyCalls = 0;
    for (let batch = 0; batch < plan.batchCount; batch++) {
      const applied: BatchResult = await env.run(activities.applyPlmBatch, {
        runKey: read.runKey,
        manifest: plan.manifest,
        batch,
      });
      applyCalls += applied.apiCalls;
    }
    const result: PlmImportResult = await env.run(activities.finishPlmImport, {
      runKey: read.runKey,
      manifest: plan.manifest,
      workflowId,
      dryRun: false,
      retryOf: null,
      rows: read.rows,
      startedAtMs: Date.now(),
      apiCalls: { read: read.apiCalls, plan: plan.apiCalls, apply: applyCalls },
      durationsMs: { read: read.durationMs, plan: plan.durationMs, apply: 0 },
      catalogue: plan.catalogue,
      warnings: read.warnings,
    });
    return { result, stats: client.stats(), ms: performance.now() - started };
  };

  try {
    const total = productCount(SHAPE);
    const file = path.join(dir, 'bench.csv');
    await writeFile(file, toCsv(nativeRows(SHAPE)));
    const line = (label: string, value: string) => console.log(`${label.padEnd(44)}${value}`);
    line(
      'products in the sheet:',
      `${total} (${SHAPE.styles} styles, ${SHAPE.styles * SHAPE.coloursPerStyle} variants, ${SHAPE.styles * SHAPE.coloursPerStyle * SHAPE.sizesPerColour} SKUs)`,
    );

    const fresh = await importFile(file, 'bench-fresh');
    line('fresh import:', `${JSON.stringify(fresh.result.products)}`);
    line(
      '  API calls:',
      `${fresh.stats.calls} = ${writesOf(fresh.stats)} writes + ${listCallsOf(fresh.stats)} list pages + ${referenceCallsOf(fresh.stats)} reference pages (+${fresh.stats.calls - writesOf(fresh.stats) - listCallsOf(fresh.stats) - referenceCallsOf(fresh.stats)} other)`,
    );
    line('  API calls per product:', `${(fresh.stats.calls / total).toFixed(4)} (aim <= 1.02)`);
    line(
      '  catalogue read:',
      `${fresh.result.catalogueRead.strategy}, pages ${JSON.stringify(fresh.result.catalogueRead.pages)}`,
    );
    line('  time:', `${fresh.ms.toFixed(0)} ms`);

    const again = await importFile(file, 'bench-unchanged');
    const pagesBudget = Math.ceil(total / 100);
    line('unchanged re-import (cold reference cache):', `${JSON.stringify(again.result.products)}`);
    line(
      '  API calls:',
      `${again.stats.calls} = ${listCallsOf(again.stats)} list pages + ${referenceCallsOf(again.stats)} reference pages + ${writesOf(again.stats)} writes`,
    );
    line(
      '  aim:',
      `<= ${pagesBudget} list pages (one per 100 products) + reference pages, 0 writes; catalogue holds ${again.result.catalogueRead.productsRead} products`,
    );
    line('  list pages per 100 products:', `${((listCallsOf(again.stats) / total) * 100).toFixed(3)}`);
    line('  time:', `${again.ms.toFixed(0)} ms`);

    const warm = await importFile(file, 'bench-unchanged-warm', clients[clients.length - 1]);
    line(
      'unchanged re-import (warm cache, same worker):',
      `${warm.stats.calls} calls (${listCallsOf(warm.stats)} list pages, ${writesOf(warm.stats)} writes)`,
    );

    const small = path.join(dir, 'small.csv');
    await writeFile(
      small,
      toCsv(nativeRows({ prefix: 'SMALL', styles: 2, coloursPerStyle: 1, sizesPerColour: 2 })),
    );
    const few = await importFile(small, 'bench-small', clients[clients.length - 1]);
    // The same shape with a composition on every style (one header and two lines each, spec 02).
    const composed = path.join(dir, 'bench-compositions.csv');
    const rows = nativeRows({ ...SHAPE, prefix: 'BENCHC' }).map((row) => ({
      ...row,
      composition: row.level === 'style' ? '95% Cotton, 5% Elastane' : '',
    }));
    const columns = [...NATIVE_HEADER, 'composition'];
    const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
    await writeFile(
      composed,
      [
        columns.join(','),
        ...rows.map((row) =>
          columns.map((column) => field((row as Record<string, string | undefined>)[column] ?? '')).join(','),
        ),
      ].join('\r\n') + '\r\n',
    );
    const mapping = path.join(dir, 'bench-mapping.json');
    await writeFile(
      mapping,
      JSON.stringify({
        ...builtinProfile('native'),
        name: 'native-with-materials',
        rawMaterials: { Cotton: 'rawmat_cotton', Elastane: 'rawmat_elastane' },
      }),
    );
    const materialWritesOf = (stats: ClientMetricsSnapshot) =>
      Object.entries(stats.byEndpoint)
        .filter(([endpoint]) => /^(POST|PUT) \/material-/.test(endpoint))
        .reduce((sum, [, n]) => sum + n, 0);
    const composedFresh = await importFile(composed, 'bench-compositions-fresh', undefined, mapping);
    line(
      'fresh import with compositions:',
      `${JSON.stringify(composedFresh.result.products)} compositions ${JSON.stringify(composedFresh.result.compositions)}`,
    );
    line(
      '  API calls:',
      `${composedFresh.stats.calls} = ${writesOf(composedFresh.stats) - materialWritesOf(composedFresh.stats)} product writes + ${materialWritesOf(composedFresh.stats)} composition writes (1 header + 2 lines per style) + ${composedFresh.stats.calls - writesOf(composedFresh.stats)} reads`,
    );
    line(
      '  API calls per product:',
      `${(composedFresh.stats.calls / total).toFixed(4)}; without the composition writes ${((composedFresh.stats.calls - materialWritesOf(composedFresh.stats)) / total).toFixed(4)} (aim <= 1.02)`,
    );
    const composedAgain = await importFile(composed, 'bench-compositions-unchanged', undefined, mapping);
    line(
      'unchanged re-import with compositions:',
      `${JSON.stringify(composedAgain.result.products)} compositions ${JSON.stringify(composedAgain.result.compositions)}`,
    );
    line(
      '  API calls:',
      `${composedAgain.stats.calls} = ${listCallsOf(composedAgain.stats)} list pages (materials included) + ${composedAgain.stats.byEndpoint['GET /material-lines'] ?? 0} material-line pages + ${referenceCallsOf(composedAgain.stats)} reference pages + ${writesOf(composedAgain.stats)} writes`,
    );

    line(
      '8 new products against the grown catalogue:',
      `${few.stats.calls} calls (${few.result.catalogueRead.strategy}: ${few.result.catalogueRead.listCalls} list pages, ${few.result.catalogueRead.getCalls} GETs; ${writesOf(few.stats)} writes)`,
    );
  } finally {
    for (const client of clients) await client.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
