import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PlmImportResult } from '../../activities/plm-import';
import { retryPlanFor } from '../../cli/commands/retry';
import type { Product } from '../../connectors/traceability';
import { TraceJob, TraceSource, TraceStatus } from '../../worker/search-attributes';
import { plmImport } from '../../workflows';
import { plmImportProgressQuery, type PlmImportInput } from '../../workflows/plm-import';
import { cliEnv, cliProblems, traceSync, waitResult, type TestStack } from '../harness';
import {
  NATIVE_HEADER,
  nativeRows,
  parseCsv,
  productCount,
  toCsv,
  type NativeRow,
  type SheetShape,
} from '../unit/plm-activities/native-sheet';
import { startJobStack } from './job-stack';

describe('plmImport on a real Temporal dev server and the sandbox', () => {
  let stack: TestStack;
  let dir: string;

  const sheet = async (name: string, rows: readonly NativeRow[]): Promise<string> => {
    const file = path.join(dir, name);
    await writeFile(file, toCsv(rows));
    return file;
  };
  const start = (input: PlmImportInput, prefix = 'plm-import') =>
    stack.client.workflow.start(plmImport, {
      args: [input],
      taskQueue: stack.taskQueue,
      workflowId: stack.workflowId(prefix),
    });
  const run = async (input: PlmImportInput): Promise<PlmImportResult> => (await start(input)).result();
  /** Writes (POST/PUT) the API answered since `before`, from the client the worker uses. */
  const writesSince = (before: Record<string, number>): number =>
    Object.entries(stack.apiClient.stats().byMethodStatus)
      .filter(([key]) => key.startsWith('POST') || key.startsWith('PUT'))
      .reduce((sum, [key, n]) => sum + n - (before[key] ?? 0), 0);
  const snapshot = () => ({ ...stack.apiClient.stats().byMethodStatus });
  /** The product as the API shows it, read with plain HTTP (the test's own view); null when not found. */
  const product = async (externalId: string): Promise<Product | null> => {
    const response = await fetch(`${stack.sandbox.baseUrl}/styles/${encodeURIComponent(externalId)}`, {
      headers: { companyapikey: stack.apiKey },
    });
    if (response.status === 404) return null;
    return ((await response.json()) as { data: Product }).data;
  };
  /** Every product (all levels, archived too) whose externalId starts with `prefix`, from the sandbox's state. */
  const productsWithPrefix = async (
    prefix: string,
  ): Promise<Array<{ id: string; externalId: string | null }>> => {
    const state = (await (
      await fetch(`${stack.sandbox.baseUrl.replace(/\/api\/v2$/, '')}/__sandbox/state`)
    ).json()) as {
      catalogue: { products: Array<{ id: string; externalId: string | null }> };
    };
    return state.catalogue.products.filter((item) => item.externalId?.startsWith(`${prefix}-`));
  };

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('plm-import-it-'));
  }, 60_000);

  afterAll(() => stack?.stop());

  describe('a sheet of 2 styles x 2 colours x 2 sizes', () => {
    const shape: SheetShape = { prefix: 'FRESH', styles: 2, coloursPerStyle: 2, sizesPerColour: 2 };
    const total = productCount(shape);
    let file: string;

    beforeAll(async () => {
      file = await sheet('fresh.csv', nativeRows(shape));
    });

    it('a fresh import creates all three levels with the right parents, codes and externalIds', async () => {
      const handle = await start({ file, profile: 'native' });
      const result = await handle.result();
      expect(result.products).toMatchObject({ total, created: total, updated: 0, unchanged: 0, rejected: 0 });
      expect(result.rejectsFile).toBeNull();

      const style = await product('FRESH-S1');
      const variant = await product('FRESH-S1-C2');
      const sku = await product('FRESH-S1-C2-Z1');
      expect(style).toMatchObject({
        externalId: 'FRESH-S1',
        styleId: null,
        styleTypeId: 'st_tshirts',
        brands: ['prop_brand_nordic'],
      });
      expect(variant).toMatchObject({ externalId: 'FRESH-S1-C2', styleId: style?.id, color: 'Colour 2' });
      expect(sku).toMatchObject({
        externalId: 'FRESH-S1-C2-Z1',
        styleId: style?.id,
        variantId: variant?.id,
        dimension: 'Size 1',
        weight: { unit: 'GRAM', value: 160 },
      });
      expect(sku?.codes).toEqual([{ codeId: 'PLM_ID', codeValue: 'FRESH-S1-C2-Z1' }]);
      expect(await productsWithPrefix('FRESH')).toHaveLength(total);

      // Findable and readable from the Web UI: search attributes, memo and the progress query.
      const described = await handle.describe();
      expect(described.typedSearchAttributes.get(TraceJob)).toBe('plm-import');
      expect(described.typedSearchAttributes.get(TraceSource)).toBe('fresh.csv');
      expect(described.typedSearchAttributes.get(TraceStatus)).toBe('done');
      expect(await described.memo).toMatchObject({ file, dryRun: false });
      expect(await handle.query(plmImportProgressQuery)).toMatchObject({
        phase: 'done',
        total,
        done: total,
        created: total,
      });
      expect(JSON.parse(readFileSync(result.resultFile, 'utf8'))).toEqual(result);
    });

    it('re-importing the same file writes nothing and reads the catalogue in list pages', async () => {
      const before = snapshot();
      const result = await run({ file, profile: 'native' });
      expect(writesSince(before)).toBe(0);
      expect(result.products).toMatchObject({ created: 0, updated: 0, unchanged: total, rejected: 0 });
      expect(result.apiCalls.apply).toBe(0);
      expect(result.catalogueRead).toMatchObject({ strategy: 'lists', getCalls: 0, listCalls: 3 });
    });

    it('changing a few cells writes exactly those products, and only the changed fields', async () => {
      const rows = nativeRows(shape).map((row) =>
        row.externalId === 'FRESH-S2'
          ? { ...row, description: 'Now in recycled cotton' }
          : row.externalId === 'FRESH-S1-C1-Z2'
            ? { ...row, name: 'Renamed size' }
            : row,
      );
      const before = snapshot();
      const result = await run({ file: await sheet('fresh-changed.csv', rows), profile: 'native' });
      expect(result.products).toMatchObject({ created: 0, updated: 2, unchanged: total - 2, rejected: 0 });
      expect(writesSince(before)).toBe(2);
      expect(await product('FRESH-S2')).toMatchObject({
        description: 'Now in recycled cotton',
        name: 'Tee 2',
      });
      expect(await product('FRESH-S1-C1-Z2')).toMatchObject({ name: 'Renamed size', dimension: 'Size 2' });
      const plan = readFileSync(result.planFile, 'utf8');
      expect(plan).toContain('"externalId":"FRESH-S2","level":"style","action":"update","rows":[');
      expect(plan).toContain('"changedFields":["description"]');
    });
  });

  it('bad rows land in the rejects file with reasons while the good rows are imported; a retry of the fixed rejects completes the catalogue', async () => {
    const rows: NativeRow[] = nativeRows({
      prefix: 'BAD',
      styles: 2,
      coloursPerStyle: 1,
      sizesPerColour: 2,
    }).map((row) => {
      if (row.externalId === 'BAD-S2') return { ...row, styleType: 'T-shirt' }; // near miss of "T-shirts"
      if (row.externalId === 'BAD-S1-C1-Z1') return { ...row, name: '' };
      if (row.externalId === 'BAD-S1-C1-Z2') return { ...row, weightUnit: 'STONES' }; // not in spec 01's UnitEnum
      return row;
    });
    const file = await sheet('bad.csv', rows);
    const first = await start({ file, profile: 'native' });
    const result = await first.result();
    expect(result.products).toMatchObject({ total: 8, created: 2, rejected: 6 });
    expect(await product('BAD-S1')).not.toBeNull();
    expect(await product('BAD-S1-C1')).not.toBeNull();
    expect(await product('BAD-S2')).toBeNull();
    expect(await product('BAD-S1-C1-Z2')).toBeNull();
    expect(result.rejectsFile).toBe(path.join(stack.config.dataDir, 'runs', first.workflowId, 'rejects.csv'));

    const [header, ...rejected] = parseCsv(readFileSync(result.rejectsFile as string, 'utf8'));
    expect(header).toEqual([...NATIVE_HEADER, 'error_code', 'error_message']);
    const reason = (externalId: string) => {
      const line = rejected.find((cells) => cells[0] === externalId);
      return { code: line?.at(-2), message: line?.at(-1) };
    };
    expect(rejected.map((cells) => cells[0])).toEqual([
      'BAD-S1-C1-Z1',
      'BAD-S1-C1-Z2',
      'BAD-S2',
      'BAD-S2-C1',
      'BAD-S2-C1-Z1',
      'BAD-S2-C1-Z2',
    ]);
    expect(reason('BAD-S2')).toMatchObject({
      code: 'unknown_reference',
      message: expect.stringContaining("did you mean 'T-shirts'"),
    });
    expect(reason('BAD-S2-C1').code).toBe('invalid_parent');
    expect(reason('BAD-S1-C1-Z1')).toMatchObject({
      code: 'missing_required',
      message: expect.stringContaining('name'),
    });
    expect(reason('BAD-S1-C1-Z2')).toMatchObject({
      code: 'bad_unit',
      message: expect.stringContaining(
        "weight unit 'STONES' is not one of the API's units; did you mean 'STONE'?",
      ),
    });

    // The operator fixes the rejects file in place, then `trace-sync retry <workflowId>` re-runs it.
    const fixed = readFileSync(result.rejectsFile as string, 'utf8')
      .replace(',T-shirt,', ',T-shirts,')
      .replace('STONES', 'GRAM')
      .replace('BAD-S1-C1,sku,,', 'BAD-S1-C1,sku,Tee 1 colour 1 size 1,');
    await writeFile(result.rejectsFile as string, fixed);
    const retry = await retryPlanFor(stack.client, first.workflowId);
    expect(retry.input).toMatchObject({
      file: result.rejectsFile,
      profile: 'native',
      retryOf: first.workflowId,
    });
    const second = await run(retry.input as PlmImportInput);
    expect(second).toMatchObject({
      retryOf: first.workflowId,
      rejectsFile: null,
      products: { created: 6, rejected: 0 },
    });
    expect((await productsWithPrefix('BAD')).map((item) => item.externalId).sort()).toEqual(
      rows.map((row) => row.externalId).sort(),
    );
    expect(await product('BAD-S1-C1-Z1')).toMatchObject({ name: 'Tee 1 colour 1 size 1' });
  });

  it('a dry run plans and writes nothing', async () => {
    const file = await sheet(
      'dry.csv',
      nativeRows({ prefix: 'DRY', styles: 1, coloursPerStyle: 1, sizesPerColour: 3 }),
    );
    const before = snapshot();
    const result = await run({ file, profile: 'native', dryRun: true });
    expect(writesSince(before)).toBe(0);
    expect(result).toMatchObject({
      dryRun: true,
      rejectsFile: null,
      plan: { create: 5, update: 0, unchanged: 0, invalid: 0 },
      products: { created: 0 },
    });
    const plan = JSON.parse(readFileSync(result.planFile, 'utf8')) as {
      counts: unknown;
      products: Array<{ externalId: string; action: string }>;
    };
    expect(result.planFile).toBe(path.join(stack.config.dataDir, 'runs', result.workflowId, 'plan.json'));
    expect(plan.products.map((entry) => `${entry.action} ${entry.externalId}`)).toContain(
      'create DRY-S1-C1-Z3',
    );
    expect(await productsWithPrefix('DRY')).toEqual([]);
  });

  it('plan.json says why each rejected product is rejected, its parent included, while the rejects file keeps one line per bad row', async () => {
    const file = path.join(dir, 'flat-rejected-parents.csv');
    await writeFile(
      file,
      [
        'Style Number,Style Name,Style Type,Colour Code,Colour,Size,SKU',
        'WHY1,Tee,T-shirt,RED,Red,M,WHY1-RED-M', // unknown style type: the row names its colour and SKU too
        'WHY2,Jeans,T-shirts,IND,Indigo,32,WHY2-IND-32',
        `WHY2,Jeans,T-shirts,IND,Navy,${'9'.repeat(300)},WHY2-IND-34`, // a second colour name, and a size too long
      ].join('\r\n') + '\r\n',
    );
    const result = await run({ file, profile: 'flat', dryRun: true });
    const plan = JSON.parse(readFileSync(result.planFile, 'utf8')) as {
      products: Array<{ externalId: string; action: string; codes?: string[] }>;
    };
    expect(
      plan.products
        .filter((entry) => entry.action === 'invalid')
        .map((entry) => [entry.externalId, entry.codes]),
    ).toEqual([
      ['WHY1', ['unknown_reference']],
      ['WHY1-RED', ['invalid_parent']],
      ['WHY1-RED-M', ['invalid_parent']],
      ['WHY2-IND', ['conflicting_values']],
      ['WHY2-IND-32', ['invalid_parent']],
      ['WHY2-IND-34', ['too_long', 'invalid_parent']],
    ]);
    const [, ...rejected] = parseCsv(readFileSync(result.rejectsFile as string, 'utf8'));
    expect(rejected.map((cells) => [cells[6], cells.at(-2)])).toEqual([
      ['WHY1-RED-M', 'unknown_reference'],
      ['WHY2-IND-32', 'invalid_parent'],
      ['WHY2-IND-34', 'conflicting_values;too_long'],
    ]);
  });

  it("a style whose rows disagree is told in the sheet's names (the style type 'Jackets', the season 'AW25'), not the platform's ids", async () => {
    const file = path.join(dir, 'flat-conflicting-names.csv');
    await writeFile(
      file,
      [
        'Style Number,Style Name,Style Type,Season,Colour Code,Colour,Size,SKU',
        'WORDS1,Tee,T-shirts,SS25,BLK,Black,M,WORDS1-BLK-M',
        'WORDS1,Tee,Jackets,AW25,BLK,Black,L,WORDS1-BLK-L',
      ].join('\r\n') + '\r\n',
    );
    const result = await run({ file, profile: 'flat', dryRun: true });
    const [, ...rejected] = parseCsv(readFileSync(result.rejectsFile as string, 'utf8'));
    const message = rejected.find((cells) => cells[7] === 'WORDS1-BLK-L')?.at(-1) ?? '';
    expect(message).toContain("style 'WORDS1' has the style type 'Jackets' here but 'T-shirts' on row 2");
    expect(message).toContain("has the seasons 'AW25' here but 'SS25' on row 2");
    expect(message).not.toMatch(/st_|prop_/);
  });

  it('a long import crosses continue-as-new and still creates every product exactly once', async () => {
    const shape: SheetShape = { prefix: 'LONG', styles: 6, coloursPerStyle: 2, sizesPerColour: 2 };
    const file = await sheet('long.csv', nativeRows(shape));
    const handle = await start({ file, profile: 'native', batchSize: 3 }, 'plm-import-long');
    const result = await handle.result();
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    const total = productCount(shape);
    expect(result.products).toMatchObject({ total, created: total, rejected: 0 });
    expect(await handle.query(plmImportProgressQuery)).toMatchObject({
      phase: 'done',
      done: total,
      created: total,
    });
    const stored = await productsWithPrefix('LONG');
    expect(stored).toHaveLength(total);
    expect(new Set(stored.map((item) => item.externalId)).size).toBe(total);
  });

  it('converges without duplicates when the API drops connections after committed writes, answers 5xx and 429 bursts', async () => {
    const base = stack.sandbox.baseUrl.replace(/\/api\/v2$/, '');
    const faults = {
      dropAfterCommitRate: 0.3,
      serverErrorRate: 0.1,
      burst429: 5,
      methods: ['POST', 'PUT'],
      seed: 7,
    };
    await fetch(`${base}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(faults),
    });
    try {
      const shape: SheetShape = { prefix: 'FAULTY', styles: 3, coloursPerStyle: 2, sizesPerColour: 2 };
      const result = await run({ file: await sheet('faulty.csv', nativeRows(shape)), profile: 'native' });
      const total = productCount(shape);
      expect(result.products).toMatchObject({ created: total, rejected: 0 });
      expect(result.recovered).toBeGreaterThan(0);
      const stored = await productsWithPrefix('FAULTY');
      expect(stored).toHaveLength(total);
      const injected = (await (await fetch(`${base}/__sandbox/faults`)).json()) as {
        counters: Record<string, number>;
      };
      expect(injected.counters).toMatchObject({ dropped: expect.any(Number), burst429: 5 });
      expect(injected.counters['dropped']).toBeGreaterThan(0);
    } finally {
      await fetch(`${base}/__sandbox/faults`, { method: 'DELETE' });
    }
  });

  it('refuses a bad input naming the field, and a missing file with what to do', async () => {
    await expect(
      run({ file: path.join(dir, 'fresh.csv'), profile: 'nordic' } as unknown as PlmImportInput),
    ).rejects.toMatchObject({
      cause: { message: expect.stringContaining('Invalid plmImport input: profile:') },
    });
    await expect(run({ file: path.join(dir, 'nowhere.csv') })).rejects.toMatchObject({
      cause: { message: expect.stringContaining('nowhere.csv does not exist') },
    });
  });

  it('trace-sync plm-import --wait prints the result and exits 0 even with bad rows', async () => {
    const cli = (...args: string[]) => traceSync(['plm-import', ...args], cliEnv(stack), 90_000);

    const rows = nativeRows({ prefix: 'CLI', styles: 1, coloursPerStyle: 1, sizesPerColour: 2 }).map((row) =>
      row.externalId === 'CLI-S1-C1-Z2' ? { ...row, name: '' } : row,
    );
    const file = await sheet('cli sheet.csv', rows);
    const out = await cli(file, '--profile', 'native', '--wait');
    expect(cliProblems(out.stderr)).toEqual([]);
    expect(out.status).toBe(0);
    expect(out.stderr).toMatch(/Started workflow plm-import-cli_sheet\.csv-\d{4}-\d{2}-\d{2}T/);
    const printed = waitResult<PlmImportResult>(out.stdout);
    expect(printed.products).toMatchObject({ created: 3, rejected: 1 });
    expect(existsSync(printed.rejectsFile as string)).toBe(true);

    const conflicting = await cli(file, '--profile', 'native', '--mapping', file);
    expect(conflicting.status).not.toBe(0);
  });
});
