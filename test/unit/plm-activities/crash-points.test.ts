/**
 * The import's promise at each crash point: running an activity again (as Temporal does after a worker dies)
 * converges on exactly one product per externalId and counts it right. The activities run in a mock activity
 * context against an in-process sandbox over HTTP.
 */
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createPlmImportActivities, type PlanResult, type ReadResult } from '../../../activities/plm-import';
import { plmRun } from '../../../connectors/plm-import/staged-run';
import {
  manifestSchema,
  writeStepSchema,
  type PlmImportResult,
  type WriteStep,
} from '../../../connectors/plm-import/staged-run';
import { builtinProfile } from '../../../connectors/plm-import/profiles/builtin';
import { TraceabilityClient } from '../../../connectors/traceability';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';
import { loadConfig } from '../../../worker/config';
import { nativeRows, toCsv, type NativeRow } from './native-sheet';

describe('re-running a PLM import activity after a crash converges', () => {
  let dir: string;
  let sandbox: RunningSandbox;
  let client: TraceabilityClient;
  let activities: ReturnType<typeof createPlmImportActivities>;
  /** Runs an activity as a retried attempt would (MockActivityEnvironment.run does not infer the result type). */
  const attempt = <A, R>(activity: (arg: A) => Promise<R>, arg: A): Promise<R> =>
    new MockActivityEnvironment({ attempt: 2 }, { logger: new DefaultLogger('WARN') }).run(
      activity,
      arg,
    ) as Promise<R>;
  const writes = () =>
    Object.entries(client.stats().byMethodStatus)
      .filter(([key]) => key.startsWith('POST') || key.startsWith('PUT'))
      .reduce((sum, [, n]) => sum + n, 0);
  /** `eans`: an EAN_GTIN_13 column, its value by externalId. */
  const prepare = async (
    workflowId: string,
    rows: readonly NativeRow[],
    eans?: Readonly<Record<string, string>>,
  ): Promise<{ read: ReadResult; plan: PlanResult }> => {
    const file = path.join(dir, `${workflowId}.csv`);
    const lines = toCsv(rows).trimEnd().split('\r\n');
    const withEans = lines.map((line, index) =>
      index === 0 ? `${line},EAN_GTIN_13` : `${line},${eans?.[rows[index - 1]?.externalId ?? ''] ?? ''}`,
    );
    await writeFile(file, eans ? `${withEans.join('\r\n')}\r\n` : toCsv(rows));
    const read = await attempt(activities.readPlmSheet, { file, workflowId, profile: 'native' as const });
    const plan = await attempt(activities.planPlmImport, {
      runKey: read.runKey,
      sheet: read.sheet,
      batchSize: 100,
    });
    return { read, plan };
  };
  const batchSteps = async (runKey: string, plan: PlanResult, batch: number): Promise<WriteStep[]> => {
    const run = plmRun(dir, runKey);
    const manifest = await run.staging.getJson(plan.manifest, manifestSchema);
    const steps: WriteStep[] = [];
    for await (const step of run.staging.readNdjson(manifest.batches[batch]!.ref, writeStepSchema))
      steps.push(step);
    return steps;
  };
  const stored = async (prefix: string) => {
    const state = (await (
      await fetch(`${sandbox.baseUrl.replace(/\/api\/v2$/, '')}/__sandbox/state`)
    ).json()) as {
      catalogue: { products: Array<{ externalId: string | null; name: string }> };
    };
    return state.catalogue.products.filter((item) => item.externalId?.startsWith(`${prefix}-`));
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'plm-crash-'));
    sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 100_000, childLinkDelayMs: 0, qrDelayMs: 0 });
    client = new TraceabilityClient({ baseUrl: sandbox.baseUrl, apiKey: 'sandbox-key-brand' });
    activities = createPlmImportActivities({ client, config: { ...loadConfig({ TRACE_DATA_DIR: dir }) } });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("a create that went through before the worker died is recognised as this run's own, not duplicated", async () => {
    const { read, plan } = await prepare(
      'crash-after-post',
      nativeRows({ prefix: 'CAP', styles: 2, coloursPerStyle: 0, sizesPerColour: 0 }),
    );
    const [first] = await batchSteps(read.runKey, plan, 0);
    if (first?.action !== 'create') throw new Error('expected a create');
    // The dead attempt journalled its intent and its POST committed; the outcome line never made it.
    await client.products.create(first.body);
    const journal = plmRun(dir, read.runKey).journal(0);
    await journal.append({ kind: 'intent', externalId: first.externalId, write: 'create' });
    await appendFile(journal.path, '{"kind":"outcome","externalId":"CA'); // torn line

    const result = await attempt(activities.applyPlmBatch, {
      runKey: read.runKey,
      manifest: plan.manifest,
      batch: 0,
    });
    expect(result.counts).toEqual({ created: 2, updated: 0, unchanged: 0, rejected: 0 });
    expect(result.recovered).toBe(1);
    expect(await stored('CAP')).toHaveLength(2);
  });

  it('a batch run again after it finished half its products writes only the rest and counts every product once', async () => {
    const { read, plan } = await prepare(
      'half-done',
      nativeRows({ prefix: 'HALF', styles: 6, coloursPerStyle: 0, sizesPerColour: 0 }),
    );
    await attempt(activities.applyPlmBatch, { runKey: read.runKey, manifest: plan.manifest, batch: 0 });
    // As if the worker died after the six POSTs committed but before the last three outcomes were journalled:
    // every intent is there (it is written before its POST), three outcomes are not.
    const journal = plmRun(dir, read.runKey).journal(0);
    const lines = (await readFile(journal.path, 'utf8')).trim().split('\n');
    const outcomes = lines.filter((line) => line.includes('"kind":"outcome"'));
    const lost = new Set(outcomes.slice(3));
    await writeFile(journal.path, lines.filter((line) => !lost.has(line)).join('\n') + '\n');

    const before = writes();
    const again = await attempt(activities.applyPlmBatch, {
      runKey: read.runKey,
      manifest: plan.manifest,
      batch: 0,
    });
    expect(again.counts).toEqual({ created: 6, updated: 0, unchanged: 0, rejected: 0 });
    expect(writes() - before).toBe(3); // three POSTs answered 409 and were re-read, nothing else written
    expect(await stored('HALF')).toHaveLength(6);
  });

  it('a product that appeared after planning converges to the sheet as an update, not a duplicate', async () => {
    const rows = nativeRows({ prefix: 'LATE', styles: 1, coloursPerStyle: 1, sizesPerColour: 0 });
    const { read, plan } = await prepare('appeared-later', rows);
    await client.products.create({
      externalId: 'LATE-S1',
      name: 'Someone else',
      codes: [{ codeId: 'PLM_ID', codeValue: 'LATE-S1' }],
      styleTypeId: 'st_tshirts',
      isComponent: false,
    });
    const styles = await attempt(activities.applyPlmBatch, {
      runKey: read.runKey,
      manifest: plan.manifest,
      batch: 0,
    });
    expect(styles).toMatchObject({ counts: { updated: 1, created: 0 }, recovered: 1 });
    expect((await client.products.get('LATE-S1')).name).toBe('Tee 1');
  });

  // Spec 01: PUT replaces `codes` wholesale, and UPC_GTIN_12 and EAN_GTIN_13 are each once per product. 12 digits in an
  // EAN_GTIN_13 column are the product's barcode as a UPC_GTIN_12 (profiles/extract.ts), so a planned update drops the
  // EAN it had; a create that meets a product appeared after planning kept that EAN beside the new UPC.
  it('a create that meets a product appeared after planning writes the codes an update would: a 12-digit barcode replaces its EAN', async () => {
    const rows = nativeRows({ prefix: 'GTN', styles: 2, coloursPerStyle: 0, sizesPerColour: 0 });
    const someoneElses = (externalId: string, ean: string) =>
      client.products.create({
        externalId,
        name: 'Someone else',
        codes: [
          { codeId: 'PLM_ID', codeValue: externalId },
          { codeId: 'EAN_GTIN_13', codeValue: ean },
        ],
        styleTypeId: 'st_tshirts',
        isComponent: false,
      });
    await someoneElses('GTN-S1', '7351234199001'); // before planning: a planned update
    const { read, plan } = await prepare('gtin-appeared', rows, {
      'GTN-S1': '098765432109',
      'GTN-S2': '098765432116',
    });
    await someoneElses('GTN-S2', '7351234199018'); // after planning: the create meets it
    const styles = await attempt(activities.applyPlmBatch, {
      runKey: read.runKey,
      manifest: plan.manifest,
      batch: 0,
    });
    expect(styles).toMatchObject({ counts: { updated: 2, created: 0, rejected: 0 }, recovered: 1 });
    const barcodes = async (externalId: string) =>
      (await client.products.get(externalId)).codes.filter((code) => code.codeId !== 'PLM_ID');
    expect(await barcodes('GTN-S1')).toEqual([{ codeId: 'UPC_GTIN_12', codeValue: '098765432109' }]);
    expect(await barcodes('GTN-S2')).toEqual([{ codeId: 'UPC_GTIN_12', codeValue: '098765432116' }]);
  });

  it('children of a product the API refused are rejected without a call, and finish heartbeats and writes the same files twice', async () => {
    const rows = nativeRows({ prefix: 'REF', styles: 1, coloursPerStyle: 1, sizesPerColour: 2 }).map(
      (row) => (row.externalId === 'REF-S1-C1' ? { ...row, PLM_ID: 'PLM-TEE-001-BLK' } : row), // a code the demo catalogue's tee variant holds
    );
    const { read, plan } = await prepare('parent-refused', rows);
    // The planner sees the clash when the catalogue was listed; it is then an invalid row before any write.
    expect(plan.counts.invalid + plan.counts.create).toBe(4);
    for (let batch = 0; batch < plan.batchCount; batch++)
      await attempt(activities.applyPlmBatch, { runKey: read.runKey, manifest: plan.manifest, batch });
    const finishInput = {
      runKey: read.runKey,
      manifest: plan.manifest,
      workflowId: 'parent-refused',
      dryRun: false,
      retryOf: null,
      rows: read.rows,
      startedAtMs: Date.now(),
      apiCalls: { read: read.apiCalls, plan: plan.apiCalls, apply: 0 },
      durationsMs: { read: 0, plan: 0, apply: 0 },
      catalogue: plan.catalogue,
      warnings: [],
    };
    // The finish step runs under the whole-run steps' options (workflows/batch-run.ts), whose heartbeat timeout of 2
    // minutes runs from the activity's start: a finish that never heartbeats is timed out on every attempt once its
    // rejects file takes longer to write.
    const env = new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('WARN') });
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const first = (await env.run(activities.finishPlmImport, finishInput)) as PlmImportResult;
    expect(beats).toBeGreaterThan(0);
    const rejects = await readFile(first.rejectsFile as string, 'utf8');
    const second = await attempt(activities.finishPlmImport, finishInput);
    expect(await readFile(second.rejectsFile as string, 'utf8')).toBe(rejects);
    expect(first.products).toMatchObject({ created: 1, rejected: 3 });
    expect(rejects).toMatch(/REF-S1-C1,REF-S1,variant.*duplicate_code_value/);
    expect(rejects).toMatch(/REF-S1-C1-Z1,REF-S1-C1,sku.*invalid_parent/);
    expect(await stored('REF')).toHaveLength(1);
  });
  it('a composition step whose writes went through before the worker died is planned again from a fresh read: no header or line twice', async () => {
    const file = path.join(dir, 'crash-composition.csv');
    const rows = nativeRows({ prefix: 'CMPX', styles: 1, coloursPerStyle: 0, sizesPerColour: 0 });
    await writeFile(
      file,
      `${toCsv(rows)
        .trimEnd()
        .split('\r\n')
        .map((line, index) => `${line},${index === 0 ? 'composition' : '"95% Cotton, 5% Elastane"'}`)
        .join('\r\n')}\r\n`,
    );
    const mappingFile = path.join(dir, 'crash-composition.json');
    await writeFile(
      mappingFile,
      JSON.stringify({
        ...builtinProfile('native'),
        name: 'with-materials',
        rawMaterials: { Cotton: 'rawmat_cotton', Elastane: 'rawmat_elastane' },
      }),
    );
    const read = await attempt(activities.readPlmSheet, {
      file,
      workflowId: 'crash-composition',
      mappingFile,
    });
    const plan = await attempt(activities.planPlmImport, {
      runKey: read.runKey,
      sheet: read.sheet,
      batchSize: 100,
    });
    expect(plan.batchCount).toBe(2); // the style, then its composition
    await attempt(activities.applyPlmBatch, { runKey: read.runKey, manifest: plan.manifest, batch: 0 });
    const first = await attempt(activities.applyPlmBatch, {
      runKey: read.runKey,
      manifest: plan.manifest,
      batch: 1,
    });
    expect(first.compositions).toEqual({ written: 1, rejected: 0 });
    // The attempt died after its writes and before its outcome line: only the intent is in the journal.
    const journal = plmRun(dir, read.runKey).journal(1);
    const lines = (await readFile(journal.path, 'utf8'))
      .split('\n')
      .filter((line) => line.includes('"intent"'));
    await writeFile(journal.path, `${lines.join('\n')}\n`);
    const before = writes();
    await attempt(activities.applyPlmBatch, { runKey: read.runKey, manifest: plan.manifest, batch: 1 });
    expect(writes() - before).toBe(0);
    const style = await client.products.get('CMPX-S1');
    const headers = await client.materials.listHeaders({ styleId: style.id, isOwner: true });
    expect(headers.items.map((header) => header.name)).toEqual(['Composition']);
    const stored = await client.materials.listLines({ materialHeaderId: headers.items[0]!.id });
    expect(stored.items.map((line) => `${line.percentage} ${line.rawMaterialId}`).sort()).toEqual([
      '5 rawmat_elastane',
      '95 rawmat_cotton',
    ]);
  });
});
