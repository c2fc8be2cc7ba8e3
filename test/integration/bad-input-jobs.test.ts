import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { z } from 'zod';
import { TraceStatus } from '../../worker/search-attributes';
import { generateCorpus } from '../bad-input/corpus';
import type { TestStack } from '../harness';
import { jobStarters, startJobStack } from './job-stack';

/**
 * Broken files through the real jobs (Temporal dev server + sandbox): each run fails at once with a
 * non-retryable error that says what is wrong, and the platform holds nothing new. Values at the limits and formula
 * text that the jobs take are in hostile-values-jobs.test.ts; the shared setup is job-stack.ts.
 */

const corpus = path.join(__dirname, '..', 'fixtures', 'bad-input');

const stateSchema = z.looseObject({
  catalogue: z.looseObject({ products: z.array(z.looseObject({ id: z.string() })) }),
  orders: z.array(z.looseObject({ id: z.string() })),
});

interface Failed {
  /** What `trace-sync ... --wait` prints after "Workflow <id> failed: " (the workflow failure's cause). */
  shown: string;
  /** The activity's own failure at the bottom of the chain. */
  root: ApplicationFailure;
  ms: number;
  activityAttempts: number;
  /** The run's TraceStatus once it failed. */
  status: string | undefined;
}

describe('broken files through the jobs: a clear, non-retryable failure and nothing written', () => {
  let stack: TestStack;
  let dir: string;

  beforeAll(async () => {
    ({ dir, stack } = await startJobStack('bad-input-jobs-'));
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const platform = async () => {
    const response = await fetch(`${stack.sandbox.url}/__sandbox/state`);
    const state = stateSchema.parse(await response.json());
    return { products: state.catalogue.products.length, orders: state.orders.length };
  };

  /** A copy of a corpus file under a name of our own (the worker reads it from there). */
  const copy = (file: string, as = file): string => {
    const target = path.join(dir, as);
    copyFileSync(path.join(corpus, file), target);
    return target;
  };

  async function failure<W extends Workflow>(handle: WorkflowHandle<W>): Promise<Failed> {
    const started = Date.now();
    try {
      await handle.result();
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw error;
      let root: unknown = error;
      for (let depth = 0; depth < 10 && (root as { cause?: unknown }).cause; depth++)
        root = (root as { cause: unknown }).cause;
      if (!(root instanceof ApplicationFailure)) throw new Error(`unexpected failure chain: ${String(root)}`);
      const history = await handle.fetchHistory();
      const activityAttempts = (history.events ?? []).filter(
        (event) => event.activityTaskStartedEventAttributes,
      ).length;
      return {
        shown: error.cause?.message ?? error.message,
        root,
        ms: Date.now() - started,
        activityAttempts,
        status: (await handle.describe()).typedSearchAttributes.get(TraceStatus),
      };
    }
    throw new Error(`${handle.workflowId} completed; a failure was expected`);
  }

  const { push, importSheet } = jobStarters(() => stack, 'bad');

  describe('erpOrders', () => {
    it.each([
      ['orders-truncated.json', /not valid JSON: Unterminated string/],
      ['binary-named.xlsx', /not an xlsx workbook/],
      ['zip-bomb.xlsx', /would inflate to 300 MB.*split the export or save it as csv/],
      ['empty.csv', /^the csv file is empty \(0 bytes\): no header row\. Export the file again\.$/],
      [
        'header-only.csv',
        /the file has a header row \(row 1\) but no data rows below it; there is nothing to push/,
      ],
      [
        'orders-object-not-array.json',
        /a JSON export must be an array of objects, one per order line, or NDJSON/,
      ],
      ['orders-empty-array.json', /the file has no rows/],
      ['orders-truncated.ndjson', /the file looks cut off: its last line \(line 4\).*Export the file again/],
    ])('%s fails once, non-retryable, naming the problem; no order is written', async (file, reason) => {
      const before = await platform();
      const failed = await failure(await push(copy(file)));
      expect(failed.root).toMatchObject({ nonRetryable: true, message: expect.stringMatching(reason) });
      expect(failed.shown).toMatch(reason);
      expect(failed.activityAttempts).toBe(1);
      expect(failed.ms).toBeLessThan(15_000);
      expect(await platform()).toEqual(before);
    });

    // The workflow wraps the activity's failure (as the PLM import does), so `trace-sync erp-orders --wait` prints
    // the reason rather than "Activity task failed".
    it('the message the CLI shows for a broken export names the problem', async () => {
      const failed = await failure(await push(copy('orders-truncated.json', 'shown.json')));
      expect(failed.shown).toMatch(/^not valid JSON: Unterminated string/);
      expect(failed.shown).not.toMatch(/Activity task failed/);
      expect(failed.root).toMatchObject({ type: 'ExportReadError', nonRetryable: true });
      // A failed run says so in the Web UI's TraceStatus column, rather than `running` for ever.
      expect(failed.status).toBe('failed');
    });

    it('a file the worker cannot find fails at once, saying where it looked and what to check', async () => {
      const missing = path.join(dir, 'no-such-export.csv');
      const before = await platform();
      const failed = await failure(await push(missing));
      expect(failed.root).toMatchObject({ nonRetryable: true, type: 'ExportFileError:file_not_found' });
      expect(failed.shown).toBe(failed.root.message);
      expect(
        failed.shown.startsWith(`the export file ${missing} was not found on the worker. Check the path`),
      ).toBe(true);
      expect(failed.shown).toMatch(/worker's file system/);
      expect(failed.shown).not.toMatch(/ENOENT/);
      expect(failed.activityAttempts).toBe(1);
      expect(await platform()).toEqual(before);
    });

    // Issue 17: a header-only export used to complete here while the PLM import refused it; both refuse it now.
    it('a header-only order export fails once, as a header-only product sheet does, and writes nothing', async () => {
      const file = path.join(dir, 'header-only-orders.csv');
      writeFileSync(
        file,
        'order_number,supplier_code,supplier_facility_process,line_number,product_external_id,quantity,unit\n',
      );
      const before = await platform();
      const failed = await failure(await push(file));
      expect(failed.root).toMatchObject({ nonRetryable: true, type: 'ExportReadError:no_data_rows' });
      expect(failed.shown).toBe(
        'the file has a header row (row 1) but no data rows below it; there is nothing to push.',
      );
      expect(failed.activityAttempts).toBe(1);
      expect(await platform()).toEqual(before);
    });
  });

  describe('plmImport', () => {
    it.each([
      ['binary-named.xlsx', /named \.xlsx but is not an Excel workbook/],
      ['zip-not-xlsx.xlsx', /zip archive but not an Excel workbook/],
      ['zip-bomb.xlsx', /zip bomb/],
      ['empty.csv', /is empty \(0 bytes\)/],
      ['header-only.csv', /header row \(row 1\) but no data rows/],
      ['duplicate-headers.csv', /'name' \(columns B, C\)/],
      ['unknown-delimiter.csv', /is the delimiter one of/],
    ])('%s fails once, non-retryable, naming the problem; no product is written', async (file, reason) => {
      const before = await platform();
      const failed = await failure(await importSheet(copy(file, `plm-${file}`)));
      expect(failed.root).toMatchObject({ nonRetryable: true, message: expect.stringMatching(reason) });
      expect(failed.shown).toMatch(reason);
      expect(failed.activityAttempts).toBe(1);
      expect(failed.ms).toBeLessThan(15_000);
      expect(await platform()).toEqual(before);
    });
  });

  /**
   * Issue 17: the whole corpus (committed small files + the hostile and huge ones generated here) through both jobs.
   * Each run gives one clear answer within a time bound: a non-retryable failure after one attempt with nothing
   * written, or a completed run whose rejected rows carry the reason. Results and failures stay a few KB.
   */
  describe('the bad-input corpus through both jobs', () => {
    type Expected = RegExp | { completes: (result: Record<string, unknown>) => void } | 'any';
    const generated = path.join(tmpdir(), `bad-input-generated-${process.pid}`);
    const generatedFiles = generateCorpus(generated);
    const committed = readdirSync(corpus).sort();
    const lacksOrders = /the export lacks column 'order_number'/;
    const lacksProducts = /the sheet lacks column\(s\) 'externalId'/;
    const headerTooLong =
      /first line \(the header\) is (over )?[\d,]+ bytes long, over the limit of 65,536 bytes for a header/;
    const quote =
      /row 2, column 'order_number': a double quote \("\) opens the cell but is not closed before the cell ends/;
    const rejectedWith = (count: number, reason: RegExp) => ({
      completes: (result: Record<string, unknown>) => {
        expect(JSON.stringify(result)).toMatch(reason);
        expect(result).toMatchObject(
          'orders' in result ? { orders: { rejected: count } } : { products: { rejected: count } },
        );
      },
    });
    /** [erp, plm] per file; committed files the unit tests pin down closely just have to give a clear answer here. */
    const EXPECTED: Record<string, [Expected, Expected]> = {
      // The push refuses a repeated name only among the profile's columns: these files lack the columns it reads.
      'gen-header-1500-repeated-note.csv': [
        /the export lacks column 'quantity'.*its columns are: externalId, order_number, name, note, note \(column E\),.* and [\d,]+ more$/,
        /names the same column more than once: 'note' \(columns D, E, F, G, H and 1,495 more\)/,
      ],
      'gen-header-30000-repeated-note.csv': [headerTooLong, headerTooLong],
      'gen-10mb-of-y-comma.csv': [headerTooLong, headerTooLong],
      'gen-one-10mb-line.csv': [headerTooLong, headerTooLong],
      'gen-2500-columns.csv': [
        /header row 1 has 2,500 columns, over the limit of 2,000 columns/,
        /header row 1 has 2,500 columns/,
      ],
      'gen-duplicate-order-columns.csv': [/'quantity' \(columns G, I\)/, /'quantity' \(columns G, I\)/],
      'gen-3mb-order-number-line.csv': [
        /line 2 of the csv file is over [\d,]+ bytes long, over the limit of 1,048,576 bytes for a line/,
        /line 2 of the csv file is over [\d,]+ bytes long, over the limit of 1,048,576 bytes for a line/,
      ],
      'gen-40k-char-cell.csv': [
        /row 2, column 'order_number' holds 40,003 characters, over the limit of 32,767 characters in a cell/,
        /row 2, column 'order_number' holds 40,003 characters, over the limit of 32,767 characters in a cell/,
      ],
      'gen-40k-char-cell.xlsx': [
        /row 2, column 'order_number' holds 40,003 characters, over the limit of 32,767/,
        /row 2, column 'order_number' holds 40,003 characters, over the limit of 32,767/,
      ],
      'gen-500k-quoted-line-breaks.csv': [
        /row 2, column 'order_number' holds 500,000 characters/,
        /row 2, column 'order_number' holds 500,000 characters/,
      ],
      'gen-3mb-order-number.json': [/row 1, column 'order_number' holds 3,145,728 characters/, headerTooLong],
      'gen-unbalanced-quote.csv': [quote, quote],
      'gen-quote-swallows-next-row.csv': [quote, quote],
      'gen-nul-in-order-number.csv': [
        /holds a NUL byte \(code 0\) on line 2/,
        /holds a NUL byte \(code 0\) on line 2/,
      ],
      'gen-utf16-without-bom.csv': [
        /holds a NUL byte \(code 0\) on line 1/,
        /holds a NUL byte \(code 0\) on line 1/,
      ],
      'gen-nul-in-order-number.json': [
        rejectedWith(1, /#NUL \(the text holds a NUL character, code 0\)/),
        'any',
      ],
      'gen-formula-without-value-orders.xlsx': [
        rejectedWith(1, /#UNCALCULATED \(the formula =SUM\(Z1:Z3\) has no saved result/),
        lacksProducts,
      ],
      'gen-formula-without-value-products.xlsx': [
        lacksOrders,
        rejectedWith(1, /#UNCALCULATED \(the formula =CONCAT\(\\"Tee \\", A2\) has no saved result/),
      ],
      'gen-formulas-never-calculated-orders.xlsx': [
        /^sheet 'Sheet1' holds formulas with no saved results \(the first, cell A2: ="PO-BADIN-NC1"\), so the rows below the header \(row 1\) read as blank; there is nothing to push\. If a program wrote the file without calculating its formulas, open it in a spreadsheet program \(Excel, LibreOffice\) and save it, or export values rather than formulas, and re-run; if the formulas give blanks, the sheet has no data yet\.$/,
        lacksProducts,
      ],
      'gen-formulas-never-calculated-products.xlsx': [
        lacksOrders,
        /: sheet 'Sheet1' holds formulas with no saved results \(the first, cell A4: ="BADIN-NC1"\), so the rows below the header \(row 3\) read as blank; there is nothing to import\. If a program wrote the file without calculating its formulas, open it in a spreadsheet program/,
      ],
      'gen-password-protected.xlsx': [/password-protected \(encrypted\)/, /password-protected \(encrypted\)/],
      'gen-3000-columns.xlsx': [/header row 1 has 3,000 columns/, /header row 1 has 3,000 columns/],
      'gen-heavy-workbook.xlsx': [lacksOrders, lacksProducts],
      'gen-1000002-rows.csv': [/more than 1,000,000 data rows/, /more than 1,000,000 data rows/],
      'gen-101mb-sparse.csv': [
        /105,906,176 bytes, over the limit of 104,857,600 bytes/,
        /105,906,176 bytes, over the limit of 104,857,600 bytes/,
      ],
      'gen-deep-nesting.json': [/none of the file's 1 rows could be read/, headerTooLong],
      'duplicate-headers.csv': [lacksOrders, /'name' \(columns B, C\)/],
      'duplicate-headers.xlsx': [lacksOrders, /'color' \(columns B, D\)/],
      'header-only.csv': [/header row \(row 1\) but no data rows/, /header row \(row 1\) but no data rows/],
      'header-only.xlsx': [/header row \(row 1\) but no data rows/, /header row \(row 1\) but no data rows/],
    };
    const cases = [
      ...generatedFiles.map((file) => ({ file, from: generated })),
      ...committed.map((file) => ({ file, from: corpus })),
    ].flatMap(({ file, from }) =>
      (['erp', 'plm'] as const).map((job) => ({ name: `${job} ${file}`, file, from, job })),
    );

    it('holds at least 30 files, generated ones included', () => {
      expect(generatedFiles.length + committed.length).toBeGreaterThanOrEqual(30);
      expect(generatedFiles.length).toBeGreaterThanOrEqual(20);
    });

    it.each(cases)('$name: one clear answer, in bounded time and size', async ({ file, from, job }) => {
      const expected = EXPECTED[file]?.[job === 'erp' ? 0 : 1] ?? 'any';
      const target = path.join(dir, `${job}-${file}`);
      copyFileSync(path.join(from, file), target);
      const before = await platform();
      const started = Date.now();
      const handle = job === 'erp' ? await push(target) : await importSheet(target);
      let outcome: { failed: Failed } | { result: Record<string, unknown> };
      try {
        outcome = { result: (await handle.result()) as unknown as Record<string, unknown> };
      } catch {
        outcome = { failed: await failure(handle) };
      }
      const ms = Date.now() - started;
      expect(ms).toBeLessThan(file === 'gen-heavy-workbook.xlsx' ? 90_000 : 30_000);
      if ('failed' in outcome) {
        const { failed } = outcome;
        if (expected !== 'any' && !(expected instanceof RegExp))
          throw new Error(`${file} failed: ${failed.shown}`);
        expect(failed.root.nonRetryable).toBe(true);
        expect(failed.activityAttempts).toBe(1);
        expect(failed.shown.length).toBeLessThan(2_100);
        if (expected instanceof RegExp) expect(failed.shown).toMatch(expected);
        expect(await platform()).toEqual(before);
      } else {
        if (expected instanceof RegExp) throw new Error(`${file} completed; expected ${expected}`);
        expect(JSON.stringify(outcome.result).length).toBeLessThan(20_000);
        if (expected !== 'any') expected.completes(outcome.result);
      }
    });
  });
});
